// A workspace's vectors: a usearch HNSW index (cosine, f16) whose keys are chunk ids, and the table
// of what each key is (file, line and byte range, the SHA-256 of the chunk's text, which is also
// its key in the embedding cache). A file's chunks are replaced as a whole; removed keys leave the
// HNSW graph (usearch marks them), and when removals reach a quarter of the index it is rebuilt
// from the live vectors (compaction).
//
// Persisted in the workspace's cache folder, the index first under a fresh name (fsynced), then
// the table that names it (atomically), then older index files are removed; so a kill at any
// point leaves a table and the very index it was saved with. An index file is never written
// again once named: a later save is a new generation.
//   semantic-<generation>.usearch   usearch's own format (index.save; fsynced, 0600)
//   semantic.bin                    base/checked-file.ts container, magic "FTHMSEM1", `version`:
//                                   msgpack { root, modelId, dimensions, nextKey, vectors (the
//                                   index's size), index (its file name), indexBytes (its size),
//                                   indexCrc32 (the CRC-32 of its bytes), paths[], fileHashes[],
//                                   chunkCounts (u32 per file), keys (u32 per chunk), ranges (start
//                                   line, end line, start byte, end byte: u32 per chunk),
//                                   textHashes (32 bytes per chunk), copies (optional: a store of
//                                   at most 4,096 vectors, each as f16 in `keys` order) }: columns,
//                                   files in order
// Versions (`version`, one line per bump; another version is rebuilt from the embedding cache):
//   1  semantic.usearch beside the table
//   2  the index under a generation name the table names (`index`)
//   3  byte ranges beside the line ranges
//   4  the index file's size and CRC-32 (files as records [path, fileHash, keys, ranges,
//      textHashes]; still read: `recordsVersion`)
//   5  the chunks as columns for the whole store (a load decodes a few arrays, not a record per
//      file); later, without a bump, an optional `copies` (readers of 5 pass it over; a table
//      without it has its copies filled from the embedding cache)
//   6  optional `staged` { firstKey, count, rows (i8, `dimensions` a row) } and `hiddenKeys` (u32):
//      a large index viewed and changed is not written again; the table names the same file, the
//      changed files' rows staged beside it and the keys of the removed ones hidden in it (version
//      5 is read as 6 without them)
// A store of at most 4,096 vectors keeps a copy of each (rounded to f16, as the graph holds them)
// and is searched exactly over them: a graph search for every vector does not reach every vector
// (usearch's multi-threaded build leaves some unreachable), and the answer must not depend on
// the order the vectors went in.
// Staged vectors (`stage`: a team join's, a round at a time; the kernel's 822k take minutes to
// insert in the graph): kept as i8 rows, each scaled so its largest number is ±127 (cosine does not
// see the scale; 384 bytes a vector, not 1,536; quantized from f32 or straight from the f16 bits a
// team store sends), searched exactly (usearch's SIMD `exactSearch`: ~70 ms
// over 822k on 2 cores) beside the graph until `graphStaged` has moved them in, whole files a
// slice, from the caller's exact vectors (the embedding cache). A save meanwhile writes the files
// the graph holds whole (the table and the graph name the same keys); the others stay to do.
// When a sync's changes are saved is semantic-index.ts' `SaveDeferral` (a large store waits).
// A table that fails its checksum, names another model, names an index file of another size or
// checksum (checked before usearch reads a byte of it: its loader trusts the file and a truncated
// or damaged one corrupts the heap), disagrees with its index (size, keys at or past nextKey):
// nothing is loaded and the index is rebuilt from the embedding cache (no model call for cached
// chunks). A checked index is viewed (`index.view`: mapped, read where it lies, as zoekt maps its
// shards). A large view is changed beside it: a changed file's vectors are staged (as a join's
// are) and a removed file's keys hidden (no owner: searches pass them over), and a save writes the
// table alone, naming the same file (version 6); the view is loaded whole (`index.load`, a copy in
// memory: 3-4 s of this thread for the kernel's 760 MB) only when more than `viewDeltaRows` are
// staged, or for a compaction. A small view is loaded whole at its first change. A
// viewed file can change under the daemon only by another writer with the user's rights in the
// 0700 cache folder (Fathom never writes a named index file again), who could change anything.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { Packr } from 'msgpackr';
import { exactSearch, Index, MetricKind, ScalarKind } from 'usearch';
import { type CheckedRead, encodeChecked, readChecked, writeFileAtomic } from '../../base/checked-file.js';
import { floatsOfHalfBytes, halfBytes, HalfVector, halfTable, largestHalfBits, roundedToHalf } from '../../base/half-float.js';
import { releaseUnpackSource } from '../../base/unpack-source.js';
import { bytesOf, typedCopy } from '../../base/typed-bytes.js';
import { log } from '../../base/logger.js';

const magic = 'FTHMSEM1';
const version = 6;
/** Version 4, still read (its files as records; 5 is read as 6 is, without its optional parts). */
const recordsVersion = 4;
const packr = new Packr({ useRecords: false, mapsAsObjects: true });

export interface StoredChunk {
  key: number;
  path: string;
  /** 0-based, inclusive lines; [startByte, endByte) in the file. */
  startLine: number;
  endLine: number;
  startByte: number;
  endByte: number;
  /** SHA-256 (hex) of the chunk's text: its key in the embedding cache. */
  textHash: string;
}

/**
 * A file's chunks as columns (what semantic.bin stores): a chunk becomes a StoredChunk only when a
 * search returns it, so a load makes no object per chunk (the kernel has 830k).
 */
interface FileRecord {
  path: string;
  fileHash: string;
  keys: Uint32Array;
  /** Per chunk: start line, end line, start byte, end byte. */
  ranges: Uint32Array;
  /** Per chunk: the SHA-256 of its text (32 bytes). */
  textHashes: Uint8Array;
}

function chunkOf(record: FileRecord, at: number): StoredChunk {
  const ranges = record.ranges;
  return {
    key: record.keys[at]!,
    path: record.path,
    startLine: ranges[4 * at]!,
    endLine: ranges[4 * at + 1]!,
    startByte: ranges[4 * at + 2]!,
    endByte: ranges[4 * at + 3]!,
    textHash: Buffer.from(record.textHashes.buffer, record.textHashes.byteOffset + 32 * at, 32).toString('hex'),
  };
}

