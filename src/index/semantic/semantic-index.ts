// The semantic index of a workspace: every file's syntax chunks (budget 1,500 bytes: what a code
// model reads), each embedded as its context header + text by the workspace's model, in a vector
// store (vector-store.ts). Vectors come from the embedding cache when the chunk's text was
// embedded before (any workspace, path or branch); only new text reaches the model, in batches.
// A static model's chunks are embedded by the syntax pass that cut them (embedded-chunks.ts):
// their text never crosses to this thread, and the cache is told the vectors it lacks.
//
// It may lag: changes (the file set's events) are gathered and synced every `syncIntervalMs`
// (default 2 s: the chunks come from the syntax pass the graph and the ranking ran for the change,
// the vectors from workers) or on demand (`sync()`: fathom/index); the first search builds it. A sync
// compares each file's hash with the one its vectors were made from, so a restart (the store is
// persisted) touches only what changed. Progress reports files done of the files to do. A chunk
// whose cached vector fails its check is embedded again in the same sync, so a sync leaves no file
// behind for a damaged cache; a saved store that is refused (status `store`) is rebuilt the same way.
import type { CancellationSignal } from '../../base/cancellation.js';
import { neverCancelled, raceCancellation, throwIfCancelled } from '../../base/cancellation.js';
import { errorMessage } from '../../base/errors.js';
import { breathe } from '../../base/event-loop.js';
import { foregroundQuiet } from '../../base/foreground.js';
import { HalfVector } from '../../base/half-float.js';
import { log } from '../../base/logger.js';
import { toAbsolute } from '../../base/paths.js';
import { isTestPath } from '../ranking/chunk-ranking.js';
import { contextualizedText } from '../syntax/chunk.js';
import type { ChunkOptions, FileChunks } from '../syntax/chunk.js';
import type { EmbeddingCache } from './embedding-cache.js';
import type { Embedder } from './embed-pool.js';
import { chunkTextHash, type EmbeddedChunks, placeOf, type WorkerEmbedding } from './embedded-chunks.js';
import { type NewChunk, type StagedChunk, type StoredChunk, type VectorHit, VectorStore } from './vector-store.js';

/**
 * How much less similar a test file's chunk counts. Measured on the retrieval evaluation
 * (bench/RESULTS.md): chosen on its first question set (0.02 to 2 tried: flat from 0.1), checked on
 * the second.
 */
const defaultTestPenalty = 0.1;

export interface SemanticSource {
  root: string;
  /** Resolves once the file set is built (a sync before then would see no files and drop every vector). */
  whenReady(): Promise<void>;
  /** Resolves once the changes seen so far are applied. */
  settle(): Promise<void>;
  files(): string[];
  hashOf(relativePath: string): string | undefined;
  onChanges(listener: (changes: { added: string[]; changed: string[]; removed: string[] }) => void): { dispose(): void };
}

export interface SemanticOptions {
  /** Where the store is saved (the workspace's cache folder). */
  folder: string;
  /** How often gathered changes are synced (ms; 0: only on demand). Default 2,000. */
  syncIntervalMs?: number;
  /** Chunks per model call. Default 32. */
  batchSize?: number;
  /** Which files are embedded (default: every file the chunk ranking ranks). */
  accepts?: (relativePath: string) => boolean;
  /** When a large store is saved (see `SaveDeferral`). */
  saveDeferral?: SaveDeferral;
}

/**
 * Saving rewrites the whole store (the kernel's 830k vectors: 3–5 s, on the daemon's thread), so
 * a store of at least `minVectors` is saved only once `fraction` of its files changed since the
 * last save, or `maxAgeMs` after an unsaved change, or when the index is disposed. What a crash
 * loses is found again on restart: a file whose saved hash is stale is synced from the embedding
 * cache (no model call).
 */
export interface SaveDeferral {
  minVectors: number;
  fraction: number;
  maxAgeMs: number;
}

const defaultSaveDeferral: SaveDeferral = { minVectors: 100_000, fraction: 0.01, maxAgeMs: 600_000 };

export type SemanticState = 'absent' | 'building' | 'ready';

