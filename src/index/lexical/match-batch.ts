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

/** A batch's buffers at first: line numbers and columns (two a line), and bytes. */
const batchNumbers = 8192;
const batchBytes = 256 * 1024;

/** A worker's batch being filled: a MatchSink (verify.ts) that copies each line's bytes. */
export class MatchBatchWriter implements MatchSink {
  private files: number[] = [];
  private numbers = new Int32Array(batchNumbers);
  private bytes = Buffer.allocUnsafeSlow(batchBytes);
  private used = 0;
  /** Lines in the batch as bytes, and as objects. */
  private byteLines = 0;
  private objectLines = 0;
  /** Lines of the file being given, as bytes, and as objects. */
  private fileLines = 0;
  private fileObjects: LineMatch[] | undefined;
  private withObjects: FileMatches[] = [];

  /** Lines in the batch. */
  get lines(): number {
    return this.byteLines + this.objectLines;
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
    this.reserve(length + 1);
    // A short line is copied faster by a loop than by a call into Buffer.copy.
    if (length <= 64) for (let at = start, to = this.used; at < end; ) this.bytes[to++] = bytes[at++]!;
    else this.bytes.set(bytes.subarray(start, end), this.used);
    this.used += length;
    this.bytes[this.used++] = 10;
    this.number(line, column);
  }

  addText(line: number, column: number, text: string): void {
    this.reserve(text.length * 3 + 1);
    this.used += this.bytes.write(text, this.used, 'utf8');
    this.bytes[this.used++] = 10;
    this.number(line, column);
  }

  addMatches(lines: LineMatch[]): void {
    this.fileObjects ??= [];
    for (const line of lines) this.fileObjects.push(line);
    this.objectLines += lines.length;
  }

  endFile(index: number, count: number): void {
    // A file without a match is not sent (its lines as objects are then an empty list).
    if (count > 0 && this.fileObjects) this.withObjects.push([index, this.fileObjects, count]);
    else if (count > 0) this.files.push(index, this.fileLines, count, this.used);
    this.fileObjects = undefined;
    this.fileLines = 0;
  }

  /** The batch so far, to transfer (its buffers are the batch's now); the writer starts a new one. */
  take(): { batch: MatchBatch; transfer: ArrayBuffer[] } {
    // A batch without lines as bytes (files only counted, past the limit) keeps the buffers: fresh
    // ones would be fresh pages, and a page fault costs ~15 µs on these VMs.
    const lines = this.byteLines > 0;
    const files = Int32Array.from(this.files);
    let numbers = new Int32Array(0);
    let bytes: Uint8Array = new Uint8Array(0);
    if (lines) {
      // An answer keeps its batches until it is written: a batch filling less than half of its
      // buffers goes as an exact copy (a few lines must not hold 288 KB), and the buffers stay for
      // the next one; a fuller one gives its buffers away, and fresh ones are made.
      const count = this.byteLines * 2;
      if (count * 2 <= this.numbers.length) numbers = this.numbers.slice(0, count);
      else {
        numbers = this.numbers.subarray(0, count);
        this.numbers = new Int32Array(batchNumbers);
      }
      const view = this.bytes.subarray(0, this.used);
      // Rare (a file that is not UTF-8): checked once for the batch, then mended file by file.
      if (!isUtf8(view)) bytes = mendUtf8(view, files);
      else if (this.used * 2 <= this.bytes.length) {
        bytes = Buffer.allocUnsafeSlow(this.used);
        view.copy(bytes as Buffer);
      } else {
        bytes = view;
        this.bytes = Buffer.allocUnsafeSlow(batchBytes);
      }
      // A buffer grown for a huge line is not kept.
      if (this.numbers.length > batchNumbers) this.numbers = new Int32Array(batchNumbers);
      if (this.bytes.length > batchBytes) this.bytes = Buffer.allocUnsafeSlow(batchBytes);
    }
    const batch: MatchBatch = { files, numbers, bytes, withObjects: this.withObjects };
    this.files = [];
    this.used = 0;
    this.byteLines = 0;
    this.objectLines = 0;
    this.withObjects = [];
    return { batch, transfer: lines ? [batch.files.buffer as ArrayBuffer, batch.numbers.buffer as ArrayBuffer, batch.bytes.buffer as ArrayBuffer] : [batch.files.buffer as ArrayBuffer] };
  }

  private number(line: number, column: number): void {
    const at = this.byteLines * 2;
    if (at + 2 > this.numbers.length) {
      const grown = new Int32Array(this.numbers.length * 2);
      grown.set(this.numbers);
      this.numbers = grown;
    }
    this.numbers[at] = line;
    this.numbers[at + 1] = column;
    this.byteLines += 1;
    this.fileLines += 1;
  }

  private reserve(bytes: number): void {
    if (this.used + bytes <= this.bytes.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(this.bytes.length * 2, this.used + bytes));
    grown.set(this.bytes.subarray(0, this.used));
    this.bytes = grown;
  }
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
    const out: T[] = new Array(Math.min(count, this.length));
    for (let index = 0, at = this.first * 2; index < out.length; index++, at += 2) out[index] = make(this.numbers[at]!, this.numbers[at + 1]!, texts.read());
    return out;
  }
}

/** The batch's files and their lines (views into the batch), in chunk order. */
export function readBatch(batch: MatchBatch): FileMatches[] {
  const out: FileMatches[] = [];
  const bytes = Buffer.from(batch.bytes.buffer, batch.bytes.byteOffset, batch.bytes.length);
  let line = 0;
  let byteStart = 0;
  for (let slot = 0; slot < batch.files.length; slot += fileSlots) {
    const count = batch.files[slot + 1]!;
    const byteEnd = batch.files[slot + 3]!;
    out.push([batch.files[slot]!, new BatchLines(batch.numbers, bytes, line, count, byteStart, byteEnd), batch.files[slot + 2]!]);
    line += count;
    byteStart = byteEnd;
  }
  if (batch.withObjects.length > 0) return [...out, ...batch.withObjects].sort((a, b) => a[0] - b[0]);
  return out;
}

/** Kept lines as objects (a view decoded: line, column and text). */
export function linesOf(kept: KeptLines): LineMatch[] {
  return Array.isArray(kept) ? kept : kept.decode((line, column, text) => ({ line, column, text }));
}
