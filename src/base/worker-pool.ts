// A pool of worker threads that answer one message per job, matched by id. Workers start lazily
// (at most `size`), stop after an idle period so an idle daemon holds no threads (all but one
// sooner: a build needs every core, an edit one worker), keep the process alive only while busy,
// and a worker that dies or errors fails its job alone: the next job gets a fresh worker. A job
// may name an affinity (a number): an idle worker takes the first queued job whose affinity falls
// to its slot, else the oldest, so that what a worker keeps between jobs (the
// structural workers' decoded files and trees) is found again without holding up the queue. An
// affinity falls to the slot of the worker that took it last (a job taken by another worker
// while its own was busy leaves what it kept there), else to its value modulo the size. With a
// `depth` over 1, a busy worker is also sent its next jobs ahead (they wait in its own message
// queue), so it never waits for this thread between jobs: on a machine whose cores all parse,
// that wait was ~8% of a structural worker's time. The hash pool
// (file set), the chunk pool (syntax) and the structural pool are built on it; the grep pool is
// not (it needs a watchdog per file and shared progress).
import { type ResourceLimits, Worker } from 'node:worker_threads';

export interface PoolMessage {
  id: number;
  /** On a reply: this worker should not take another job (it is stopped and replaced on demand). */
  retire?: boolean;
}

interface Pending<Reply> {
  resolve: (reply: Reply) => void;
  reject: (error: Error) => void;
}

export interface WorkerPoolOptions {
  /** Every worker stops after the pool was idle this long (default a minute). */
  idleMs?: number;
  /**
   * Workers beyond the first stop after the pool was idle this long (default 3 s): a build needs
   * every core, an edit one worker, and each worker holds its heap and its WebAssembly memory at
   * their peak (a syntax pass worker ~85 MiB after Django) until it stops.
   */
  spareIdleMs?: number;
  /** Given to each worker as its `workerData`. */
  workerData?: unknown;
  /** Jobs in flight per worker (1: a job is sent when the worker is free). */
  depth?: number;
  /** Caps each worker's young generation (V8's default lets it grow to 48 MiB, held at its peak). */
  youngGenerationMb?: number;
}

const defaultSpareIdleMs = 3_000;

/**
 * The young generation of a worker that answers one file or one batch at a time (12 MiB: 4 MiB
 * semi-spaces; V8 lets it grow to 16 MiB ones and keeps them). Django's indexed daemon, holding
 * three such workers, idled 30 MB lower with it, the build no slower (bench/RESULTS.md, "A
 * daemon's memory after a build").
 */
export const jobWorkerYoungGenerationMb = 12;

/**
 * The idle period of a pool only large batches use (a scan's hashing, a sync's embedding: an
 * edit's few files are done on the daemon's thread): its workers start again in ~50 ms.
 */
export const batchPoolIdleMs = 5_000;

/** Affinities whose last slot is remembered (a file searched lately; older ones fall back to the modulo). */
const remembered = 1 << 17;

export class WorkerPool<Job extends PoolMessage, Reply extends PoolMessage> {
  private readonly workers: Worker[] = [];
  /** Workers with no job in flight, and not retiring. */
  private readonly idle: Worker[] = [];
  private readonly queue: Array<{ job: Job; affinity: number | undefined }> = [];
  /** Each worker's slot, 0 to size - 1 (a replacement takes the lowest free one). */
  private readonly slots = new Map<Worker, number>();
  private readonly pending = new Map<number, Pending<Reply>>();
  /** The ids of the jobs sent to each worker and not answered yet, in the order sent. */
  private readonly busy = new Map<Worker, number[]>();
  /** The jobs sent to each worker and not answered yet (to send again elsewhere if it dies before them). */
  private readonly sent = new Map<number, { job: Job; affinity: number | undefined }>();
  /** Workers that asked to retire: sent no more jobs, stopped once they answered what they hold. */
  private readonly retiring = new Set<Worker>();
  /** The slot each affinity went to last, the most recent last (at most `remembered`). */
  private readonly lastSlot = new Map<number, number>();
  private nextId = 1;
  private pumpQueued = false;
  private idleTimer: NodeJS.Timeout | undefined;

