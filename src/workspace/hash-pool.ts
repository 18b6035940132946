// A small pool of worker threads that stat, read and hash files in batches (or only stat known
// files, answering a byte each). The scanner feeds it
// while it walks; `inspect` resolves with one outcome per file, in order. Workers are started lazily and
// stopped after a short idle time so an idle daemon holds no threads (base/worker-pool.ts).
import os from 'node:os';
import { batchPoolIdleMs, jobWorkerYoungGenerationMb, WorkerPool } from '../base/worker-pool.js';
import type { FileCheck, FileOutcome } from './file-content.js';
import type { HashJob, HashReply } from './hash-worker.js';

export class HashPool {
  private readonly pool: WorkerPool<HashJob, HashReply>;

  constructor(size: number = Math.max(1, Math.min(os.availableParallelism(), 4))) {
    this.pool = new WorkerPool(new URL('./hash-worker.js', import.meta.url), size, 'hash', {
      idleMs: batchPoolIdleMs,
      youngGenerationMb: jobWorkerYoungGenerationMb,
    });
  }

  /** Inspects files in a worker; resolves with one outcome per check, in order. */
  async inspect(checks: FileCheck[], maxFileBytes: number): Promise<FileOutcome[]> {
    return (await this.pool.run({ checks, maxFileBytes })).outcomes!;
  }

  /**
   * Whether each known file's lstat still matches (1) or not (0: changed, gone, or no longer a
   * regular file): `paths` joined by NUL, `known` (size, mtime, inode) a file.
   */
  async statSame(paths: string, known: Float64Array): Promise<Uint8Array> {
    return (await this.pool.run({ paths, known })).same!;
  }

  /** Starts every worker now (they take ~50 ms to boot), so a large scan finds them ready. */
  warm(): void {
    this.pool.warm();
  }

  /** Stops idle workers; busy ones finish their batch first. */
  close(): void {
    this.pool.close();
  }
}