export interface VectorHit extends StoredChunk {
  /** Cosine similarity (1 = same direction). */
  similarity: number;
}

type StoredFile = [string, string, number[], Uint8Array, Uint8Array];

/** A chunk to add: its place, its text's hash and its vector. */
export interface NewChunk {
  startLine: number;
  endLine: number;
  startByte: number;
  endByte: number;
  textHash: string;
  vector: Float32Array;
}

/** A chunk to stage: its vector as f32, or as f16 bits as a team store sent it (decoded only when needed). */
export type StagedChunk = Omit<NewChunk, 'vector'> & { vector: Float32Array | HalfVector };

/**
 * Threads an add uses: always every core (0). usearch sizes its per-thread insertion contexts when
 * it grows the index, for the threads of the add that grew it, and fails a later add on more
 * threads that fits without growing ("Reserve capacity ahead of insertions!"): an add on one
 * thread (a small batch) then one on every core broke a join's graph building on the kernel.
 */
const addThreads = 0;

/**
 * How wide the graph's insertions and searches look (usearch's defaults: 128 and 64). Measured on
 * 200k of the kernel's vectors against an exact search (bench/graph-expansion-bench.ts: recall@10,
 * 200 queries, 2 cores): 128/64 0.919, built in 29.9 s, 0.23 ms a query; 64/256 0.990, built in
 * 18.1 s, 0.45 ms. A search that
 * looks wider finds more of the true neighbours than an insertion that does, for the same time;
 * the kernel's 832k insertions were ~18% of a cold `fathom index`'s CPU. Neither is saved with a
 * graph: a graph built with 128 is searched with 256 just as well.
 */
export const graphExpansion = { expansion_add: 64, expansion_search: 256 };

/**
 * A graph of at most this many vectors is searched exactly, over copies of its vectors (a few ms);
 * a larger one through the graph. A search of the graph for every vector does not reach every
 * vector: 78 of 200 graphs built in random orders from one workspace's 219 vectors left some out
 * (clustered vectors added 8 files at a time, about half), so a small store's answers changed with
 * the order its vectors went in (a rebuild after a crash answered otherwise than the store it
 * replaced).
 */
const searchedWholeBelow = 4_096;

/**
 * Vectors a large viewed graph takes beside it (staged: i8 rows, searched exactly, 384 bytes each
 * at 384 dimensions: 24 MB) before a change loads it whole and puts them in.
 */
const viewDeltaRows = 65_536;

/** A filtered search passing at most this many of a large graph's chunks is made exactly over them (`searchFew`). */
const fewChunks = 4_096;

/** A chunk a search found: its file's record, its place there, its similarity. */
interface Found {
  record: FileRecord;
  at: number;
  similarity: number;
}

/** Best first; equal similarities by path, then by place in the file. */
function byPlace(a: Found, b: Found): number {
  const path = a.record.path < b.record.path ? -1 : a.record.path > b.record.path ? 1 : 0;
  return b.similarity - a.similarity || path || a.record.ranges[4 * a.at + 2]! - b.record.ranges[4 * b.at + 2]!;
}

/**
 * Vectors staged outside the graph, one row each, searched exactly until graphed (rows [0,
 * graphed)). Rows lie in blocks of their own (usearch's exactSearch reads a typed array from the
 * start of its buffer, whatever its offset); a block all graphed is let go.
 */
interface Staged {
  /** The first row's key; row r holds key `firstKey + r` (keys are given in row order). */
  firstKey: number;
  count: number;
  graphed: number;
  /** Rows [b × blockRows, (b + 1) × blockRows) as i8, each scaled so its largest number is ±127; undefined once graphed. */
  blocks: Array<Int8Array | undefined>;
}

/**
 * f16 bits as i8, as `quantize` does their f32 numbers; `largest` their largest magnitude's bits
 * (largestHalfBits: for finite numbers the largest bits, sign cleared, are the largest magnitude).
 */
export function quantizeHalf(bits: Uint16Array, out: Int8Array, at: number, largest = largestHalfBits(bits)): void {
  const values = halfTable();
  const length = bits.length;
  const top = values[largest]!;
  const scale = top > 0 ? 127 / top : 0;
  for (let index = 0; index < length; index++) {
    const scaled = values[bits[index]!]! * scale;
    out[at + index] = scaled < 0 ? (scaled - 0.5) | 0 : (scaled + 0.5) | 0;
  }
}

/** A vector as i8, scaled so its largest number is ±127 (all zeros stays zeros), into `out` at `at`. */
export function quantize(vector: Float32Array, out: Int8Array, at: number): void {
  const length = vector.length;
  let largest = 0;
  for (let index = 0; index < length; index++) largest = Math.max(largest, Math.abs(vector[index]!));
  const scale = largest > 0 ? 127 / largest : 0;
  // Rounded half away from zero (|x| <= 127.5 here, so `| 0` truncates safely).
  for (let index = 0; index < length; index++) {
    const scaled = vector[index]! * scale;
    out[at + index] = scaled < 0 ? (scaled - 0.5) | 0 : (scaled + 0.5) | 0;
  }
}

export class VectorStore {
  private index: Index;
  private staged: Staged | undefined;
  private files = new Map<string, FileRecord>();
  /** Each live key's file, by key (a holey array: no hashing, one slot a key). */
  private owner: Array<FileRecord | undefined> = [];
  private live = 0;
  private nextKey = 1;
  private removed = 0;
  /**
   * Set while `index` is a view of this saved file (mapped, read where it lies: a restart's first
   * search in words does not copy the kernel's 760 MB into memory first); the first change loads
   * it whole (`writable`).
   */
  private viewedFile: string | undefined;
  /** The viewed file's size and CRC-32 as its table gave them (a save that keeps the view names it again). */
  private viewedDigest: { bytes: number; crc32: number } | undefined;
  /**
   * Keys still in the graph that no chunk owns any more: removed while the graph was a view (a view
   * cannot change; its searches pass them over), taken out when the graph is loaded whole.
   */
  private hiddenKeys: number[] = [];

  /**
   * Exact copies of the graph's vectors (key → vector) while it holds at most `searchedWholeBelow`;
   * undefined when the graph is larger, or after a load until a whole search fills them from
   * `vectorOf`. `packed`: the same as one matrix, made at the next search after a change.
   */
  private copies: Map<number, Float32Array> | undefined = new Map();
  private packed: { keys: Uint32Array; matrix: Float32Array } | undefined;
  /** Whether `vectorOf` failed to give every copy since the last change (not tried again until one). */
  private copiesMissed = false;
  private readonly blockRows: number;
  private readonly viewDeltaRows: number;
  private readonly vectorOf: ((textHash: string) => Float32Array | undefined) | undefined;

