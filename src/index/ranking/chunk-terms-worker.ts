// Worker thread for chunk-terms-pool.ts: reads a file (or takes a buffer's bytes), chunks it with
// the syntax chunker and answers each chunk's fields and terms (chunk-fields.ts), so the daemon's
// thread only interns terms. Like the chunk worker, it loads its own grammars, answers and exits
// after a WebAssembly trap, and retires after a file over 2 MB (base/file-job-worker.ts).
import { serveFileJobs } from '../../base/file-job-worker.js';
import { chunkFile } from '../syntax/chunk-file.js';
import { GrammarSet } from '../syntax/grammars.js';
import { chunkTerms, type FileChunkTerms } from './chunk-fields.js';

export interface ChunkTermsJob {
  id: number;
  /** Relative path: shown in headers, used for the language and the path field. */
  path: string;
  absolutePath?: string;
  bytes?: Uint8Array;
  budgetBytes?: number;
}

export interface FileTerms extends FileChunkTerms {
  language: string | undefined;
  byteLength: number;
}

export type ChunkTermsReply = ({ file: FileTerms } | { error: string; code?: string }) & { id: number; retire?: boolean };

const grammars = new GrammarSet();

serveFileJobs<ChunkTermsJob>(async (job, bytes) => {
  const chunked = await chunkFile(grammars, { path: job.path, bytes }, job.budgetBytes === undefined ? {} : { budgetBytes: job.budgetBytes });
  return { file: { language: chunked.language, byteLength: chunked.byteLength, ...chunkTerms(job.path, chunked.language, chunked.chunks) } };
});
