// chunks.bin: a workspace's chunk ranking on disk, laid out to be used where it lies. A restarted
// daemon reads the header and the meta (the chunk table, the file table and one line per block of
// terms) and nothing else; a question then reads the blocks of its terms and their posting lists
// with positioned reads, each checked as it is read. So the first lexical search after a restart
// costs a few reads, not the decoding of every term and list (bench/RESULTS.md, pipeline rows).
//
// Layout (integers little-endian):
//   0-63    the header (base/trailing-meta.ts): magic "FTHMCRK2", format version
//           (rankingFileVersion), the meta's offset, length and SHA-256
//   64-     for each block of 64 terms, in term order (JavaScript string order): the posting lists
//           of its terms (u32 pairs: chunk id, packed per-field counts), then the block itself:
//           per term, u16 name length in bytes, the name (UTF-8), f64 the list's byte offset,
//           u32 its length in words, u32 its CRC-32
//   then    the meta, msgpack { root, version (rankingVersion), budgetBytes, terms, chunks,
//           postingWords, chunkFile (u32), chunkLines (u32 pairs), chunkBytes (u32 pairs),
//           chunkLengths (u16, five per chunk), files: [path, SHA-256 (32 bytes), first chunk,
//           chunk count][], blockFirst (each block's first term), blockOffsets (f64),
//           blockBytes (u32), blockCrcs (u32) }; a chunk's file id is its file's index in `files`
//           (0xffffffff: a chunk of no stored file, dead on load)
//
// Loads: the header and the meta only; every chunk starts dead, the files whose hash still holds
// revive theirs, the rest are re-chunked. Saved after a build and 30 s after the last change (a
// ranking of over 100k chunks only once enough files changed: chunk-ranking.ts `saveDue`).
//
// Checks: magic, version and the meta's SHA-256 on open (and the tables' shapes); a block's
// CRC-32 when it is read, a list's CRC-32 and its chunk ids when it is read. What fails is
// RankingDamaged: the ranking discards the file and builds again (chunk-ranking.ts; the search
// that met it asks again). Nothing read unchecked is ranked.
//
// Writes: a temporary file beside, the header last, fsync, rename over, fsync of the folder: a
// crash leaves the old file or the new one. A reader keeps its descriptor, so a ranking loaded
// from the old file goes on reading it (its inode) after a save renamed a new one over it.
//
// Versions (`rankingFileVersion`, one line per bump; a chunks.bin of another version is rebuilt).
// The meta's `version` is chunk-ranking.ts's rankingVersion (what a chunk's terms are), apart.
//   1  magic FTHMCRK1, chunk-ranking-store.ts's records, decoded whole on load (still the
//      export's format)
//   2  this layout, magic FTHMCRK2, read where it lies
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { Packr } from 'msgpackr';
import { breathe } from '../../base/event-loop.js';
import { openForReading } from '../../base/checked-file.js';
import { BufferedWriter, readExactly, readExactlyInto, syncFolder, writeAll } from '../../base/positioned-io.js';
import { readTrailingMeta, trailingMetaHeader, trailingMetaHeaderBytes as headerBytes } from '../../base/trailing-meta.js';
import { bytesOf, typedCopy } from '../../base/typed-bytes.js';
import { fieldCount } from './chunk-fields.js';

export const rankingFileVersion = 2;
const magic = 'FTHMCRK2';
/** Terms per block: a lookup reads one block (a few KiB) after a binary search over the blocks' first terms. */
export const termsPerBlock = 64;
/** The piece `all()` reads ahead (lists and blocks lie in term order: a save reads the file front to back). */
const readAheadBytes = 4 * 2 ** 20;
const packr = new Packr({ useRecords: false, mapsAsObjects: true });

/** A part of chunks.bin failed its check when it was read. */
export class RankingDamaged extends Error {}

/** Everything but the terms and their lists: what a load reads. */
export interface RankingTables {
  root: string;
  version: number;
  budgetBytes: number;
  chunkFile: Uint32Array;
  chunkLines: Uint32Array;
  chunkBytes: Uint32Array;
  chunkLengths: Uint16Array;
  files: Array<{ path: string; hash: string; first: number; count: number }>;
}

/** Where one term's posting list lies. */
export interface TermEntry {
  /** The term's id: its position in the file's term order. */
  id: number;
  offset: number;
  words: number;
  crc: number;
}

interface StoredMeta {
  root: string;
  version: number;
  budgetBytes: number;
  terms: number;
  chunks: number;
  postingWords: number;
  chunkFile: Uint8Array;
  chunkLines: Uint8Array;
  chunkBytes: Uint8Array;
  chunkLengths: Uint8Array;
  files: Array<[string, Uint8Array, number, number]>;
  blockFirst: string[];
  blockOffsets: Uint8Array;
  blockBytes: Uint8Array;
  blockCrcs: Uint8Array;
}

