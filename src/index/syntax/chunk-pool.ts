// Chunks files on worker threads: bulk chunking (benchmarks, the property test, later the
// semantic index) uses every core, a 10 MB file does not stall the daemon, and a grammar that traps
// inside wasm takes down only its worker (the file's promise rejects; a fresh worker takes the
// next job). Workers start lazily and stop after a minute idle, all but one after 3 s (base/worker-pool.ts).
import os from 'node:os';
import { jobWorkerYoungGenerationMb, WorkerPool } from '../../base/worker-pool.js';
import type { ChunkOptions, FileChunks } from './chunk.js';
import type { ChunkCounts, ChunkJob, ChunkReply, ParseSummary } from './chunk-worker.js';
import type { FileTags } from './tags.js';

export class ChunkFileError extends Error {
  readonly code: string | undefined;
  constructor(message: string, code?: string) {
    super(message);
    this.name = 'ChunkFileError';
    this.code = code;
  }
}

export interface ChunkRequest {
  path: string;
  absolutePath?: string;
  bytes?: Uint8Array;
  language?: string;
  options?: ChunkOptions;
  /** For tags(): definitions only. */
  definitionsOnly?: boolean;
}

export class ChunkPool {
  private readonly pool: WorkerPool<ChunkJob, ChunkReply>;

  constructor(readonly size: number = Math.max(1, Math.min(os.availableParallelism(), 4))) {
    this.pool = new WorkerPool(new URL('./chunk-worker.js', import.meta.url), size, 'chunk', { youngGenerationMb: jobWorkerYoungGenerationMb });
  }

  /** Chunks one file (read by the worker from `absolutePath ?? path` unless `bytes` are given). */
  async chunk(request: ChunkRequest): Promise<FileChunks> {
    const reply = await this.submit('chunk', request);
    if ('result' in reply) return reply.result;
    throw new ChunkFileError('error' in reply ? reply.error : 'unexpected reply', 'error' in reply ? reply.code : undefined);
  }

  /** Definitions and references of one file (tags.scm). */
  async tags(request: ChunkRequest): Promise<FileTags> {
    const reply = await this.submit('tags', request);
    if ('tags' in reply) return reply.tags;
    throw new ChunkFileError('error' in reply ? reply.error : 'unexpected reply', 'error' in reply ? reply.code : undefined);
  }

  /** Chunks one file and answers only counts, with the worker's time on it (for benchmarks). */
  async count(request: ChunkRequest): Promise<ChunkCounts & { elapsedMs: number }> {
    const reply = await this.submit('count', request);
    if ('counted' in reply) return { ...reply.counted, elapsedMs: reply.elapsedMs ?? 0 };
    throw new ChunkFileError('error' in reply ? reply.error : 'unexpected reply', 'error' in reply ? reply.code : undefined);
  }

  /** Parses only (the baseline chunking is measured against), with the worker's time on it. */
  async parse(request: ChunkRequest): Promise<ParseSummary & { elapsedMs: number }> {
    const reply = await this.submit('parse', request);
    if ('parsed' in reply) return { ...reply.parsed, elapsedMs: reply.elapsedMs ?? 0 };
    throw new ChunkFileError('error' in reply ? reply.error : 'unexpected reply', 'error' in reply ? reply.code : undefined);
  }

  private submit(kind: ChunkJob['kind'], request: ChunkRequest): Promise<ChunkReply> {
    return this.pool.run({
      kind,
      path: request.path,
      options: request.options ?? {},
      ...(request.absolutePath === undefined ? {} : { absolutePath: request.absolutePath }),
      ...(request.bytes === undefined ? {} : { bytes: request.bytes }),
      ...(request.language === undefined ? {} : { language: request.language }),
      ...(request.definitionsOnly ? { definitionsOnly: true } : {}),
    });
  }

  /** Stops idle workers; busy ones finish their file first. */
  close(): void {
    this.pool.close();
  }
}