  constructor(
    readonly dimensions: number,
    readonly modelId: string,
    options: {
      /** Staged rows a block holds (small in tests, to cross blocks). */
      blockRows?: number;
      /** A chunk's exact vector by its text's hash (the embedding cache): a small store's copies after a load. */
      vectorOf?: (textHash: string) => Float32Array | undefined;
      /** Rows staged beside a large view before a change loads it whole (small in tests). */
      viewDeltaRows?: number;
    } = {},
  ) {
    this.blockRows = options.blockRows ?? 16_384;
    this.viewDeltaRows = options.viewDeltaRows ?? viewDeltaRows;
    this.vectorOf = options.vectorOf;
    this.index = this.newIndex();
  }

  private newIndex(): Index {
    return new Index({
      dimensions: this.dimensions,
      metric: MetricKind.Cos,
      quantization: ScalarKind.F16,
      connectivity: 16,
      ...graphExpansion,
      multi: false,
    });
  }

  get size(): number {
    return this.live;
  }

  /** The index, loaded whole (not a view) for a change; its vectors the same either way. */
  private writable(): Index {
    const file = this.viewedFile;
    if (file === undefined) return this.index;
    const index = this.newIndex();
    index.load(file);
    if (index.size() !== this.index.size()) throw new Error(`${file} changed since it was checked (${index.size()} vectors, ${this.index.size()} viewed)`);
    if (this.hiddenKeys.length > 0) index.remove(BigUint64Array.from(this.hiddenKeys, (key) => BigInt(key)));
    this.hiddenKeys = [];
    this.index = index;
    this.viewedFile = undefined;
    this.viewedDigest = undefined;
    return index;
  }

  /**
   * Whether a change of `rows` vectors goes beside the view (staged, searched exactly) rather than
   * loading the graph whole: the graph is a large view, and what is staged beside it stays small.
   * Loading the kernel's graph whole holds this thread 3-4 s (usearch's load copies 760 MB); a
   * save then names the same file again with the staged rows in the table.
   */
  private besideView(rows: number): boolean {
    const staged = this.staged;
    return (
      this.viewedFile !== undefined &&
      this.index.size() > searchedWholeBelow &&
      (!staged || (staged.graphed === 0 && this.nextKey === staged.firstKey + staged.count)) &&
      this.stagedCount + rows <= this.viewDeltaRows
    );
  }

  /** The view loaded whole, with what was staged beside it moved into the graph (a change too large to stage). */
  private loadWhole(): void {
    if (this.viewedFile === undefined) return;
    this.writable();
    if (this.staged) this.graphStaged(this.staged.count, this.vectorOf ?? (() => undefined));
  }

  /** Whether the index is the saved file read where it lies (not yet loaded whole). */
  get viewed(): boolean {
    return this.viewedFile !== undefined;
  }

  get fileCount(): number {
    return this.files.size;
  }

  /** The file hash each file's vectors were made from (what a sync compares). */
  fileHash(file: string): string | undefined {
    return this.files.get(file)?.fileHash;
  }

  paths(): IterableIterator<string> {
    return this.files.keys();
  }

  /** Each file's hash and chunks (places and text hashes), as they are now (a team push reads them). */
  *records(): IterableIterator<{ path: string; fileHash: string; chunks: readonly StoredChunk[] }> {
    for (const [path, record] of this.files) yield { path, fileHash: record.fileHash, chunks: Array.from(record.keys, (_, at) => chunkOf(record, at)) };
  }

  /** Replaces a file's chunks with new ones and their vectors (unit length, `dimensions` each). */
  replaceFile(file: string, fileHash: string, chunks: ReadonlyArray<NewChunk>): void {
    this.replaceFiles([{ file, fileHash, chunks }]);
  }

  /**
   * Replaces several files' chunks at once: one add of all their vectors to the HNSW index (a
   * large batch on every core: insertion is most of what a sync costs this thread).
   */
  replaceFiles(files: ReadonlyArray<{ file: string; fileHash: string; chunks: ReadonlyArray<NewChunk> }>): void {
    const total = files.reduce((sum, { chunks }) => sum + chunks.length, 0);
    if (files.length === 0) return;
    if (this.besideView(total)) return this.stage(files);
    // Loaded whole before anything changes (a failure then leaves the table as it was).
    this.loadWhole();
    const keys = new BigUint64Array(total);
    const matrix = new Float32Array(total * this.dimensions);
    let at = 0;
    for (const { file, fileHash, chunks } of files) {
      this.removeFile(file);
      const record = this.newRecord(file, fileHash, chunks.length);
      chunks.forEach((chunk, index) => {
        const key = this.nextKey++;
        keys[at] = BigInt(key);
        matrix.set(chunk.vector, at * this.dimensions);
        at += 1;
        this.place(record, index, key, chunk);
      });
      this.files.set(file, record);
    }
    if (total > 0) {
      this.index.add(keys, matrix, addThreads);
      this.keepCopies(keys, matrix);
    }
  }

  /** Copies of vectors just put in the graph (rows of `matrix`), while the graph is small. */
  private keepCopies(keys: ArrayLike<bigint>, matrix: Float32Array): void {
    this.changed();
    if (!this.copies) return;
    if (this.index.size() > searchedWholeBelow) {
      this.copies = undefined;
      return;
    }
    for (let at = 0; at < keys.length; at++)
      this.copies.set(Number(keys[at]!), roundedToHalf(matrix.subarray(at * this.dimensions, (at + 1) * this.dimensions)));
  }

  private changed(): void {
    this.packed = undefined;
    this.copiesMissed = false;
  }