export type RankingFileOpen = { status: 'valid'; file: RankingFile } | { status: 'missing' } | { status: 'corrupt'; reason: string };

/** An open chunks.bin: its tables in memory, its terms and lists read on demand. */
export class RankingFile {
  private closed = false;
  /** The last block read (a build's or a query's lookups often fall in the same one). */
  private lastBlock: { index: number; names: string[]; entries: TermEntry[] } | undefined;
  /**
   * While `all()` runs (a save, a compaction): the file's bytes from `start`, read ahead in pieces
   * of `readAheadBytes`, so going through every list costs a read per piece, not one per term
   * (the kernel's 2.9M terms: ~30 s of this thread's reads, one list at a time).
   */
  private window: { start: number; bytes: Buffer; length: number } | undefined;

  private constructor(
    private readonly fd: number,
    readonly tables: RankingTables,
    /** Number of terms. */
    readonly terms: number,
    /** Words in all posting lists together. */
    readonly postingWords: number,
    private readonly blockFirst: string[],
    private readonly blockOffsets: Float64Array,
    private readonly blockBytes: Uint32Array,
    private readonly blockCrcs: Uint32Array,
    private readonly size: number,
  ) {}

  static open(file: string): RankingFileOpen {
    const fd = openForReading(file);
    if (typeof fd !== 'number') return fd;
    try {
      const opened = RankingFile.read(fd);
      if (opened.status !== 'valid') fs.closeSync(fd);
      return opened;
    } catch (error) {
      fs.closeSync(fd);
      return { status: 'corrupt', reason: (error as Error).message };
    }
  }

  private static read(fd: number): RankingFileOpen {
    const read = readTrailingMeta(fd, magic, rankingFileVersion, 'chunk ranking (version 2)');
    if ('reason' in read) return { status: 'corrupt', reason: read.reason };
    const { metaOffset, size } = read;
    const meta = packr.unpack(read.meta) as StoredMeta;
    const chunks = meta.chunks;
    const chunkFile = typedCopy(meta.chunkFile, Uint32Array);
    const chunkLines = typedCopy(meta.chunkLines, Uint32Array);
    const chunkBytes = typedCopy(meta.chunkBytes, Uint32Array);
    const chunkLengths = typedCopy(meta.chunkLengths, Uint16Array);
    if (
      typeof meta.root !== 'string' ||
      !Number.isInteger(chunks) ||
      chunkFile.length !== chunks ||
      chunkLines.length !== 2 * chunks ||
      chunkBytes.length !== 2 * chunks ||
      chunkLengths.length !== fieldCount * chunks
    )
      return { status: 'corrupt', reason: 'the chunk table has the wrong shape' };
    const blocks = Math.ceil(meta.terms / termsPerBlock);
    const blockOffsets = typedCopy(meta.blockOffsets, Float64Array);
    const blockBytes = typedCopy(meta.blockBytes, Uint32Array);
    const blockCrcs = typedCopy(meta.blockCrcs, Uint32Array);
    if (
      !Array.isArray(meta.blockFirst) ||
      meta.blockFirst.length !== blocks ||
      blockOffsets.length !== blocks ||
      blockBytes.length !== blocks ||
      blockCrcs.length !== blocks
    )
      return { status: 'corrupt', reason: 'the block table has the wrong shape' };
    for (let block = 0; block < blocks; block++)
      if (blockOffsets[block]! < headerBytes || blockOffsets[block]! + blockBytes[block]! > metaOffset)
        return { status: 'corrupt', reason: 'a block lies outside the file' };
    if (!Array.isArray(meta.files)) return { status: 'corrupt', reason: 'the file table has the wrong shape' };
    const files = meta.files.map(([file, hash, first, count], index) => {
      if (
        typeof file !== 'string' ||
        !(hash instanceof Uint8Array) ||
        hash.length !== 32 ||
        !Number.isInteger(first) ||
        !Number.isInteger(count) ||
        first < 0 ||
        count < 0 ||
        first + count > chunks
      )
        throw new Error(`${String(file)}: a chunk range out of the table`);
      for (let id = first; id < first + count; id++) if (chunkFile[id] !== index) throw new Error(`${file}: its chunks name another file`);
      return { path: file, hash: Buffer.from(hash).toString('hex'), first, count };
    });
    const tables: RankingTables = {
      root: meta.root,
      version: meta.version,
      budgetBytes: meta.budgetBytes,
      chunkFile,
      chunkLines,
      chunkBytes,
      chunkLengths,
      files,
    };
    return { status: 'valid', file: new RankingFile(fd, tables, meta.terms, meta.postingWords, meta.blockFirst, blockOffsets, blockBytes, blockCrcs, size) };
  }

