// The SIMD scans (run-scan.wat, WebAssembly): runs of class bytes, the line filter of regexes
// with no usable literal (matcher.ts `runLineStarts`), 64 bytes a step where the JavaScript loop
// looks at one (or skips ahead); the lines holding a plain literal (matcher.ts `matchPlain`),
// 32 places a step by its two rarest bytes, with their line numbers and whole-word checks, copied
// straight into the batch being filled when it lives in the module's memory too (`scanLinesArea`,
// match-batch.ts); and newlines counted for line numbers, 16 bytes a step. The module reads only its own memory, so the content windows that
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
/** The needle of `plainScan`, after the out area: the longest it takes, and its place. */
export const scanNeedleBytes = 256;
const needleOffset = outOffset + 4 * outCapacity;
/** plainScan's state (see run-scan.wat), after the needle (which it reads up to 15 bytes past). */
const stateOffset = needleOffset + scanNeedleBytes + 16;
const stateSlots = 24;
/** literalLines' state (see run-scan.wat) and its needles, each in a place of its own. */
const literalStateOffset = Math.ceil((stateOffset + 4 * stateSlots) / 16) * 16;
const literalStateBytes = 176 + 80 * 4;
/** Needles literalLines takes at most, and how much longer than the shortest one may be. */
export const scanLiteralsMax = 8;
const literalSpread = 32;
/** Pairs of rare bytes (probes) it compares a step at most. */
const literalProbes = 4;
const literalNeedlesOffset = literalStateOffset + literalStateBytes;
const literalNeedleBytes = scanNeedleBytes + 16;
/** The batch area plainScan writes lines into (match-batch.ts): their bytes, then two i32s a line. */
export const scanBatchBytes = 512 * 1024;
export const scanBatchLines = 8192;
const batchOffset = literalNeedlesOffset + scanLiteralsMax * literalNeedleBytes;
/**
 * Posting lists decoded here (postings.ts): a list's bytes (read into this area), the candidates
 * it narrows, and the ids out. A corrupt list reads at most 5 bytes an id: still in memory.
 */
export const scanPostingBytes = 4 << 20;
export const scanPostingIds = 1 << 20;
const postingBytesOffset = batchOffset + scanBatchBytes + 8 * scanBatchLines;
const postingWithinOffset = postingBytesOffset + scanPostingBytes;
const postingOutOffset = postingWithinOffset + 4 * scanPostingIds;
const memoryBytes = postingOutOffset + 4 * scanPostingIds;

/** The part of the WebAssembly API used here (this project's TypeScript libraries do not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
const wasm = (
  globalThis as unknown as {
    WebAssembly: { Module: new (bytes: Uint8Array) => object; Instance: new (module: object, imports: object) => { exports: unknown } };
  }
).WebAssembly;

interface Scanner {
  memory: WasmMemory;
  /** The memory's buffer (the memory never grows once made: asking it each time costs a call). */
  buffer: ArrayBuffer;
  lineStarts: (start: number, end: number, length: number, out: number, capacity: number) => number;
  countNewlines: (start: number, end: number) => number;
  plainScan: (start: number, end: number, state: number) => number;
  literalLines: (start: number, end: number, state: number) => number;
  postingList: (bytes: number, count: number, out: number) => number;
  postingWithin: (bytes: number, count: number, within: number, length: number, out: number) => number;
  out: Int32Array;
  /** Where lineStarts stopped (an i32 at 48). */
  stopped: Int32Array;
  /** plainScan's state. */
  state: Int32Array;
  /** literalLines' state, and the needles in their places now. */
  literalState: Int32Array;
  literals: Uint8Array[] | undefined;
  literalsFolded: boolean;
  /** Whether they have few enough probes to be scanned. */
  literalsScanned: boolean;
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
    const exports = new wasm.Instance(module, {}).exports as {
      memory: WasmMemory;
      lineStarts: Scanner['lineStarts'];
      countNewlines: Scanner['countNewlines'];
      plainScan: Scanner['plainScan'];
      literalLines: Scanner['literalLines'];
      postingList: Scanner['postingList'];
      postingWithin: Scanner['postingWithin'];
    };
    // Grown once: growing later would detach the buffers handed out.
    exports.memory.grow(Math.ceil(memoryBytes / 65536) - exports.memory.buffer.byteLength / 65536);
    new Uint8Array(exports.memory.buffer, 32, 8).set([1, 2, 4, 8, 16, 32, 64, 128]);
    scanner = {
      memory: exports.memory,
      buffer: exports.memory.buffer,
      lineStarts: exports.lineStarts,
      countNewlines: exports.countNewlines,
      plainScan: exports.plainScan,
      literalLines: exports.literalLines,
      postingList: exports.postingList,
      postingWithin: exports.postingWithin,
      out: new Int32Array(exports.memory.buffer, outOffset, outCapacity),
      stopped: new Int32Array(exports.memory.buffer, 48, 1),
      state: new Int32Array(exports.memory.buffer, stateOffset, stateSlots),
      literalState: new Int32Array(exports.memory.buffer, literalStateOffset, literalStateBytes / 4),
      literals: undefined,
      literalsFolded: false,
      literalsScanned: false,
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
  return Buffer.from(found.buffer, tablesBytes + region * (scanRegionBytes + slack), size);
}

