// A grep answer's lines as JSON text, written straight from the grep workers' batches: each line
// is `{"path":…,"line":…,"column":…,"text":…}`, as JSON.stringify writes a GrepMatch, its text
// copied from the batch's bytes (valid UTF-8: match-batch.ts) with `"`, `\` and control
// characters escaped. No object or string is made per line; lines that came as objects (with
// context lines) are stringified one by one.
import { grepMatch, type GrepLines, type GrepMatch } from '../index/lexical/grep-lines.js';
import { RawJson } from './json-encoder.js';

const columnKey = Buffer.from(',"column":');
const textKey = Buffer.from(',"text":"');
const lineEnd = Buffer.from('"}');
const hex = Buffer.from('0123456789abcdef');
/** JSON's short escapes for control characters (0 where there is none: \u00XX). */
const shortEscape = new Uint8Array(32);
shortEscape[8] = 0x62; // \b
shortEscape[9] = 0x74; // \t
shortEscape[10] = 0x6e; // \n
shortEscape[12] = 0x66; // \f
shortEscape[13] = 0x72; // \r

/** A growing byte buffer for JSON text. */
class JsonBytes {
  buffer: Buffer;
  at = 0;

  constructor(capacity: number) {
    this.buffer = Buffer.allocUnsafe(Math.max(capacity, 64));
  }

  reserve(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.at + bytes));
    this.buffer.copy(grown, 0, 0, this.at);
    this.buffer = grown;
  }

  bytes(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.buffer.set(bytes, this.at);
    this.at += bytes.length;
  }

  byte(byte: number): void {
    this.reserve(1);
    this.buffer[this.at++] = byte;
  }

  /** A non-negative integer's digits. */
  integer(value: number): void {
    this.reserve(16);
    if (value < 10) {
      this.buffer[this.at++] = 48 + value;
      return;
    }
    const digits = value < 100 ? 2 : value < 1_000 ? 3 : value < 10_000 ? 4 : value < 100_000 ? 5 : value < 1_000_000 ? 6 : String(value).length;
    let rest = value;
    for (let index = this.at + digits - 1; index >= this.at; index--) {
      this.buffer[index] = 48 + (rest % 10);
      rest = Math.floor(rest / 10);
    }
    this.at += digits;
  }

  /**
   * The bytes of `source` from `start` up to its next '\n' (or `end`), escaped as a JSON string's
   * content; returns the position after the '\n'.
   */
  escapedLine(source: Buffer, start: number, end: number): number {
    let at = start;
    let out = this.at;
    let buffer = this.buffer;
    // Room for the longest escape (\u00XX) of the next byte, checked once a byte.
    let limit = buffer.length - 6;
    for (;;) {
      if (out > limit) {
        this.at = out;
        this.reserve(Math.max(4096, (end - at) >> 2));
        buffer = this.buffer;
        limit = buffer.length - 6;
      }
      if (at >= end) break;
      const byte = source[at++]!;
      if (byte >= 0x20) {
        if (byte === 0x22 || byte === 0x5c) buffer[out++] = 0x5c;
        buffer[out++] = byte;
        continue;
      }
      if (byte === 10) break;
      buffer[out++] = 0x5c;
      const short = shortEscape[byte]!;
      if (short !== 0) buffer[out++] = short;
      else {
        buffer[out++] = 0x75; // u00XX
        buffer[out++] = 0x30;
        buffer[out++] = 0x30;
        buffer[out++] = hex[byte >> 4]!;
        buffer[out++] = hex[byte & 15]!;
      }
    }
    this.at = out;
    return at;
  }
}

/** A grep answer's `matches` on the wire: the lines' JSON array. */
export class GrepLinesJson extends RawJson {
  constructor(private readonly lines: GrepLines) {
    super();
  }

  toValue(): GrepMatch[] {
    return this.lines.toArray();
  }

  writeJson(): Buffer {
    let estimate = 2;
    for (const run of this.lines.runs) estimate += Array.isArray(run.lines) ? run.take * 256 : run.lines.byteEnd - run.lines.byteStart + run.take * (run.path.length + 48);
    const out = new JsonBytes(estimate + (estimate >> 4));
    out.byte(0x5b); // [
    let first = true;
    for (const { path, lines, take } of this.lines.runs) {
      if (Array.isArray(lines)) {
        for (let index = 0; index < take; index++) {
          if (!first) out.byte(0x2c);
          first = false;
          out.bytes(Buffer.from(JSON.stringify(grepMatch(path, lines[index]!)), 'utf8'));
        }
        continue;
      }
      const head = Buffer.from(`{"path":${JSON.stringify(path)},"line":`, 'utf8');
      const { numbers, bytes } = lines;
      let at = lines.byteStart;
      for (let index = 0, number = lines.first * 2; index < take; index++, number += 2) {
        if (!first) out.byte(0x2c);
        first = false;
        out.bytes(head);
        out.integer(numbers[number]!);
        out.bytes(columnKey);
        out.integer(numbers[number + 1]!);
        out.bytes(textKey);
        at = out.escapedLine(bytes, at, lines.byteEnd);
        out.bytes(lineEnd);
      }
    }
    out.byte(0x5d); // ]
    return out.buffer.subarray(0, out.at);
  }
}
