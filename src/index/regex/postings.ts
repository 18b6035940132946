// The trigram → piece-id inverted index: writing it in bounded memory, and reading lists back
// from disk on demand.
//
// Writing: pieces arrive in increasing id order with their distinct trigram keys. Keys are
// collected in a flat array; every `capacity` postings they are grouped by key with a counting
// sort (linear, no per-list objects) and written as a sorted segment file of delta + varint lists.
// `finish` merges the segments into one postings region: per key, the segments' lists are
// concatenated in segment order (ids keep increasing), only the first delta of each later part is
// re-encoded. Peak memory is the collection arrays, not the index.
//
// Reading: the key table (keys, counts, offsets, lengths, CRC-32s) stays in memory; a list's
// bytes are read with one positioned read into a reused buffer and checked against their CRC;
// a list narrowing candidates already found is decoded as it is merged with them (`listWithin`).
//
// Invariants: every list is strictly increasing ids; list i's bytes are [offsets[i],
// offsets[i] + lengths[i]) of the region, delta-encoded from -1 (the first varint is the id).
import fs from 'node:fs';
import zlib from 'node:zlib';
import { breathe } from '../../base/event-loop.js';
import { BufferedWriter } from '../../base/positioned-io.js';
import { scanPostingArea, scanPostingIds, scanPostingList, scanPostingWithin } from './run-scan.js';

export const keySpace = 1 << 24;

/** The in-memory table of a postings region. */
export interface PostingsTable {
  keys: Uint32Array;
  counts: Uint32Array;
  /** Byte offsets into the region (f64: a region may pass 4 GiB). */
  offsets: Float64Array;
  lengths: Uint32Array;
  crcs: Uint32Array;
}

interface Segment {
  file: string;
  keys: Uint32Array;
  counts: Uint32Array;
  lengths: Uint32Array;
  lasts: Uint32Array;
}

/** Reads a file front to back through a buffer. */
class BufferedReader {
  private readonly buffer: Buffer;
  private start = 0;
  private end = 0;
  private position = 0;
  constructor(
    private readonly fd: number,
    size = 1 << 20,
  ) {
    this.buffer = Buffer.allocUnsafe(size);
  }

  private fill(): void {
    this.buffer.copy(this.buffer, 0, this.start, this.end);
    this.end -= this.start;
    this.start = 0;
    const read = fs.readSync(this.fd, this.buffer, this.end, this.buffer.length - this.end, this.position);
    if (read <= 0) throw new Error('segment ends early');
    this.position += read;
    this.end += read;
  }

  varint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (this.start === this.end) this.fill();
      const byte = this.buffer[this.start++]!;
      value += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) return value;
      scale *= 128;
    }
  }

  /** Hands the next `length` bytes to `sink`, in buffer-sized pieces. */
  copy(length: number, sink: (bytes: Uint8Array) => void): void {
    while (length > 0) {
      if (this.start === this.end) this.fill();
      const take = Math.min(length, this.end - this.start);
      sink(this.buffer.subarray(this.start, this.start + take));
      this.start += take;
      length -= take;
    }
  }
}

function varintLength(value: number): number {
  let length = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 128);
    length += 1;
  }
  return length;
}

export class PostingsWriter {
  /** Grows (doubling) up to `capacity`: a small delta does not pay for a full-size array. */
  private pending = new Uint32Array(1 << 16);
  private size = 0;
  private readonly runPieces: number[] = [];
  private readonly runEnds: number[] = [];
  private readonly segments: Segment[] = [];
  private counts: Uint32Array | undefined;
  private lastPiece = -1;
  total = 0;

  constructor(
    /** Path prefix of the segment files (deleted by `finish` and `discard`). */
    private readonly segmentPrefix: string,
    private readonly capacity = 1 << 24,
  ) {}

  /** Adds one piece's distinct keys (`keys[0..count)`); piece ids must increase. */
  addPiece(piece: number, keys: Uint32Array, count: number): void {
    if (piece <= this.lastPiece) throw new Error(`piece ${piece} after ${this.lastPiece}`);
    this.lastPiece = piece;
    if (count === 0) return;
    if (this.size + count > this.capacity) this.flush();
    if (this.size + count > this.pending.length) {
      const grown = new Uint32Array(Math.min(this.capacity, Math.max(this.pending.length * 2, this.size + count)));
      grown.set(this.pending.subarray(0, this.size));
      this.pending = grown;
    }
    this.pending.set(keys.subarray(0, count), this.size);
    this.size += count;
    this.runPieces.push(piece);
    this.runEnds.push(this.size);
    this.total += count;
  }