/**
 * What the index holds, for a team push: each file's hash and chunks, and a chunk's vector by its
 * text hash (from the embedding cache, checked: undefined for one it lacks or that fails its check).
 */
export interface SemanticRecords {
  modelId: string;
  dimensions: number;
  files: Array<{ path: string; fileHash: string; chunks: readonly StoredChunk[] }>;
  vector(textHash: string): Float32Array | undefined;
}

export interface SemanticStatus {
  state: SemanticState;
  modelId: string;
  files: number;
  chunks: number;
  /** Files changed since the last sync (what the index lags by), and since when. */
  pendingFiles: number;
  oldestPendingMs: number;
  /** `repaired`: vectors the embedding cache held that failed their check (embedded again in the same sync). */
  lastSync: { at: string; files: number; embedded: number; cached: number; repaired: number; ms: number } | null;
  /** The saved store: none, loaded, refused (why) and rebuilt from the embedding cache, or not opened yet (files and chunks then 0: the first use loads it). */
  store: { loaded: 'none' | 'valid' | 'rebuilt' | 'unopened'; reason?: string };
  /** What a team store gave the index before its first build (`seed`), and when; absent when nothing came from one. */
  seeded?: { from: string; files: number; chunks: number; at: string };
  /** Vectors searched exactly until the HNSW graph takes them (a join's, moved in in slices); 0 when none. */
  staged: number;
}

/** A seed under way (`SemanticIndex.beginSeed`): rounds of files added as they arrive, then ended once. */
export interface Seeding {
  add(files: readonly SeedFile[]): void;
  /** Ends the seed (later calls answer the same): what every round took. */
  end(): { files: number; chunks: number };
}

/** A file's chunks with their vectors (f32, or f16 bits as a team store sent them), from elsewhere than this index's model (a team store): `seed`. */
export interface SeedFile {
  file: string;
  fileHash: string;
  chunks: StagedChunk[];
}

/** What a sync did: files to do and done, chunks embedded and taken from the cache, cached vectors that failed their check. */
interface SyncCounts {
  files: number;
  done: number;
  embedded: number;
  cached: number;
  repaired: number;
}

/** Where a file's chunks come from (a worker pool, or the engine's syntax pass, which embeds them too when `embed` is given and it can). */
export interface ChunkSource {
  chunk(request: { path: string; absolutePath?: string; options?: ChunkOptions & { embed?: WorkerEmbedding } }): Promise<FileChunks | EmbeddedChunks>;
}

/** The chunk size the semantic index cuts at (what a code model reads). */
export const semanticBudgetBytes = 1500;

/** Vectors a sync adds to the HNSW index at once (on every core). */
const addBatchVectors = 2048;

/** Vectors a seed puts in the embedding cache at once (one write each, ~70 ms here: the kernel's 822k would be 1.3 GB in one). */
const cacheSliceVectors = 4_096;

/** How long one slice of moving staged vectors into the graph may hold this thread (requests are served between slices). */
const graphSliceMs = 50;

/** How long after a change its sync starts (the changes of one save together; the 2 s tick catches what is left). */
const changeSyncDelayMs = 200;

/** Groups of 8 files a sync has under way (chunked, then embedded): enough that the workers never wait. */
const groupsInFlight = 4;

export class SemanticIndex {
  /** The vector store, loaded from disk on first use (not by status: on the kernel its load is ~2.4 s). */
  private storeValue: VectorStore | undefined;
  private built = false;
  private building: Promise<void> | undefined;
  private syncing: Promise<void> | undefined;
  private readonly pending = new Map<string, number>();
  /** Files the sync under way has still to chunk. */
  private readonly toChunk = new Set<string>();
  /** Files whose vectors the sync under way made, not yet in the store (added in batches), and their vectors. */
  private readonly toAdd: Array<{ file: string; fileHash: string; chunks: NewChunk[] }> = [];
  private toAddVectors = 0;
  /** Whether changes are synced within seconds (not only on demand or after minutes). */
  private readonly followsChanges: boolean;
  private readonly subscription: { dispose(): void };
  private readonly timer: NodeJS.Timeout | undefined;
  /** The sync a moment after a change. */
  private soon: NodeJS.Timeout | undefined;
  private readonly progressListeners = new Set<(done: number, total: number) => void>();
  private lastSync: SemanticStatus['lastSync'] = null;
  /** The sync under way: chunks embedded and when it started (for progress messages). */
  private current = { embedded: 0, started: 0 };
  private disposed = false;
  /** Files replaced or removed in the store since it was last saved, and when the first of them was. */
  private unsavedFiles = 0;
  private unsavedSince = 0;
  private loaded: SemanticStatus['store'] = { loaded: 'unopened' };
  private seeded: SemanticStatus['seeded'];
  /** A seed's vectors on their way into the embedding cache (the first sync waits for it: it finds them there). */
  private seedCaching: Promise<void> | undefined;
  /** A seed under way (`beginSeed`): the first sync waits for its end. */
  private seedWait: { wait: Promise<void>; end: () => void } | undefined;