  /**
   * Puts files' chunks in the store as `replaceFiles` does, their vectors staged outside the graph
   * (searched exactly) until `graphStaged` moves them in: the store answers over them at once. A
   * join stages a round at a time: rows are appended while none has gone into the graph and no
   * key was given since (the keys stay one run); else the files go to the graph now, as
   * `replaceFiles`.
   */
  stage(files: ReadonlyArray<{ file: string; fileHash: string; chunks: ReadonlyArray<StagedChunk> }>): void {
    const before = this.staged;
    if (before && (before.graphed > 0 || this.nextKey !== before.firstKey + before.count))
      return this.replaceFiles(
        files.map(({ file, fileHash, chunks }) => ({
          file,
          fileHash,
          chunks: chunks.map((chunk) => ({ ...chunk, vector: chunk.vector instanceof HalfVector ? chunk.vector.floats() : chunk.vector })),
        })),
      );
    for (const { file } of files) this.removeFile(file);
    const added = files.reduce((sum, { chunks }) => sum + chunks.length, 0);
    if (added === 0) return;
    const staged: Staged = before ?? { firstKey: this.nextKey, count: 0, graphed: 0, blocks: [] };
    const total = staged.count + added;
    // The last block grows (copied) as rows are appended, at least doubling, so a small store
    // stays small and a join's rounds fill each kernel-sized block with few copies (fresh memory
    // costs this machine ~3 ms a MB in page faults). Rows past `count` are not searched.
    for (let block = Math.floor(staged.count / this.blockRows); block * this.blockRows < total; block++) {
      const rows = Math.min(this.blockRows, total - block * this.blockRows);
      const old = staged.blocks[block];
      if (old && old.length >= rows * this.dimensions) continue;
      const grown = new Int8Array(Math.min(this.blockRows, Math.max(rows, (2 * (old?.length ?? 0)) / this.dimensions)) * this.dimensions);
      if (old) grown.set(old);
      staged.blocks[block] = grown;
    }
    let row = staged.count;
    for (const { file, fileHash, chunks } of files) {
      const record = this.newRecord(file, fileHash, chunks.length);
      chunks.forEach((chunk, index) => {
        const key = this.nextKey++;
        const block = staged.blocks[Math.floor(row / this.blockRows)]!;
        const at = (row % this.blockRows) * this.dimensions;
        if (chunk.vector instanceof HalfVector) quantizeHalf(chunk.vector.bits, block, at, chunk.vector.largestBits());
        else quantize(chunk.vector, block, at);
        row += 1;
        this.place(record, index, key, chunk);
      });
      this.files.set(file, record);
    }
    staged.count = total;
    this.staged = staged;
  }

  /** Vectors staged and not yet in the graph (removed ones included until passed). */
  get stagedCount(): number {
    return this.staged ? this.staged.count - this.staged.graphed : 0;
  }

  /**
   * Moves at least `rows` staged vectors (or all left) into the graph, on to the end of the last
   * file begun, so the graph always holds whole files. Each vector comes from `vectorOf` (the
   * embedding cache: exact), else from its i8 row. Answers how many rows were passed.
   */
  graphStaged(rows: number, vectorOf: (textHash: string) => Float32Array | undefined): number {
    const staged = this.staged;
    if (!staged) return 0;
    let end = Math.min(staged.count, staged.graphed + Math.max(1, rows));
    const last = this.owner[staged.firstKey + end - 1];
    while (end < staged.count && last !== undefined && this.owner[staged.firstKey + end] === last) end++;
    const keys: bigint[] = [];
    const matrix = new Float32Array((end - staged.graphed) * this.dimensions);
    for (let row = staged.graphed; row < end; row++) {
      const key = staged.firstKey + row;
      const record = this.owner[key];
      if (!record) continue;
      const at = key - record.keys[0]!;
      const exact = record.keys[at] === key ? vectorOf(chunkOf(record, at).textHash) : undefined;
      const place = keys.length * this.dimensions;
      if (exact && exact.length === this.dimensions) matrix.set(exact, place);
      else {
        const start = (row % this.blockRows) * this.dimensions;
        matrix.set(staged.blocks[Math.floor(row / this.blockRows)]!.subarray(start, start + this.dimensions), place);
      }
      keys.push(BigInt(key));
    }
    if (keys.length > 0) {
      this.writable().add(BigUint64Array.from(keys), matrix.subarray(0, keys.length * this.dimensions), addThreads);
      this.keepCopies(keys, matrix);
    }
    const passed = end - staged.graphed;
    staged.graphed = end;
    for (let block = 0; block < Math.floor(end / this.blockRows); block++) staged.blocks[block] = undefined;
    if (staged.graphed >= staged.count) this.staged = undefined;
    return passed;
  }

  /** Whether a key is in the graph (not staged, or staged and graphed already). */
  private inGraph(key: number): boolean {
    const staged = this.staged;
    return !staged || key < staged.firstKey + staged.graphed || key >= staged.firstKey + staged.count;
  }

  private newRecord(file: string, fileHash: string, chunks: number): FileRecord {
    return { path: file, fileHash, keys: new Uint32Array(chunks), ranges: new Uint32Array(4 * chunks), textHashes: new Uint8Array(32 * chunks) };
  }

  /** Gives a file's chunk `index` its key and place. */
  private place(record: FileRecord, index: number, key: number, chunk: Omit<NewChunk, 'vector'>): void {
    record.keys[index] = key;
    const ranges = record.ranges;
    ranges[4 * index] = chunk.startLine;
    ranges[4 * index + 1] = chunk.endLine;
    ranges[4 * index + 2] = chunk.startByte;
    ranges[4 * index + 3] = chunk.endByte;
    record.textHashes.set(Buffer.from(chunk.textHash, 'hex'), 32 * index);
    this.owner[key] = record;
    this.live++;
  }

  removeFile(file: string): void {
    const record = this.files.get(file);
    if (!record) return;
    // A small view is loaded whole at its first change (at once; a failure leaves the table as it was); a large one is changed beside it.
    if (record.keys.length > 0 && this.viewedFile !== undefined && this.index.size() <= searchedWholeBelow) this.writable();
    this.files.delete(file);
    if (record.keys.length === 0) return;
    const graphed = record.keys.filter((key) => this.inGraph(key));
    // A view cannot change: its keys are hidden (no owner: searches pass them over) until it is loaded whole.
    if (this.viewedFile !== undefined) for (const key of graphed) this.hiddenKeys.push(key);
    else if (graphed.length > 0) this.index.remove(BigUint64Array.from(graphed, (key) => BigInt(key)));
    this.changed();
    for (const key of graphed) this.copies?.delete(key);
    for (const key of record.keys) this.owner[key] = undefined;
    this.live -= record.keys.length;
    this.removed += graphed.length;
  }

  /** Whether removals call for a rebuild (a quarter of the index). */
  get needsCompaction(): boolean {
    return this.removed > 1024 && this.removed * 4 > this.live;
  }

