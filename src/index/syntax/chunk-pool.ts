// Chunks files on worker threads: bulk chunking (benchmarks, the property test, later the
// semantic index) uses every core, a 10 MB file does not stall the daemon, and a grammar that traps
// inside wasm takes down only its worker (the file's promise rejects; a fresh worker takes the
// next job). Workers start lazily and stop after a minute idle.
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ChunkOptions, FileChunks } from './chunk.js';
import type { ChunkJob, ChunkReply, ParseSummary } from './chunk-worker.js';

const idleMs = 60_000;

export class ChunkFileError extends Error {
  readonly code: string | undefined;
  constructor(message: string, code?: string) {
    super(message);
    this.name = 'ChunkFileError';
    this.code = code;
  }
}

interface Pending {
  resolve: (reply: ChunkReply) => void;
  reject: (error: Error) => void;
}

export interface ChunkRequest {
  path: string;
  absolutePath?: string;
  bytes?: Uint8Array;
  language?: string;
  options?: ChunkOptions;
}

export class ChunkPool {
  private readonly workers: Worker[] = [];
  private readonly idle: Worker[] = [];
  private readonly queue: ChunkJob[] = [];
  private readonly pending = new Map<number, Pending>();
  private readonly busy = new Map<Worker, number>();
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(readonly size: number = Math.max(1, Math.min(os.availableParallelism(), 4))) {}

  /** Chunks one file (read by the worker from `absolutePath ?? path` unless `bytes` are given). */
  async chunk(request: ChunkRequest): Promise<FileChunks> {
    const reply = await this.submit('chunk', request);
    if ('result' in reply) return reply.result;
    throw new ChunkFileError('error' in reply ? reply.error : 'unexpected reply', 'error' in reply ? reply.code : undefined);
  }

  /** Parses only (the baseline chunking is measured against). */
  async parse(request: ChunkRequest): Promise<ParseSummary> {
    const reply = await this.submit('parse', request);
    if ('parsed' in reply) return reply.parsed;
    throw new ChunkFileError('error' in reply ? reply.error : 'unexpected reply', 'error' in reply ? reply.code : undefined);
  }

  private submit(kind: ChunkJob['kind'], request: ChunkRequest): Promise<ChunkReply> {
    const id = this.nextId++;
    const job: ChunkJob = { id, kind, path: request.path, options: request.options ?? {} };
    if (request.absolutePath !== undefined) job.absolutePath = request.absolutePath;
    if (request.bytes !== undefined) job.bytes = request.bytes;
    if (request.language !== undefined) job.language = request.language;
    const promise = new Promise<ChunkReply>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.queue.push(job);
    this.pump();
    return promise;
  }

  private pump(): void {
    clearTimeout(this.idleTimer);
    while (this.queue.length > 0) {
      const worker = this.idle.pop() ?? this.start();
      if (!worker) return;
      const job = this.queue.shift()!;
      this.busy.set(worker, job.id);
      worker.ref();
      worker.postMessage(job);
    }
    if (this.busy.size === 0) this.idleTimer = setTimeout(() => this.close(), idleMs).unref();
  }

  private start(): Worker | undefined {
    if (this.workers.length >= this.size) return undefined;
    const worker = new Worker(new URL('./chunk-worker.js', import.meta.url));
    worker.on('message', (reply: ChunkReply) => {
      worker.unref();
      this.busy.delete(worker);
      this.idle.push(worker);
      const waiter = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      waiter?.resolve(reply);
      this.pump();
    });
    worker.on('error', (error) => this.fail(worker, error));
    worker.on('exit', (code) => {
      if (this.busy.has(worker)) this.fail(worker, new Error(`chunk worker exited with code ${code}`));
      this.forget(worker);
      this.pump();
    });
    worker.unref();
    this.workers.push(worker);
    return worker;
  }

  private fail(worker: Worker, error: Error): void {
    const id = this.busy.get(worker);
    this.forget(worker);
    if (id !== undefined) {
      this.pending.get(id)?.reject(error);
      this.pending.delete(id);
    }
    this.pump();
  }

  private forget(worker: Worker): void {
    this.busy.delete(worker);
    const index = this.workers.indexOf(worker);
    if (index >= 0) this.workers.splice(index, 1);
    const idleIndex = this.idle.indexOf(worker);
    if (idleIndex >= 0) this.idle.splice(idleIndex, 1);
  }

  /** Stops idle workers; busy ones finish their file first. */
  close(): void {
    clearTimeout(this.idleTimer);
    for (const worker of [...this.idle]) {
      this.forget(worker);
      void worker.terminate();
    }
  }
}
