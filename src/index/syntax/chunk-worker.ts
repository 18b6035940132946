// Worker thread for chunk-pool.ts: reads a file (or takes bytes), chunks (or tags) it, answers. Each worker
// loads its own grammars (web-tree-sitter state is per thread). After a WebAssembly trap the
// worker answers the error and exits, so a grammar that crashed cannot poison later files; the
// pool starts a fresh worker. A worker that chunked a large file ends too (base/file-job-worker.ts).
import { serveFileJobs } from '../../base/file-job-worker.js';
import type { ChunkOptions, FileChunks } from './chunk.js';
import { chunkFile } from './chunk-file.js';
import { GrammarSet, parseSource } from './grammars.js';
import { SourceText } from './source-text.js';
import { type FileTags, tagFile } from './tags.js';

export interface ChunkJob {
  id: number;
  /**
   * 'chunk': the chunks; 'count': chunk, but answer only counts (benchmarks: the cost of chunking
   * without shipping the texts to the main thread); 'parse': parse only (the baseline); 'tags':
   * definitions and references (tags.scm).
   */
  kind: 'chunk' | 'count' | 'parse' | 'tags';
  /** Shown in headers and used for language detection. */
  path: string;
  /** Read this file when `bytes` is absent. */
  absolutePath?: string;
  bytes?: Uint8Array;
  language?: string;
  options: ChunkOptions;
  /** For 'tags': definitions only. */
  definitionsOnly?: boolean;
}

export interface ParseSummary {
  byteLength: number;
  language: string | undefined;
  hasError: boolean;
  nodes: number;
}

export interface ChunkCounts {
  byteLength: number;
  chunks: number;
  oversized: number;
}

export type ChunkReply = (
  { result: FileChunks } | { parsed: ParseSummary } | { counted: ChunkCounts } | { tags: FileTags } | { error: string; code?: string }
) & {
  id: number;
  retire?: boolean;
  /** Time the worker spent on the job after reading the file (benchmarks sum it per core). */
  elapsedMs?: number;
};

const grammars = new GrammarSet();

async function bareParse(job: ChunkJob, bytes: Uint8Array): Promise<ParseSummary> {
  const spec = job.language !== undefined ? grammars.table.languages.get(job.language) : grammars.table.detect(job.path, bytes.subarray(0, 256));
  if (!spec) return { byteLength: bytes.length, language: undefined, hasError: false, nodes: 0 };
  const state = await grammars.load(spec.id);
  if (state.state === 'failed') return { byteLength: bytes.length, language: spec.id, hasError: true, nodes: 0 };
  const tree = parseSource(grammars, state.grammar, new SourceText(bytes), { timeoutMs: job.options.parseTimeoutMs });
  if (!tree) return { byteLength: bytes.length, language: spec.id, hasError: true, nodes: 0 };
  try {
    return { byteLength: bytes.length, language: spec.id, hasError: tree.rootNode.hasError, nodes: tree.rootNode.descendantCount };
  } finally {
    tree.delete();
  }
}

serveFileJobs<ChunkJob>(async (job, bytes) => {
  const started = performance.now();
  let body: object;
  if (job.kind === 'parse') body = { parsed: await bareParse(job, bytes) };
  else if (job.kind === 'tags')
    body = {
      tags: await tagFile(grammars, {
        path: job.path,
        bytes,
        definitionsOnly: job.definitionsOnly === true,
        ...(job.language === undefined ? {} : { language: job.language }),
      }),
    };
  else {
    const result = await chunkFile(grammars, { path: job.path, bytes, ...(job.language === undefined ? {} : { language: job.language }) }, job.options);
    body =
      job.kind === 'count'
        ? { counted: { byteLength: result.byteLength, chunks: result.chunks.length, oversized: result.chunks.filter((chunk) => chunk.oversized).length } }
        : { result };
  }
  return { ...body, elapsedMs: performance.now() - started };
});