  constructor(
    private readonly source: SemanticSource,
    private readonly chunks: ChunkSource,
    private readonly embedder: Embedder,
    private readonly cache: EmbeddingCache,
    private readonly options: SemanticOptions,
  ) {
    this.subscription = source.onChanges((changes) => {
      const now = Date.now();
      for (const file of [...changes.added, ...changes.changed, ...changes.removed]) if (!this.pending.has(file)) this.pending.set(file, now);
      // A change is synced a moment after it (more may follow: a save of several files), not at the next tick.
      if (this.followsChanges && !this.soon)
        this.soon = setTimeout(() => {
          this.soon = undefined;
          if (this.built && !this.syncing && !this.disposed && this.pending.size > 0)
            void this.syncChanges().catch((error: unknown) => log.warn(`semantic sync of ${source.root}: ${(error as Error).message}`));
        }, changeSyncDelayMs).unref();
    });
    const interval = options.syncIntervalMs ?? 2_000;
    this.followsChanges = interval > 0 && interval <= 10_000;
    if (interval > 0) {
      this.timer = setInterval(() => {
        // One sync at a time: a tick during a long one does not queue another behind it.
        if (this.built && !this.syncing && this.pending.size > 0)
          void this.syncChanges().catch((error: unknown) => log.warn(`semantic sync of ${source.root}: ${(error as Error).message}`));
        else if (this.built && !this.syncing && this.saveDue()) this.save();
      }, interval);
      this.timer.unref();
    }
  }

  /** The vector store: the saved one, checked, on first use; else an empty one (the first sync fills it). */
  get store(): VectorStore {
    if (this.storeValue) return this.storeValue;
    const store = new VectorStore(this.cache.dimensions, this.embedder.modelId, {
      vectorOf: (textHash) => this.cache.get(textHash),
    });
    const loaded = store.load(this.options.folder, this.source.root);
    if (loaded.loaded) {
      this.loaded = { loaded: 'valid' };
      // The embedding cache indexed now, in slices (the kernel's: ~2.5 s of this thread in ~25 ms
      // pieces), so the first change after a restart and a filtered search find it ready.
      void this.cache.indexInSlices().catch((error: unknown) => log.warn(`embedding cache ${this.cache.file}: ${(error as Error).message}`));
    } else if (loaded.reason !== 'no saved store') {
      this.loaded = { loaded: 'rebuilt', reason: loaded.reason };
      log.warn(`semantic store of ${this.source.root}: ${loaded.reason}; rebuilding it (cached vectors are reused)`);
    } else this.loaded = { loaded: 'none' };
    this.storeValue = store;
    return store;
  }

  /**
   * Whether the store was loaded from disk, checked: it answers at once after a restart, while the
   * first sync (ensureBuilt) catches up with what changed meanwhile. Opens the store.
   */
  get loadedStore(): boolean {
    void this.store;
    return this.loaded.loaded === 'valid' || this.seeded !== undefined;
  }

  /** Whether `beginSeed` would take anything: the index was never built, holds nothing (no saved store) and no seed is under way. Opens the store. */
  get seedable(): boolean {
    return !(this.built || this.building || this.disposed || this.seedWait || this.store.size > 0);
  }

