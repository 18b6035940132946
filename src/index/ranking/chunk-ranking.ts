// The chunk ranking: a BM25F index over the syntax chunks of every file of a workspace, answering
// a question in words with the chunks that best match it (the `lexical` ranking of codeSearch,
// the one every other ranking is measured against). Files are chunked and tokenised on worker
// threads (chunk-terms-pool.ts; fields and terms: chunk-fields.ts, code-tokens.ts); this thread
// interns the terms and appends postings.
//
// Structure, Lucene-like: term → a posting list of (chunk id, packed per-field counts) pairs, and a
// chunk table (file id, lines, bytes, field lengths, alive) as growable typed arrays. The terms
// (term-table.ts) and the lists (posting-lists.ts) are typed arrays too, not an object per term.
// A changed or removed file's chunks are marked dead and its new chunks appended; postings of dead
// chunks are skipped at query time and dropped by a compaction (chunk ids renumbered) once they are
// a quarter of the table. Document frequencies count dead postings until then, as Lucene's do:
// BM25's idf hardly moves. Kept fresh from the file set's change events (saved files: results
// point at lines on disk; the regex index is the keystroke-fresh one). Persisted as chunks.bin
// (chunk-ranking-file.ts), used where it lies: a restart reads the chunk and file tables, and a
// term's posting list is read (and checked) the first time a question or a change needs it; ids
// below `baseTerms` are the file's terms, later ones terms added since. A restart re-chunks only
// the files whose hash changed. A part of the file that fails its check discards the ranking,
// which builds again (RankingDamaged; a search that meets it is asked again by its caller).
import fs from 'node:fs';
import type { CancellationSignal } from '../../base/cancellation.js';
import { neverCancelled, throwIfCancelled } from '../../base/cancellation.js';
import { breathe } from '../../base/event-loop.js';
import { type RewriteDeferral, rewriteDue } from '../../base/rewrite-deferral.js';
import { SerialTask } from '../../base/serial-task.js';
import { log } from '../../base/logger.js';
import { toAbsolute } from '../../base/paths.js';
import { fieldCount, maxFieldCount } from './chunk-fields.js';
import { RankingDamaged, RankingFile, type RankingTables, type TermToWrite, writeRankingFile } from './chunk-ranking-file.js';
import type { RankingSnapshot } from './chunk-ranking-store.js';
import type { FileTerms } from './chunk-terms-worker.js';
import { PostingLists } from './posting-lists.js';
import { TermTable, termHash } from './term-table.js';

/** Bump when chunk-fields.ts, code-tokens.ts or the budget change what a chunk's terms are: caches made before are rebuilt. */
export const rankingVersion = 1;

/**
 * The chunk size the ranking cuts at: larger than the chunker's default (1,500), so a chunk is
 * most often a whole function or a small class. Chosen on the retrieval evaluation
 * (bench/retrieval): 1,500 → 4,000 bytes raised meaning-only file Recall@1 from 47.5% to 54.2% and
 * chunk Recall@10 from 61% to 76%; the sweep is in bench/RESULTS.md (it is noisy: ±6 points
 * between neighbouring budgets).
 */
export const rankingBudgetBytes = 4000;

/** What the ranking needs from a workspace (the Workspace class provides it). */
export interface RankingSource {
  root: string;
  files(): string[];
  /** The SHA-256 (hex) the file set holds for a file; undefined when it holds none. */
  hashOf(relativePath: string): string | undefined;
  onChanges(listener: (changes: { added: string[]; changed: string[]; removed: string[] }) => void): { dispose(): void };
}

/** BM25F parameters: a weight and a length normalisation per field (name, path, doc, signature, body), and k1. */
export interface RankingParameters {
  weights: number[];
  b: number[];
  k1: number;
}

export const defaultParameters: RankingParameters = {
  weights: [3, 1.5, 1.5, 2, 1],
  b: [0.5, 0.3, 0.75, 0.5, 0.75],
  k1: 1.2,
};

export interface RankQuery {
  /** Query terms (code-tokens.ts `queryTerms`): at most 32 are used. */
  terms: string[];
  /** Only chunks of files this filter accepts (applied before ranking). */
  accepts?: (relativePath: string) => boolean;
  /** At most this many chunks (default 20). */
  limit?: number;
  parameters?: RankingParameters;
  /** What a chunk of a test file scores, relative to one elsewhere (default 0.5: "where is X done" means the code, not its tests; 1 ranks them alike). */
  testFactor?: number;
}

const defaultTestFactor = 0.5;

/** Test files by the usual conventions: a tests/spec folder, `.test.`/`.spec.`/`_test.` names, `test_*.py`, `*Test.java`. */
export function isTestPath(relativePath: string): boolean {
  return (
    /(^|\/)(tests?|__tests__|specs?|testing)\//i.test(relativePath) ||
    /(\.(test|spec)\.[^./]+|_test\.[^./]+|(^|\/)test_[^/]*\.py|Tests?\.(java|kt|cs))$/.test(relativePath)
  );
}

