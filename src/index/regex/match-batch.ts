// The form in which grep workers send matching lines back: a batch packs every line number and
// column into one typed array and every line's UTF-8 bytes, each followed by '\n', into one byte
// array, so a message costs a few copies (transferred, not cloned) instead of one cloned object
// per line, and a worker never decodes a line it does not test with the regex. The daemon keeps a
// batch as it came (`BatchLines`: a file's lines are a view into it) and decodes it only when an
// answer is read as objects, a piece at a time: UTF-8 decoding starts afresh at every ASCII byte,
// so decoding the lines joined by '\n' gives each line's own decoding. A batch's bytes are valid
// UTF-8 (a file's invalid sequences are replaced by U+FFFD when the batch is taken, as decoding
// would replace them), so they can be written out as they are. Lines that carry context lines, or
// that come from a text with a lone surrogate (no UTF-8 for it), travel as objects.
import { isUtf8 } from 'node:buffer';
import type { LineMatch } from './matcher.js';
import { scanBatchLines, scanBatchBytes, scanLinesArea, type ScanLines } from './run-scan.js';
import type { MatchSink } from './verify.js';

export interface MatchBatch {
  /**
   * Per file with matches sent as bytes: its index within the chunk, how many lines it sends, how
   * many match, and where its bytes end in `bytes` (they start where the file before's end).
   */
  files: Int32Array;
  /** Per line: line number and column. */
  numbers: Int32Array;
  /** The lines' UTF-8 bytes, each followed by '\n'. */
  bytes: Uint8Array;
  /** Files whose lines travel as objects. */
  withObjects: FileMatches[];
}

/** Values per file in `MatchBatch.files`. */
const fileSlots = 4;

/** A file's lines as kept by the daemon: objects, or a view into the batch that brought them. */
export type KeptLines = LineMatch[] | BatchLines;

/** A file's index within its chunk, the lines kept, and how many lines match in all. */
export type FileMatches = [number, KeptLines, number];

/**
 * A worker's batch being filled: a MatchSink (verify.ts). Its lines are written into one area, the
 * SIMD scanner's (run-scan.ts `scanLinesArea`: the scan of a plain literal writes lines there
 * itself, with no call per line) or, without a scanner or for a second writer in the thread, a
 * buffer of the same size; the area is moved aside when it fills, and the batch is copied out of
 * it when taken, so the area's pages stay the same from batch to batch (a fresh page costs a page
 * fault, ~15 µs on these VMs).
 */
export class MatchBatchWriter implements MatchSink {
  /** The area, when the scanner's (matcher.ts' plain scan writes into it). */
  readonly scanLines: ScanLines | undefined;
  private readonly area: ScanLines;
  /** Parts of the batch moved out of the area when it filled, and their sizes. */
  private spilledBytes: Buffer[] = [];
  private spilledNumbers: Int32Array[] = [];
  private bytesBefore = 0;
  private linesBefore = 0;
  private files: number[] = [];
  /** Lines in the batch as objects. */
  private objectLines = 0;
  /** Lines of the file being given, as bytes, and as objects. */
  private fileLines = 0;
  private fileObjects: LineMatch[] | undefined;
  private withObjects: FileMatches[] = [];

  constructor() {
    const scanned = claimScanArea();
    this.area = scanned
      ? { bytes: scanned.bytes, numbers: scanned.numbers, used: 0, lines: 0 }
      : { bytes: Buffer.allocUnsafeSlow(scanBatchBytes), numbers: new Int32Array(2 * scanBatchLines), used: 0, lines: 0 };
    this.scanLines = scanned ? this.area : undefined;
  }

  /** Lines in the batch. */
  get lines(): number {
    return this.linesBefore + this.area.lines + this.objectLines;
  }

  /** Whether the batch holds no file. */
  get empty(): boolean {
    return this.files.length === 0 && this.withObjects.length === 0;
  }

  get kept(): number {
    return this.fileLines + (this.fileObjects?.length ?? 0);
  }

  add(line: number, column: number, bytes: Buffer, start: number, end: number): void {
    const length = end - start;
    const area = this.room(length + 1);
    if (!area) return this.addHuge(line, column, bytes.subarray(start, end));
    // A short line is copied faster by a loop than by a call into Buffer.copy.
    const to = area.bytes;
    let used = area.used;
    if (length <= 64) for (let at = start; at < end;) to[used++] = bytes[at++]!;
    else {
      to.set(bytes.subarray(start, end), used);
      used += length;
    }
    to[used++] = 10;
    area.used = used;
    this.number(line, column);
  }

  addText(line: number, column: number, text: string): void {
    const area = this.room(text.length * 3 + 1);
    if (!area) return this.addHuge(line, column, Buffer.from(text, 'utf8'));
    area.used += area.bytes.write(text, area.used, 'utf8');
    area.bytes[area.used++] = 10;
    this.number(line, column);
  }