  /**
   * Starts filling an index that holds nothing yet (never built, no saved store, no other seed)
   * with files' chunks and vectors made elsewhere (a team store's, for the same model), a round
   * at a time as they arrive (`add`); undefined when the index is not seedable. Only files it
   * embeds (`accepts`) whose hash is the file set's now are taken, only vectors of this model's
   * size with finite numbers. Each round is searched at once, exactly (staged: vector-store.ts).
   * After `end` the vectors go to the embedding cache, then into the HNSW graph (`graphInSlices`),
   * in slices between requests, then the store is saved. The first build (ensureBuilt) waits for
   * `end` and for the cache, so it embeds only the files no round gave. `end` answers what all
   * rounds took; call it however the fetch ended (a failed join keeps the rounds that came).
   */
  beginSeed(from: string): Seeding | undefined {
    if (!this.seedable) return undefined;
    const accepts = this.options.accepts ?? (() => true);
    const dimensions = this.cache.dimensions;
    let ended = false;
    let end!: () => void;
    const wait = new Promise<void>((resolve) => (end = resolve));
    this.seedWait = { wait, end };
    const taken = { files: 0, chunks: 0 };
    // Cached after the last round (in slices that step aside for requests): writing them as
    // rounds came doubled the work this thread did while the store was being read.
    const toCache: Array<{ key: string; vector: Float32Array | HalfVector }> = [];
    return {
      add: (files) => {
        if (ended || this.disposed) return;
        const round = files.filter(
          ({ file, fileHash, chunks }) =>
            accepts(file) &&
            this.source.hashOf(file) === fileHash &&
            chunks.every(({ vector }) => vector.length === dimensions && (vector instanceof HalfVector ? vector.finite() : allFinite(vector))),
        );
        const vectors = new Map<string, Float32Array | HalfVector>();
        for (const { chunks } of round) for (const chunk of chunks) vectors.set(chunk.textHash, chunk.vector);
        this.store.stage(round);
        for (let count = 0; count < round.length; count++) this.markUnsaved();
        taken.files += round.length;
        taken.chunks += round.reduce((sum, { chunks }) => sum + chunks.length, 0);
        for (const [key, vector] of vectors) toCache.push({ key, vector });
      },
      end: () => {
        if (ended) return { ...taken };
        ended = true;
        this.seeded = { from, ...taken, at: new Date().toISOString() };
        const caching = this.cacheInSlices(toCache.splice(0));
        this.seedCaching = caching;
        this.seedWait = undefined;
        end();
        void caching.then(() => this.graphInSlices()).catch((error: unknown) => log.warn(`semantic index of ${this.source.root}: ${errorMessage(error)}`));
        log.info(`semantic index of ${this.source.root}: ${taken.files} files (${taken.chunks} chunks) from ${from}`);
        // A seeded index is about to be asked in words: its query embedder is readied now, not by the first question.
        setImmediate(() => {
          try {
            this.embedder.warm?.();
          } catch (error) {
            log.debug(`semantic index of ${this.source.root}: the embedder was not readied (${errorMessage(error)})`);
          }
        });
        return { ...taken };
      },
    };
  }

  /** Puts vectors in the embedding cache a slice (one write) at a time, yielding between slices and to requests (base/foreground.ts). */
  private async cacheInSlices(entries: Array<{ key: string; vector: Float32Array | HalfVector }>): Promise<void> {
    for (let start = 0; start < entries.length && !this.disposed; start += cacheSliceVectors) {
      await foregroundQuiet();
      this.cache.putAll(
        entries.slice(start, start + cacheSliceVectors).map(({ key, vector }) => ({ key, vector: vector instanceof HalfVector ? vector.floats() : vector })),
      );
      await breathe();
    }
  }