  /** Groups the pending postings by key and writes them as a segment. */
  private flush(): void {
    if (this.size === 0) return;
    const counts = (this.counts ??= new Uint32Array(keySpace));
    counts.fill(0);
    const pending = this.pending;
    for (let index = 0; index < this.size; index++) counts[pending[index]!]! += 1;
    let present = 0;
    for (let key = 0; key < keySpace; key++) if (counts[key] !== 0) present += 1;
    const keys = new Uint32Array(present);
    const keyCounts = new Uint32Array(present);
    // Exclusive prefix sums: counts[key] becomes where its ids start in `sorted`.
    let running = 0;
    let slot = 0;
    for (let key = 0; key < keySpace; key++) {
      const count = counts[key]!;
      if (count === 0) continue;
      keys[slot] = key;
      keyCounts[slot++] = count;
      counts[key] = running;
      running += count;
    }
    const sorted = new Uint32Array(this.size);
    let from = 0;
    for (let run = 0; run < this.runPieces.length; run++) {
      const piece = this.runPieces[run]!;
      const to = this.runEnds[run]!;
      for (let index = from; index < to; index++) sorted[counts[pending[index]!]!++] = piece;
      from = to;
    }
    const file = `${this.segmentPrefix}${this.segments.length}.tmp`;
    const fd = fs.openSync(file, 'w', 0o600);
    const lengths = new Uint32Array(present);
    const lasts = new Uint32Array(present);
    try {
      const writer = new BufferedWriter(fd, 0);
      let at = 0;
      for (let index = 0; index < present; index++) {
        const start = writer.end;
        let previous = -1;
        const end = at + keyCounts[index]!;
        for (; at < end; at++) {
          const id = sorted[at]!;
          writer.varint(id - previous - 1);
          previous = id;
        }
        lengths[index] = writer.end - start;
        lasts[index] = previous;
      }
      writer.flush();
    } finally {
      fs.closeSync(fd);
    }
    this.segments.push({ file, keys, counts: keyCounts, lengths, lasts });
    this.size = 0;
    this.runPieces.length = 0;
    this.runEnds.length = 0;
  }

  /**
   * Merges everything into one postings region written to `fd` from `position`. Returns the table
   * (offsets relative to `position`) and the region's length. Segment files are removed.
   */
  async finish(fd: number, position: number): Promise<{ table: PostingsTable; length: number }> {
    this.flush();
    this.counts = undefined;
    const segments = this.segments;
    const fds = segments.map((segment) => fs.openSync(segment.file, 'r'));
    try {
      const readers = fds.map((segmentFd) => new BufferedReader(segmentFd));
      const cursors = new Uint32Array(segments.length);
      // The union of the segments' keys, ascending.
      const seen = new Uint8Array(keySpace);
      for (const segment of segments) for (const key of segment.keys) seen[key] = 1;
      let keyCount = 0;
      for (let key = 0; key < keySpace; key++) keyCount += seen[key]!;
      const table: PostingsTable = {
        keys: new Uint32Array(keyCount),
        counts: new Uint32Array(keyCount),
        offsets: new Float64Array(keyCount),
        lengths: new Uint32Array(keyCount),
        crcs: new Uint32Array(keyCount),
      };
      const writer = new BufferedWriter(fd, position);
      let slot = 0;
      let crc = 0;
      const sink = (bytes: Uint8Array): void => {
        crc = zlib.crc32(bytes, crc);
        writer.bytes(bytes);
      };
      const small = Buffer.alloc(9);
      let sliceStart = performance.now();
      for (let key = 0; key < keySpace; key++) {
        if (seen[key] === 0) continue;
        if ((slot & 1023) === 0 && performance.now() - sliceStart > 12) {
          await breathe();
          sliceStart = performance.now();
        }
        const start = writer.end;
        crc = 0;
        let count = 0;
        let last = -1;
        for (let index = 0; index < segments.length; index++) {
          const segment = segments[index]!;
          const at = cursors[index]!;
          if (at >= segment.keys.length || segment.keys[at] !== key) continue;
          cursors[index] = at + 1;
          const reader = readers[index]!;
          let length = segment.lengths[at]!;
          if (last >= 0) {
            // The part's first varint is its first id; here it follows `last`.
            const first = reader.varint();
            length -= varintLength(first);
            let value = first - last - 1;
            let used = 0;
            while (value >= 0x80) {
              small[used++] = (value & 0x7f) | 0x80;
              value = Math.floor(value / 128);
            }
            small[used++] = value;
            sink(small.subarray(0, used));
          }
          reader.copy(length, sink);
          count += segment.counts[at]!;
          last = segment.lasts[at]!;
        }
        table.keys[slot] = key;
        table.counts[slot] = count;
        table.offsets[slot] = start - position;
        table.lengths[slot] = writer.end - start;
        table.crcs[slot] = crc >>> 0;
        slot += 1;
      }
      writer.flush();
      return { table, length: writer.end - position };
    } finally {
      for (const segmentFd of fds) fs.closeSync(segmentFd);
      this.discard();
    }
  }