  /** The term's entry, or undefined when the file does not hold it. */
  lookup(term: string): TermEntry | undefined {
    // The last block whose first term is <= term.
    let low = 0;
    let high = this.blockFirst.length - 1;
    if (high < 0 || term < this.blockFirst[0]!) return undefined;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.blockFirst[middle]! <= term) low = middle;
      else high = middle - 1;
    }
    const block = this.block(low);
    const at = block.names.indexOf(term);
    return at < 0 ? undefined : block.entries[at];
  }

  /** The entry of the term with this id. */
  entry(id: number): TermEntry {
    if (!Number.isInteger(id) || id < 0 || id >= this.terms) throw new RangeError(`term ${id} is not in the file`);
    return this.block(Math.floor(id / termsPerBlock)).entries[id % termsPerBlock]!;
  }

  /**
   * Every term with its entry, in term order (a save or a compaction goes through them all); the
   * lists read meanwhile with `ahead` come from the pieces it reads ahead (`pieceBytes` each).
   */
  *all(pieceBytes = readAheadBytes): Generator<{ name: string; entry: TermEntry }> {
    const window = { start: 0, bytes: Buffer.allocUnsafe(pieceBytes), length: 0 };
    this.window = window;
    try {
      for (let index = 0; index < this.blockFirst.length; index++) {
        const block = this.block(index, true);
        for (let at = 0; at < block.names.length; at++) yield { name: block.names[at]!, entry: block.entries[at]! };
      }
    } finally {
      if (this.window === window) this.window = undefined;
    }
  }

  /** A term's posting list, checked (its CRC-32, every chunk id inside the table); `ahead`: read within `all()`'s pieces. */
  readList(entry: TermEntry, ahead = false): Uint32Array {
    this.assertOpen();
    if (entry.words === 0) return new Uint32Array(0);
    const bytes = this.readChecked(entry.offset, entry.words * 4, `the posting list of term ${entry.id}`, ahead);
    if (zlib.crc32(bytes) >>> 0 !== entry.crc) throw new RankingDamaged(`chunks.bin: the posting list of term ${entry.id} fails its checksum`);
    const list = typedCopy(bytes, Uint32Array);
    const chunks = this.tables.chunkFile.length;
    for (let at = 0; at < list.length; at += 2)
      if (list[at]! >= chunks) throw new RankingDamaged(`chunks.bin: the posting list of term ${entry.id} names a chunk out of the table`);
    return list;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    fs.closeSync(this.fd);
  }

  private block(index: number, ahead = false): { index: number; names: string[]; entries: TermEntry[] } {
    if (this.lastBlock?.index === index) return this.lastBlock;
    this.assertOpen();
    const bytes = this.readChecked(this.blockOffsets[index]!, this.blockBytes[index]!, `term block ${index}`, ahead);
    if (zlib.crc32(bytes) >>> 0 !== this.blockCrcs[index]) throw new RankingDamaged(`chunks.bin: term block ${index} fails its checksum`);
    const names: string[] = [];
    const entries: TermEntry[] = [];
    const count = Math.min(termsPerBlock, this.terms - index * termsPerBlock);
    let at = 0;
    for (let term = 0; term < count; term++) {
      if (at + 2 > bytes.length) throw new RankingDamaged(`chunks.bin: term block ${index} is cut short`);
      const length = bytes.readUInt16LE(at);
      at += 2;
      if (at + length + 16 > bytes.length) throw new RankingDamaged(`chunks.bin: term block ${index} is cut short`);
      names.push(bytes.toString('utf8', at, at + length));
      at += length;
      const offset = bytes.readDoubleLE(at);
      const words = bytes.readUInt32LE(at + 8);
      const crc = bytes.readUInt32LE(at + 12);
      at += 16;
      if (!Number.isSafeInteger(offset) || offset < headerBytes || offset + words * 4 > this.size || words % 2 !== 0)
        throw new RankingDamaged(`chunks.bin: term block ${index} points outside the file`);
      entries.push({ id: index * termsPerBlock + term, offset, words, crc });
    }
    if (names[0] !== this.blockFirst[index]) throw new RankingDamaged(`chunks.bin: term block ${index} does not start with the term the meta names`);
    this.lastBlock = { index, names, entries };
    return this.lastBlock;
  }

  /** The bytes at `offset` (a view into the read-ahead window, or read now); `ahead` refills the window there when it misses. */
  private readChecked(offset: number, length: number, what: string, ahead = false): Buffer {
    try {
      const window = this.window;
      if (window && offset >= window.start && offset + length <= window.start + window.length)
        return window.bytes.subarray(offset - window.start, offset - window.start + length);
      if (window && ahead && length <= window.bytes.length) {
        const piece = Math.min(window.bytes.length, this.size - offset);
        if (length > piece) throw new Error(`file ends at ${this.size}, expected ${offset + length}`);
        // Emptied first: a read that fails leaves no stale bytes named as these.
        window.length = 0;
        readExactlyInto(this.fd, window.bytes, piece, offset);
        window.start = offset;
        window.length = piece;
        return window.bytes.subarray(0, length);
      }
      return readExactly(this.fd, length, offset);
    } catch (error) {
      throw new RankingDamaged(`chunks.bin: ${what} cannot be read (${(error as Error).message})`);
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new RankingDamaged('chunks.bin was closed (the ranking was discarded)');
  }
}

