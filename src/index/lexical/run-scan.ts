// The SIMD scans (run-scan.wat, WebAssembly): runs of class bytes, the line filter of regexes
// with no usable literal (matcher.ts `runLineStarts`), 64 bytes a step where the JavaScript loop
// looks at one (or skips ahead); the lines holding a plain literal (matcher.ts `matchPlain`),
// 16 places a step, with their line numbers and whole-word checks; and newlines counted for line
// numbers, 16 bytes a step. The module reads only its own memory, so the content windows that
// workers read candidate ranges into are allocated there (`scanBuffer`); bytes elsewhere (a file
// read from disk, a buffer's text) and a runtime without WebAssembly SIMD get the JavaScript loops.
// Owns the module's instance and memory (one per thread).
import type { ByteRun } from './regex-plan.js';
import { runScanModule } from './run-scan-module.js';

/** The class tables at the start of memory (see run-scan.wat); buffers start after them. */
const tablesBytes = 64;
/** findRun reads up to 63 bytes past the end of what it scans. */
const slack = 64;
/** One region per content store (base and delta), each as large as the largest content window. */
const regions = 2;
export const scanRegionBytes = 8 << 20;
/** Line starts handed back per call, at most (then the scan goes on where it stopped). */
const outCapacity = 16384;
const outOffset = tablesBytes + regions * (scanRegionBytes + slack);
/** The needle of `plainLines`, after the out area: the longest it takes, and its place. */
export const scanNeedleBytes = 256;
const needleOffset = outOffset + 4 * outCapacity;

/** The part of the WebAssembly API used here (this project's TypeScript libraries do not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
const wasm = (globalThis as unknown as { WebAssembly: { Module: new (bytes: Uint8Array) => object; Instance: new (module: object, imports: object) => { exports: unknown } } }).WebAssembly;

interface Scanner {
  memory: WasmMemory;
  lineStarts: (start: number, end: number, length: number, out: number, capacity: number) => number;
  countNewlines: (start: number, end: number) => number;
  plainLines: (start: number, end: number, needle: number, length: number, word: number, out: number, capacity: number) => number;
  out: Int32Array;
  /** Where lineStarts or plainLines stopped (an i32 at 48). */
  stopped: Int32Array;
  /** Whether plainLines gave up (an i32 at 52). */
  gaveUp: Int32Array;
  /** The run whose class is in the tables now. */
  loaded: ByteRun | undefined;
  /** The needle in its place now. */
  needle: Uint8Array | undefined;
}

let scanner: Scanner | null | undefined;

/** The thread's scanner, made on first use; null without WebAssembly SIMD. */
function instance(): Scanner | null {
  if (scanner !== undefined) return scanner;
  try {
    const module = new wasm.Module(Buffer.from(runScanModule, 'base64'));
    const exports = new wasm.Instance(module, {}).exports as { memory: WasmMemory; lineStarts: Scanner['lineStarts']; countNewlines: Scanner['countNewlines']; plainLines: Scanner['plainLines'] };
    // Grown once: growing later would detach the buffers handed out. plainLines reads up to 15
    // bytes past what it scans: the needle's place (and 16 bytes more) follows the last region.
    const bytes = needleOffset + scanNeedleBytes + 16;
    exports.memory.grow(Math.ceil(bytes / 65536) - exports.memory.buffer.byteLength / 65536);
    new Uint8Array(exports.memory.buffer, 32, 8).set([1, 2, 4, 8, 16, 32, 64, 128]);
    scanner = {
      memory: exports.memory,
      lineStarts: exports.lineStarts,
      countNewlines: exports.countNewlines,
      plainLines: exports.plainLines,
      out: new Int32Array(exports.memory.buffer, outOffset, outCapacity),
      stopped: new Int32Array(exports.memory.buffer, 48, 1),
      gaveUp: new Int32Array(exports.memory.buffer, 52, 1),
      loaded: undefined,
      needle: undefined,
    };
  } catch {
    scanner = null;
  }
  return scanner;
}

/**
 * The buffer of `size` bytes (at most `scanRegionBytes`) for content store `region` (0 or 1) in
 * the scanner's memory, so that runs in it are found by SIMD: the same bytes each time for a
 * region. Undefined without a scanner or when too large.
 */
export function scanBuffer(region: number, size: number): Buffer | undefined {
  const found = instance();
  if (!found || size > scanRegionBytes || region < 0 || region >= regions) return undefined;
  return Buffer.from(found.memory.buffer, tablesBytes + region * (scanRegionBytes + slack), size);
}