  /**
   * Moves the staged vectors into the HNSW graph, about `graphSliceMs` of this thread a slice
   * (requests are served between slices, and none starts while one is answered), each from the
   * embedding cache; saves when all are in.
   */
  private async graphInSlices(): Promise<void> {
    let rows = 256;
    const started = performance.now();
    const staged = this.store.stagedCount;
    let slices = 0;
    let longest = 0;
    while (!this.disposed && this.store.stagedCount > 0) {
      await foregroundQuiet();
      const sliceStarted = performance.now();
      const passed = this.store.graphStaged(rows, (key) => this.cache.get(key));
      const ms = performance.now() - sliceStarted;
      slices += 1;
      longest = Math.max(longest, ms);
      rows = Math.min(8_192, Math.max(32, Math.round((passed * graphSliceMs) / Math.max(1, ms))));
      await breathe();
    }
    if (this.disposed) return;
    log.info(
      `semantic index of ${this.source.root}: ${staged} staged vectors in the graph in ${Math.round(performance.now() - started)} ms (${slices} slices, the longest ${Math.round(longest)} ms)`,
    );
    this.save();
  }

  get state(): SemanticState {
    return this.built ? 'ready' : this.building ? 'building' : 'absent';
  }

  onProgress(listener: (done: number, total: number) => void): { dispose(): void } {
    this.progressListeners.add(listener);
    return { dispose: () => this.progressListeners.delete(listener) };
  }

  /**
   * The first sync (every file whose vectors are missing or stale); later calls wait for it. The
   * shared work runs to its end whoever stops waiting: a caller's cancellation ends its own wait.
   */
  async ensureBuilt(signal: CancellationSignal = neverCancelled): Promise<void> {
    if (!this.built) {
      this.building ??= this.syncAll().then(
        () => {
          this.built = true;
          this.building = undefined;
        },
        (error: unknown) => {
          this.building = undefined;
          throw error;
        },
      );
      await raceCancellation(this.building, signal);
    }
    throwIfCancelled(signal);
  }

  /** Syncs now: every file of the file set against the store (on demand, and periodically). */
  async sync(signal: CancellationSignal = neverCancelled): Promise<void> {
    if (!this.built) return this.ensureBuilt(signal);
    // One sync at a time; another caller's failure is not ours (we run our own after it).
    while (this.syncing) await this.syncing.catch(() => undefined);
    this.syncing = this.syncAll().finally(() => (this.syncing = undefined));
    return raceCancellation(this.syncing, signal);
  }

  /**
   * Syncs the files changed since the last sync (the timer's): only they are looked at, not every
   * file of the file set (the kernel's 78k: ~0.6 s of this thread before the first changed file).
   */
  private syncChanges(): Promise<void> {
    this.syncing = this.syncAll(true).finally(() => (this.syncing = undefined));
    return this.syncing;
  }

  /** Every file of the file set against the store, or only those changed since the last sync. */
  private async syncAll(onlyChanged = false): Promise<void> {
    // A seed's rounds first, then its vectors in the cache (a failure there leaves its files to embed).
    await this.seedWait?.wait;
    await this.seedCaching?.catch(() => undefined);
    await this.source.whenReady();
    await this.source.settle();
    const started = performance.now();
    const accepts = this.options.accepts ?? (() => true);
    // Taken once the file set has settled: a change seen meanwhile is among them.
    const changed = onlyChanged ? [...this.pending.keys()] : undefined;
    this.pending.clear();
    const wanted = new Set((changed ?? this.source.files()).filter((file) => accepts(file) && (!changed || this.source.hashOf(file) !== undefined)));
    for (const file of changed ?? [...this.store.paths()]) {
      if (wanted.has(file) || this.store.fileHash(file) === undefined) continue;
      this.store.removeFile(file);
      this.markUnsaved();
    }
    const todo = [...wanted].filter((file) => this.store.fileHash(file) !== this.source.hashOf(file));
    const counts: SyncCounts = { files: todo.length, done: 0, embedded: 0, cached: 0, repaired: 0 };
    this.current = { embedded: 0, started: performance.now() };
    await this.syncFiles(todo, counts);
    if (this.store.needsCompaction && !this.disposed) {
      // A file whose vector the cache no longer gives back leaves the store: synced again now.
      const dropped = this.store.compact((key) => this.cachedVector(key, counts));
      counts.files += dropped.length;
      await this.syncFiles(dropped, counts);
    }
    if (!this.disposed && this.saveDue()) this.save();
    const ms = Math.round(performance.now() - started);
    this.lastSync = { at: new Date().toISOString(), files: counts.files, embedded: counts.embedded, cached: counts.cached, repaired: counts.repaired, ms };
    if (counts.repaired > 0)
      log.warn(`semantic index of ${this.source.root}: ${counts.repaired} cached vectors failed their check in ${this.cache.file}; embedded again`);
    const synced = this.disposed ? `a sync of ${counts.files} files stopped (the index was closed) after ${counts.done}` : `${counts.files} files synced`;
    log.info(
      `semantic index of ${this.source.root}: ${synced} (${counts.embedded} chunks embedded, ${counts.cached} from the cache) in ${ms} ms; ${this.store.size} vectors`,
    );
  }

