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
//   semantic-<generation>.usearch   usearch's own format (index.save)
//   semantic.bin                    base/checked-file.ts container, magic "FTHMSEM1", version 4:
//                                   msgpack { root, modelId, dimensions, nextKey, vectors (the
//                                   index's size), index (its file name), indexBytes (its size),
//                                   indexCrc32 (the CRC-32 of its bytes), files: [path, fileHash,
//                                   keys[], ranges (start line, end line, start byte, end byte: u32
//                                   as bytes), textHashes (32 bytes each)][] }
// Versions: 1 = semantic.usearch beside the table; 2 = the index under a generation name the table
// names (`index`); 3 = byte ranges beside the line ranges; 4 = the index file's size and CRC-32.
// A table that fails its checksum, names another model, names an index file of another size or
// checksum (checked before usearch reads a byte of it: its loader trusts the file and a truncated
// or damaged one corrupts the heap), disagrees with its index (size, keys at or past nextKey):
// nothing is loaded and the index is rebuilt from the embedding cache (no model call for cached
// chunks). The index is loaded (`index.load`: copied into memory), never viewed (`index.view` maps
// the file and reads it at each search, after any check).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { Packr } from 'msgpackr';
import { Index, MetricKind, ScalarKind } from 'usearch';
import { encodeChecked, readChecked, writeFileAtomic } from '../../base/checked-file.js';
import { log } from '../../base/logger.js';

const magic = 'FTHMSEM1';
const version = 4;
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

interface FileRecord {
  fileHash: string;
  chunks: StoredChunk[];
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

export class VectorStore {
  private index: Index;
  private readonly files = new Map<string, FileRecord>();
  private readonly byKey = new Map<number, StoredChunk>();
  private nextKey = 1;
  private removed = 0;

  constructor(
    readonly dimensions: number,
    readonly modelId: string,
  ) {
    this.index = this.newIndex();
  }

  private newIndex(): Index {
    return new Index({ dimensions: this.dimensions, metric: MetricKind.Cos, quantization: ScalarKind.F16, connectivity: 16, expansion_add: 128, expansion_search: 64, multi: false });
  }

  get size(): number {
    return this.byKey.size;
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
    for (const [path, record] of this.files) yield { path, fileHash: record.fileHash, chunks: record.chunks };
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
    const keys = new BigUint64Array(total);
    const matrix = new Float32Array(total * this.dimensions);
    let at = 0;
    for (const { file, fileHash, chunks } of files) {
      this.removeFile(file);
      const stored: StoredChunk[] = chunks.map((chunk) => {
        const key = this.nextKey++;
        keys[at] = BigInt(key);
        matrix.set(chunk.vector, at * this.dimensions);
        at += 1;
        const entry = { key, path: file, startLine: chunk.startLine, endLine: chunk.endLine, startByte: chunk.startByte, endByte: chunk.endByte, textHash: chunk.textHash };
        this.byKey.set(key, entry);
        return entry;
      });
      this.files.set(file, { fileHash, chunks: stored });
    }
    if (total > 0) this.index.add(keys, matrix, total >= 256 ? 0 : 1);
  }

  removeFile(file: string): void {
    const record = this.files.get(file);
    if (!record) return;
    this.files.delete(file);
    if (record.chunks.length === 0) return;
    this.index.remove(BigUint64Array.from(record.chunks, (chunk) => BigInt(chunk.key)));
    for (const chunk of record.chunks) this.byKey.delete(chunk.key);
    this.removed += record.chunks.length;
  }

  /** Whether removals call for a rebuild (a quarter of the index). */
  get needsCompaction(): boolean {
    return this.removed > 1024 && this.removed * 4 > this.byKey.size;
  }

  /**
   * Rebuilds the HNSW index from the live chunks' vectors (`vectorOf`: the embedding cache). A file
   * with a chunk whose vector is not given (a damaged cache record) leaves the store whole, so the
   * table never lists a key the index lacks; answers the files dropped (for the caller to sync again).
   */
  compact(vectorOf: (textHash: string) => Float32Array | undefined): string[] {
    const index = this.newIndex();
    const keys: bigint[] = [];
    const matrix = new Float32Array(this.byKey.size * this.dimensions);
    const dropped: string[] = [];
    for (const [file, record] of this.files) {
      const vectors = record.chunks.map((chunk) => vectorOf(chunk.textHash));
      if (vectors.some((vector) => !vector)) {
        dropped.push(file);
        continue;
      }
      record.chunks.forEach((chunk, at) => {
        matrix.set(vectors[at]!, keys.length * this.dimensions);
        keys.push(BigInt(chunk.key));
      });
    }
    for (const file of dropped) {
      for (const chunk of this.files.get(file)!.chunks) this.byKey.delete(chunk.key);
      this.files.delete(file);
    }
    if (keys.length > 0) index.add(BigUint64Array.from(keys), matrix.subarray(0, keys.length * this.dimensions), 0);
    this.index = index;
    this.removed = 0;
    return dropped;
  }

  /** The nearest chunks to a unit vector, best first; `accepts` filters by path (the search widens until `k` pass or the index is exhausted). */
  search(vector: Float32Array, k: number, accepts?: (file: string) => boolean): VectorHit[] {
    const total = this.index.size();
    if (total === 0) return [];
    for (let wanted = Math.min(total, accepts ? k * 4 : k); ; wanted = Math.min(total, wanted * 4)) {
      const matches = this.index.search(vector, wanted, 1);
      const hits: VectorHit[] = [];
      for (let at = 0; at < matches.keys.length; at++) {
        const chunk = this.byKey.get(Number(matches.keys[at]!));
        const similarity = 1 - matches.distances[at]!;
        if (!chunk || !Number.isFinite(similarity) || (accepts && !accepts(chunk.path))) continue;
        hits.push({ ...chunk, similarity });
        if (hits.length >= k) break;
      }
      if (hits.length >= k || wanted >= total) return hits;
    }
  }