  private readonly idleMs: number;
  private readonly spareIdleMs: number;
  private readonly workerData: unknown;
  private readonly depth: number;
  private readonly resourceLimits: ResourceLimits | undefined;
  private spareTimer: NodeJS.Timeout | undefined;

  constructor(
    /** The worker's module (compiled .js next to the pool's own file). */
    private readonly script: URL,
    readonly size: number,
    /** Named in errors: "<name> worker exited with code 1". */
    private readonly name: string,
    options: WorkerPoolOptions = {},
  ) {
    this.idleMs = options.idleMs ?? 60_000;
    this.spareIdleMs = Math.min(options.spareIdleMs ?? defaultSpareIdleMs, this.idleMs);
    this.workerData = options.workerData;
    this.depth = options.depth ?? 1;
    this.resourceLimits = options.youngGenerationMb === undefined ? undefined : { maxYoungGenerationSizeMb: options.youngGenerationMb };
  }

  /** Runs one job; its id is assigned here. Jobs of the same `affinity` go to the same worker when it is free. */
  run(job: Omit<Job, 'id'>, affinity?: number): Promise<Reply> {
    const id = this.nextId++;
    const promise = new Promise<Reply>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.queue.push({ job: { ...job, id } as Job, affinity });
    // Jobs queued together are handed out together (after this tick), so that each free worker
    // can pick the one that falls to it.
    if (!this.pumpQueued) {
      this.pumpQueued = true;
      queueMicrotask(() => {
        this.pumpQueued = false;
        this.pump();
      });
    }
    return promise;
  }

  /** Starts every worker now (they take ~50 ms to boot), so a large batch finds them ready. */
  warm(): void {
    while (this.workers.length < this.size) this.idle.push(this.start()!);
    this.armIdleTimers();
  }

  /** The pool is idle: every worker stops after `idleMs`, those beyond the first after `spareIdleMs`. */
  private armIdleTimers(): void {
    this.clearIdleTimers();
    this.idleTimer = setTimeout(() => this.close(), this.idleMs).unref();
    if (this.spareIdleMs < this.idleMs) this.spareTimer = setTimeout(() => this.stopSpares(), this.spareIdleMs).unref();
  }

  private clearIdleTimers(): void {
    clearTimeout(this.idleTimer);
    clearTimeout(this.spareTimer);
  }

  /** Stops the idle workers but the one in the lowest slot (what an edit's job needs). */
  private stopSpares(): void {
    const kept = this.idle.reduce<Worker | undefined>(
      (best, worker) => (best === undefined || this.slots.get(worker)! < this.slots.get(best)! ? worker : best),
      undefined,
    );
    for (const worker of [...this.idle]) {
      if (worker === kept) continue;
      this.forget(worker);
      void worker.terminate();
    }
  }

  private pump(): void {
    this.clearIdleTimers();
    while (this.queue.length > 0) {
      // A job whose worker is idle goes to it; else an idle (or new) worker takes the first job
      // that falls to it, or the oldest; else a busy worker with room ahead does the same.
      let at = this.queue.findIndex(
        (queued) => queued.affinity !== undefined && this.idle.some((worker) => this.slots.get(worker) === this.slotOf(queued.affinity!)),
      );
      let worker: Worker | undefined;
      if (at >= 0) {
        const slot = this.slotOf(this.queue[at]!.affinity!);
        worker = this.idle.splice(
          this.idle.findIndex((candidate) => this.slots.get(candidate) === slot),
          1,
        )[0]!;
      } else {
        worker = this.idle.pop() ?? this.start() ?? this.withRoom();
        if (!worker) return;
        const slot = this.slots.get(worker)!;
        at = Math.max(
          0,
          this.queue.findIndex((queued) => queued.affinity !== undefined && this.slotOf(queued.affinity) === slot),
        );
      }
      const queued = this.queue.splice(at, 1)[0]!;
      if (queued.affinity !== undefined) this.remember(queued.affinity, this.slots.get(worker)!);
      let ids = this.busy.get(worker);
      if (!ids) this.busy.set(worker, (ids = []));
      ids.push(queued.job.id);
      if (this.depth > 1) this.sent.set(queued.job.id, queued);
      // A busy worker keeps the process alive (its answer is awaited); an idle one does not.
      worker.ref();
      worker.postMessage(queued.job);
    }
    if (this.busy.size === 0) this.armIdleTimers();
  }