  /**
   * Chunks `files` and puts them in the store, each chunk's vector from the embedding cache where
   * it holds one that passes its check, else from the model (then cached) in the same pass: a
   * damaged cache costs model calls, never a file left out.
   */
  private async syncFiles(files: string[], counts: SyncCounts): Promise<void> {
    const batchSize = this.options.batchSize ?? 32;
    for (const file of files) this.toChunk.add(file);
    try {
      if (files.length > 0) await this.cache.indexInSlices();
      await this.syncGroups(files, counts, batchSize);
    } finally {
      for (const file of files) this.toChunk.delete(file);
      this.addPending();
    }
  }

  /** Adds the files a sync made vectors for to the store, in one batch. */
  private addPending(): void {
    const files = this.toAdd.splice(0);
    this.toAddVectors = 0;
    if (files.length === 0 || this.disposed) return;
    // A file changed again since its vectors were made: its change event brings it back.
    const current = files.filter(({ file, fileHash }) => this.source.hashOf(file) === fileHash);
    this.store.replaceFiles(current);
    for (let count = 0; count < current.length; count++) this.markUnsaved();
  }

  /**
   * Whether the index will ask for this file's chunks soon (the sync under way has it to do, or the
   * next one, due within seconds, will): the engine's syntax pass makes them with another index's
   * pass of it.
   */
  awaitsChunks(file: string): boolean {
    return this.toChunk.has(file) || (this.built && this.followsChanges && this.pending.has(file));
  }

  /** What a sync asks of each file: chunks at the model's budget, embedded by the syntax pass when the model can run there (a static one). */
  chunkOptions(): ChunkOptions & { embed?: WorkerEmbedding } {
    const embed = this.embedder.inWorkers?.();
    return embed ? { budgetBytes: semanticBudgetBytes, embed } : { budgetBytes: semanticBudgetBytes };
  }

