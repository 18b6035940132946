// Structural matching on worker threads: every core parses, a large file does not stall the
// daemon, and a grammar that traps inside wasm takes down only its worker. Lazy, idle-stopping
// (base/worker-pool.ts, after 5 minutes: the workers keep trees); a file prefers one worker, which
// keeps it decoded, and its tree when parsed whole, between searches. With a tree store
// (index/syntax/tree-store.ts) the workers also write every tree they parse whole to disk and
// match on the stored ones; the pool keeps the store under its budget (a trim after each eighth of
// the budget written, and once at the first search).
import os from 'node:os';
import { log } from '../base/logger.js';
import { WorkerPool } from '../base/worker-pool.js';
import { TreeStore } from '../index/syntax/tree-store.js';
import type { FileMatch } from './find.js';
import type { StructuralJob, StructuralReply, StructuralSearchJob } from './structural-worker.js';

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
export type StructuralFileRequest = Omit<StructuralSearchJob, 'id'>;

export interface StructuralPoolOptions {
  /** Worker threads (default: the cores, at most 4). */
  size?: number;
  /** Estimated bytes of syntax trees each worker keeps between searches (default 96 MiB; 0: none). */
  treeCacheBytes?: number;
  /** Flat trees on disk: the folder and the bytes it may hold (none without it). */
  treeStore?: { folder: string; maxBytes: number };
}

/** What a structural worker gets as its workerData. */
export interface StructuralWorkerData {
  treeCacheBytes: number;
  /** The tree store's folder, when there is one. */
  treeStoreFolder?: string;
}

/** Workers stop after this long without a job (they hold trees worth keeping between an agent's searches). */
const idleMs = 5 * 60_000;

export class StructuralPool {
  private readonly pool: WorkerPool<StructuralJob, StructuralReply>;
  readonly size: number;

  private readonly store: { store: TreeStore; maxBytes: number } | undefined;
  /** Bytes the workers wrote to the store since the last trim (Infinity: none yet). */
  private written = Number.POSITIVE_INFINITY;
  private trimming: Promise<void> | undefined;

  constructor(options: StructuralPoolOptions = {}) {
    this.size = options.size ?? Math.max(1, Math.min(os.availableParallelism(), 4));
    this.store = options.treeStore ? { store: new TreeStore(options.treeStore.folder), maxBytes: options.treeStore.maxBytes } : undefined;
    const workerData: StructuralWorkerData = {
      treeCacheBytes: options.treeCacheBytes ?? 96 * 2 ** 20,
      ...(options.treeStore ? { treeStoreFolder: options.treeStore.folder } : {}),
    };
    // Two jobs in flight a worker: the next file waits in its queue, not for this thread.
    this.pool = new WorkerPool(new URL('./structural-worker.js', import.meta.url), this.size, 'structural', {
      idleMs,
      spareIdleMs: idleMs,
      workerData,
      depth: 2,
    });
  }

  /**
   * The matches in one file; `parsed` is false when its bytes lacked a literal (no parse); `hash` of
   * the bytes matched. A file read from disk goes to the same worker when it is free: the worker
   * keeps it decoded, with its regions, for the next search.
   */
  async search(request: StructuralFileRequest): Promise<{ matches: FileMatch[]; parsed: boolean; reused: boolean; hash?: string }> {
    const reply = await this.pool.run(request, request.text === undefined ? pathHash(request.absolutePath ?? request.path) : undefined);
    if ('matches' in reply && (reply.stored || this.written === Number.POSITIVE_INFINITY)) this.noteStored(reply.stored ?? 0);
    if ('error' in reply) throw new StructuralFileError(reply.error, reply.code);
    if ('matches' in reply) return { matches: reply.matches, parsed: reply.parsed, reused: reply.reused === true, ...(reply.hash ? { hash: reply.hash } : {}) };
    throw new StructuralFileError('a search job was answered as a store job', undefined);
  }

  /**
   * Puts a file's tree in the tree store unless it is there (parsed whole on a worker); `stored`:
   * the bytes written. Without a store, nothing.
   */
  async storeTree(request: { language: string; path: string; absolutePath: string }): Promise<{ stored: number; parsed: boolean }> {
    if (!this.store) return { stored: 0, parsed: false };
    const reply = await this.pool.run({ kind: 'store', ...request }, pathHash(request.absolutePath));
    if ('error' in reply) throw new StructuralFileError(reply.error, reply.code);
    if (!('matches' in reply)) {
      if (reply.stored || this.written === Number.POSITIVE_INFINITY) this.noteStored(reply.stored);
      return { stored: reply.stored, parsed: reply.parsed };
    }
    return { stored: 0, parsed: false };
  }

  /** Whether the workers write trees to a store. */
  get storing(): boolean {
    return this.store !== undefined;
  }

  warm(): void {
    this.pool.warm();
  }

  /** The tree store's folder, when trees are stored (other workers write there too: the engine's syntax pass). */
  get treeStoreFolder(): string | undefined {
    return this.store?.store.folder;
  }

  /** Counts bytes written to the store (by these workers or others); past an eighth of its budget (or at first) it is trimmed, in the background. */
  noteStored(bytes: number): void {
    if (!this.store) return;
    this.written += bytes;
    if (this.trimming || this.written < this.store.maxBytes / 8) return;
    this.written = 0;
    const { store, maxBytes } = this.store;
    this.trimming = store
      .trim(maxBytes)
      .then(
        () => undefined,
        (error: unknown) => log.warn(`tree store: trim failed: ${error instanceof Error ? error.message : String(error)}`),
      )
      .finally(() => {
        this.trimming = undefined;
      });
  }

  /** Waits for a trim under way (tests, shutdown). */
  async settled(): Promise<void> {
    await this.trimming;
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