function load(found: Scanner, run: ByteRun): void {
  if (found.loaded === run) return;
  const tables = new Uint8Array(found.buffer, 0, 32).fill(0);
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
  if (!scanner || bytes.buffer !== scanner.buffer) return undefined;
  return end > start ? scanner.countNewlines(bytes.byteOffset + start, bytes.byteOffset + end) : 0;
}

/**
 * The starts of lines holding `run.length` consecutive class bytes, as matcher.ts'
 * `runLineStarts` finds them; undefined unless `bytes` lie in the scanner's memory.
 */
export function scanRunLineStarts(bytes: Buffer, run: ByteRun): number[] | undefined {
  if (!scanner || bytes.buffer !== scanner.buffer || run.length < 1) return undefined;
  load(scanner, run);
  const base = bytes.byteOffset;
  const end = base + bytes.length;
  const starts: number[] = [];
  const { out } = scanner;
  for (let from = base; from < end;) {
    const count = scanner.lineStarts(from, end, run.length, outOffset, outCapacity);
    for (let index = 0; index < count; index++) starts.push(out[index]! - base);
    if (count < outCapacity) break;
    from = scanner.stopped[0]!;
  }
  return starts;
}

/** A line handed over by `scanPlain` whose occurrence's neighbour is not ASCII: the regex decides. */
export const plainUndecided = -1;
/** Added to an occurrence's offset when a byte before it on its line is not ASCII. */
export const plainWideFlag = 0x40000000;

/** Why `scanPlain` stopped: the end of the bytes, ... */
export const plainDone = 0;
/** ... a line for the caller (`lineStart` ...), ... */
export const plainLine = 2;
/** ... the text defeats the scan (go on from `next` by another search), ... */
export const plainGaveUp = 3;
/** ... enough lines kept, and lines past them are not counted. */
export const plainKept = 4;

/**
 * Where `scanPlain` writes the lines it keeps: a batch's area in the scanner's memory (see
 * `scanLinesArea`), each line's bytes followed by '\n' from `bytes[used]`, its number and column
 * from `numbers[2 * lines]`; the scan moves `used` and `lines` on.
 */
export interface ScanLines {
  readonly bytes: Buffer;
  readonly numbers: Int32Array;
  used: number;
  lines: number;
}

/** The thread's batch area in the scanner's memory; undefined without a scanner. */
export function scanLinesArea(): { bytes: Buffer; numbers: Int32Array } | undefined {
  const found = instance();
  if (!found) return undefined;
  return {
    bytes: Buffer.from(found.buffer, batchOffset, scanBatchBytes),
    numbers: new Int32Array(found.buffer, batchOffset + scanBatchBytes, 2 * scanBatchLines),
  };
}

/** Where a plain scan stopped (one object per thread, overwritten by the next scan). */
export interface PlainStop {
  reason: number;
  /** Where to go on from (an offset into the bytes) and the number of its line. */
  next: number;
  line: number;
  /**
   * `plainLine`: the line's start and end (its '\n' or the end) as offsets into the bytes, the
   * occurrence (the offset, plus `plainWideFlag` when a byte before it on the line is not ASCII;
   * or `plainUndecided`) and the line's number.
   */
  lineStart: number;
  lineEnd: number;
  at: number;
  lineNumber: number;
  /** Lines counted by the scan itself (those it wrote and those past `keep`). */
  counted: number;
  /** Lines it wrote into the area. */
  written: number;
}

const stop: PlainStop = { reason: 0, next: 0, line: 0, lineStart: 0, lineEnd: 0, at: 0, lineNumber: 0, counted: 0, written: 0 };

/**
 * Bytes by how often they occur in source code (measured over C, Python and TypeScript trees),
 * the most common first; a byte not listed is rarer than all of them.
 */
const commonBytes = ' etri_nsaoc\tdlupfm0)(,g*h;EvbTRS=xIA.yCND/OPk-L1M>w2F{}":GUB3&H4V#856qWX<9K\'|[]zj\\7Y!+%?@Q`JZ~$^';
const byteRank = new Uint8Array(256).fill(255);
for (let index = 0; index < commonBytes.length; index++) byteRank[commonBytes.charCodeAt(index)] = index;

