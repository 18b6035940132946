// Building a workspace's trees into the tree store ahead of its searches (`fathom index`): every
// file of a programming language (one whose grammar has a chunks query) is parsed whole on the
// structural workers, flattened and stored, unless the store holds its tree already (by content:
// a second build, another checkout of the same files, or a tree a search stored; with the file
// set's content hash at hand, `hasTree`, that costs a stat and no read: a restarted daemon's
// `fathom index` reads no file whose tree is stored, test/index/syntax/tree-store.test.ts).
// A later structural search then matches on stored trees and parses only what changed since.
// Shows progress, can be cancelled (a cancelled build keeps what it stored), and a file that
// vanished or fails to parse is skipped (counted), never fatal.
import { type CancellationSignal, neverCancelled, throwIfCancelled } from '../base/cancellation.js';
import { toAbsolute } from '../base/paths.js';
import { slicedPause } from '../base/event-loop.js';
import type { LanguageSpec, LanguageTable } from '../index/syntax/languages.js';

/** What stores a file's tree (the structural workers, or the engine's syntax pass). */
export interface TreeSink {
  /** Workers: the build keeps two jobs in flight for each. */
  readonly size: number;
  /** Whether trees are stored at all (a tree store is configured). */
  readonly storing: boolean;
  storeTree(request: { language: string; path: string; absolutePath: string }): Promise<{ stored: number; parsed: boolean }>;
  /** Whether the store holds the file's tree for its content now, known without reading it (else `storeTree` finds out). */
  hasTree?(spec: LanguageSpec, path: string): boolean;
}

export interface TreePrebuildResult {
  /** Files of a programming language. */
  files: number;
  /** Files parsed and stored now (the others were in the store, or failed). */
  parsed: number;
  /** Bytes written to the store. */
  storedBytes: number;
  /** Files that could not be read or parsed. */
  failed: number;
}

export class TreePrebuild {
  private readonly listeners = new Set<(done: number, total: number) => void>();
  private running: Promise<TreePrebuildResult> | undefined;
  private last: TreePrebuildResult | undefined;
  /** Files the build under way has still to store. */
  private readonly toStore = new Set<string>();

  constructor(
    private readonly pool: TreeSink,
    private readonly table: LanguageTable,
    private readonly root: string,
    /** The workspace's file set now (workspace-relative paths). */
    private readonly files: () => readonly string[],
  ) {}

  onProgress(listener: (done: number, total: number) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  progressMessage(done: number, total: number): string {
    return `${done}/${total} files parsed for structural search`;
  }

  /** `off` without a store; `ready` once a build has finished (files changed since are stored as searches parse them); `absent` before, or after a cancelled first build. */
  get state(): 'off' | 'absent' | 'building' | 'ready' {
    if (!this.pool.storing) return 'off';
    if (this.running) return 'building';
    return this.last ? 'ready' : 'absent';
  }

  /** The last build's counts, when one ran. */
  get result(): TreePrebuildResult | undefined {
    return this.last;
  }

  /** Builds (or tops up) the store for the file set now; one build at a time, later callers wait for it. */
  async ensureBuilt(signal: CancellationSignal = neverCancelled): Promise<void> {
    if (!this.pool.storing) return;
    this.running ??= this.build(signal).finally(() => {
      this.running = undefined;
    });
    this.last = await this.running;
  }

  private async build(signal: CancellationSignal): Promise<TreePrebuildResult> {
    const jobs: Array<{ spec: LanguageSpec; path: string }> = [];
    const programming = new Map<string, boolean>();
    for (const path of this.files()) {
      const spec = this.table.detect(path);
      if (!spec || spec.disabled) continue;
      let wanted = programming.get(spec.id);
      if (wanted === undefined) programming.set(spec.id, (wanted = this.table.queryText(spec.id, 'chunks') !== undefined));
      if (wanted) jobs.push({ spec, path });
    }
    const result: TreePrebuildResult = { files: jobs.length, parsed: 0, storedBytes: 0, failed: 0 };
    for (const job of jobs) this.toStore.add(job.path);
    let done = 0;
    let next = 0;
    const pause = slicedPause();
    // Two jobs in flight a worker (the pool's depth): the workers never wait for this thread.
    const lane = async (): Promise<void> => {
      while (next < jobs.length) {
        throwIfCancelled(signal);
        const job = jobs[next++]!;
        this.toStore.delete(job.path);
        if (this.pool.hasTree?.(job.spec, job.path)) {
          done += 1;
          for (const listener of this.listeners) listener(done, jobs.length);
          await pause();
          continue;
        }
        try {
          const stored = await this.pool.storeTree({ language: job.spec.id, path: job.path, absolutePath: toAbsolute(this.root, job.path) });
          if (stored.parsed) result.parsed += 1;
          result.storedBytes += stored.stored;
        } catch {
          result.failed += 1; // vanished, unreadable, or a parse that timed out: searched (and reported) later
        }
        done += 1;
        for (const listener of this.listeners) listener(done, jobs.length);
      }
    };
    await Promise.all(Array.from({ length: this.pool.size * 2 }, lane)).finally(() => this.toStore.clear());
    return result;
  }

  /** Whether the build under way will ask for this file's tree soon: the engine's syntax pass stores it with another index's pass of it. */
  awaitsTree(file: string): boolean {
    return this.toStore.has(file);
  }
}
