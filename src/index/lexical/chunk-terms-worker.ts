// Worker thread for chunk-terms-pool.ts: reads a file (or takes a buffer's bytes), chunks it with
// the syntax chunker and answers each chunk's fields and terms (chunk-fields.ts), so the daemon's
// thread only interns terms. Like the chunk worker, it loads its own grammars, answers and exits
// after a WebAssembly trap, and retires after a file over 2 MB (wasm memory never shrinks).
import fs from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { chunkFile } from '../syntax/chunk-file.js';
import { GrammarSet } from '../syntax/grammars.js';
import { type ChunkTerms, chunkTerms } from './chunk-fields.js';

export interface ChunkTermsJob {
  id: number;
  /** Relative path: shown in headers, used for the language and the path field. */
  path: string;
  absolutePath?: string;
  bytes?: Uint8Array;
  budgetBytes?: number;
}

export interface FileTerms {
  language: string | undefined;
  byteLength: number;
  chunks: ChunkTerms[];
}

export type ChunkTermsReply = ({ file: FileTerms } | { error: string; code?: string }) & { id: number; retire?: boolean };

const grammars = new GrammarSet();
const recycleAfterBytes = 2_000_000;

parentPort!.on('message', (job: ChunkTermsJob) => {
  void (async () => {
    let reply: ChunkTermsReply;
    let trapped = false;
    let size = 0;
    try {
      const bytes = job.bytes ?? fs.readFileSync(job.absolutePath ?? job.path);
      size = bytes.length;
      const chunked = await chunkFile(grammars, { path: job.path, bytes }, job.budgetBytes === undefined ? {} : { budgetBytes: job.budgetBytes });
      reply = { id: job.id, file: { language: chunked.language, byteLength: chunked.byteLength, chunks: chunkTerms(job.path, chunked.language, chunked.chunks) } };
    } catch (error) {
      trapped = error instanceof Error && error.constructor.name === 'RuntimeError'; // a WebAssembly trap
      reply = { id: job.id, error: error instanceof Error ? error.message : String(error), ...((error as NodeJS.ErrnoException).code ? { code: (error as NodeJS.ErrnoException).code } : {}) };
    }
    if (size > recycleAfterBytes) reply.retire = true;
    parentPort!.postMessage(reply);
    if (trapped) process.exit(1);
  })();
});