  private async syncGroups(files: string[], counts: SyncCounts, batchSize: number): Promise<void> {
    // Files are chunked a few at a time; their chunks are embedded together in batches, the
    // batches at once (the model's workers take them), a few groups under way (workers never wait).
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < files.length && !this.disposed) {
        const group = files.slice(next, next + 8);
        next += group.length;
        await this.syncGroup(group, counts, batchSize);
      }
    };
    await Promise.all(Array.from({ length: groupsInFlight }, lane));
  }

  private async syncGroup(group: string[], counts: SyncCounts, batchSize: number): Promise<void> {
    const chunked = await Promise.all(
      group.map(async (file) => {
        const hash = this.source.hashOf(file);
        this.toChunk.delete(file);
        try {
          const request = { path: file, absolutePath: toAbsolute(this.source.root, file), options: this.chunkOptions() };
          let result = await this.chunks.chunk(request);
          // Vectors of another model (held by the pass for this workspace's previous index): cut and embedded again.
          if ('vectors' in result && result.modelId !== this.embedder.modelId) result = await this.chunks.chunk(request);
          if ('vectors' in result && result.modelId !== this.embedder.modelId)
            throw new Error(`embedded by model ${result.modelId}, not ${this.embedder.modelId}`);
          return { file, hash, result };
        } catch (error) {
          // Vanished (its change event follows), or unreadable or a pass that failed twice: said, not hidden.
          const vanished = (error as { code?: string }).code === 'ENOENT';
          (vanished ? log.debug : log.warn)(`semantic index: ${file} left out: ${(error as Error).message}`);
          return { file, hash: undefined, result: undefined };
        }
      }),
    );
    const vectors = new Map<string, Float32Array>();
    /** Key → the text the model embeds, for the chunks the cache cannot give. */
    const missing = new Map<string, string>();
    /** Vectors the syntax pass made that the cache lacks. */
    const madeThere: Array<{ key: string; vector: Float32Array }> = [];
    const entries = chunked.map(({ file, hash, result }) => {
      if (result === undefined) return { file, hash, chunks: [] };
      if ('vectors' in result) {
        // Embedded by the pass: the cache is only told what it lacks.
        const { dimensions } = result;
        result.chunks.forEach(({ textHash: key }, at) => {
          if (vectors.has(key)) return;
          const vector = result.vectors.subarray(at * dimensions, (at + 1) * dimensions);
          vectors.set(key, vector);
          if (this.cache.has(key)) counts.cached++;
          else {
            madeThere.push({ key, vector });
            counts.embedded++;
          }
        });
        return { file, hash, chunks: result.chunks };
      }
      return {
        file,
        hash,
        chunks: result.chunks.map((chunk) => {
          const key = chunkTextHash(chunk);
          if (!vectors.has(key) && !missing.has(key)) {
            const vector = this.cachedVector(key, counts);
            if (vector) vectors.set(key, vector);
            else missing.set(key, contextualizedText(chunk));
          }
          if (!missing.has(key)) counts.cached++;
          return placeOf(chunk, key);
        }),
      };
    });
    if (madeThere.length > 0) {
      this.cache.putAll(madeThere);
      this.current.embedded = counts.embedded;
    }
    const keys = [...missing.keys()];
    const slices: string[][] = [];
    for (let batch = 0; batch < keys.length; batch += batchSize) slices.push(keys.slice(batch, batch + batchSize));
    await Promise.all(
      slices.map(async (slice) => {
        const embedded = await this.embedder.embed(
          slice.map((key) => missing.get(key)!),
          'document',
        );
        const fresh = slice.map((key, index) => ({ key, vector: embedded[index]! }));
        this.cache.putAll(fresh);
        for (const { key, vector } of fresh) vectors.set(key, vector);
        counts.embedded += slice.length;
        this.current.embedded = counts.embedded;
      }),
    );
    const replaced: Array<{ file: string; fileHash: string; chunks: NewChunk[] }> = [];
    for (const { file, hash, chunks } of entries) {
      if (hash === undefined || this.source.hashOf(file) !== hash) {
        // Gone or changed meanwhile: its change event brings it back to the next sync.
        this.store.removeFile(file);
        this.markUnsaved();
        continue;
      }
      replaced.push({ file, fileHash: hash, chunks: chunks.map((chunk) => ({ ...chunk, vector: vectors.get(chunk.textHash)! })) });
    }
    this.toAdd.push(...replaced);
    this.toAddVectors += replaced.reduce((sum, { chunks }) => sum + chunks.length, 0);
    if (this.toAddVectors >= addBatchVectors) this.addPending();
    counts.done += group.length;
    for (const listener of this.progressListeners) listener(counts.done, counts.files);
  }

  /** A cached vector, checked; one the cache holds but that fails its check is counted (`repaired`). */
  private cachedVector(key: string, counts: SyncCounts): Float32Array | undefined {
    const held = this.cache.has(key);
    const vector = this.cache.get(key);
    if (!vector && held) counts.repaired++;
    return vector;
  }

  /**
   * The k chunks nearest to `query`. A chunk of a test file (`isTestPath`) counts `testPenalty`
   * less similar (default 0.1; 0 ranks them alike): "where is X done" means the code, as in the
   * chunk ranking, which halves a test's score. Its `similarity` is the one ranked by.
   */
  async search(query: string, k: number, accepts?: (file: string) => boolean, testPenalty = defaultTestPenalty): Promise<VectorHit[]> {
    const [vector] = await this.embedder.embed([query], 'query');
    if (testPenalty === 0) return this.store.search(vector!, k, accepts);
    // More neighbours than asked for: a chunk beyond the first k moves up when tests move down
    // (exact unless more than k + 20 of the 2k + 20 are tests' chunks; the search is approximate anyway).
    return this.store
      .search(vector!, 2 * k + 20, accepts)
      .map((hit) => (isTestPath(hit.path) ? { ...hit, similarity: hit.similarity - testPenalty } : hit))
      .sort((a, b) => b.similarity - a.similarity)
      .slice(0, k);
  }

  /** The size of the model's vectors. */
  get dimensions(): number {
    return this.cache.dimensions;
  }

  /** The model's id (its embedding cache's name). */
  get modelId(): string {
    return this.embedder.modelId;
  }

  /** The files and chunks the index holds now, their vectors read from the embedding cache on demand. */
  records(): SemanticRecords {
    return {
      modelId: this.embedder.modelId,
      dimensions: this.cache.dimensions,
      files: [...this.store.records()],
      vector: (textHash) => this.cache.get(textHash),
    };
  }

  /** A progress line: files done, chunks embedded, and the time left at the pace so far. */
  progressMessage(done: number, total: number): string {
    const elapsed = (performance.now() - this.current.started) / 1000;
    const left = done > 0 ? Math.round((elapsed / done) * (total - done)) : undefined;
    return `${done}/${total} files, ${this.current.embedded} chunks embedded${left === undefined ? '' : `, about ${left} s left`}`;
  }

  status(): SemanticStatus {
    let oldest = Infinity;
    for (const since of this.pending.values()) oldest = Math.min(oldest, since);
    return {
      state: this.state,
      modelId: this.embedder.modelId,
      files: this.storeValue?.fileCount ?? 0,
      chunks: this.storeValue?.size ?? 0,
      pendingFiles: this.pending.size,
      oldestPendingMs: this.pending.size > 0 ? Date.now() - oldest : 0,
      lastSync: this.lastSync,
      store: this.loaded,
      ...(this.seeded ? { seeded: this.seeded } : {}),
      staged: this.storeValue?.stagedCount ?? 0,
    };
  }

  /**
   * Stops syncing and, unless `save` is false, saves what changed since the last save. An index
   * being replaced by another model's (the same folder) is disposed without saving, so it never
   * writes over what the new one saved.
   */
  async dispose(options: { save?: boolean } = {}): Promise<void> {
    this.disposed = true;
    // A seed under way takes nothing more; a build waiting for it goes on to its end.
    this.seedWait?.end();
    this.subscription.dispose();
    if (this.timer) clearInterval(this.timer);
    if (this.soon) clearTimeout(this.soon);
    while (this.syncing) await this.syncing.catch(() => undefined);
    while (this.building) await this.building.catch(() => undefined);
    if (options.save !== false && this.unsavedFiles > 0) this.save();
  }

  /** Saves what changed since the last save now, whatever the deferral says (after `fathom index`, and at a stop). */
  async flush(): Promise<void> {
    while (this.syncing) await this.syncing.catch(() => undefined);
    while (this.building) await this.building.catch(() => undefined);
    if (this.built && this.unsavedFiles > 0) this.save();
  }

  private markUnsaved(): void {
    if (this.unsavedFiles === 0) this.unsavedSince = Date.now();
    this.unsavedFiles += 1;
  }

  /** Whether the changes since the last save are worth rewriting the store for (`SaveDeferral`). */
  private saveDue(): boolean {
    if (this.unsavedFiles === 0) return false;
    const { minVectors, fraction, maxAgeMs } = this.options.saveDeferral ?? defaultSaveDeferral;
    return this.store.size < minVectors || this.unsavedFiles >= fraction * this.store.fileCount || Date.now() - this.unsavedSince >= maxAgeMs;
  }

  private save(): void {
    try {
      this.store.save(this.options.folder, this.source.root);
      this.unsavedFiles = 0;
    } catch (error) {
      log.warn(`semantic store of ${this.source.root}: not saved (${(error as Error).message}); a restart syncs what changed from the embedding cache`);
    }
  }
}

/** Whether every number of a vector is finite. */
function allFinite(vector: Float32Array): boolean {
  for (let index = 0; index < vector.length; index++) if (!Number.isFinite(vector[index]!)) return false;
  return true;
}
