// A file's bytes seen as the UTF-16 text tree-sitter parses, with exact conversion back to byte
// offsets and to (line, UTF-16 character) positions. Owns decoding: valid UTF-8 decodes as usual
// (a leading BOM is kept as one code unit so no offset shifts); each byte of an invalid sequence
// becomes one U+FFFD, so every code unit maps to a known byte range and chunk byte offsets stay
// exact even in files that are not UTF-8. Used by the chunker and the parse cache.
//
// Offsets of valid UTF-8 are kept sparse: only the code units past ASCII, with the extra bytes
// they add. A dense table (4 bytes per code unit) cost more than decoding: lib.dom.d.ts (1.9 MB,
// 45 characters past ASCII) took 37–41 ms to fill a fresh 7.5 MB table, its page faults included,
// against 15–17 ms to decode and under 1 ms to find the 45.
import { isAscii, isUtf8 } from 'node:buffer';
import { firstAtOrAfter, lastAtOrBefore } from '../../base/sorted.js';

export interface TextPosition {
  /** 0-based line. */
  line: number;
  /** 0-based, in UTF-16 code units (LSP's default). */
  character: number;
}

/** The last line a range [start, end) holds: one that ends at a line's start ends on the line before. */
export function lastLineOf(start: TextPosition, end: TextPosition): number {
  return end.character === 0 && end.line > start.line ? end.line - 1 : end.line;
}

export class SourceText {
  readonly bytes: Uint8Array;
  /** The decoded text; `text.length` code units. */
  readonly text: string;
  /** The text tree-sitter should parse: `text` with a leading BOM turned into a space. */
  readonly parseText: string;
  /** byteAt[i] = byte offset of code unit i (length text.length + 1); only for invalid UTF-8. */
  private readonly byteAt: Uint32Array | undefined;
  /** Valid UTF-8 past ASCII: the code units past ASCII, in order; undefined otherwise. */
  private readonly wideUnits: Uint32Array | undefined;
  /** extraThrough[k]: the bytes beyond one per unit that wideUnits[0..k] add (a surrogate pair: 3 - 1). */
  private readonly extraThrough: Int32Array | undefined;
  private lineStartUnits: Uint32Array | undefined;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
    if (isAscii(bytes)) {
      this.text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
      this.byteAt = undefined;
    } else if (isUtf8(bytes)) {
      this.text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
      this.byteAt = undefined;
      [this.wideUnits, this.extraThrough] = wideOffsets(this.text);
    } else {
      const decoded = decodeLossy(bytes);
      this.text = decoded.text;
      this.byteAt = decoded.byteAt;
    }
    this.parseText = this.text.charCodeAt(0) === 0xfeff ? ' ' + this.text.slice(1) : this.text;
  }

  static fromString(text: string): SourceText {
    return new SourceText(Buffer.from(text, 'utf8'));
  }

  get length(): number {
    return this.text.length;
  }

  /** Byte offset of a code-unit index (0 ≤ unit ≤ length). */
  byteOffset(unit: number): number {
    const wide = this.wideUnits;
    if (wide !== undefined) {
      // The wide units before `unit` add their extra bytes.
      const before = firstAtOrAfter(wide, unit);
      return before === 0 ? unit : unit + this.extraThrough![before - 1]!;
    }
    return this.byteAt === undefined ? unit : this.byteAt[unit]!;
  }

  /** Bytes in [startUnit, endUnit). */
  byteLength(startUnit: number, endUnit: number): number {
    return this.byteOffset(endUnit) - this.byteOffset(startUnit);
  }

  /** The code-unit index of a byte offset (the first unit that starts at or after it). */
  unitAt(byteOffset: number): number {
    if (this.byteAt === undefined && this.wideUnits === undefined) return Math.min(byteOffset, this.text.length);
    let low = 0;
    let high = this.text.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.byteOffset(middle) < byteOffset) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** (line, UTF-16 character) of a code-unit index. */
  position(unit: number): TextPosition {
    const starts = this.lineStarts();
    const line = lastAtOrBefore(starts, unit);
    return { line, character: unit - starts[line]! };
  }

  /** Code-unit index where each line starts (line 0 at 0). */
  lineStarts(): Uint32Array {
    if (this.lineStartUnits) return this.lineStartUnits;
    const text = this.text;
    let count = 1;
    for (let index = text.indexOf('\n'); index >= 0; index = text.indexOf('\n', index + 1)) count += 1;
    const starts = new Uint32Array(count);
    let line = 1;
    for (let index = text.indexOf('\n'); index >= 0; index = text.indexOf('\n', index + 1)) starts[line++] = index + 1;
    this.lineStartUnits = starts;
    return starts;
  }
}