/** The two places of the needle whose bytes are rarest (different bytes when it has two), in order. */
function rarePair(needle: Uint8Array): [number, number] {
  let first = 0;
  for (let index = 1; index < needle.length; index++) if (byteRank[needle[index]!]! > byteRank[needle[first]!]!) first = index;
  let second = -1;
  for (let index = 0; index < needle.length; index++) {
    if (index === first) continue;
    const better =
      second < 0 || (needle[index] !== needle[first] && (needle[second] === needle[first] || byteRank[needle[index]!]! > byteRank[needle[second]!]!));
    if (better) second = index;
  }
  if (second < 0) return [first, first];
  return first < second ? [first, second] : [second, first];
}

/**
 * Scans `bytes` (in the scanner's memory) from `from`, a line's start whose number is `line`, for
 * the lines holding `needle` (1 to `scanNeedleBytes` bytes, no '\n'), each once, in order, by
 * SIMD; with `word`, the first whole-word occurrence on a line when its neighbours are ASCII. A
 * line whose occurrence is decided and has only ASCII before it is written into `into` while
 * `keep` lasts, and counted; past `keep` it is counted when `countAll`, else the scan stops. Any
 * other line, one to keep that `into` has no room for, and every line without `into`, is handed
 * over (`plainLine`), and not counted. Call
 * again from `next` until `plainDone`. Undefined unless `bytes` lie in the scanner's memory (or
 * the needle is empty or too long).
 */
export function scanPlain(
  bytes: Buffer,
  from: number,
  line: number,
  needle: Uint8Array,
  word: boolean,
  into: ScanLines | undefined,
  keep: number,
  countAll: boolean,
): PlainStop | undefined {
  if (!scanner || bytes.buffer !== scanner.buffer || needle.length < 1 || needle.length > scanNeedleBytes) return undefined;
  const { state } = scanner;
  if (scanner.needle !== needle) {
    new Uint8Array(scanner.buffer, needleOffset, needle.length).set(needle);
    scanner.needle = needle;
    const [first, second] = rarePair(needle);
    state[2] = first;
    state[3] = second;
  }
  const base = bytes.byteOffset;
  state[0] = needleOffset;
  state[1] = needle.length;
  state[4] = word ? 1 : 0;
  state[5] = into ? 0 : 1;
  state[6] = countAll ? 1 : 0;
  if (into) {
    state[7] = into.bytes.byteOffset + into.used;
    state[8] = into.bytes.byteOffset + into.bytes.length;
    state[9] = into.numbers.byteOffset + 8 * into.lines;
    state[10] = into.numbers.byteOffset + into.numbers.byteLength;
  } else state[7] = state[8] = state[9] = state[10] = 0;
  state[11] = Math.max(0, Math.min(keep, 0x7fffffff));
  state[12] = 0;
  state[13] = line;
  state[14] = 0;
  // Failed candidates count over a whole text (from its first byte).
  if (from === 0) state[19] = 0;
  state[20] = base;
  const next = scanner.plainScan(base + from, base + bytes.length, stateOffset);
  stop.reason = state[14]!;
  stop.next = next - base;
  stop.line = state[13]!;
  stop.counted = state[12]!;
  stop.written = 0;
  if (into) {
    stop.written = (state[9]! - into.numbers.byteOffset) / 8 - into.lines;
    into.used = state[7]! - into.bytes.byteOffset;
    into.lines += stop.written;
  }
  if (stop.reason === plainLine) {
    stop.lineStart = state[15]! - base;
    stop.lineEnd = state[16]! - base;
    const at = state[17]!;
    stop.at = at < 0 ? at : at >= plainWideFlag ? at - plainWideFlag - base + plainWideFlag : at - base;
    stop.lineNumber = state[18]!;
  }
  return stop;
}

/**
 * The starts of the lines of `bytes` (in the scanner's memory) holding one of `needles` (ASCII-
 * folded text when `fold`: the needles are folded already), each once, in order, as matcher.ts'
 * `literalLineStarts` finds them, by SIMD. Undefined when the bytes are elsewhere, the needles are
 * more than `scanLiteralsMax`, empty, longer than `scanNeedleBytes` or of lengths too far apart,
 * or the text defeats the scan (most places candidates that fail): the caller searches instead.
 */