function load(found: Scanner, run: ByteRun): void {
  if (found.loaded === run) return;
  const tables = new Uint8Array(found.memory.buffer, 0, 32).fill(0);
  for (let byte = 0; byte < 256; byte++) {
    if (run.bytes[byte] !== 1) continue;
    const high = byte >> 4;
    tables[(byte < 0x80 ? 0 : 16) + (byte & 15)]! |= 1 << (high & 7);
  }
  found.loaded = run;
}

/**
 * The number of '\n' bytes in [start, end) of `bytes`, by SIMD (16 bytes a step); undefined
 * unless `bytes` lie in the scanner's memory.
 */
export function scanCountNewlines(bytes: Buffer, start: number, end: number): number | undefined {
  if (!scanner || bytes.buffer !== scanner.memory.buffer) return undefined;
  return end > start ? scanner.countNewlines(bytes.byteOffset + start, bytes.byteOffset + end) : 0;
}

/**
 * The starts of lines holding `run.length` consecutive class bytes, as matcher.ts'
 * `runLineStarts` finds them; undefined unless `bytes` lie in the scanner's memory.
 */
export function scanRunLineStarts(bytes: Buffer, run: ByteRun): number[] | undefined {
  if (!scanner || bytes.buffer !== scanner.memory.buffer || run.length < 1) return undefined;
  load(scanner, run);
  const base = bytes.byteOffset;
  const end = base + bytes.length;
  const starts: number[] = [];
  const { out } = scanner;
  for (let from = base; from < end; ) {
    const count = scanner.lineStarts(from, end, run.length, outOffset, outCapacity);
    for (let index = 0; index < count; index++) starts.push(out[index]! - base);
    if (count < outCapacity) break;
    from = scanner.stopped[0]!;
  }
  return starts;
}

/** What `plainLines` says of an occurrence: a neighbour is not ASCII (the regex decides). */
export const plainUndecided = -1;
/** Added to an occurrence's offset when a byte before it on its line is not ASCII. */
export const plainWideFlag = 0x40000000;

/**
 * Each line of `bytes` holding `needle` (at most `scanNeedleBytes` long), once, in order, by SIMD:
 * `each(lineStart, lineEnd, at, newlines)` gets the line's start and end (its '\n' or the end)
 * as offsets into `bytes`, the occurrence (with `word`, the first whole-word one when its
 * neighbours are ASCII; `plainUndecided` when one is not; plus `plainWideFlag` when the line
 * holds a byte that is not ASCII before it), and the newlines before the line's start. Lines
 * without a whole-word occurrence are not given. Answers how far it went: `bytes.length`, or less
 * when the text made it give up (most places candidates that fail: see run-scan.wat), and the
 * caller goes on from there (no occurrence on that line starts before it; the lines before it
 * were given). Undefined (and nothing given) unless `bytes` lie in the scanner's memory.
 */
export function scanPlainLines(bytes: Buffer, needle: Uint8Array, word: boolean, each: (lineStart: number, lineEnd: number, at: number, newlines: number) => void): number | undefined {
  if (!scanner || bytes.buffer !== scanner.memory.buffer || needle.length < 1 || needle.length > scanNeedleBytes) return undefined;
  if (scanner.needle !== needle) {
    new Uint8Array(scanner.memory.buffer, needleOffset, needle.length).set(needle);
    scanner.needle = needle;
  }
  const base = bytes.byteOffset;
  const end = base + bytes.length;
  const { out } = scanner;
  // Four i32s a line: exactly the out area (the needle's place follows it).
  const capacity = outCapacity >> 2;
  let newlines = 0;
  for (let from = base; from < end; ) {
    const count = scanner.plainLines(from, end, needleOffset, needle.length, word ? 1 : 0, outOffset, capacity);
    for (let index = 0; index < count; index++) {
      const at = out[index * 4 + 2]!;
      each(out[index * 4]! - base, out[index * 4 + 1]! - base, at < 0 ? at : at - base, newlines + out[index * 4 + 3]!);
    }
    if (scanner.gaveUp[0] === 1) return scanner.stopped[0]! - base;
    if (count < capacity) break;
    // On from the line after the last one given: its newline counted too.
    newlines += out[(count - 1) * 4 + 3]! + 1;
    from = scanner.stopped[0]!;
  }
  return bytes.length;
}