export interface RankedChunk {
  path: string;
  /** 0-based, inclusive. */
  startLine: number;
  endLine: number;
  startByte: number;
  endByte: number;
  score: number;
  /** The query terms this chunk holds. */
  matched: string[];
}

export type ChunkRankingState = 'absent' | 'building' | 'ready';

interface FileEntry {
  hash: string | undefined;
  first: number;
  count: number;
}

/** Lock files, minified bundles and source maps: text nobody asks about in words, full of every word. */
const unranked =
  /(^|\/)(package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|Cargo\.lock|poetry\.lock|Pipfile\.lock|composer\.lock|go\.sum)$|\.min\.(js|css)$|\.map$/;

export function isRanked(relativePath: string): boolean {
  return !unranked.test(relativePath);
}

const inFlight = 16;

/** A ranking of more than 100k chunks writes chunks.bin again only once 256 files (or 1%) were chunked again or dropped (base/rewrite-deferral.ts). */
const defaultRewriteDeferral: RewriteDeferral = { above: 100_000, staleFiles: 256 };

function grownU32(array: Uint32Array, needed: number): Uint32Array {
  if (needed <= array.length) return array;
  const next = new Uint32Array(Math.max(needed, array.length * 2, 16));
  next.set(array);
  return next;
}

function grownU16(array: Uint16Array, needed: number): Uint16Array {
  if (needed <= array.length) return array;
  const next = new Uint16Array(Math.max(needed, array.length * 2, 16));
  next.set(array);
  return next;
}

function grownU8(array: Uint8Array, needed: number): Uint8Array {
  if (needed <= array.length) return array;
  const next = new Uint8Array(Math.max(needed, array.length * 2, 16));
  next.set(array);
  return next;
}

/** Where a file's chunks and terms come from (a worker pool, or the engine's syntax pass). */
export interface TermsSource {
  terms(request: { path: string; absolutePath?: string; bytes?: Uint8Array; budgetBytes?: number }): Promise<FileTerms>;
}

export { RankingDamaged } from './chunk-ranking-file.js';

export class ChunkRanking {
  // Terms: ids below baseTerms are chunks.bin's (read from it on demand), the others added since.
  private base: RankingFile | undefined;
  private baseTerms = 0;
  /** Every term looked up or added so far, with its id. */
  private terms = new TermTable();
  /** The table's entry of each term added since the base (id baseTerms + index). */
  private newTermEntries: Uint32Array = new Uint32Array(1024);
  private newTerms = 0;
  /** Posting lists in memory, by term id (none: a base term whose list has not been read). */
  private lists = new PostingLists();
  /** Words in every posting list (dead chunks' included), for counts(). */
  private postingWords = 0;
  /** Bumped when a damaged base discards the ranking: work begun before it is dropped. */
  private generation = 0;
  // Chunks (struct of arrays).
  private chunkCount = 0;
  private deadCount = 0;
  private chunkFile: Uint32Array = new Uint32Array(1024);
  private chunkLines: Uint32Array = new Uint32Array(2048); // start, end
  private chunkBytes: Uint32Array = new Uint32Array(2048); // start, end
  private chunkLengths: Uint16Array = new Uint16Array(1024 * fieldCount);
  private alive: Uint8Array = new Uint8Array(1024);
  private readonly lengthSums = new Float64Array(fieldCount);
  // Files.
  private readonly fileIds = new Map<string, number>();
  private filePaths: string[] = [];
  private readonly entries = new Map<string, FileEntry>();
  // Life cycle.
  private building: Promise<void> | undefined;
  private built = false;
  private disposed = false;
  private readonly pending = new Set<string>();
  /** Files the build or the flush under way has still to chunk. */
  private readonly toIndex = new Set<string>();
  /** Changes seen, flushes begun, files indexed and builds ended, counted: `lag` walks again when it moved. */
  private moves = 0;
  /** Files chunked again or dropped since chunks.bin was written (what a restart would chunk again). */
  private staleFiles = 0;
  private lagKnown: { moves: number; files: number } | undefined;
  private readonly removedDuringBuild = new Set<string>();
  private flushing: Promise<void> | undefined;
  private readonly subscription: { dispose(): void };
  private readonly progressListeners = new Set<(done: number, total: number) => void>();
  private saveTimer: NodeJS.Timeout | undefined;
  /** One save at a time; a change during a save makes another follow. */
  private readonly saver = new SerialTask(() => this.write());
  /** Snapshots copying the lists now: no compaction meanwhile. */
  private snapshotting = 0;
  /** Scores of the query under way, indexed by chunk id (reused: reset through `touched`). */
  private scratch = new Float32Array(0);
  private scratchMasks = new Uint32Array(0);
  /** How the last build went: files taken from the cache, files chunked. */
  lastBuild: { loaded: number; chunked: number; ms: number } | undefined;