/** One term to write: its name and its posting list (only the first `length` words count). */
export interface TermToWrite {
  name: string;
  list: Uint32Array;
}

/**
 * Writes chunks.bin from the tables and the terms, which come in term order (JavaScript string
 * order, strictly increasing), streamed: the writer holds one block at a time. Atomic (see the
 * module comment); yields to the event loop every 20 ms.
 */
export async function writeRankingFile(file: string, tables: RankingTables, terms: Iterable<TermToWrite>): Promise<void> {
  const folder = path.dirname(file);
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  const temporary = path.join(folder, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = fs.openSync(temporary, 'w', 0o600);
  try {
    // Posting lists and blocks go out in order, gathered (a term of one chunk is 4 bytes).
    const out = new BufferedWriter(fd, headerBytes);
    const blockFirst: string[] = [];
    const blockOffsets: number[] = [];
    const blockBytes: number[] = [];
    const blockCrcs: number[] = [];
    let count = 0;
    let postingWords = 0;
    let previous: string | undefined;
    let pending: Array<{ name: Buffer; offset: number; words: number; crc: number }> = [];
    const endBlock = (): void => {
      const size = pending.reduce((sum, term) => sum + 2 + term.name.length + 16, 0);
      const block = Buffer.allocUnsafe(size);
      let at = 0;
      for (const term of pending) {
        block.writeUInt16LE(term.name.length, at);
        term.name.copy(block, at + 2);
        at += 2 + term.name.length;
        block.writeDoubleLE(term.offset, at);
        block.writeUInt32LE(term.words, at + 8);
        block.writeUInt32LE(term.crc, at + 12);
        at += 16;
      }
      blockOffsets.push(out.end);
      out.bytes(block);
      blockBytes.push(size);
      blockCrcs.push(zlib.crc32(block) >>> 0);
      pending = [];
    };
    let last = performance.now();
    for (const term of terms) {
      if (previous !== undefined && !(previous < term.name))
        throw new Error(`terms out of order: ${JSON.stringify(previous)} before ${JSON.stringify(term.name)}`);
      previous = term.name;
      const name = Buffer.from(term.name, 'utf8');
      if (name.length > 0xffff) throw new Error('a term longer than 65,535 bytes');
      const bytes = bytesOf(term.list);
      if (pending.length === 0) blockFirst.push(term.name);
      pending.push({ name, offset: out.end, words: term.list.length, crc: zlib.crc32(bytes) >>> 0 });
      out.bytes(bytes);
      postingWords += term.list.length;
      count++;
      if (pending.length === termsPerBlock) endBlock();
      if (performance.now() - last > 20) {
        await breathe();
        last = performance.now();
      }
    }
    if (pending.length > 0) endBlock();
    const meta: StoredMeta = {
      root: tables.root,
      version: tables.version,
      budgetBytes: tables.budgetBytes,
      terms: count,
      chunks: tables.chunkFile.length,
      postingWords,
      chunkFile: bytesOf(tables.chunkFile),
      chunkLines: bytesOf(tables.chunkLines),
      chunkBytes: bytesOf(tables.chunkBytes),
      chunkLengths: bytesOf(tables.chunkLengths),
      files: tables.files.map((entry) => [entry.path, Buffer.from(entry.hash, 'hex'), entry.first, entry.count]),
      blockFirst,
      blockOffsets: bytesOf(Float64Array.from(blockOffsets)),
      blockBytes: bytesOf(Uint32Array.from(blockBytes)),
      blockCrcs: bytesOf(Uint32Array.from(blockCrcs)),
    };
    const metaBytes = packr.pack(meta);
    const metaAt = out.end;
    out.bytes(metaBytes);
    out.flush();
    fs.fsyncSync(fd);
    writeAll(fd, trailingMetaHeader(magic, rankingFileVersion, metaAt, metaBytes), 0);
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fs.renameSync(temporary, file);
    syncFolder(folder);
  } catch (error) {
    try {
      fs.closeSync(fd);
    } catch {
      // Already closed (the rename failed).
    }
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}
