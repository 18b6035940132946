// One workspace's engine: the indexes its file set feeds (regex index, code graph, chunk ranking,
// tree store, semantic index), each created on first use and driven through one lifecycle
// (index-lifecycle.ts). It owns when they build (`build` makes every one ready with one progress
// across the phases: the regex index first, then the four that need syntax together, so that
// each file is read and parsed once for all of them by the syntax pass, syntax-pass.ts; `ready`
// makes one ready for a query), that each flushes after its build and when the engine is disposed,
// and the facts status shows (state, size, build time, lag). It imports no protocol and no daemon
// code: the daemon reads params, calls it, converts.
import fs from 'node:fs';
import path from 'node:path';
import { type CancellationSignal, neverCancelled, raceCancellation, throwIfCancelled } from '../base/cancellation.js';
import { errorMessage } from '../base/errors.js';
import { log } from '../base/logger.js';
import { toRelative } from '../base/paths.js';
import { type BufferSource, CodeGraph } from '../index/graph/code-graph.js';
import { GraphQueries } from '../index/graph/graph-queries.js';
import { ChunkRanking } from '../index/ranking/chunk-ranking.js';
import { RegexIndex } from '../index/regex/regex-index.js';
import type { Seeding, SemanticRecords } from '../index/semantic/semantic-index.js';
import type { LanguageTable } from '../index/syntax/languages.js';
import { TreePrebuild } from '../structural/tree-prebuild.js';
import type { BufferOverlay } from '../workspace/overlay.js';
import type { Workspace } from '../workspace/workspace.js';
import {
  graphLifecycle,
  type IndexFacts,
  type IndexLifecycle,
  type IndexName,
  indexNames,
  rankingLifecycle,
  regexLifecycle,
  semanticLifecycle,
  treesLifecycle,
} from './index-lifecycle.js';
import type { SemanticModels } from './semantic-models.js';
import { SyntaxPass, type SyntaxPassPool } from './syntax-pass.js';

/** What every workspace's engine shares: the syntax pass's workers, the grammars, the buffers, the models. */
export interface EngineShared {
  overlay: BufferOverlay;
  syntaxPool: SyntaxPassPool;
  languages: LanguageTable;
  models: SemanticModels;
}

/** One report of `build`'s progress: the phase, how far it is, and the whole build's percentage. */
export interface BuildProgress {
  phase: IndexName;
  message: string;
  percentage: number;
  /** A phase starting or ready (`NAME: starting`, `NAME: ready`): shown even when reports are thinned. */
  boundary: boolean;
}

/**
 * A phase's share of the whole build, by what it costs on a large tree (bench/RESULTS.md: embedding
 * dominates, then parsing for the tree store).
 */
const phaseWeight: Record<IndexName, number> = { regex: 1, graph: 2, ranking: 2, trees: 3, semantic: 8 };

export class WorkspaceEngine {
  private regexIndex: RegexIndex | undefined;
  private graphIndex: CodeGraph | undefined;
  private queries: GraphQueries | undefined;
  private rankingIndex: ChunkRanking | undefined;
  private prebuild: TreePrebuild | undefined;
  private semanticIndex: NonNullable<ReturnType<SemanticModels['indexFor']>>['index'] | undefined;
  private readonly lifecycles = new Map<IndexName, IndexLifecycle>();
  private readonly lastBuilds = new Map<IndexName, { at: string; ms: number }>();
  /** Builds this engine started and still runs, by index (concurrent callers share them). */
  private readonly running = new Map<IndexName, Promise<void>>();
  private disposed = false;
  /** Each file's one syntax pass, for the graph, the ranking, the tree store and the semantic index. */
  readonly syntax: SyntaxPass;

  constructor(
    readonly workspace: Workspace,
    private readonly shared: EngineShared,
  ) {
    this.syntax = new SyntaxPass(shared.syntaxPool, (file) => workspace.hashOf(file));
  }

  /** The regex index (created on first use; built by `ready('regex')` or `build`). */
  get regex(): RegexIndex {
    if (!this.regexIndex) {
      this.regexIndex = new RegexIndex(this.workspace, this.shared.overlay, this.workspace.cacheDir);
      this.lifecycles.set('regex', regexLifecycle(this.regexIndex));
    }
    return this.regexIndex;
  }