  /**
   * Rebuilds the HNSW index from the live chunks' vectors (`vectorOf`: the embedding cache). A file
   * with a chunk whose vector is not given (a damaged cache record) leaves the store whole, so the
   * table never lists a key the index lacks; answers the files dropped (for the caller to sync again).
   */
  compact(vectorOf: (textHash: string) => Float32Array | undefined): string[] {
    const index = this.newIndex();
    const keys: bigint[] = [];
    const matrix = new Float32Array(this.live * this.dimensions);
    const dropped: string[] = [];
    for (const [file, record] of this.files) {
      const vectors = Array.from(record.keys, (_, at) => vectorOf(chunkOf(record, at).textHash));
      if (vectors.some((vector) => !vector)) {
        dropped.push(file);
        continue;
      }
      record.keys.forEach((key, at) => {
        matrix.set(vectors[at]!, keys.length * this.dimensions);
        keys.push(BigInt(key));
      });
    }
    for (const file of dropped) {
      const record = this.files.get(file)!;
      for (const key of record.keys) this.owner[key] = undefined;
      this.live -= record.keys.length;
      this.files.delete(file);
    }
    if (keys.length > 0) index.add(BigUint64Array.from(keys), matrix.subarray(0, keys.length * this.dimensions), addThreads);
    this.index = index;
    this.viewedFile = undefined;
    this.viewedDigest = undefined;
    this.hiddenKeys = [];
    this.removed = 0;
    this.copies = new Map();
    this.keepCopies(keys, matrix);
    // Every live chunk is in the new graph, staged ones too.
    this.staged = undefined;
    return dropped;
  }

  /** The nearest chunks to a unit vector, best first; `accepts` filters by path (the search widens until `k` pass or the index is exhausted). */
  search(vector: Float32Array, k: number, accepts?: (file: string) => boolean): VectorHit[] {
    const found = this.searchGraph(vector, k, accepts);
    if (this.staged) found.push(...this.searchStaged(vector, k, accepts));
    return found
      .sort(byPlace)
      .slice(0, k)
      .map(({ record, at, similarity }) => ({ ...chunkOf(record, at), similarity }));
  }

  private searchGraph(vector: Float32Array, k: number, accepts?: (file: string) => boolean): Found[] {
    const total = this.index.size();
    if (total === 0) return [];
    // A small index is searched whole, exactly over its vectors' copies: its answer is then the
    // same whatever order the vectors went in (a store rebuilt after damage answers as the one it
    // replaces), ties by place. Without copies (a vector the cache cannot give), the graph for all.
    const whole = total <= searchedWholeBelow;
    const packed = whole ? this.packedCopies() : undefined;
    if (packed) return this.searchCopies(packed, vector, accepts);
    const few = accepts && !whole ? this.searchFew(vector, accepts) : undefined;
    if (few) return few;
    for (let wanted = whole ? total : Math.min(total, accepts ? k * 4 : k); ; wanted = Math.min(total, wanted * 4)) {
      const matches = this.index.search(vector, wanted, 1);
      const found: Found[] = [];
      for (let at = 0; at < matches.keys.length; at++) {
        const key = Number(matches.keys[at]!);
        const record = this.owner[key];
        const similarity = 1 - matches.distances[at]!;
        if (!record || !Number.isFinite(similarity) || (accepts && !accepts(record.path))) continue;
        found.push({ record, at: record.keys.indexOf(key), similarity });
        if (!whole && found.length >= k) break;
      }
      // Only the hits given back are made (a whole search finds every chunk of the index).
      if (whole || found.length >= k || wanted >= total) return found;
    }
  }

  /**
   * A search filtered to few chunks of the graph (a file, a small folder), exactly over their
   * vectors from `vectorOf`: the graph, asked for ever more neighbours until enough pass the
   * filter, went through the kernel's whole 830k for a file far from the question (seconds of this
   * thread a question). Undefined when the filter passes more than `fewChunks` or a vector is
   * not at hand (the graph then).
   */
  private searchFew(vector: Float32Array, accepts: (file: string) => boolean): Found[] | undefined {
    if (!this.vectorOf) return undefined;
    const chosen: Array<{ record: FileRecord; at: number }> = [];
    for (const [file, record] of this.files) {
      if (!accepts(file)) continue;
      for (let at = 0; at < record.keys.length; at++) if (this.inGraph(record.keys[at]!)) chosen.push({ record, at });
      if (chosen.length > fewChunks) return undefined;
    }
    if (chosen.length === 0) return [];
    const matrix = new Float32Array(chosen.length * this.dimensions);
    for (let row = 0; row < chosen.length; row++) {
      const { record, at } = chosen[row]!;
      const exact = this.vectorOf(chunkOf(record, at).textHash);
      if (!exact || exact.length !== this.dimensions) return undefined;
      matrix.set(exact, row * this.dimensions);
    }
    const matches = exactSearch(matrix, vector, this.dimensions, chosen.length, MetricKind.Cos, 1);
    const found: Found[] = [];
    for (let at = 0; at < matches.keys.length; at++) {
      const similarity = 1 - matches.distances[at]!;
      if (Number.isFinite(similarity)) found.push({ ...chosen[Number(matches.keys[at]!)]!, similarity });
    }
    return found;
  }

  /** The graph's vectors as one matrix, from the copies (filled from `vectorOf` after a load); undefined when some vector is not at hand. */
  private packedCopies(): { keys: Uint32Array; matrix: Float32Array } | undefined {
    if (this.packed) return this.packed;
    if (!this.copies && !this.fillCopies()) return undefined;
    const copies = this.copies!;
    const keys = new Uint32Array(copies.size);
    const matrix = new Float32Array(copies.size * this.dimensions);
    let at = 0;
    for (const [key, copy] of copies) {
      keys[at] = key;
      matrix.set(copy, at * this.dimensions);
      at += 1;
    }
    this.packed = { keys, matrix };
    return this.packed;
  }

  /** Copies of every graphed chunk's vector from `vectorOf` (asked only while the graph is small); false (tried again after the next change) when one is missing. */
  private fillCopies(): boolean {
    if (!this.vectorOf || this.copiesMissed) return false;
    const copies = new Map<number, Float32Array>();
    for (const record of this.files.values()) {
      for (let at = 0; at < record.keys.length; at++) {
        const key = record.keys[at]!;
        if (!this.inGraph(key)) continue;
        const exact = this.vectorOf(chunkOf(record, at).textHash);
        if (!exact || exact.length !== this.dimensions) {
          this.copiesMissed = true;
          return false;
        }
        copies.set(key, roundedToHalf(exact));
      }
    }
    this.copies = copies;
    return true;
  }

