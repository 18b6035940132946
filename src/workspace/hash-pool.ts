// A small pool of worker threads that stat, read and hash files in batches. The scanner feeds it
// while it walks; `inspect` resolves with one outcome per file, in order. Workers are started lazily and
// stopped after a short idle time so an idle daemon holds no threads.
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { FileCheck, FileOutcome } from './file-content.js';
import type { HashJob, HashReply } from './hash-worker.js';

/** Idle workers stop after this long, so an idle daemon holds no threads. */
const idleMs = 60_000;

interface Pending {
  resolve: (outcomes: FileOutcome[]) => void;
  reject: (error: Error) => void;
}

export class HashPool {
  private readonly workers: Worker[] = [];
  private readonly idle: Worker[] = [];
  private readonly queue: HashJob[] = [];
  private readonly pending = new Map<number, Pending>();
  private readonly busy = new Map<Worker, number>();
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(private readonly size: number = Math.max(1, Math.min(os.availableParallelism(), 4))) {}

  /** Inspects files in a worker; resolves with one outcome per check, in order. */
  inspect(checks: FileCheck[], maxFileBytes: number): Promise<FileOutcome[]> {
    const id = this.nextId++;
    const job: HashJob = { id, checks, maxFileBytes };
    const promise = new Promise<FileOutcome[]>((resolve, reject) => this.pending.set(id, { resolve, reject }));
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
      // A busy worker keeps the process alive (its answer is awaited); an idle one does not.
      worker.ref();
      worker.postMessage(job);
    }
    if (this.busy.size === 0) this.idleTimer = setTimeout(() => this.close(), idleMs).unref();
  }

  /** Starts every worker now (they take ~50 ms to boot), so a large scan finds them ready. */
  warm(): void {
    clearTimeout(this.idleTimer);
    while (this.workers.length < this.size) this.idle.push(this.start()!);
    this.idleTimer = setTimeout(() => this.close(), idleMs).unref();
  }

  private start(): Worker | undefined {
    if (this.workers.length >= this.size) return undefined;
    const worker = new Worker(new URL('./hash-worker.js', import.meta.url));
    worker.on('message', (reply: HashReply) => {
      worker.unref();
      this.busy.delete(worker);
      this.idle.push(worker);
      const waiter = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      waiter?.resolve(reply.outcomes);
      this.pump();
    });
    worker.on('error', (error) => this.fail(worker, error));
    worker.on('exit', (code) => {
      if (this.busy.has(worker)) this.fail(worker, new Error(`hash worker exited with code ${code}`));
      this.forget(worker);
    });
    // After the listeners: attaching a 'message' listener refs the worker again.
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

  /** Stops idle workers; busy ones finish their batch first. */
  close(): void {
    for (const worker of [...this.idle]) {
      this.forget(worker);
      void worker.terminate();
    }
  }
}