  /** Removes the segment files (after `finish`, or when a build is abandoned). */
  discard(): void {
    for (const segment of this.segments) fs.rmSync(segment.file, { force: true });
    this.segments.length = 0;
  }
}

/** Raised when a posting list's bytes do not match their checksum. */
export class PostingsCorrupt extends Error {}

/**
 * Reads `length` bytes at `offset` of the postings region, into `scratch` when it is large enough
 * (the bytes are decoded before the next read: no fresh buffer, whose pages fault, per list).
 */
export type PostingsReader = (offset: number, length: number, scratch: Buffer) => Uint8Array;

/** A read buffer above this size is not kept for the next list. */
const scratchLimit = 8 << 20;

/** Posting lists read from a region of a file, on demand. */
export class Postings {
  private scratch = Buffer.alloc(0);

  constructor(
    readonly table: PostingsTable,
    private readonly read: PostingsReader,
  ) {}

  private slot(key: number): number {
    const keys = this.table.keys;
    let low = 0;
    let high = keys.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const value = keys[middle]!;
      if (value === key) return middle;
      if (value < key) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  }

  /** How many ids hold `key` (0 if none): lets a plan intersect the rarest lists first. */
  count(key: number): number {
    const slot = this.slot(key);
    return slot < 0 ? 0 : this.table.counts[slot]!;
  }

  /**
   * The list's bytes, checked against their CRC (valid until the next read): in the SIMD scanner's
   * posting area when they fit there (decoded in WebAssembly then: 2-3 ns an id against 5-7 in
   * JavaScript), else in the scratch buffer.
   */
  private bytesOf(slot: number, key: number, area?: Buffer): Uint8Array {
    const length = this.table.lengths[slot]!;
    if (area && length <= area.length) {
      const bytes = this.read(this.table.offsets[slot]!, length, area);
      if (zlib.crc32(bytes) >>> 0 !== this.table.crcs[slot]) throw new PostingsCorrupt(`posting list of trigram ${key.toString(16)} fails its checksum`);
      return bytes;
    }
    if (this.scratch.length < length && length <= scratchLimit) this.scratch = Buffer.allocUnsafe(Math.max(length, 2 * this.scratch.length, 64 * 1024));
    const bytes = this.read(this.table.offsets[slot]!, length, this.scratch);
    if (zlib.crc32(bytes) >>> 0 !== this.table.crcs[slot]) throw new PostingsCorrupt(`posting list of trigram ${key.toString(16)} fails its checksum`);
    return bytes;
  }

  /** The sorted ids that hold `key`. Throws PostingsCorrupt when the bytes fail their CRC. */
  list(key: number): Uint32Array {
    const slot = this.slot(key);
    if (slot < 0) return new Uint32Array(0);
    const area = this.table.counts[slot]! <= scanPostingIds ? scanPostingArea() : undefined;
    if (area && this.table.lengths[slot]! <= area.length) {
      const decoded = scanPostingList(this.bytesOf(slot, key, area), this.table.counts[slot]!);
      if (decoded) {
        if (decoded.read !== this.table.lengths[slot]) throw new PostingsCorrupt(`posting list of trigram ${key.toString(16)} has the wrong length`);
        return decoded.ids;
      }
    }
    const bytes = this.bytesOf(slot, key);
    const out = new Uint32Array(this.table.counts[slot]!);
    const length = out.length;
    // The varint loop is written out here and in listWithin: the hot loop of every query, kept free
    // of calls and of fields written per byte.
    let position = 0;
    let previous = -1;
    for (let index = 0; index < length; index++) {
      let byte = bytes[position++]!;
      let value = byte & 0x7f;
      if (byte & 0x80) {
        byte = bytes[position++]!;
        value |= (byte & 0x7f) << 7;
        if (byte & 0x80) {
          byte = bytes[position++]!;
          value |= (byte & 0x7f) << 14;
          if (byte & 0x80) {
            byte = bytes[position++]!;
            value |= (byte & 0x7f) << 21;
            // Ids stay below 2^32: the fifth byte's shift in floating point (bit 31 would make it negative).
            if (byte & 0x80) value += (bytes[position++]! & 0x7f) * 2 ** 28;
          }
        }
      }
      previous = previous + 1 + value;
      out[index] = previous;
    }
    if (position !== bytes.length) throw new PostingsCorrupt(`posting list of trigram ${key.toString(16)} has the wrong length`);
    return out;
  }