  /** A busy worker that may be sent another job ahead: the one with the fewest in flight. */
  private withRoom(): Worker | undefined {
    let best: Worker | undefined;
    let fewest = this.depth;
    for (const [worker, ids] of this.busy) {
      if (ids.length < fewest && !this.retiring.has(worker)) [best, fewest] = [worker, ids.length];
    }
    return best;
  }

  /** The slot an affinity falls to: the one it went to last, else its value modulo the size. */
  private slotOf(affinity: number): number {
    return this.lastSlot.get(affinity) ?? affinity % this.size;
  }

  private remember(affinity: number, slot: number): void {
    this.lastSlot.delete(affinity);
    this.lastSlot.set(affinity, slot);
    if (this.lastSlot.size > remembered) this.lastSlot.delete(this.lastSlot.keys().next().value!);
  }

  private start(): Worker | undefined {
    if (this.workers.length >= this.size) return undefined;
    const worker = new Worker(this.script, { workerData: this.workerData, resourceLimits: this.resourceLimits });
    const taken = new Set(this.slots.values());
    let slot = 0;
    while (taken.has(slot)) slot += 1;
    this.slots.set(worker, slot);
    worker.on('message', (reply: Reply) => {
      const ids = this.busy.get(worker) ?? [];
      const at = ids.indexOf(reply.id);
      if (at >= 0) ids.splice(at, 1);
      this.sent.delete(reply.id);
      if (reply.retire) this.retiring.add(worker);
      if (ids.length === 0) {
        worker.unref();
        this.busy.delete(worker);
        if (this.retiring.has(worker)) {
          this.forget(worker);
          void worker.terminate();
        } else {
          this.idle.push(worker);
        }
      }
      const waiter = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      waiter?.resolve(reply);
      this.pump();
    });
    worker.on('error', (error) => this.fail(worker, error));
    worker.on('exit', (code) => {
      if (this.busy.has(worker)) this.fail(worker, new Error(`${this.name} worker exited with code ${code}`));
      this.forget(worker);
      this.pump();
    });
    // After the listeners: attaching a 'message' listener refs the worker again.
    worker.unref();
    this.workers.push(worker);
    return worker;
  }

  /** The worker's first job in flight (the one it was running) fails; those sent ahead go back to the queue's front. */
  private fail(worker: Worker, error: Error): void {
    const [id, ...ahead] = this.busy.get(worker) ?? [];
    this.forget(worker);
    if (id !== undefined) {
      this.sent.delete(id);
      this.pending.get(id)?.reject(error);
      this.pending.delete(id);
    }
    const requeued = ahead.map((next) => this.sent.get(next)).filter((queued) => queued !== undefined);
    for (const next of ahead) this.sent.delete(next);
    this.queue.unshift(...requeued);
    this.pump();
  }

  private forget(worker: Worker): void {
    this.busy.delete(worker);
    this.retiring.delete(worker);
    this.slots.delete(worker);
    const index = this.workers.indexOf(worker);
    if (index >= 0) this.workers.splice(index, 1);
    const idleIndex = this.idle.indexOf(worker);
    if (idleIndex >= 0) this.idle.splice(idleIndex, 1);
  }

  /** Stops idle workers; busy ones finish their job first. */
  close(): void {
    this.clearIdleTimers();
    for (const worker of [...this.idle]) {
      this.forget(worker);
      void worker.terminate();
    }
  }
}
