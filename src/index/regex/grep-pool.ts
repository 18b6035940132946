// Verifies grep candidates in worker threads: a search uses every core, and a regex that runs away
// (catastrophic backtracking) cannot stall the daemon. Each worker has up to two chunks in hand, so
// that it starts the next one without waiting for the daemon's thread to answer its last message
// (~0.65 ms a chunk on this machine's 2 cores). A watchdog looks at each busy worker every 100 ms;
// a worker on the same file for longer than the per-file limit is stopped, that file is reported
// as timed out, and the rest of its chunk, and the chunk queued behind it, go to a fresh worker.
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { CancellationSignal } from '../../base/cancellation.js';
import type { GrepWorkerMessage } from './grep-worker.js';
import type { GrepChunk, MatchSpec } from './verify.js';
import { eachBatchFile, type KeptLines } from './match-batch.js';
import { fileWeight, sliceFiles, type PackedFiles } from './work-list.js';

/** What to verify and how: the chunks sent to workers are slices of its files (work-list.ts). */
export interface GrepTask extends MatchSpec, PackedFiles {}

/** One of a task's chunks as first cut: its pieces still out (a retried rest is a piece), and the lines its files kept. */
interface ChunkRecord {
  outstanding: number;
  kept: number;
}

interface Pending {
  offset: number;
  count: number;
  record: ChunkRecord;
}

/** A chunk given to a worker: file offset into the task, and count; files before `reported` are reported. */
interface SlotChunk {
  id: number;
  offset: number;
  count: number;
  task: Running;
  reported: number;
  record: ChunkRecord;
}

interface Slot {
  worker: Worker;
  /** Where the worker says what it is on: the file's index in its chunk (-1: none), and the chunk's id. */
  progress: Int32Array;
  buffer: SharedArrayBuffer;
  /** Its chunks, in the order it runs them: the first is the one it is on (or starts next). */
  chunks: SlotChunk[];
  watched?: { id: number; index: number; since: number };
}

/** Chunks a worker has in hand at most. */
const depth = 2;

interface Running {
  task: GrepTask;
  /** Returns true when the caller has enough: no more chunks are handed out. */
  onFile: (fileIndex: number, matches: KeptLines, count: number) => boolean | void;
  pending: Pending[];
  /** The chunks in file order; the first `settled` are done, and kept `keptSettled` lines. */
  records: ChunkRecord[];
  settled: number;
  keptSettled: number;
  inFlight: number;
  timedOut: number[];
  /** Content stores a worker found damaged (content-check.ts): the answer must not be used. */
  damaged: Set<number>;
  retried: Set<number>;
  finish: () => void;
  stopped: boolean;
  /** A page: stop handing out chunks once the settled chunks kept `limit` lines. */
  stopWhenKept: boolean;
  /** Chunks were left unverified because enough lines were kept. */
  stoppedEarly: boolean;
}

/**
 * A chunk (one message to a worker) ends after this many files or bytes, whichever comes first:
 * small enough to share work evenly between threads, large enough that messages stay cheap. A
 * file's bytes are its ranges' (content store), its text's, or a guess (a file read from disk).
 */
const chunkFiles = 512;
const chunkBytes = 2 << 20;
const idleMs = 60_000;