/**
 * The code units past ASCII of a string that came from valid UTF-8, and the extra bytes through
 * each: 1 below U+0800, 3 for a high surrogate (its pair is 4 bytes), -1 for the low surrogate
 * after it (a boundary there falls after the pair's bytes), else 2.
 */
function wideOffsets(text: string): [Uint32Array, Int32Array] {
  const units: number[] = [];
  // eslint-disable-next-line no-control-regex -- every code unit past ASCII, NUL included in the range
  const pastAscii = /[^\x00-\x7f]/g;
  while (pastAscii.exec(text) !== null) units.push(pastAscii.lastIndex - 1);
  const wide = Uint32Array.from(units);
  const extra = new Int32Array(wide.length);
  let total = 0;
  for (let index = 0; index < wide.length; index++) {
    const code = text.charCodeAt(wide[index]!);
    if (code < 0x800) total += 1;
    else if (code >= 0xd800 && code <= 0xdbff) total += 3;
    else if (code >= 0xdc00 && code <= 0xdfff) total -= 1;
    else total += 2;
    extra[index] = total;
  }
  return [wide, extra];
}

/** UTF-8 decoding where each byte of an invalid sequence becomes one U+FFFD. */
function decodeLossy(bytes: Uint8Array): { text: string; byteAt: Uint32Array } {
  const units = new Uint16Array(bytes.length);
  const byteAt = new Uint32Array(bytes.length + 1);
  let count = 0;
  let index = 0;
  const continuation = (at: number): boolean => at < bytes.length && (bytes[at]! & 0xc0) === 0x80;
  while (index < bytes.length) {
    const first = bytes[index]!;
    let length = 0;
    let code = 0;
    if (first < 0x80) {
      length = 1;
      code = first;
    } else if (first >= 0xc2 && first <= 0xdf && continuation(index + 1)) {
      length = 2;
      code = ((first & 0x1f) << 6) | (bytes[index + 1]! & 0x3f);
    } else if (first >= 0xe0 && first <= 0xef && continuation(index + 1) && continuation(index + 2)) {
      code = ((first & 0x0f) << 12) | ((bytes[index + 1]! & 0x3f) << 6) | (bytes[index + 2]! & 0x3f);
      if (code >= 0x800 && (code < 0xd800 || code > 0xdfff)) length = 3;
    } else if (first >= 0xf0 && first <= 0xf4 && continuation(index + 1) && continuation(index + 2) && continuation(index + 3)) {
      code = ((first & 0x07) << 18) | ((bytes[index + 1]! & 0x3f) << 12) | ((bytes[index + 2]! & 0x3f) << 6) | (bytes[index + 3]! & 0x3f);
      if (code >= 0x10000 && code <= 0x10ffff) length = 4;
    }
    if (length === 0) {
      byteAt[count] = index;
      units[count++] = 0xfffd;
      index += 1;
    } else if (code >= 0x10000) {
      byteAt[count] = index;
      units[count++] = 0xd800 + ((code - 0x10000) >> 10);
      byteAt[count] = index + 4; // the low surrogate: a boundary here never splits inside the character's bytes
      units[count++] = 0xdc00 + ((code - 0x10000) & 0x3ff);
      index += 4;
    } else {
      byteAt[count] = index;
      units[count++] = code;
      index += length;
    }
  }
  byteAt[count] = bytes.length;
  let text = '';
  for (let start = 0; start < count; start += 8192) text += String.fromCharCode(...units.subarray(start, Math.min(count, start + 8192)));
  return { text, byteAt: byteAt.slice(0, count + 1) };
}