  /** Every copy's similarity to `vector`, exactly (usearch's SIMD exactSearch over f32 rows). */
  private searchCopies(packed: { keys: Uint32Array; matrix: Float32Array }, vector: Float32Array, accepts?: (file: string) => boolean): Found[] {
    const rows = packed.keys.length;
    if (rows === 0) return [];
    const matches = exactSearch(packed.matrix, vector, this.dimensions, rows, MetricKind.Cos, 1);
    const found: Found[] = [];
    for (let at = 0; at < matches.keys.length; at++) {
      const key = packed.keys[Number(matches.keys[at]!)]!;
      const record = this.owner[key];
      const similarity = 1 - matches.distances[at]!;
      if (!record || !Number.isFinite(similarity) || (accepts && !accepts(record.path))) continue;
      found.push({ record, at: record.keys.indexOf(key), similarity });
    }
    return found;
  }

  /** The staged rows not yet graphed nearest to `vector`, exactly (by their i8 rows), block by block. */
  private searchStaged(vector: Float32Array, k: number, accepts?: (file: string) => boolean): Found[] {
    const staged = this.staged!;
    const total = staged.count - staged.graphed;
    if (total === 0) return [];
    const query = new Int8Array(this.dimensions);
    quantize(vector, query, 0);
    for (let wanted = Math.min(total, accepts ? k * 4 : k); ; wanted = Math.min(total, wanted * 4)) {
      const nearest: Array<{ row: number; distance: number }> = [];
      let exhausted = true;
      staged.blocks.forEach((block, index) => {
        if (!block) return;
        const first = index * this.blockRows;
        const rows = Math.min(this.blockRows, staged.count - first);
        // The block's rows already in the graph are searched too, and passed over.
        const count = Math.min(rows, wanted + Math.max(0, staged.graphed - first));
        if (count < rows) exhausted = false;
        // A view from the block's start (exactSearch reads from its buffer's start), its rows only.
        const matches = exactSearch(block.subarray(0, rows * this.dimensions), query, this.dimensions, count, MetricKind.Cos, 0);
        for (let at = 0; at < matches.keys.length; at++) {
          const row = first + Number(matches.keys[at]!);
          if (row >= staged.graphed) nearest.push({ row, distance: matches.distances[at]! });
        }
      });
      nearest.sort((a, b) => a.distance - b.distance);
      const found: Found[] = [];
      for (const { row, distance } of nearest) {
        const key = staged.firstKey + row;
        const record = this.owner[key];
        const similarity = 1 - distance;
        if (!record || !Number.isFinite(similarity) || (accepts && !accepts(record.path))) continue;
        found.push({ record, at: key - record.keys[0]!, similarity });
        if (found.length >= k) break;
      }
      if (found.length >= k || exhausted || wanted >= total) return found;
    }
  }

  /**
   * Writes the index under a fresh name, then the table naming it, then drops older index files. A
   * large view with changes beside it is not written again: the table names the same file, with
   * the rows staged beside it and the keys hidden in it.
   */
  save(folder: string, root: string): void {
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    const keepView = this.viewedFile !== undefined && this.viewedDigest !== undefined && path.dirname(this.viewedFile) === path.resolve(folder);
    let name: string;
    let written: { bytes: number; crc32: number };
    if (keepView) {
      name = path.basename(this.viewedFile!);
      written = this.viewedDigest!;
    } else {
      name = `semantic-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}.usearch`;
      const temporary = path.join(folder, `${name}.tmp`);
      // Written from an index loaded whole: the view's file is dropped once the new one is named.
      this.loadWhole();
      this.index.save(temporary);
      // On disk before the table names it (a power cut must not leave a table naming a torn index), and private as every cache file.
      fs.chmodSync(temporary, 0o600);
      written = digestFile(temporary, { sync: true });
      fs.renameSync(temporary, path.join(folder, name));
    }
    // Staged rows are saved only beside a view; else (a join's, not all in the graph yet) the files the graph holds whole (it holds no part of another).
    const staged = keepView ? this.staged : undefined;
    const records = [...this.files.values()].filter((record) => staged || !this.staged || record.keys.every((key) => this.inGraph(key)));
    const chunks = records.reduce((sum, record) => sum + record.keys.length, 0);
    const keys = new Uint32Array(chunks);
    const ranges = new Uint32Array(4 * chunks);
    const textHashes = new Uint8Array(32 * chunks);
    let at = 0;
    for (const record of records) {
      keys.set(record.keys, at);
      ranges.set(record.ranges, 4 * at);
      textHashes.set(record.textHashes, 32 * at);
      at += record.keys.length;
    }
    const copies = this.savedCopies(keys);
    const payload = packr.pack({
      root,
      modelId: this.modelId,
      dimensions: this.dimensions,
      nextKey: this.nextKey,
      vectors: this.index.size(),
      index: name,
      indexBytes: written.bytes,
      indexCrc32: written.crc32,
      paths: records.map((record) => record.path),
      fileHashes: records.map((record) => record.fileHash),
      chunkCounts: bytesOf(Uint32Array.from(records, (record) => record.keys.length)),
      keys: bytesOf(keys),
      ranges: bytesOf(ranges),
      textHashes,
      ...(copies ? { copies } : {}),
      ...(staged ? { staged: { firstKey: staged.firstKey, count: staged.count, rows: this.stagedRows(staged) } } : {}),
      ...(keepView && this.hiddenKeys.length > 0 ? { hiddenKeys: bytesOf(Uint32Array.from(this.hiddenKeys)) } : {}),
    });
    writeFileAtomic(path.join(folder, 'semantic.bin'), encodeChecked(magic, version, payload));
    // Another daemon may have saved meanwhile: keep whatever the table on disk names now.
    const current = this.tableIndexName(folder);
    for (const entry of fs.readdirSync(folder)) {
      if (/^semantic-.*\.usearch(\.tmp)?$/.test(entry) && entry !== current && entry !== name) fs.rmSync(path.join(folder, entry), { force: true });
    }
  }