  /** The code graph (symbols, references), its open buffers read through the overlay. */
  get graph(): CodeGraph {
    if (!this.graphIndex) {
      const { overlay } = this.shared;
      const root = this.workspace.root;
      const buffers: BufferSource = {
        text: (relative) => overlay.get(`${root}/${relative}`)?.text,
        openPaths: () => overlay.openPaths().flatMap((absolute) => toRelative(root, absolute) ?? []),
        onChange: (listener) =>
          overlay.onChange((absolute) => {
            const relative = toRelative(root, absolute);
            if (relative) listener(relative);
          }),
      };
      const file = this.cacheFile('graph.bin');
      const graph = new CodeGraph(this.workspace, this.syntax, this.shared.languages, file, undefined, buffers);
      this.syntax.register('tags', { awaits: (relative) => graph.awaitsTags(relative), want: { definitionsOnly: false } });
      this.graphIndex = graph;
      this.lifecycles.set(
        'graph',
        graphLifecycle(this.graphIndex, () => fileBytes(file)),
      );
    }
    return this.graphIndex;
  }

  /** Questions over the code graph (one resolver per workspace). */
  get graphQueries(): GraphQueries {
    this.queries ??= new GraphQueries(this.graph);
    return this.queries;
  }

  /** The chunk ranking (codeSearch's BM25F ranking). */
  get ranking(): ChunkRanking {
    if (!this.rankingIndex) {
      const file = this.cacheFile('chunks.bin');
      const ranking = new ChunkRanking(this.workspace, this.syntax, file);
      this.syntax.register('terms', { awaits: (relative) => ranking.awaitsTerms(relative), want: { budgetBytes: ranking.budgetBytes } });
      this.rankingIndex = ranking;
      this.lifecycles.set(
        'ranking',
        rankingLifecycle(this.rankingIndex, () => chunkRankingBytes(file)),
      );
    }
    return this.rankingIndex;
  }

  /** The build of the workspace's trees into the (shared) tree store. */
  get trees(): TreePrebuild {
    if (!this.prebuild) {
      const prebuild = new TreePrebuild(this.syntax, this.shared.languages, this.workspace.root, () => this.workspace.files());
      this.syntax.register('tree', { awaits: (relative) => prebuild.awaitsTree(relative), want: true });
      this.prebuild = prebuild;
      this.lifecycles.set('trees', treesLifecycle(this.prebuild));
    }
    return this.prebuild;
  }

  /** The semantic index and its model, or undefined when semantic search is off for the workspace. */
  get semantic(): ReturnType<SemanticModels['indexFor']> {
    const configured = this.shared.models.indexFor(this.workspace);
    // A model change replaces the semantic index: the lifecycle follows it.
    if (!configured) this.lifecycles.delete('semantic');
    else if (this.semanticIndex !== configured.index) {
      const folder = this.workspace.cacheDir;
      const index = configured.index;
      this.semanticIndex = index;
      this.syntax.register('chunks', {
        awaits: (relative) => index.awaitsChunks(relative),
        // Asked only when the index awaits a file (its model's table is read by then).
        get want() {
          return index.chunkOptions();
        },
      });
      this.lifecycles.set(
        'semantic',
        semanticLifecycle(configured.index, () => semanticBytes(folder)),
      );
      this.running.delete('semantic');
      this.lastBuilds.delete('semantic');
    }
    return configured;
  }

  /**
   * What a team push sends, synced with the file set first: the Merkle root and every file's hash,
   * the semantic index's model and size, and its records, gathered only when asked (a push of a
   * tree the store holds whole asks nothing); undefined when semantic search is off.
   */
  async semanticRecords(
    signal: CancellationSignal = neverCancelled,
    onProgress?: (done: number, total: number, message: string) => void,
  ): Promise<
    | {
        merkleRoot: string;
        fileHashes: string[];
        modelId: string;
        files: number;
        chunks: number;
        records: () => { records: SemanticRecords; stale: number };
      }
    | undefined
  > {
    await this.workspace.whenReady(signal);
    await this.workspace.settle();
    const configured = this.semantic;
    if (!configured) return undefined;
    await this.ready('semantic', signal, onProgress);
    await this.workspace.settle();
    const { index } = configured;
    const { files, chunks } = index.status();
    const records = (): { records: SemanticRecords; stale: number } => {
      const all = index.records();
      // Only vectors of the content the file set holds now (a file changed since the sync waits for the next push).
      const current = all.files.filter((file) => this.workspace.hashOf(file.path) === file.fileHash);
      return { records: { ...all, files: current }, stale: all.files.length - current.length };
    };
    const leaves = this.workspace.files().map((file) => this.workspace.hashOf(file)!);
    return { merkleRoot: this.workspace.rootHash(), fileHashes: leaves, modelId: index.modelId, files, chunks, records };
  }

