// The first look for secrets in a file's bytes (secret-content.ts): the places where one of a
// few dozen three-byte fingerprints may begin, found in one pass by SIMD (secret-prefilter.wat,
// WebAssembly; Hyperscan's Teddy idea: fingerprints in eight buckets, two table lookups a byte
// position whatever their number). A place it names may hold none: the caller checks each one.
// Where WebAssembly SIMD is missing, each fingerprint is searched with Buffer.indexOf instead
// (the same places, slower). One instance per thread (the hash workers and the main thread);
// bytes read into `area` are scanned where they lie, others are copied there first, a window of
// at most `windowBytes` at a time (so the memory stays that small whatever the files' size).
import { secretPrefilterModule } from './secret-prefilter-module.js';

export interface Fingerprint {
  /** Three bytes (latin1). */
  text: string;
  /** 0..7: fingerprints that share most of their bytes share a bucket (fewer false places). */
  bucket: number;
}

/** The six nibble tables at the start of memory (see secret-prefilter.wat); content starts after them. */
const contentOffset = 128;
/** scan reads up to 50 bytes past the end of what it scans. */
const slack = 64;
const pageBytes = 65536;
/** The most bytes scanned in memory at once (and the largest `area`). */
export const windowBytes = 4 << 20;
/** Fingerprints are three bytes: windows overlap by two. */
const overlap = 2;

interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
const wasm = (
  globalThis as unknown as {
    WebAssembly: { Module: new (bytes: Uint8Array) => object; Instance: new (module: object, imports: object) => { exports: unknown } };
  }
).WebAssembly;

export class Prefilter {
  private readonly fingerprints: readonly Fingerprint[];
  private memory: WasmMemory | undefined;
  private scan: ((start: number, end: number) => number) | undefined;
  /** The content area: a view of the memory, made again when the memory grows. */
  private content: Buffer;

  /** `simd: false` searches with Buffer.indexOf, as where WebAssembly SIMD is missing (for tests). */
  constructor(fingerprints: readonly Fingerprint[], options: { simd?: boolean } = {}) {
    this.fingerprints = fingerprints;
    try {
      if (options.simd === false) throw new Error('SIMD not wanted');
      const module = new wasm.Module(Buffer.from(secretPrefilterModule, 'base64'));
      const exports = new wasm.Instance(module, {}).exports as { memory: WasmMemory; scan: (start: number, end: number) => number };
      this.memory = exports.memory;
      this.scan = exports.scan;
      const tables = new Uint8Array(exports.memory.buffer, 0, 96);
      for (const { text, bucket } of fingerprints) {
        for (let index = 0; index < 3; index++) {
          const byte = text.charCodeAt(index);
          tables[32 * index + (byte & 15)]! |= 1 << bucket;
          tables[32 * index + 16 + (byte >> 4)]! |= 1 << bucket;
        }
      }
      this.content = Buffer.from(exports.memory.buffer, contentOffset, exports.memory.buffer.byteLength - contentOffset - slack);
    } catch {
      this.memory = undefined;
      this.scan = undefined;
      this.content = Buffer.allocUnsafe(0);
    }
  }

  /** Whether places are found by SIMD (false: by Buffer.indexOf). */
  get simd(): boolean {
    return this.scan !== undefined;
  }

  /**
   * A buffer of `size` bytes where `visit` scans without a copy: the same memory each time,
   * valid until the next call (a larger size may move it). Without SIMD, a fresh buffer.
   */
  area(size: number): Buffer {
    if (!this.memory || size > windowBytes + overlap) return Buffer.allocUnsafe(size);
    if (this.content.length < size) {
      const needed = contentOffset + size + slack;
      this.memory.grow(Math.ceil((needed - this.memory.buffer.byteLength) / pageBytes));
      this.content = Buffer.from(this.memory.buffer, contentOffset, this.memory.buffer.byteLength - contentOffset - slack);
    }
    return this.content.subarray(0, size);
  }

  /**
   * Calls `visit` with each place in `bytes` where a fingerprint may begin, in increasing order,
   * until it answers true; answers whether one did. Places past `bytes.length - 3` may be named.
   */
  visit(bytes: Uint8Array, visit: (at: number) => boolean): boolean {
    const scan = this.scan;
    if (!scan || !this.memory) return this.visitByIndexOf(bytes, visit);
    if (bytes.buffer === this.memory.buffer && bytes.byteOffset >= contentOffset && bytes.byteOffset + bytes.length <= this.memory.buffer.byteLength - slack) {
      const start = bytes.byteOffset;
      const end = start + bytes.length;
      for (let at = scan(start, end); at >= 0; at = scan(at + 1, end)) if (visit(at - start)) return true;
      return false;
    }
    // Window by window; a place in the overlap is named by the window it begins the next one.
    for (let from = 0; from < bytes.length; from += windowBytes) {
      const window = bytes.subarray(from, Math.min(bytes.length, from + windowBytes + overlap));
      const area = this.area(window.length);
      area.set(window);
      const start = area.byteOffset;
      const end = start + Math.min(window.length, windowBytes);
      for (let at = scan(start, end); at >= 0; at = scan(at + 1, end)) if (visit(from + at - start)) return true;
    }
    return false;
  }

  private visitByIndexOf(bytes: Uint8Array, visit: (at: number) => boolean): boolean {
    const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
    const places = new Set<number>();
    for (const { text } of this.fingerprints) {
      for (let at = buffer.indexOf(text, 0, 'latin1'); at >= 0; at = buffer.indexOf(text, at + 1, 'latin1')) places.add(at);
    }
    for (const at of [...places].sort((a, b) => a - b)) if (visit(at)) return true;
    return false;
  }
}