  constructor(
    private readonly source: RankingSource,
    /** null: a ranking that never chunks (fromSnapshot). */
    private readonly pool: TermsSource | null,
    /** Where the ranking is persisted (undefined: in memory only). */
    private readonly cacheFile?: string,
    private readonly saveDelayMs = 30_000,
    /** The chunk size to cut at (tests use small ones to see several chunks per file). */
    readonly budgetBytes = rankingBudgetBytes,
    /** When a large ranking's save waits (tests use small numbers). */
    private readonly saveDeferral: RewriteDeferral = defaultRewriteDeferral,
  ) {
    this.subscription = source.onChanges((changes) => {
      this.moves++;
      for (const file of changes.removed) {
        if (this.entries.has(file)) this.staleFiles++;
        this.drop(file);
        this.pending.delete(file);
        if (this.building) this.removedDuringBuild.add(file);
      }
      for (const file of [...changes.added, ...changes.changed]) if (isRanked(file)) this.pending.add(file);
      if (this.built) this.flush();
    });
  }

  get state(): ChunkRankingState {
    return this.built ? 'ready' : this.building ? 'building' : 'absent';
  }

  onProgress(listener: (done: number, total: number) => void): { dispose(): void } {
    this.progressListeners.add(listener);
    return { dispose: () => this.progressListeners.delete(listener) };
  }

  /** Builds on first use; later calls wait for the same build. */
  async ensureBuilt(signal: CancellationSignal = neverCancelled): Promise<void> {
    if (this.built) return this.flushing;
    this.building ??= this.build().finally(() => (this.building = undefined));
    await this.building;
    throwIfCancelled(signal);
  }

  private async build(): Promise<void> {
    const started = performance.now();
    let loaded: number;
    let files: string[];
    // Again from the start when a damaged base discarded what the build had (its files and chunks).
    for (;;) {
      const generation = this.generation;
      const wanted = this.source.files().filter(isRanked);
      loaded = this.load(wanted);
      files = wanted.filter((file) => !this.entries.has(file));
      for (const file of files) this.toIndex.add(file);
      let done = 0;
      let next = 0;
      const lane = async (): Promise<void> => {
        while (next < files.length && !this.disposed && generation === this.generation) {
          await this.index(files[next++]!);
          done += 1;
          if (done % 64 === 0 || done === files.length) for (const listener of this.progressListeners) listener(done, files.length);
        }
      };
      await Promise.all(Array.from({ length: inFlight }, lane)).finally(() => this.toIndex.clear());
      if (generation === this.generation || this.disposed) break;
    }
    for (const file of this.removedDuringBuild) this.drop(file);
    this.removedDuringBuild.clear();
    this.built = true;
    this.moves++;
    const ms = Math.round(performance.now() - started);
    this.lastBuild = { loaded, chunked: files.length, ms };
    const counts = this.counts();
    log.info(
      `chunk ranking of ${this.source.root}: ${counts.files} files (${loaded} from the cache, ${files.length} chunked), ${counts.chunks} chunks, ${counts.terms} terms in ${ms} ms`,
    );
    if (files.length > 0 || loaded < this.entries.size) this.scheduleSave(0);
    if (this.pending.size > 0) this.flush();
  }

  /** Chunks one file on a worker and puts its chunks in place of the old ones. */
  /** Whether the ranking will ask for this file's terms soon (its build or its flush has it to do): the engine's syntax pass makes them with another index's pass of it. */
  awaitsTerms(file: string): boolean {
    return this.toIndex.has(file);
  }

  private async index(file: string): Promise<void> {
    try {
      await this.indexNow(file);
    } finally {
      this.moves++;
      this.staleFiles++;
    }
  }