  /** The tree a team status compares with the store: its Merkle root, every file's hash, the model; no index is built for it. */
  async treeFacts(): Promise<{ merkleRoot: string; fileHashes: string[]; modelId: string | undefined }> {
    await this.workspace.whenReady();
    await this.workspace.settle();
    return {
      merkleRoot: this.workspace.rootHash(),
      fileHashes: this.workspace.files().map((file) => this.workspace.hashOf(file)!),
      modelId: this.semantic?.index.modelId,
    };
  }

  /**
   * What a team join asks the store with: the model, its vectors' size, the Merkle root and every
   * file's hash; undefined when semantic search is off. No index is built for it (whether the
   * index takes anything is `beginSeed`'s to say).
   */
  async joinInput(): Promise<{ modelId: string; dimensions: number; merkleRoot: string; files: Array<{ path: string; fileHash: string }> } | undefined> {
    await this.workspace.whenReady();
    await this.workspace.settle();
    const configured = this.semantic;
    if (!configured) return undefined;
    return {
      modelId: configured.index.modelId,
      dimensions: configured.index.dimensions,
      merkleRoot: this.workspace.rootHash(),
      files: this.workspace.files().map((file) => ({ path: file, fileHash: this.workspace.hashOf(file)! })),
    };
  }

  /**
   * Starts seeding the semantic index, when it holds nothing yet, with files' chunks and vectors
   * from a team store (`from` names it), a round at a time (SemanticIndex.beginSeed); undefined
   * when semantic search is off or the index holds something. Its end starts the first build in
   * the background: it embeds only the files no round gave. Meanwhile the index answers from
   * what it was given.
   */
  beginSeed(from: string): Seeding | undefined {
    const configured = this.semantic;
    const seeding = configured?.index.beginSeed(from);
    if (!seeding) return undefined;
    return {
      add: (files) => seeding.add(files),
      end: () => {
        const taken = seeding.end();
        void this.ready('semantic').catch((error: unknown) => log.warn(`semantic index of ${this.workspace.root}: ${errorMessage(error)}`));
        return taken;
      },
    };
  }

  /** Why semantic search is off, when it is. */
  semanticOffReason(): string {
    return this.shared.models.offReason(this.workspace);
  }

  /** The lifecycle of one index (created on first ask); undefined for semantic when it is off. */
  private lifecycle(name: IndexName): IndexLifecycle | undefined {
    if (name === 'semantic') void this.semantic;
    else if (!this.lifecycles.has(name)) {
      if (name === 'regex') void this.regex;
      else if (name === 'graph') void this.graph;
      else if (name === 'ranking') void this.ranking;
      else void this.trees;
    }
    return this.lifecycles.get(name);
  }

  /** Whether an index is being read from its saved copy (a restart) rather than built. */
  loading(name: IndexName): boolean {
    return this.lifecycles.get(name)?.loading?.() ?? false;
  }

  /**
   * Makes one index ready (built or loaded, caught up), timing the build for status; concurrent
   * callers share it, and `signal` only stops this caller waiting. `onProgress` sees files done of all.
   */
  async ready(
    name: IndexName,
    signal: CancellationSignal = neverCancelled,
    onProgress?: (done: number, total: number, message: string) => void,
  ): Promise<void> {
    const lifecycle = this.lifecycle(name);
    if (!lifecycle || lifecycle.state() === 'off') return;
    const subscription = onProgress ? lifecycle.onProgress((done, total) => onProgress(done, total, lifecycle.progressMessage(done, total))) : undefined;
    try {
      let run = this.running.get(name);
      if (!run) {
        const started = performance.now();
        const wasReady = lifecycle.state() === 'ready';
        run = lifecycle.build(neverCancelled).then(async () => {
          if (!wasReady) this.lastBuilds.set(name, { at: new Date().toISOString(), ms: Math.round(performance.now() - started) });
          // What a build made is on disk before anyone is told it is ready.
          await lifecycle.flush().catch((error: unknown) => log.warn(`${this.workspace.root}: ${name} index not flushed: ${errorMessage(error)}`));
        });
        this.running.set(name, run);
        void run.finally(() => this.running.delete(name)).catch(() => undefined);
      }
      await raceCancellation(run, signal);
    } finally {
      subscription?.dispose();
    }
  }