  addMatches(lines: LineMatch[]): void {
    this.fileObjects ??= [];
    for (const line of lines) this.fileObjects.push(line);
    this.objectLines += lines.length;
  }

  /** Lines the plain scan wrote into the area itself (it moved `used` and `lines` on). */
  wrote(lines: number): void {
    this.fileLines += lines;
  }

  /** Moves the area's lines aside: it is empty again. */
  private spill(): void {
    const { area } = this;
    if (area.lines === 0 && area.used === 0) return;
    this.spilledBytes.push(Buffer.from(area.bytes.subarray(0, area.used)));
    this.spilledNumbers.push(area.numbers.slice(0, 2 * area.lines));
    this.bytesBefore += area.used;
    this.linesBefore += area.lines;
    area.used = 0;
    area.lines = 0;
  }

  endFile(index: number, count: number): void {
    // A file without a match is not sent (its lines as objects are then an empty list).
    if (count > 0 && this.fileObjects) this.withObjects.push([index, this.fileObjects, count]);
    else if (count > 0) this.files.push(index, this.fileLines, count, this.bytesBefore + this.area.used);
    this.fileObjects = undefined;
    this.fileLines = 0;
  }

  /** The batch so far, to transfer (its buffers are the batch's own); the writer starts a new one. */
  take(): { batch: MatchBatch; transfer: ArrayBuffer[] } {
    const { area } = this;
    const files = Int32Array.from(this.files);
    const lineCount = this.linesBefore + area.lines;
    let numbers = new Int32Array(0);
    let bytes: Uint8Array = new Uint8Array(0);
    if (lineCount > 0) {
      // Exact copies (an answer keeps its batches until it is written).
      numbers = new Int32Array(2 * lineCount);
      let at = 0;
      for (const part of this.spilledNumbers) {
        numbers.set(part, at);
        at += part.length;
      }
      numbers.set(area.numbers.subarray(0, 2 * area.lines), at);
      const joined = Buffer.allocUnsafeSlow(this.bytesBefore + area.used);
      let to = 0;
      for (const part of this.spilledBytes) to += part.copy(joined, to);
      area.bytes.copy(joined, to, 0, area.used);
      // Rare (a file that is not UTF-8): checked once for the batch, then mended file by file.
      bytes = isUtf8(joined) ? joined : mendUtf8(joined, files);
    }
    const batch: MatchBatch = { files, numbers, bytes, withObjects: this.withObjects };
    this.files = [];
    this.spilledBytes = [];
    this.spilledNumbers = [];
    this.bytesBefore = 0;
    this.linesBefore = 0;
    area.used = 0;
    area.lines = 0;
    this.objectLines = 0;
    this.withObjects = [];
    const transfer = [batch.files.buffer as ArrayBuffer];
    if (lineCount > 0) transfer.push(batch.numbers.buffer as ArrayBuffer, batch.bytes.buffer as ArrayBuffer);
    return { batch, transfer };
  }

  /** The area with room for `bytes` more bytes and a line, spilled first if needed; undefined when a line that long never fits. */
  private room(bytes: number): ScanLines | undefined {
    const { area } = this;
    if (area.used + bytes <= area.bytes.length && area.lines < scanBatchLines) return area;
    this.spill();
    return bytes <= area.bytes.length ? area : undefined;
  }

  /** A line longer than the area: a part of its own (the area is empty: `room` spilled it). */
  private addHuge(line: number, column: number, text: Buffer): void {
    const bytes = Buffer.allocUnsafeSlow(text.length + 1);
    text.copy(bytes);
    bytes[text.length] = 10;
    this.spilledBytes.push(bytes);
    this.spilledNumbers.push(Int32Array.of(line, column));
    this.bytesBefore += bytes.length;
    this.linesBefore += 1;
    this.fileLines += 1;
  }

  private number(line: number, column: number): void {
    const { area } = this;
    area.numbers[2 * area.lines] = line;
    area.numbers[2 * area.lines + 1] = column;
    area.lines += 1;
    this.fileLines += 1;
  }
}

/** Whether the thread's scanner area is taken (by its one writer: a worker has one). */
let scanAreaClaimed = false;

function claimScanArea(): { bytes: Buffer; numbers: Int32Array } | undefined {
  if (scanAreaClaimed) return undefined;
  const found = scanLinesArea();
  if (found) scanAreaClaimed = true;
  return found;
}

/**
 * A string this long or longer is allocated in V8's large-object space, where making one costs
 * 40 times as much per byte (measured on Node 20: 0.05-0.13 ns a byte below, 4-5 above): a
 * batch's bytes are decoded in pieces of at most this many bytes, cut after a '\n'.
 */
const pieceBytes = 64 * 1024;

