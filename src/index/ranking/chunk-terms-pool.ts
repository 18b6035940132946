// Chunks and tokenises files for the chunk ranking on worker threads (chunk-terms-worker.ts), so
// a build uses every core and a grammar that traps takes down only its worker. Workers start
// lazily and stop after a minute idle, all but one after 3 s (base/worker-pool.ts).
import os from 'node:os';
import { jobWorkerYoungGenerationMb, WorkerPool } from '../../base/worker-pool.js';
import type { ChunkTermsJob, ChunkTermsReply, FileTerms } from './chunk-terms-worker.js';

export class ChunkTermsError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'ChunkTermsError';
  }
}

export class ChunkTermsPool {
  private readonly pool: WorkerPool<ChunkTermsJob, ChunkTermsReply>;

  constructor(readonly size: number = Math.max(1, Math.min(os.availableParallelism(), 4))) {
    this.pool = new WorkerPool(new URL('./chunk-terms-worker.js', import.meta.url), size, 'chunk terms', { youngGenerationMb: jobWorkerYoungGenerationMb });
  }

  /** One file's chunks with their terms (read from `absolutePath` unless `bytes` are given). */
  async terms(job: Omit<ChunkTermsJob, 'id'>): Promise<FileTerms> {
    const reply = await this.pool.run(job);
    if ('file' in reply) return reply.file;
    throw new ChunkTermsError(reply.error, reply.code);
  }

  close(): void {
    this.pool.close();
  }
}