  /**
   * The ids of `within` (sorted) that also hold `key`: `intersect(within, list(key))`, decoded as
   * it is merged (no array of the whole list) and only as far as `within`'s last id.
   */
  listWithin(key: number, within: Uint32Array): Uint32Array {
    const slot = this.slot(key);
    if (slot < 0 || within.length === 0) return new Uint32Array(0);
    const area = within.length <= scanPostingIds ? scanPostingArea() : undefined;
    if (area && this.table.lengths[slot]! <= area.length) {
      const decoded = scanPostingWithin(this.bytesOf(slot, key, area), this.table.counts[slot]!, within);
      if (decoded) {
        if (decoded.read >= 0 && decoded.read !== this.table.lengths[slot])
          throw new PostingsCorrupt(`posting list of trigram ${key.toString(16)} has the wrong length`);
        return decoded.ids;
      }
    }
    const bytes = this.bytesOf(slot, key);
    const count = this.table.counts[slot]!;
    const out = new Uint32Array(Math.min(within.length, count));
    const last = within.length - 1;
    let n = 0;
    let i = 0;
    let x = within[0]!;
    let position = 0;
    let previous = -1;
    for (let index = 0; index < count; index++) {
      let byte = bytes[position++]!;
      let value = byte & 0x7f;
      if (byte & 0x80) {
        byte = bytes[position++]!;
        value |= (byte & 0x7f) << 7;
        if (byte & 0x80) {
          byte = bytes[position++]!;
          value |= (byte & 0x7f) << 14;
          if (byte & 0x80) {
            byte = bytes[position++]!;
            value |= (byte & 0x7f) << 21;
            if (byte & 0x80) value += (bytes[position++]! & 0x7f) * 2 ** 28;
          }
        }
      }
      previous = previous + 1 + value;
      if (x > previous) continue;
      while (x < previous) {
        if (i === last) return out.subarray(0, n);
        x = within[++i]!;
      }
      if (x === previous) {
        out[n++] = x;
        if (i === last) return out.subarray(0, n);
        x = within[++i]!;
      }
    }
    if (position !== bytes.length) throw new PostingsCorrupt(`posting list of trigram ${key.toString(16)} has the wrong length`);
    return out.subarray(0, n);
  }

  /** Bytes of the in-memory table. */
  get tableBytes(): number {
    const { keys, counts, offsets, lengths, crcs } = this.table;
    return keys.byteLength + counts.byteLength + offsets.byteLength + lengths.byteLength + crcs.byteLength;
  }
}

/** Intersection of two sorted id lists (galloping through the longer when they differ a lot). */
export function intersect(a: Uint32Array, b: Uint32Array): Uint32Array {
  if (a.length > b.length) [a, b] = [b, a];
  const out = new Uint32Array(a.length);
  let n = 0;
  if (a.length * 16 < b.length) {
    let low = 0;
    for (let i = 0; i < a.length && low < b.length; i++) {
      const x = a[i]!;
      // Gallop to a window that holds x, then binary search it.
      let step = 1;
      let high = low;
      while (high < b.length && b[high]! < x) {
        low = high + 1;
        high += step;
        step *= 2;
      }
      high = Math.min(high, b.length - 1);
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (b[middle]! < x) low = middle + 1;
        else high = middle;
      }
      if (b[low] === x) out[n++] = x;
    }
    return out.subarray(0, n);
  }
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) {
      out[n++] = x;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return out.subarray(0, n);
}

/** Union of two sorted id lists. */
export function union(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length || j < b.length) {
    const x = i < a.length ? a[i]! : Infinity;
    const y = j < b.length ? b[j]! : Infinity;
    if (x === y) {
      out[n++] = x;
      i++;
      j++;
    } else if (x < y) {
      out[n++] = x;
      i++;
    } else {
      out[n++] = y;
      j++;
    }
  }
  return out.subarray(0, n);
}