/** Reads a batch's lines (each followed by '\n' in `bytes`) in order, a piece decoded at a time. */
class LineReader {
  private readonly buffer: Buffer;
  /** The next piece's first byte. */
  private next = 0;
  private piece = '';
  /** The next line's start in `piece`. */
  private at = 0;

  constructor(bytes: Uint8Array) {
    this.buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  }

  /** The next line's text (slices of the piece: no array of them is made). */
  read(): string {
    if (this.at >= this.piece.length) {
      const { buffer } = this;
      let end = buffer.length;
      if (end - this.next > pieceBytes) {
        const newline = buffer.lastIndexOf(10, this.next + pieceBytes - 1);
        // A line longer than a piece is a piece of its own.
        end = (newline >= this.next ? newline : buffer.indexOf(10, this.next + pieceBytes)) + 1;
      }
      this.piece = buffer.toString('utf8', this.next, end);
      this.next = end;
      this.at = 0;
    }
    const newline = this.piece.indexOf('\n', this.at);
    const text = this.piece.slice(this.at, newline);
    this.at = newline + 1;
    return text;
  }
}

/**
 * The batch's bytes with every file's invalid UTF-8 replaced as decoding replaces it (U+FFFD for
 * each maximal invalid subpart; never across a '\n'), and the files' byte ends moved to match.
 */
function mendUtf8(bytes: Uint8Array, files: Int32Array): Uint8Array {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const parts: Buffer[] = [];
  let start = 0;
  let end = 0;
  for (let slot = 0; slot < files.length; slot += fileSlots) {
    const part = buffer.subarray(start, files[slot + 3]!);
    start = files[slot + 3]!;
    parts.push(isUtf8(part) ? part : Buffer.from(part.toString('utf8'), 'utf8'));
    end += parts[parts.length - 1]!.length;
    files[slot + 3] = end;
  }
  // A buffer of its own (it is transferred; a small concat result could sit in Node's shared pool).
  const out = Buffer.allocUnsafeSlow(end);
  let at = 0;
  for (const part of parts) at += part.copy(out, at);
  return out;
}

/**
 * A file's matching lines as a worker sent them: `length` lines from line `first` of the batch's
 * numbers (line and column, two a line), their bytes in `bytes` from `byteStart` to `byteEnd`,
 * each followed by '\n' (valid UTF-8). Decoded only when read as objects.
 */
export class BatchLines {
  constructor(
    readonly numbers: Int32Array,
    readonly bytes: Buffer,
    readonly first: number,
    readonly length: number,
    readonly byteStart: number,
    readonly byteEnd: number,
  ) {}

  /** The first `count` lines as objects, with `path` (shaped like a GrepMatch). */
  decode<T extends LineMatch>(make: (line: number, column: number, text: string) => T, count = this.length): T[] {
    const texts = new LineReader(this.bytes.subarray(this.byteStart, this.byteEnd));
    const out = new Array<T>(Math.min(count, this.length));
    for (let index = 0, at = this.first * 2; index < out.length; index++, at += 2) out[index] = make(this.numbers[at]!, this.numbers[at + 1]!, texts.read());
    return out;
  }
}

/**
 * The batch's files and their lines (views into the batch), in chunk order, to `each`; it answers
 * true to stop.
 */
export function eachBatchFile(batch: MatchBatch, each: (index: number, lines: KeptLines, count: number) => boolean | void): void {
  const bytes = Buffer.from(batch.bytes.buffer, batch.bytes.byteOffset, batch.bytes.length);
  const { files, withObjects } = batch;
  let line = 0;
  let byteStart = 0;
  // Files with lines as objects, merged in by index (rare: context lines, a lone surrogate).
  let next = 0;
  for (let slot = 0; slot < files.length; slot += fileSlots) {
    for (; next < withObjects.length && withObjects[next]![0] < files[slot]!; next++) if (each(...withObjects[next]!) === true) return;
    const count = files[slot + 1]!;
    const byteEnd = files[slot + 3]!;
    if (each(files[slot]!, new BatchLines(batch.numbers, bytes, line, count, byteStart, byteEnd), files[slot + 2]!) === true) return;
    line += count;
    byteStart = byteEnd;
  }
  for (; next < withObjects.length; next++) if (each(...withObjects[next]!) === true) return;
}

/** The batch's files and their lines (views into the batch), in chunk order. */
export function readBatch(batch: MatchBatch): FileMatches[] {
  const out: FileMatches[] = [];
  eachBatchFile(batch, (index, lines, count) => {
    out.push([index, lines, count]);
  });
  return out;
}

/** Kept lines as objects (a view decoded: line, column and text). */
export function linesOf(kept: KeptLines): LineMatch[] {
  return Array.isArray(kept) ? kept : kept.decode((line, column, text) => ({ line, column, text }));
}