  /**
   * Makes every index ready, with one progress across the phases: the regex index first, alone
   * (grep is the first thing most users ask), then the four that need syntax together (the graph,
   * the ranking, the tree store, the semantic index: one pass of each file feeds them all).
   * Cancelling stops waiting; what each index built is kept.
   */
  async build(signal: CancellationSignal, onProgress?: (progress: BuildProgress) => void): Promise<void> {
    const phases = indexNames.filter((name) => {
      const lifecycle = this.lifecycle(name);
      return lifecycle !== undefined && lifecycle.state() !== 'off';
    });
    const total = phases.reduce((sum, name) => sum + phaseWeight[name], 0);
    const fractions = new Map<IndexName, number>();
    /** The phases building now, with their files done of their files to do (one message for all of them). */
    const counts = new Map<IndexName, { done: number; all: number; message: string }>();
    const report = (phase: IndexName, fraction: number, message: string, boundary = false): void => {
      fractions.set(phase, fraction);
      const done = phases.reduce((sum, name) => sum + phaseWeight[name] * (fractions.get(name) ?? 0), 0);
      onProgress?.({ phase, message, boundary, percentage: Math.min(100, Math.floor((100 * done) / Math.max(1, total))) });
    };
    const together = (): string =>
      counts.size === 1
        ? [...counts].map(([name, count]) => `${name}: ${count.message}`)[0]!
        : [...counts].map(([name, count]) => `${name} ${count.done}/${count.all}`).join(', ');
    const run = async (phase: IndexName): Promise<void> => {
      report(phase, 0, `${phase}: starting`, true);
      await this.ready(phase, signal, (done, all, message) => {
        counts.set(phase, { done, all, message });
        report(phase, done / Math.max(1, all), together());
      });
      counts.delete(phase);
      report(phase, 1, `${phase}: ready`, true);
    };
    if (phases.includes('regex')) await run('regex');
    throwIfCancelled(signal);
    await Promise.all(phases.filter((phase) => phase !== 'regex').map(run));
  }

  /** Each index's state, files, bytes on disk, lag and last build time, for status. */
  facts(): Record<IndexName, IndexFacts> {
    const facts = {} as Record<IndexName, IndexFacts>;
    for (const [name, state] of Object.entries(this.states()) as [IndexName, IndexFacts['state']][]) {
      const lifecycle = this.lifecycles.get(name);
      const lastBuild = this.lastBuilds.get(name) ?? null;
      const none = { state, files: 0, bytes: 0, lagFiles: 0, lastBuild };
      if (state === 'off') facts[name] = { ...none, reason: name === 'semantic' ? this.semanticOffReason() : 'the tree store is off (treeStoreMb 0)' };
      else facts[name] = lifecycle ? { ...none, ...lifecycle.facts() } : none;
    }
    return facts;
  }

  /** Each index's state alone (status's `indexes`): no file is read for it. */
  states(): Record<IndexName, IndexFacts['state']> {
    const on = { semantic: this.semantic !== undefined, trees: this.syntax.storing } as Partial<Record<IndexName, boolean>>;
    return Object.fromEntries(indexNames.map((name) => [name, on[name] === false ? 'off' : (this.lifecycles.get(name)?.state() ?? 'absent')])) as Record<
      IndexName,
      IndexFacts['state']
    >;
  }

  /** After `fathom index`'s reconcile: the regex index's content store is checked again as it is read. */
  recheck(): void {
    this.regexIndex?.recheck();
  }

  /** Stops every index; each writes what it has not written first (a stop never throws finished work away). */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.regexIndex?.dispose();
    await Promise.all([this.graphIndex?.dispose(), this.rankingIndex?.dispose(), this.shared.models.forget(this.workspace)]);
    this.syntax.dispose();
  }

  private cacheFile(name: string): string {
    return path.join(this.workspace.cacheDir, name);
  }
}

function fileBytes(file: string): number {
  return fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
}

/** The chunk ranking's file and its pieces (chunks.bin, chunks.bin.*). */
function chunkRankingBytes(file: string): number {
  const folder = path.dirname(file);
  const base = path.basename(file);
  try {
    return fs
      .readdirSync(folder)
      .filter((name) => name === base || name.startsWith(`${base}.`))
      .reduce((sum, name) => sum + fileBytes(path.join(folder, name)), 0);
  } catch {
    return 0;
  }
}

/** The semantic store's files (semantic.bin and its vector index). */
function semanticBytes(folder: string): number {
  try {
    return fs
      .readdirSync(folder)
      .filter((name) => name.startsWith('semantic'))
      .reduce((sum, name) => sum + fileBytes(path.join(folder, name)), 0);
  } catch {
    return 0;
  }
}
