// The one lifecycle every index of a workspace declares to its engine (workspace-engine.ts): a
// state, progress while it builds, a build that callers share and may stop waiting for, a settle
// (changes seen so far applied), a flush (what is built and not yet on disk written, atomically),
// a dispose (flushes first), and the facts status shows (files, bytes on disk, lag). The adapters
// here map each index's own methods onto it, so the engine treats the five alike.
import type { CancellationSignal } from '../base/cancellation.js';
import type { CodeGraph } from '../index/graph/code-graph.js';
import type { ChunkRanking } from '../index/ranking/chunk-ranking.js';
import type { RegexIndex } from '../index/regex/regex-index.js';
import type { SemanticIndex } from '../index/semantic/semantic-index.js';
import type { TreePrebuild } from '../structural/tree-prebuild.js';

/** The indexes of a workspace, in the order `fathom index` builds them (the fastest to be useful first). */
export const indexNames = ['regex', 'graph', 'ranking', 'trees', 'semantic'] as const;
export type IndexName = (typeof indexNames)[number];

export type IndexState = 'off' | 'absent' | 'building' | 'ready' | 'failed';

/** What status shows of one index. */
export interface IndexFacts {
  state: IndexState;
  /** Files it covers. */
  files: number;
  /** Bytes its files take in the cache folder (0 when it keeps nothing there). */
  bytes: number;
  /** Files changed since it last caught up. */
  lagFiles: number;
  /** The last build (or load from the cache) this daemon ran for it, whoever asked for it. */
  lastBuild: { at: string; ms: number } | null;
  /** Why it is off or failed. */
  reason?: string;
}

export interface IndexLifecycle {
  readonly name: IndexName;
  state(): IndexState;
  onProgress(listener: (done: number, total: number) => void): { dispose(): void };
  progressMessage(done: number, total: number): string;
  /** True while it is read from its saved copy (a restart), not built: progress counts files read. */
  loading?(): boolean;
  /** Ready (built, or loaded and caught up); concurrent callers share one build; `signal` stops waiting. */
  build(signal: CancellationSignal): Promise<void>;
  /** Changes seen so far are applied. */
  settle(): Promise<void>;
  /** Writes what is built and not yet on disk (atomically); a no-op for an index that writes as it goes. */
  flush(): Promise<void>;
  facts(): Omit<IndexFacts, 'state' | 'lastBuild'>;
}

export function regexLifecycle(index: RegexIndex): IndexLifecycle {
  return {
    name: 'regex',
    state: () => index.state,
    onProgress: (listener) => index.onProgress(listener),
    progressMessage: (done, total) => `${done}/${total} files read for regex search`,
    build: (signal) => index.ensureBuilt(signal),
    // A base and its delta are written as they are built: nothing waits in memory.
    settle: () => index.settled(),
    flush: () => index.settled(),
    facts: () => {
      if (index.state !== 'ready') return { files: 0, bytes: 0, lagFiles: 0 };
      const facts = index.facts();
      return { files: facts.files, bytes: facts.indexBytes + facts.contentBytes, lagFiles: facts.fresh };
    },
  };
}

export function graphLifecycle(graph: CodeGraph, bytesOnDisk: () => number): IndexLifecycle {
  return {
    name: 'graph',
    state: () => graph.state,
    onProgress: (listener) => graph.onProgress(listener),
    progressMessage: (done, total) =>
      graph.loading ? `${done}/${total} files read from the saved code graph` : `${done}/${total} files tagged for the code graph`,
    loading: () => graph.loading,
    build: (signal) => graph.ensureBuilt(signal),
    settle: () => graph.settle(),
    flush: async () => {
      if (graph.state === 'ready' && graph.unsaved) await graph.save();
      await graph.saved();
    },
    facts: () => ({ files: graph.state === 'ready' ? graph.counts().files : 0, bytes: bytesOnDisk(), lagFiles: 0 }),
  };
}

export function rankingLifecycle(ranking: ChunkRanking, bytesOnDisk: () => number): IndexLifecycle {
  return {
    name: 'ranking',
    state: () => ranking.state,
    onProgress: (listener) => ranking.onProgress(listener),
    progressMessage: (done, total) => `${done}/${total} files chunked for code search`,
    build: (signal) => ranking.ensureBuilt(signal),
    settle: () => ranking.settle(),
    flush: async () => {
      if (ranking.state === 'ready' && ranking.unsaved) await ranking.save();
      await ranking.saved();
    },
    facts: () => ({
      files: ranking.state === 'ready' ? ranking.counts().files : 0,
      bytes: bytesOnDisk(),
      lagFiles: ranking.state === 'ready' ? ranking.lag() : 0,
    }),
  };
}

export function treesLifecycle(prebuild: TreePrebuild): IndexLifecycle {
  return {
    name: 'trees',
    state: () => prebuild.state,
    onProgress: (listener) => prebuild.onProgress(listener),
    progressMessage: (done, total) => prebuild.progressMessage(done, total),
    build: (signal) => prebuild.ensureBuilt(signal),
    // The tree store is shared by every workspace and writes each tree as it is stored.
    settle: async () => undefined,
    flush: async () => undefined,
    facts: () => ({ files: prebuild.result?.files ?? 0, bytes: prebuild.result?.storedBytes ?? 0, lagFiles: 0 }),
  };
}

/** The semantic index: built once, then each build is a sync (files changed since are embedded). */
export function semanticLifecycle(index: SemanticIndex, bytesOnDisk: () => number): IndexLifecycle {
  return {
    name: 'semantic',
    state: () => index.state,
    onProgress: (listener) => index.onProgress(listener),
    progressMessage: (done, total) => index.progressMessage(done, total),
    build: (signal) => (index.state === 'ready' ? index.sync(signal) : index.ensureBuilt(signal)),
    settle: async () => undefined,
    flush: () => index.flush(),
    facts: () => {
      const status = index.status();
      return { files: status.files, bytes: bytesOnDisk(), lagFiles: status.pendingFiles };
    },
  };
}
