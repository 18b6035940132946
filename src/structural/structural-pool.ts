// Structural matching on worker threads: every core parses, a large file does not stall the
// daemon, and a grammar that traps inside wasm takes down only its worker. Lazy, idle-stopping
// (base/worker-pool.ts, after 5 minutes: the workers keep trees); a file prefers one worker, which
// keeps it decoded, and its tree when parsed whole, between searches.
import os from 'node:os';
import { WorkerPool } from '../base/worker-pool.js';
import type { FileMatch } from './find.js';
import type { StructuralJob, StructuralReply } from './structural-worker.js';

export class StructuralFileError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'StructuralFileError';
  }
}

/** One file to search: a job without its id. */
export type StructuralFileRequest = Omit<StructuralJob, 'id'>;

export interface StructuralPoolOptions {
  /** Worker threads (default: the cores, at most 4). */
  size?: number;
  /** Estimated bytes of syntax trees each worker keeps between searches (default 96 MiB; 0: none). */
  treeCacheBytes?: number;
}

/** What a structural worker gets as its workerData. */
export interface StructuralWorkerData {
  treeCacheBytes: number;
}

/** Workers stop after this long without a job (they hold trees worth keeping between an agent's searches). */
const idleMs = 5 * 60_000;

export class StructuralPool {
  private readonly pool: WorkerPool<StructuralJob, StructuralReply>;
  readonly size: number;

  constructor(options: StructuralPoolOptions = {}) {
    this.size = options.size ?? Math.max(1, Math.min(os.availableParallelism(), 4));
    const workerData: StructuralWorkerData = { treeCacheBytes: options.treeCacheBytes ?? 96 * 2 ** 20 };
    // Two jobs in flight a worker: the next file waits in its queue, not for this thread.
    this.pool = new WorkerPool(new URL('./structural-worker.js', import.meta.url), this.size, 'structural', idleMs, workerData, 2);
  }

  /**
   * The matches in one file; `parsed` is false when its bytes lacked a literal (no parse); `hash` of
   * the bytes matched. A file read from disk goes to the same worker when it is free: the worker
   * keeps it decoded, with its regions, for the next search.
   */
  async search(request: StructuralFileRequest): Promise<{ matches: FileMatch[]; parsed: boolean; reused: boolean; hash?: string }> {
    const reply = await this.pool.run(request, request.text === undefined ? pathHash(request.absolutePath ?? request.path) : undefined);
    if ('matches' in reply) return { matches: reply.matches, parsed: reply.parsed, reused: reply.reused === true, ...(reply.hash ? { hash: reply.hash } : {}) };
    throw new StructuralFileError(reply.error, reply.code);
  }

  warm(): void {
    this.pool.warm();
  }

  close(): void {
    this.pool.close();
  }
}

/** FNV-1a of a path's UTF-16 code units: which worker a file prefers. */
function pathHash(path: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < path.length; index++) hash = Math.imul(hash ^ path.charCodeAt(index), 0x01000193);
  return hash >>> 0;
}