export class GrepPool {
  private readonly slots: Slot[] = [];
  private readonly waiting: Running[] = [];
  private nextId = 1;
  private watchdog: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly size: number = Math.max(1, Math.min(os.availableParallelism(), 4)),
    /** How long one file may take before it is given up. */
    private readonly fileTimeoutMs = 2_000,
  ) {}

  /**
   * Verifies the files; `onFile` gets each file with matches (those kept, and how many in all).
   * Resolves with the files given up, and whether `stopWhenKept` (a page) left files unverified.
   */
  run(
    task: GrepTask,
    onFile: (fileIndex: number, matches: KeptLines, count: number) => boolean | void,
    signal?: CancellationSignal,
    options: { stopWhenKept?: boolean } = {},
  ): Promise<{ timedOut: number[]; damaged: number[]; stoppedEarly: boolean }> {
    return new Promise((resolve) => {
      const pending: Pending[] = [];
      for (let offset = 0; offset < task.files.length;) {
        let count = 0;
        let bytes = 0;
        while (offset + count < task.files.length && count < chunkFiles && bytes < chunkBytes) bytes += fileWeight(task, offset + count++);
        pending.push({ offset, count, record: { outstanding: 1, kept: 0 } });
        offset += count;
      }
      const running: Running = {
        task,
        onFile,
        pending,
        records: pending.map((chunk) => chunk.record),
        settled: 0,
        keptSettled: 0,
        inFlight: 0,
        timedOut: [],
        damaged: new Set(),
        retried: new Set(),
        stopped: false,
        stopWhenKept: options.stopWhenKept === true,
        stoppedEarly: false,
        finish: () => resolve({ timedOut: running.timedOut.sort((a, b) => a - b), damaged: [...running.damaged], stoppedEarly: running.stoppedEarly }),
      };
      signal?.onCancellationRequested?.(() => this.stop(running));
      if (pending.length === 0) return running.finish();
      this.waiting.push(running);
      this.pump();
    });
  }

  /** Stops handing out chunks of a task (the caller has enough, or gave up). */
  private stop(running: Running): void {
    if (running.stopped) return;
    running.stopped = true;
    running.pending.length = 0;
    if (running.inFlight === 0) running.finish();
  }

  private pump(): void {
    clearTimeout(this.idleTimer);
    for (;;) {
      const running = this.waiting.find((candidate) => candidate.pending.length > 0 && !candidate.stopped);
      if (!running) break;
      // An idle worker first, then a new one, then one with room in its queue.
      const slot =
        this.slots.find((candidate) => candidate.chunks.length === 0) ?? this.start() ?? this.slots.find((candidate) => candidate.chunks.length < depth);
      if (!slot) break;
      const chunk = running.pending.shift()!;
      const id = this.nextId++;
      slot.chunks.push({ id, offset: chunk.offset, count: chunk.count, task: running, reported: 0, record: chunk.record });
      running.inFlight += 1;
      slot.worker.ref();
      // The files before this chunk kept at least `keptSettled` lines: the chunk keeps only what
      // the task still wants after those (a truncated answer holds the first lines in file order,
      // and every count).
      const limit = Math.max(0, running.task.limit - running.keptSettled);
      const message: GrepChunk = { ...running.task, ...sliceFiles(running.task, chunk.offset, chunk.count), limit, id };
      slot.worker.postMessage(message);
    }
    for (let index = this.waiting.length - 1; index >= 0; index--) {
      const running = this.waiting[index]!;
      if ((running.pending.length === 0 || running.stopped) && running.inFlight === 0) this.waiting.splice(index, 1);
    }
    const busy = this.slots.some((slot) => slot.chunks.length > 0);
    if (busy && !this.watchdog) this.watchdog = setInterval(() => this.watch(), 100);
    if (!busy) {
      clearInterval(this.watchdog);
      this.watchdog = undefined;
      this.idleTimer = setTimeout(() => this.close(), idleMs).unref();
    }
  }

  private start(): Slot | undefined {
    if (this.slots.length >= this.size) return undefined;
    const buffer = new SharedArrayBuffer(8);
    // The progress slots go once, with the thread, not in every chunk's message.
    const slot: Slot = {
      worker: new Worker(new URL('./grep-worker.js', import.meta.url), { workerData: { progress: buffer } }),
      progress: new Int32Array(buffer),
      buffer,
      chunks: [],
    };
    Atomics.store(slot.progress, 0, -1);
    slot.worker.on('message', (message: GrepWorkerMessage) => this.onMessage(slot, message));
    slot.worker.on('error', () => this.replace(slot, undefined));
    slot.worker.on('exit', () => slot.chunks.length > 0 && this.replace(slot, undefined));
    slot.worker.unref();
    this.slots.push(slot);
    return slot;
  }

  private onMessage(slot: Slot, message: GrepWorkerMessage): void {
    // A worker's messages come in the order of its chunks: they are for the first.
    const run = slot.chunks[0];
    if (!run || message.id !== run.id) return;
    if (message.type === 'files') {
      run.reported = message.upTo;
      eachBatchFile(message.batch, (index, matches, count) => {
        if (run.task.stopped) return true;
        run.record.kept += matches.length;
        if (run.task.onFile(run.offset + index, matches, count) === true) this.stop(run.task);
        return false;
      });
      return;
    }
    if (message.type === 'damaged') {
      run.task.damaged.add(message.store);
      this.stop(run.task);
      return;
    }
    this.finishChunk(slot);
  }

  private finishChunk(slot: Slot): void {
    const run = slot.chunks.shift()!;
    slot.watched = undefined;
    if (slot.chunks.length === 0) slot.worker.unref();
    run.task.inFlight -= 1;
    this.settle(run.task, run.record, 0);
    if (run.task.inFlight === 0 && (run.task.pending.length === 0 || run.task.stopped)) run.task.finish();
    this.pump();
  }

  /** A piece of `record`'s chunk ended, `added` pieces of it were queued again: the settled prefix moves on. */
  private settle(task: Running, record: ChunkRecord, added: number): void {
    record.outstanding += added - 1;
    while (task.settled < task.records.length && task.records[task.settled]!.outstanding === 0) task.keptSettled += task.records[task.settled++]!.kept;
    // A page that has its lines in the settled chunks: the chunks after them are not needed (those
    // in flight finish, and their lines come after the page's).
    if (task.stopWhenKept && !task.stopped && task.keptSettled >= task.task.limit && task.settled < task.records.length) {
      task.stoppedEarly = true;
      this.stop(task);
    }
  }

  /** Gives up the file a worker is stuck on: stops the thread, queues the rest of its chunk. */
  private watch(): void {
    const now = Date.now();
    for (const slot of [...this.slots]) {
      const run = slot.chunks[0];
      if (!run) continue;
      const id = Atomics.load(slot.progress, 1);
      const index = Atomics.load(slot.progress, 0);
      // On another chunk: the first is done (its last message is on its way), or not begun.
      if (id !== run.id) {
        slot.watched = undefined;
        continue;
      }
      if (!slot.watched || slot.watched.id !== id || slot.watched.index !== index) {
        slot.watched = { id, index, since: now };
        continue;
      }
      // A file already reported (its batch came before the index moved on) is not stuck.
      if (index >= 0 && index >= run.reported && now - slot.watched.since > this.fileTimeoutMs) this.replace(slot, index);
    }
  }

  private replace(slot: Slot, stuckIndex: number | undefined): void {
    const at = this.slots.indexOf(slot);
    // Already replaced or closed (a late 'error' or 'exit' of a terminated worker): nothing to do.
    if (at < 0) return;
    const [run, ...notBegun] = slot.chunks;
    this.slots.splice(at, 1);
    slot.chunks = [];
    void slot.worker.terminate();
    // Chunks it had not begun go back to their tasks whole (before the rest of the head's, which
    // is queued below: order only matters to how many lines a chunk keeps).
    for (const chunk of notBegun.reverse()) {
      const task = chunk.task;
      task.inFlight -= 1;
      if (!task.stopped) task.pending.unshift({ offset: chunk.offset, count: chunk.count, record: chunk.record });
      else if (task.inFlight === 0) task.finish();
    }
    if (run) {
      const task = run.task;
      const queued = task.pending.length;
      const record = run.record;
      if (stuckIndex !== undefined) {
        task.timedOut.push(run.offset + stuckIndex);
        const rest = run.count - stuckIndex - 1;
        if (rest > 0 && !task.stopped) task.pending.unshift({ offset: run.offset + stuckIndex + 1, count: rest, record });
        // Files done before the stuck one whose results were still in the worker's batch.
        const unreported = stuckIndex - run.reported;
        if (unreported > 0 && !task.stopped) task.pending.unshift({ offset: run.offset + run.reported, count: unreported, record });
      } else if (!task.stopped) {
        // The worker died (out of memory, a crash): a fresh one gets the chunk once more; a chunk
        // that kills two workers is given up.
        const offset = run.offset + run.reported;
        const count = run.count - run.reported;
        if (task.retried.has(offset)) task.timedOut.push(...Array.from({ length: count }, (_, index) => offset + index));
        else if (count > 0) {
          task.retried.add(offset);
          task.pending.unshift({ offset, count, record });
        }
      }
      task.inFlight -= 1;
      this.settle(task, record, task.pending.length - queued);
      if (task.inFlight === 0 && (task.pending.length === 0 || task.stopped)) task.finish();
    }
    this.pump();
  }

  /** Stops idle workers. */
  close(): void {
    for (const slot of this.slots.filter((candidate) => candidate.chunks.length === 0)) {
      this.slots.splice(this.slots.indexOf(slot), 1);
      void slot.worker.terminate();
    }
  }
}

let shared: GrepPool | undefined;

/** The process's grep pool (threads start on first use and stop after a minute idle). */
export function sharedGrepPool(): GrepPool {
  shared ??= new GrepPool();
  return shared;
}