export function scanLiteralLineStarts(bytes: Buffer, needles: Uint8Array[], fold: boolean): number[] | undefined {
  if (!scanner || bytes.buffer !== scanner.buffer || needles.length < 1 || needles.length > scanLiteralsMax) return undefined;
  let shortest = scanNeedleBytes;
  let longest = 0;
  for (const needle of needles) {
    shortest = Math.min(shortest, needle.length);
    longest = Math.max(longest, needle.length);
  }
  if (shortest < 1 || longest > scanNeedleBytes || longest - shortest > literalSpread) return undefined;
  const state = scanner.literalState;
  if (scanner.literals !== needles || scanner.literalsFolded !== fold) {
    // A probe per distinct pair of rarest bytes (place and byte); more than the scan holds: no scan.
    const probes: [number, number, number, number][] = [];
    for (const needle of needles) {
      const [first, second] = rarePair(needle);
      const probe: [number, number, number, number] = [first, second, needle[first]!, needle[second]!];
      if (!probes.some((known) => known.every((value, index) => value === probe[index]))) probes.push(probe);
    }
    scanner.literals = needles;
    scanner.literalsFolded = fold;
    scanner.literalsScanned = probes.length <= literalProbes;
    if (!scanner.literalsScanned) return undefined;
    const memory = new Uint8Array(scanner.buffer);
    needles.forEach((needle, index) => {
      const at = literalNeedlesOffset + index * literalNeedleBytes;
      memory.set(needle, at);
      state.set([at, needle.length], 12 + 4 * index);
    });
    // Unused probes repeat the first (their masks add nothing; the count skips them anyway).
    for (let index = 0; index < literalProbes; index++) {
      const [first, second, one, other] = probes[index] ?? probes[0]!;
      const at = literalStateOffset + 176 + 80 * index;
      state[(176 + 80 * index) / 4] = first;
      state[(180 + 80 * index) / 4] = second;
      // Folding: a letter's byte ORed with 0x20 is its lower case (the needle is folded already).
      const letter = (byte: number): boolean => byte >= 0x61 && byte <= 0x7a;
      memory.fill(one, at + 16, at + 32);
      memory.fill(other, at + 32, at + 48);
      memory.fill(fold && letter(one) ? 0x20 : 0, at + 48, at + 64);
      memory.fill(fold && letter(other) ? 0x20 : 0, at + 64, at + 80);
    }
    state[9] = probes.length;
  }
  if (!scanner.literalsScanned) return undefined;
  const base = bytes.byteOffset;
  const end = base + bytes.length;
  state[0] = needles.length;
  state[1] = fold ? 1 : 0;
  state[2] = outOffset;
  state[3] = outCapacity;
  state[5] = 0;
  state[6] = base;
  state[7] = shortest;
  const { out } = scanner;
  const starts: number[] = [];
  for (let from = base; from < end;) {
    const count = scanner.literalLines(from, end, literalStateOffset);
    if (state[8] === 1) return undefined;
    for (let index = 0; index < count; index++) starts.push(out[index]! - base);
    if (count < outCapacity) break;
    from = state[4]!;
  }
  return starts;
}

/** Where a posting list's bytes go to be decoded by `scanPostingList` or `scanPostingWithin`; undefined without a scanner. */
export function scanPostingArea(): Buffer | undefined {
  const found = instance();
  return found ? Buffer.from(found.buffer, postingBytesOffset, scanPostingBytes) : undefined;
}

/**
 * The `count` ids of the posting list whose bytes are `bytes` (in the posting area, at its start),
 * decoded here (a copy), and how many bytes that read (the caller checks it against the list's
 * length). Undefined when they are not there or are too many.
 */
export function scanPostingList(bytes: Uint8Array, count: number): { ids: Uint32Array; read: number } | undefined {
  if (!scanner || bytes.buffer !== scanner.buffer || bytes.byteOffset !== postingBytesOffset || count > scanPostingIds) return undefined;
  const end = scanner.postingList(postingBytesOffset, count, postingOutOffset);
  return { ids: new Uint32Array(scanner.buffer, postingOutOffset, count).slice(), read: end - postingBytesOffset };
}

/**
 * The ids of `within` (sorted, not empty) that the posting list of `count` ids whose bytes are
 * `bytes` holds (a copy), merged here as the list is decoded, and how many bytes that read (-1
 * when `within` ran out first: the rest is not read). Undefined when not possible here.
 */
export function scanPostingWithin(bytes: Uint8Array, count: number, within: Uint32Array): { ids: Uint32Array; read: number } | undefined {
  if (!scanner || bytes.buffer !== scanner.buffer || bytes.byteOffset !== postingBytesOffset || within.length < 1 || within.length > scanPostingIds)
    return undefined;
  new Uint32Array(scanner.buffer, postingWithinOffset, within.length).set(within);
  const found = scanner.postingWithin(postingBytesOffset, count, postingWithinOffset, within.length, postingOutOffset);
  const end = scanner.stopped[0]!;
  return { ids: new Uint32Array(scanner.buffer, postingOutOffset, found).slice(), read: end === 0 ? -1 : end - postingBytesOffset };
}