  private async indexNow(file: string): Promise<void> {
    this.toIndex.delete(file);
    const generation = this.generation;
    // The hash before reading: if the file changes meanwhile, its change event indexes it again.
    const hash = this.source.hashOf(file);
    let terms: FileTerms;
    try {
      if (!this.pool) throw new Error('this ranking was made from a snapshot and chunks nothing');
      terms = await this.pool.terms({ path: file, absolutePath: toAbsolute(this.source.root, file), budgetBytes: this.budgetBytes });
    } catch (error) {
      // Vanished or unreadable since the file set saw it: the change event that follows says so.
      if (!this.disposed) this.drop(file);
      log.debug(`chunk ranking: ${file}: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    if (this.disposed || generation !== this.generation) return;
    if (this.source.hashOf(file) === undefined) {
      this.drop(file);
      return;
    }
    try {
      this.add(file, hash, terms);
    } catch (error) {
      if (!(error instanceof RankingDamaged)) throw error;
      this.discard(error.message);
      return;
    }
    if (this.built) this.scheduleSave();
  }

  private fileId(file: string): number {
    let id = this.fileIds.get(file);
    if (id === undefined) {
      id = this.filePaths.length;
      this.filePaths.push(file);
      this.fileIds.set(file, id);
    }
    return id;
  }

  /** The term's id, looked up in the base when not yet seen; undefined when no chunk holds it. */
  private findTerm(term: string): number | undefined {
    const id = this.idOf(term, 0, term.length, termHash(term));
    return id < 0 ? undefined : id;
  }

  /** The id of the term `text[start, end)` (its hash `hash`), looked up in the base when not yet seen; -1 when no chunk holds it. */
  private idOf(text: string, start: number, end: number, hash: number): number {
    const id = this.terms.find(text, start, end, hash);
    if (id >= 0 || !this.base) return id;
    const found = this.base.lookup(text.slice(start, end))?.id;
    if (found === undefined) return -1;
    this.terms.insert(text, start, end, hash, found);
    return found;
  }

  /** The term's id, a new term when no chunk holds it yet; its list in memory. */
  private termId(text: string, start: number, end: number, hash: number): number {
    let id = this.idOf(text, start, end, hash);
    if (id < 0) {
      id = this.baseTerms + this.newTerms;
      const entry = this.terms.insert(text, start, end, hash, id);
      this.newTermEntries = grownU32(this.newTermEntries, this.newTerms + 1);
      this.newTermEntries[this.newTerms++] = entry;
      this.lists.create(id);
    } else this.ensureList(id);
    return id;
  }

  /** The term's posting list in memory (read from the base the first time). */
  private ensureList(id: number, ahead = false): void {
    if (!this.lists.has(id)) this.lists.put(id, this.base!.readList(this.base!.entry(id), ahead));
  }

  private add(file: string, hash: string | undefined, terms: FileTerms): void {
    // Every term's list in memory first: a damaged base is met before anything changed.
    const packed = terms.terms;
    const ids = new Uint32Array(packed.ends.length);
    for (let index = 0, start = 0; index < ids.length; index++) {
      const end = packed.ends[index]!;
      ids[index] = this.termId(packed.text, start, end, packed.hashes[index]!);
      start = end;
    }
    const generation = this.generation;
    this.drop(file);
    // The drop's compaction met a damaged base: everything was discarded.
    if (generation !== this.generation) return;
    const fileId = this.fileId(file);
    const first = this.chunkCount;
    const needed = first + terms.chunks.length;
    this.chunkFile = grownU32(this.chunkFile, needed);
    this.chunkLines = grownU32(this.chunkLines, needed * 2);
    this.chunkBytes = grownU32(this.chunkBytes, needed * 2);
    this.chunkLengths = grownU16(this.chunkLengths, needed * fieldCount);
    this.alive = grownU8(this.alive, needed);
    for (const chunk of terms.chunks) {
      const termIndices = chunk.terms;
      const id = this.chunkCount++;
      this.chunkFile[id] = fileId;
      this.chunkLines[2 * id] = chunk.startLine;
      this.chunkLines[2 * id + 1] = chunk.endLine;
      this.chunkBytes[2 * id] = chunk.startByte;
      this.chunkBytes[2 * id + 1] = chunk.endByte;
      this.alive[id] = 1;
      for (let field = 0; field < fieldCount; field++) {
        const length = Math.min(chunk.lengths[field]!, 0xffff);
        this.chunkLengths[id * fieldCount + field] = length;
        this.lengthSums[field]! += length;
      }
      const counts = chunk.counts;
      for (let at = 0; at < termIndices.length; at++) this.lists.push(ids[termIndices[at]!]!, id, counts[at]!);
      this.postingWords += 2 * chunk.terms.length;
    }
    this.entries.set(file, { hash, first, count: terms.chunks.length });
  }

  /** Marks a file's chunks dead (their postings go at the next compaction). */
  private drop(file: string): void {
    const entry = this.entries.get(file);
    if (!entry) return;
    this.entries.delete(file);
    for (let id = entry.first; id < entry.first + entry.count; id++) {
      if (!this.alive[id]) continue;
      this.alive[id] = 0;
      this.deadCount++;
      for (let field = 0; field < fieldCount; field++) this.lengthSums[field]! -= this.chunkLengths[id * fieldCount + field]!;
    }
    if (this.built) this.scheduleSave();
    // Not while a snapshot copies the lists (a compaction renumbers in place); a snapshot compacts first.
    if (this.snapshotting === 0 && this.deadCount > 4096 && this.deadCount * 4 > this.chunkCount) this.compact();
  }

  /** Drops dead chunks: renumbers the live ones and filters every posting list. */
  private compact(): void {
    const started = performance.now();
    // Renumbering rewrites every list: the base's are read first (a damaged one discards the ranking).
    try {
      this.readAllLists();
    } catch (error) {
      if (!(error instanceof RankingDamaged)) throw error;
      this.discard(error.message);
      return;
    }
    const renumbered = new Int32Array(this.chunkCount).fill(-1);
    let live = 0;
    for (let id = 0; id < this.chunkCount; id++) {
      if (!this.alive[id]) continue;
      renumbered[id] = live;
      this.chunkFile[live] = this.chunkFile[id]!;
      this.chunkLines[2 * live] = this.chunkLines[2 * id]!;
      this.chunkLines[2 * live + 1] = this.chunkLines[2 * id + 1]!;
      this.chunkBytes[2 * live] = this.chunkBytes[2 * id]!;
      this.chunkBytes[2 * live + 1] = this.chunkBytes[2 * id + 1]!;
      this.chunkLengths.copyWithin(live * fieldCount, id * fieldCount, (id + 1) * fieldCount);
      this.alive[live] = 1;
      live++;
    }
    this.postingWords = 0;
    for (let term = 0; term < this.lists.termCount; term++) {
      if (!this.lists.has(term)) continue;
      const list = this.lists.page(term);
      const start = this.lists.start(term);
      const end = start + this.lists.length(term);
      let kept = start;
      for (let at = start; at < end; at += 2) {
        const id = renumbered[list[at]!]!;
        if (id < 0) continue;
        list[kept] = id;
        list[kept + 1] = list[at + 1]!;
        kept += 2;
      }
      this.lists.truncate(term, kept - start);
      this.postingWords += kept - start;
    }
    // A file's chunks are alive and contiguous, so they stay contiguous; a file without chunks
    // (an empty file) points nowhere in particular: 0.
    for (const entry of this.entries.values()) entry.first = entry.count === 0 ? 0 : renumbered[entry.first]!;
    this.alive.fill(0, live, this.chunkCount);
    this.chunkCount = live;
    this.deadCount = 0;
    log.debug(`chunk ranking of ${this.source.root}: compacted to ${live} chunks in ${Math.round(performance.now() - started)} ms`);
  }

  /** Indexes the files changed since; one flush at a time, later changes wait for the next. */
  private flush(): void {
    if (this.disposed || this.flushing || this.pending.size === 0) return;
    const files = [...this.pending];
    this.pending.clear();
    this.moves++;
    for (const file of files) this.toIndex.add(file);
    this.flushing = (async () => {
      let next = 0;
      const lane = async (): Promise<void> => {
        while (next < files.length) await this.index(files[next++]!);
      };
      await Promise.all(Array.from({ length: Math.min(inFlight, files.length) }, lane));
    })().then(() => {
      this.flushing = undefined;
      this.flush();
    });
  }

  /** Indexes one file again now (benchmarks: the cost of an update without the watcher). */
  async refresh(file: string): Promise<void> {
    await this.index(file);
  }

  /** Waits until the changes seen so far are in the index. */
  async settle(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /**
   * The best chunks for the query terms by BM25F, each with the terms it matched. Throws
   * RankingDamaged when a list it reads from chunks.bin fails its check: the ranking is discarded
   * (state absent) and the caller asks again once it is built.
   */
  search(query: RankQuery): RankedChunk[] {
    try {
      return this.rank(query);
    } catch (error) {
      if (error instanceof RankingDamaged) this.discard(error.message);
      throw error;
    }
  }

  private rank(query: RankQuery): RankedChunk[] {
    const parameters = query.parameters ?? defaultParameters;
    const limit = Math.max(1, query.limit ?? 20);
    const terms = [...new Set(query.terms)].slice(0, 32);
    const live = this.chunkCount - this.deadCount;
    if (live === 0 || terms.length === 0) return [];
    if (this.scratch.length < this.chunkCount) {
      this.scratch = new Float32Array(Math.max(this.chunkCount, this.scratch.length * 2));
      this.scratchMasks = new Uint32Array(this.scratch.length);
    }
    const scores = this.scratch;
    const masks = this.scratchMasks;
    const averages = Array.from(this.lengthSums, (sum) => Math.max(sum / live, 1));
    const { weights, b, k1 } = parameters;
    // Per field: weight / (1 - b + b * length / average) = weight / (c0 + c1 * length).
    const c0 = b.map((value) => 1 - value);
    const c1 = b.map((value, field) => value / averages[field]!);
    const touched: number[] = [];
    // Per file: 0 when the filter rejects it, else the factor its chunks' scores get.
    const factors = new Map<number, number>();
    const accepts = query.accepts;
    const testFactor = query.testFactor ?? defaultTestFactor;
    const total = this.chunkCount;
    // Lists read first: a damaged one throws before any score is kept in the scratch arrays.
    const ids = terms.map((term) => {
      const id = this.findTerm(term);
      if (id !== undefined) this.ensureList(id);
      return id;
    });
    ids.forEach((id, termIndex) => {
      if (id === undefined) return;
      const list = this.lists.page(id);
      const start = this.lists.start(id);
      const end = start + this.lists.length(id);
      const frequency = (end - start) / 2;
      const idf = Math.log(1 + (total - frequency + 0.5) / (frequency + 0.5));
      for (let at = start; at < end; at += 2) {
        const chunk = list[at]!;
        if (!this.alive[chunk]) continue;
        const file = this.chunkFile[chunk]!;
        let factor = factors.get(file);
        if (factor === undefined) {
          const path = this.filePaths[file]!;
          factors.set(file, (factor = accepts && !accepts(path) ? 0 : isTestPath(path) ? testFactor : 1));
        }
        if (factor === 0) continue;
        const packed = list[at + 1]!;
        let weighted = 0;
        for (let field = 0; field < fieldCount; field++) {
          const count = (packed >>> (6 * field)) & maxFieldCount;
          if (count !== 0) weighted += (weights[field]! * count) / (c0[field]! + c1[field]! * this.chunkLengths[chunk * fieldCount + field]!);
        }
        if (scores[chunk] === 0) touched.push(chunk);
        scores[chunk]! += (factor * idf * weighted) / (k1 + weighted);
        masks[chunk]! |= 1 << termIndex;
      }
    });
    const best = topK(touched, scores, limit);
    const results = best.map((chunk): RankedChunk => {
      const mask = masks[chunk]!;
      return {
        path: this.filePaths[this.chunkFile[chunk]!]!,
        startLine: this.chunkLines[2 * chunk]!,
        endLine: this.chunkLines[2 * chunk + 1]!,
        startByte: this.chunkBytes[2 * chunk]!,
        endByte: this.chunkBytes[2 * chunk + 1]!,
        score: scores[chunk]!,
        matched: terms.filter((_, index) => (mask & (1 << index)) !== 0),
      };
    });
    for (const chunk of touched) {
      scores[chunk] = 0;
      masks[chunk] = 0;
    }
    return results;
  }

  /** Sizes, for status and benchmarks (no walk: status asks on every call; the kernel has 4M terms). */
  counts(): { files: number; chunks: number; deadChunks: number; terms: number; postings: number } {
    return {
      files: this.entries.size,
      chunks: this.chunkCount - this.deadCount,
      deadChunks: this.deadCount,
      terms: this.baseTerms + this.newTerms,
      postings: this.postingWords / 2,
    };
  }

  /** Bytes in memory: the lists read or built so far, the chunk table (benchmarks: a walk of every term). */
  memoryBytes(): number {
    const bytes = this.lists.bytes() + this.terms.bytes() + this.newTermEntries.byteLength;
    return bytes + this.chunkFile.byteLength + this.chunkLines.byteLength + this.chunkBytes.byteLength + this.chunkLengths.byteLength + this.alive.byteLength;
  }

  /** The file set's hash each indexed file had when it was chunked (status: how far the ranking lags). */
  lag(): number {
    // A walk of every file (the kernel's 78k: ~0.1 s), made again only after something moved.
    if (this.lagKnown?.moves === this.moves) return this.lagKnown.files;
    let behind = this.pending.size;
    for (const [file, entry] of this.entries) if (entry.hash !== this.source.hashOf(file)) behind++;
    this.lagKnown = { moves: this.moves, files: behind };
    return behind;
  }

  // Persistence.

  /** Takes chunks.bin's tables (its terms stay on disk until needed); answers how many files it kept. */
  private load(wanted: string[]): number {
    if (!this.cacheFile) return 0;
    const opened = RankingFile.open(this.cacheFile);
    if (opened.status === 'missing') return 0;
    if (opened.status === 'corrupt') {
      log.warn(`chunk ranking cache ${this.cacheFile} is unusable (${opened.reason}); chunking every file`);
      return 0;
    }
    const file = opened.file;
    const tables = file.tables;
    if (tables.root !== this.source.root || tables.version !== rankingVersion || tables.budgetBytes !== this.budgetBytes) {
      file.close();
      return 0;
    }
    this.base = file;
    this.baseTerms = file.terms;
    this.forgetTerms();
    this.lists.ensureTerms(file.terms);
    this.postingWords = file.postingWords;
    const keep = new Set(wanted);
    const kept = this.adoptTables(tables, (path, hash) => keep.has(path) && this.source.hashOf(path) === hash);
    // The file's files gone since it was written; those changed or new are counted as they are chunked.
    this.staleFiles = tables.files.reduce((gone, entry) => gone + (keep.has(entry.path) ? 0 : 1), 0);
    return kept;
  }

  /** Takes a snapshot's tables and terms (an export); see adoptTables. */
  private adopt(snapshot: RankingSnapshot, revive: (path: string, hash: string) => boolean): number {
    this.base = undefined;
    this.baseTerms = 0;
    this.forgetTerms();
    this.postingWords = 0;
    snapshot.terms.forEach((term, id) => {
      this.termId(term, 0, term.length, termHash(term));
      this.lists.put(id, snapshot.postings[id]!);
      this.postingWords += snapshot.postings[id]!.length;
    });
    return this.adoptTables(snapshot, revive);
  }

  /**
   * Takes the chunk and file tables; the chunks of the files `revive` accepts come back to life,
   * the others stay dead (skipped by queries, dropped by a compaction when they are a quarter).
   * Answers how many files it kept.
   */
  private adoptTables(tables: RankingTables, revive: (path: string, hash: string) => boolean): number {
    this.chunkCount = tables.chunkFile.length;
    this.chunkFile = tables.chunkFile;
    this.chunkLines = tables.chunkLines;
    this.chunkBytes = tables.chunkBytes;
    this.chunkLengths = tables.chunkLengths;
    this.alive = new Uint8Array(this.chunkCount);
    this.filePaths = tables.files.map((file) => file.path);
    this.fileIds.clear();
    this.filePaths.forEach((path, id) => this.fileIds.set(path, id));
    this.entries.clear();
    // Every chunk starts dead; the files whose hash still holds bring theirs back to life.
    this.deadCount = this.chunkCount;
    this.lengthSums.fill(0);
    let kept = 0;
    for (const file of tables.files) {
      if (!revive(file.path, file.hash)) continue;
      for (let id = file.first; id < file.first + file.count; id++) {
        this.alive[id] = 1;
        this.deadCount--;
        for (let field = 0; field < fieldCount; field++) this.lengthSums[field]! += this.chunkLengths[id * fieldCount + field]!;
      }
      this.entries.set(file.path, { hash: file.hash, first: file.first, count: file.count });
      kept++;
    }
    if (this.deadCount > 4096 && this.deadCount * 4 > this.chunkCount) this.compact();
    return kept;
  }

  /** No term and no list in memory (a base's are read again on demand). */
  private forgetTerms(): void {
    this.terms = new TermTable();
    this.newTermEntries = new Uint32Array(1024);
    this.newTerms = 0;
    this.lists = new PostingLists();
  }

  /** Every base list in memory (a compaction renumbers them all). */
  private readAllLists(): void {
    if (!this.base) return;
    for (const { entry } of this.base.all()) this.ensureList(entry.id, true);
  }

  /**
   * A damaged chunks.bin met: everything the ranking holds is dropped (and the file), so that it
   * builds again from the files; work begun before is dropped (generation).
   */
  private discard(reason: string): void {
    log.warn(`chunk ranking of ${this.source.root}: ${reason}; building it again`);
    this.generation++;
    this.base?.close();
    this.base = undefined;
    this.baseTerms = 0;
    this.forgetTerms();
    this.postingWords = 0;
    this.chunkCount = 0;
    this.deadCount = 0;
    this.alive = new Uint8Array(1024);
    this.lengthSums.fill(0);
    this.fileIds.clear();
    this.filePaths = [];
    this.entries.clear();
    this.built = false;
    this.moves++;
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    if (this.cacheFile) fs.rmSync(this.cacheFile, { force: true });
  }

  /**
   * A ranking over a snapshot alone (an index exported from elsewhere): it answers queries and
   * follows no workspace; `revive` picks the files it keeps (e.g. those held locally).
   */
  static fromSnapshot(snapshot: RankingSnapshot, revive: (path: string, hash: string) => boolean = () => true): ChunkRanking {
    const hashes = new Map(snapshot.files.map((file) => [file.path, file.hash]));
    const source: RankingSource = {
      root: snapshot.root,
      files: () => [...hashes.keys()],
      hashOf: (file) => hashes.get(file),
      onChanges: () => ({ dispose: () => undefined }),
    };
    const ranking = new ChunkRanking(source, null, undefined, 0, snapshot.budgetBytes);
    ranking.adopt(snapshot, revive);
    ranking.built = true;
    return ranking;
  }

  /** Saves a while after the last change. */
  private scheduleSave(delayMs = this.saveDelayMs): void {
    if (!this.cacheFile || this.saveTimer || this.disposed) return;
    this.saveTimer = setTimeout(() => void this.save(), delayMs);
    this.saveTimer.unref();
  }

  /**
   * The chunk and file tables as they are now (`count` chunks; file ids are indexes into the
   * files listed, a chunk of no listed file gets 0xffffffff: dead on load).
   */
  private tables(count: number): RankingTables {
    const stored = [...this.entries].filter(([, entry]) => entry.hash !== undefined);
    const chunkFile = new Uint32Array(count).fill(0xffffffff);
    stored.forEach(([, entry], index) => chunkFile.fill(index, entry.first, Math.min(entry.first + entry.count, count)));
    return {
      root: this.source.root,
      version: rankingVersion,
      budgetBytes: this.budgetBytes,
      chunkFile,
      chunkLines: this.chunkLines.slice(0, 2 * count),
      chunkBytes: this.chunkBytes.slice(0, 2 * count),
      chunkLengths: this.chunkLengths.slice(0, count * fieldCount),
      files: stored.map(([path, entry]) => ({ path, hash: entry.hash!, first: entry.first, count: entry.count })),
    };
  }

  /**
   * Every term with its list as it is now, in term order (the base's merged with the terms added
   * since, sorted), postings of chunks past `count` left out (appended while a save runs). A base
   * list not read so far is read for this and not kept.
   */
  private *termsInOrder(count: number): Generator<TermToWrite> {
    const added = Array.from(this.newTermEntries.subarray(0, this.newTerms), (entry) => this.terms.name(entry)).sort();
    const idOf = (name: string): number => this.terms.find(name, 0, name.length, termHash(name));
    const current = (id: number): Uint32Array => {
      if (!this.lists.has(id)) return this.base!.readList(this.base!.entry(id), true);
      const words = this.lists.view(id);
      return words.length > 0 && words[words.length - 2]! >= count
        ? words.filter((_, at) => (at % 2 === 1 ? words[at - 1]! < count : words[at]! < count))
        : words;
    };
    let next = 0;
    const base = this.base;
    if (base) {
      for (const { name, entry } of base.all()) {
        while (next < added.length && added[next]! < name) yield { name: added[next]!, list: current(idOf(added[next++]!)) };
        yield { name, list: current(entry.id) };
      }
    }
    while (next < added.length) yield { name: added[next]!, list: current(idOf(added[next++]!)) };
  }

  /** A consistent copy of the index (an export: index/export), every list in memory. */
  async snapshot(): Promise<RankingSnapshot> {
    if (this.snapshotting === 0 && this.deadCount > 4096 && this.deadCount * 4 > this.chunkCount) this.compact();
    this.snapshotting++;
    try {
      const count = this.chunkCount;
      const tables = this.tables(count);
      const terms: string[] = [];
      const postings: Uint32Array[] = [];
      let last = performance.now();
      for (const term of this.termsInOrder(count)) {
        terms.push(term.name);
        postings.push(term.list.slice());
        if (performance.now() - last > 20) {
          await breathe();
          last = performance.now();
        }
      }
      return { ...tables, terms, postings };
    } finally {
      this.snapshotting--;
    }
  }

  /** Whether a change is not yet written (a save is scheduled). */
  get unsaved(): boolean {
    return this.saveTimer !== undefined;
  }

  /** Writes the index (atomically, in pieces); one save at a time, a change meanwhile makes another follow. */
  save(): Promise<void> {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    if (!this.cacheFile || !this.built) return Promise.resolve();
    return this.saver.run();
  }

  /** Whether a save now is worth its cost (base/rewrite-deferral.ts); a small ranking always saves. */
  private saveDue(): boolean {
    return !fs.existsSync(this.cacheFile!) || rewriteDue(this.saveDeferral, this.chunkCount, this.entries.size, this.staleFiles);
  }

  private async write(): Promise<void> {
    if (!this.saveDue()) {
      log.debug(`chunk ranking of ${this.source.root}: ${this.staleFiles} files changed since chunks.bin was written; its save waits for more`);
      return;
    }
    const stale = this.staleFiles;
    const started = performance.now();
    // Compact first when dead chunks are a quarter (as a drop would); nothing compacts while the
    // lists are written (a compaction renumbers in place), later appends only add chunk ids past `count`.
    if (this.snapshotting === 0 && this.deadCount > 4096 && this.deadCount * 4 > this.chunkCount) this.compact();
    if (!this.built) return;
    this.snapshotting++;
    try {
      const count = this.chunkCount;
      await writeRankingFile(this.cacheFile!, this.tables(count), this.termsInOrder(count));
      // What changed while the lists were written is not in the file: it stays counted.
      this.staleFiles = Math.max(0, this.staleFiles - stale);
      log.debug(`chunk ranking of ${this.source.root} saved in ${Math.round(performance.now() - started)} ms`);
    } catch (error) {
      if (error instanceof RankingDamaged) this.discard(error.message);
      else log.warn(`chunk ranking of ${this.source.root} not saved: ${(error as Error).message}`);
    } finally {
      this.snapshotting--;
    }
  }

  async saved(): Promise<void> {
    await this.saver.idle();
  }

  /** Stops following changes; a pending save is written first. */
  async dispose(): Promise<void> {
    this.subscription.dispose();
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      this.saveTimer = undefined;
      if (this.built) await this.save();
    }
    this.disposed = true;
    await this.saved();
    this.base?.close();
  }
}

/** The `limit` best of `candidates` by score (ties: lower id first), best first. */
function topK(candidates: number[], scores: Float32Array, limit: number): number[] {
  if (candidates.length <= limit) return candidates.slice().sort((a, b) => scores[b]! - scores[a]! || a - b);
  // A min-heap of the best so far.
  const heap: number[] = [];
  const worse = (a: number, b: number): boolean => scores[a]! < scores[b]! || (scores[a] === scores[b] && a > b);
  const down = (at: number): void => {
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let least = at;
      if (left < heap.length && worse(heap[left]!, heap[least]!)) least = left;
      if (right < heap.length && worse(heap[right]!, heap[least]!)) least = right;
      if (least === at) return;
      [heap[at], heap[least]] = [heap[least]!, heap[at]!];
      at = least;
    }
  };
  for (const candidate of candidates) {
    if (heap.length < limit) {
      heap.push(candidate);
      for (let at = heap.length - 1; at > 0;) {
        const parent = (at - 1) >> 1;
        if (!worse(heap[at]!, heap[parent]!)) break;
        [heap[at], heap[parent]] = [heap[parent]!, heap[at]!];
        at = parent;
      }
    } else if (worse(heap[0]!, candidate)) {
      heap[0] = candidate;
      down(0);
    }
  }
  return heap.sort((a, b) => scores[b]! - scores[a]! || a - b);
}