  /** Writes the index under a fresh name, then the table naming it, then drops older index files. */
  save(folder: string, root: string): void {
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    const name = `semantic-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}.usearch`;
    const temporary = path.join(folder, `${name}.tmp`);
    this.index.save(temporary);
    // On disk before the table names it (a power cut must not leave a table naming a torn index), and private as every cache file.
    fs.chmodSync(temporary, 0o600);
    const written = digestFile(temporary, { sync: true });
    fs.renameSync(temporary, path.join(folder, name));
    const files: StoredFile[] = [...this.files].map(([file, record]) => {
      const ranges = new Uint32Array(record.chunks.length * 4);
      const hashes = Buffer.alloc(record.chunks.length * 32);
      record.chunks.forEach((chunk, at) => {
        ranges.set([chunk.startLine, chunk.endLine, chunk.startByte, chunk.endByte], 4 * at);
        Buffer.from(chunk.textHash, 'hex').copy(hashes, at * 32);
      });
      return [file, record.fileHash, record.chunks.map((chunk) => chunk.key), new Uint8Array(ranges.buffer), hashes];
    });
    const payload = packr.pack({ root, modelId: this.modelId, dimensions: this.dimensions, nextKey: this.nextKey, vectors: this.index.size(), index: name, indexBytes: written.bytes, indexCrc32: written.crc32, files });
    writeFileAtomic(path.join(folder, 'semantic.bin'), encodeChecked(magic, version, payload));
    // Another daemon may have saved meanwhile: keep whatever the table on disk names now.
    const current = this.tableIndexName(folder);
    for (const entry of fs.readdirSync(folder)) {
      if (/^semantic-.*\.usearch(\.tmp)?$/.test(entry) && entry !== current && entry !== name) fs.rmSync(path.join(folder, entry), { force: true });
    }
  }

  private tableIndexName(folder: string): string | undefined {
    const read = readChecked(path.join(folder, 'semantic.bin'), magic, version);
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
    const read = readChecked(path.join(folder, 'semantic.bin'), magic, version);
    if (read.status !== 'valid') return { loaded: false, reason: read.status === 'missing' ? 'no saved store' : read.reason };
    try {
      const table = packr.unpack(read.payload) as { root: string; modelId: string; dimensions: number; nextKey: number; vectors: number; index: string; indexBytes: number; indexCrc32: number; files: StoredFile[] };
      if (table.root !== root || table.modelId !== this.modelId || table.dimensions !== this.dimensions) return { loaded: false, reason: 'made for another root or model' };
      if (typeof table.index !== 'string' || !/^semantic-[\w-]+\.usearch$/.test(table.index) || !fs.existsSync(path.join(folder, table.index))) return { loaded: false, reason: 'the index file it names is missing' };
      if (!Number.isSafeInteger(table.indexBytes) || !Number.isInteger(table.indexCrc32)) return { loaded: false, reason: 'no size and checksum of its index file' };
      // usearch reads what it is given as its own: only the very bytes saved reach it.
      const found = digestFile(path.join(folder, table.index));
      if (found.bytes !== table.indexBytes) return { loaded: false, reason: `the index file holds ${found.bytes} bytes, the table says ${table.indexBytes}` };
      if (found.crc32 !== table.indexCrc32) return { loaded: false, reason: 'the index file fails its checksum' };
      const index = this.newIndex();
      index.load(path.join(folder, table.index));
      if (index.size() !== table.vectors) return { loaded: false, reason: `the index holds ${index.size()} vectors, the table ${table.vectors}` };
      const files = new Map<string, FileRecord>();
      const byKey = new Map<number, StoredChunk>();
      for (const [file, fileHash, keys, rangeBytes, hashes] of table.files) {
        const copy = new Uint8Array(rangeBytes.byteLength);
        copy.set(rangeBytes);
        const ranges = new Uint32Array(copy.buffer);
        if (ranges.length !== keys.length * 4 || hashes.length !== keys.length * 32) return { loaded: false, reason: `${file}: arrays of different lengths` };
        const chunks = keys.map((key, at): StoredChunk => ({ key, path: file, startLine: ranges[4 * at]!, endLine: ranges[4 * at + 1]!, startByte: ranges[4 * at + 2]!, endByte: ranges[4 * at + 3]!, textHash: Buffer.from(hashes.subarray(at * 32, (at + 1) * 32)).toString('hex') }));
        for (const chunk of chunks) {
          if (!Number.isInteger(chunk.key) || chunk.key <= 0 || chunk.key >= table.nextKey) return { loaded: false, reason: `${file}: a key at or past nextKey` };
          byKey.set(chunk.key, chunk);
        }
        files.set(file, { fileHash, chunks });
      }
      if (byKey.size !== table.vectors) return { loaded: false, reason: `the table lists ${byKey.size} chunks for ${table.vectors} vectors` };
      this.index = index;
      this.files.clear();
      for (const [file, record] of files) this.files.set(file, record);
      this.byKey.clear();
      for (const [key, chunk] of byKey) this.byKey.set(key, chunk);
      this.nextKey = table.nextKey;
      this.removed = 0;
      return { loaded: true };
    } catch (error) {
      log.debug(`semantic store: ${(error as Error).message}`);
      return { loaded: false, reason: `does not decode: ${(error as Error).message}` };
    }
  }
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