  /** The staged rows [0, count) as one run of i8 bytes (none is graphed beside a view). */
  private stagedRows(staged: Staged): Uint8Array {
    const out = new Uint8Array(staged.count * this.dimensions);
    staged.blocks.forEach((block, index) => {
      if (!block) return;
      const start = index * this.blockRows * this.dimensions;
      const rows = Math.min(this.blockRows, staged.count - index * this.blockRows);
      out.set(new Uint8Array(block.buffer, block.byteOffset, rows * this.dimensions), start);
    });
    return out;
  }

  /** The copies of `keys`' vectors as f16 bytes in their order, when every one is held (they are f16 values already: exact). */
  private savedCopies(keys: Uint32Array): Buffer | undefined {
    const copies = this.copies;
    if (!copies || keys.some((key) => !copies.has(key))) return undefined;
    const out = Buffer.alloc(keys.length * this.dimensions * 2);
    keys.forEach((key, at) => halfBytes(copies.get(key)!, out, at * this.dimensions * 2));
    return out;
  }

  private tableIndexName(folder: string): string | undefined {
    const read = readTable(folder);
    if (read.status !== 'valid') return undefined;
    try {
      return (packr.unpack(read.payload) as { index?: string }).index;
    } catch {
      return undefined;
    }
  }

  /**
   * Loads a saved store, or answers why not (then nothing is loaded: the caller starts empty and
   * rebuilds, from the embedding cache where it can).
   */
  load(folder: string, root: string): { loaded: true } | { loaded: false; reason: string } {
    try {
      return this.loadTable(folder, root);
    } finally {
      releaseUnpackSource();
    }
  }

  private loadTable(folder: string, root: string): { loaded: true } | { loaded: false; reason: string } {
    const read = readTable(folder);
    if (read.status !== 'valid') return { loaded: false, reason: read.status === 'missing' ? 'no saved store' : read.reason };
    try {
      const table = packr.unpack(read.payload) as StoredTable;
      if (table.root !== root || table.modelId !== this.modelId || table.dimensions !== this.dimensions)
        return { loaded: false, reason: 'made for another root or model' };
      if (typeof table.index !== 'string' || !/^semantic-[\w-]+\.usearch$/.test(table.index) || !fs.existsSync(path.join(folder, table.index)))
        return { loaded: false, reason: 'the index file it names is missing' };
      if (!Number.isSafeInteger(table.indexBytes) || !Number.isInteger(table.indexCrc32))
        return { loaded: false, reason: 'no size and checksum of its index file' };
      if (!Number.isSafeInteger(table.nextKey) || table.nextKey < 1 || table.nextKey > 0xffffffff) return { loaded: false, reason: 'nextKey out of range' };
      const records = read.version === recordsVersion ? fileRecords(table) : columnRecords(table);
      if (typeof records === 'string') return { loaded: false, reason: records };
      const owner = new Array<FileRecord | undefined>(table.nextKey);
      let live = 0;
      for (const record of records) {
        for (const key of record.keys) {
          if (key <= 0 || key >= table.nextKey) return { loaded: false, reason: `${record.path}: a key at or past nextKey` };
          if (owner[key] !== undefined) return { loaded: false, reason: `key ${key} is listed twice` };
          owner[key] = record;
          live++;
        }
      }
      const staged = loadedStaged(table, this.dimensions, this.blockRows);
      if (typeof staged === 'string') return { loaded: false, reason: staged };
      const hidden =
        table.hiddenKeys instanceof Uint8Array && table.hiddenKeys.byteLength % 4 === 0 ? typedCopy(table.hiddenKeys, Uint32Array) : new Uint32Array(0);
      if (hidden.some((key) => key <= 0 || key >= table.nextKey || owner[key] !== undefined))
        return { loaded: false, reason: 'a hidden key is out of range or owned' };
      const stagedLive = staged
        ? records.reduce((sum, record) => sum + record.keys.filter((key) => key >= staged.firstKey && key < staged.firstKey + staged.count).length, 0)
        : 0;
      if (live - stagedLive + hidden.length !== table.vectors)
        return { loaded: false, reason: `the table lists ${live - stagedLive} chunks in the graph and ${hidden.length} hidden for ${table.vectors} vectors` };
      // usearch reads what it is given as its own: only the very bytes saved reach it.
      const found = digestFile(path.join(folder, table.index));
      if (found.bytes !== table.indexBytes) return { loaded: false, reason: `the index file holds ${found.bytes} bytes, the table says ${table.indexBytes}` };
      if (found.crc32 !== table.indexCrc32) return { loaded: false, reason: 'the index file fails its checksum' };
      const index = this.newIndex();
      const indexFile = path.join(folder, table.index);
      // Read where it lies (the checksum above held): loaded whole only when a change comes.
      index.view(indexFile);
      if (index.size() !== table.vectors) return { loaded: false, reason: `the index holds ${index.size()} vectors, the table ${table.vectors}` };
      this.index = index;
      this.viewedFile = indexFile;
      this.viewedDigest = { bytes: table.indexBytes, crc32: table.indexCrc32 };
      this.hiddenKeys = Array.from(hidden);
      this.staged = staged;
      this.files = new Map(records.map((record) => [record.path, record]));
      if (this.files.size !== records.length) return { loaded: false, reason: 'a file is listed twice' };
      this.owner = owner;
      this.live = live;
      this.nextKey = table.nextKey;
      this.removed = hidden.length;
      // Saved with the table while the store was small; else filled from `vectorOf` at the first whole search.
      this.copies = loadedCopies(table, records, this.dimensions);
      this.changed();
      return { loaded: true };
    } catch (error) {
      log.debug(`semantic store: ${(error as Error).message}`);
      return { loaded: false, reason: `does not decode: ${(error as Error).message}` };
    }
  }
}

interface StoredTable {
  root: string;
  modelId: string;
  dimensions: number;
  nextKey: number;
  vectors: number;
  index: string;
  indexBytes: number;
  indexCrc32: number;
  /** Version 5. */
  paths?: string[];
  fileHashes?: string[];
  chunkCounts?: Uint8Array;
  keys?: Uint8Array;
  ranges?: Uint8Array;
  textHashes?: Uint8Array;
  /** Version 5, optional: the vectors as f16 bytes in `keys` order (a store of at most `searchedWholeBelow`). */
  copies?: Uint8Array;
  /** Version 6, optional: rows staged beside the index (i8, `count` rows from key `firstKey`). */
  staged?: { firstKey: number; count: number; rows: Uint8Array };
  /** Version 6, optional: keys in the index that no chunk owns (u32). */
  hiddenKeys?: Uint8Array;
  /** Version 4. */
  files?: StoredFile[];
}

/** semantic.bin, version 6, 5 or 4. */
function readTable(folder: string): CheckedRead & { version?: number } {
  const file = path.join(folder, 'semantic.bin');
  const read = readChecked(file, magic, version);
  const older = read.status === 'corrupt' ? /^format version ([45]),/.exec(read.reason) : null;
  if (!older) return { ...read, version };
  const found = Number(older[1]);
  return { ...readChecked(file, magic, found), version: found };
}

/** Rows saved staged beside the index, in blocks; undefined when none; a string says what is wrong. */
function loadedStaged(table: StoredTable, dimensions: number, blockRows: number): Staged | undefined | string {
  const saved = table.staged;
  if (saved === undefined) return undefined;
  const { firstKey, count, rows } = saved;
  if (
    !Number.isSafeInteger(firstKey) ||
    !Number.isSafeInteger(count) ||
    firstKey < 1 ||
    count < 1 ||
    firstKey + count > table.nextKey ||
    !(rows instanceof Uint8Array)
  )
    return 'its staged rows are out of range';
  if (rows.length !== count * dimensions) return 'its staged rows are cut short';
  const blocks: Int8Array[] = [];
  for (let start = 0; start < count; start += blockRows) {
    const block = new Int8Array(Math.min(blockRows, count - start) * dimensions);
    block.set(new Int8Array(rows.buffer, rows.byteOffset + start * dimensions, block.length));
    blocks.push(block);
  }
  return { firstKey, count, graphed: 0, blocks };
}

/** Version 5's columns as one record a file (views into the columns); a string says what is wrong. */
function columnRecords(table: StoredTable): FileRecord[] | string {
  const { paths, fileHashes } = table;
  if (
    !Array.isArray(paths) ||
    !Array.isArray(fileHashes) ||
    !(table.chunkCounts instanceof Uint8Array) ||
    !(table.keys instanceof Uint8Array) ||
    !(table.ranges instanceof Uint8Array) ||
    !(table.textHashes instanceof Uint8Array)
  )
    return 'the table has the wrong shape';
  if ([table.chunkCounts, table.keys, table.ranges].some((bytes) => bytes.byteLength % 4 !== 0)) return 'a column is cut short';
  const counts = typedCopy(table.chunkCounts, Uint32Array);
  const keys = typedCopy(table.keys, Uint32Array);
  const ranges = typedCopy(table.ranges, Uint32Array);
  const textHashes = table.textHashes;
  if (counts.length !== paths.length || fileHashes.length !== paths.length) return 'files and their columns differ in number';
  if (ranges.length !== 4 * keys.length || textHashes.length !== 32 * keys.length) return 'chunks and their columns differ in number';
  const records: FileRecord[] = [];
  let at = 0;
  for (let file = 0; file < paths.length; file++) {
    const count = counts[file]!;
    const filePath = paths[file];
    const fileHash = fileHashes[file];
    if (typeof filePath !== 'string' || typeof fileHash !== 'string' || at + count > keys.length) return 'a file record has the wrong shape';
    records.push({
      path: filePath,
      fileHash,
      keys: keys.subarray(at, at + count),
      ranges: ranges.subarray(4 * at, 4 * (at + count)),
      textHashes: textHashes.subarray(32 * at, 32 * (at + count)),
    });
    at += count;
  }
  if (at !== keys.length) return 'chunks no file owns';
  return records;
}

/** The saved copies of a small store's vectors, by key; undefined when the table has none, or not one a chunk. */
function loadedCopies(table: StoredTable, records: readonly FileRecord[], dimensions: number): Map<number, Float32Array> | undefined {
  const bytes = table.copies;
  const chunks = records.reduce((sum, record) => sum + record.keys.length, 0);
  if (!(bytes instanceof Uint8Array) || bytes.length !== chunks * dimensions * 2) return undefined;
  const values = floatsOfHalfBytes(bytes);
  const copies = new Map<number, Float32Array>();
  let at = 0;
  for (const record of records) {
    for (const key of record.keys) {
      copies.set(key, values.subarray(at * dimensions, (at + 1) * dimensions));
      at += 1;
    }
  }
  return copies;
}

/** Version 4's records, one a file. */
function fileRecords(table: StoredTable): FileRecord[] | string {
  if (!Array.isArray(table.files)) return 'the table has the wrong shape';
  const records: FileRecord[] = [];
  for (const [file, fileHash, keys, rangeBytes, hashes] of table.files) {
    if (
      typeof file !== 'string' ||
      typeof fileHash !== 'string' ||
      !Array.isArray(keys) ||
      !(rangeBytes instanceof Uint8Array) ||
      !(hashes instanceof Uint8Array)
    )
      return 'a file record has the wrong shape';
    if (rangeBytes.byteLength % 4 !== 0 || rangeBytes.byteLength !== keys.length * 16 || hashes.length !== keys.length * 32)
      return `${file}: arrays of different lengths`;
    if (!keys.every((key) => Number.isInteger(key) && key > 0 && key <= 0xffffffff)) return `${file}: a key out of range`;
    records.push({ path: file, fileHash, keys: Uint32Array.from(keys), ranges: typedCopy(rangeBytes, Uint32Array), textHashes: hashes });
  }
  return records;
}

/**
 * A file's size and CRC-32, read through one descriptor in 4 MiB pieces; `sync` fsyncs it first.
 * CRC-32, not SHA-256: it guards against damage, not forgery, at twice the speed (a 100k-vector
 * index of 384 dimensions, 92 MB: ~35 ms against ~80; usearch's own load ~100 ms).
 */
function digestFile(file: string, options: { sync?: boolean } = {}): { bytes: number; crc32: number } {
  const handle = fs.openSync(file, 'r');
  try {
    if (options.sync) fs.fsyncSync(handle);
    const buffer = Buffer.allocUnsafe(4 * 1024 * 1024);
    let crc32 = 0;
    let bytes = 0;
    for (let read; (read = fs.readSync(handle, buffer, 0, buffer.length, bytes)) > 0; bytes += read) crc32 = zlib.crc32(buffer.subarray(0, read), crc32);
    return { bytes, crc32: crc32 >>> 0 };
  } finally {
    fs.closeSync(handle);
  }
}
