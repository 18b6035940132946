// A grep answer's lines as JSON text, written straight from the grep workers' batches: each line
// is `{"path":…,"line":…,"column":…,"text":…}`, as JSON.stringify writes a GrepMatch, its text
// copied from the batch's bytes (valid UTF-8: match-batch.ts) with `"`, `\` and control
// characters escaped. No object or string is made per line; lines that came as objects (with
// context lines) are stringified one by one.
import { grepMatch, type GrepLines, type GrepMatch } from '../index/regex/grep-lines.js';
import { JsonBytes, RawJson } from './json-encoder.js';

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

/**
 * Writes the bytes of `source` from `start` up to its next '\n' (or `end`), escaped as a JSON
 * string's content; returns the position after the '\n'.
 */
function escapedLine(out: JsonBytes, source: Buffer, start: number, end: number): number {
  let at = start;
  let to = out.at;
  let buffer = out.buffer;
  // Room for the longest escape (\u00XX) of the next byte, checked once a byte.
  let limit = buffer.length - 6;
  for (;;) {
    if (to > limit) {
      out.at = to;
      out.reserve(Math.max(4096, (end - at) >> 2));
      buffer = out.buffer;
      limit = buffer.length - 6;
    }
    if (at >= end) break;
    const byte = source[at++]!;
    if (byte >= 0x20) {
      if (byte === 0x22 || byte === 0x5c) buffer[to++] = 0x5c;
      buffer[to++] = byte;
      continue;
    }
    if (byte === 10) break;
    buffer[to++] = 0x5c;
    const short = shortEscape[byte]!;
    if (short !== 0) buffer[to++] = short;
    else {
      buffer[to++] = 0x75; // u00XX
      buffer[to++] = 0x30;
      buffer[to++] = 0x30;
      buffer[to++] = hex[byte >> 4]!;
      buffer[to++] = hex[byte & 15]!;
    }
  }
  out.at = to;
  return at;
}

/** A grep answer's `matches` on the wire: the lines' JSON array. */
export class GrepLinesJson extends RawJson {
  constructor(private readonly lines: GrepLines) {
    super();
  }

  toValue(): GrepMatch[] {
    return this.lines.toArray();
  }

  estimate(): number {
    let bytes = 2;
    // A run's bytes in the share of its lines taken (an answer cut part-way takes the first few).
    for (const run of this.lines.runs)
      bytes += Array.isArray(run.lines)
        ? run.take * 256
        : Math.ceil(((run.lines.byteEnd - run.lines.byteStart) * run.take) / run.lines.length) + run.take * (run.path.length + 48);
    // Room for some escapes (tabs, quotes).
    return bytes + (bytes >> 4);
  }

  writeJson(out: JsonBytes): void {
    out.byte(0x5b); // [
    let first = true;
    for (const { path, lines, take } of this.lines.runs) {
      if (Array.isArray(lines)) {
        for (let index = 0; index < take; index++) {
          if (!first) out.byte(0x2c);
          first = false;
          out.text(JSON.stringify(grepMatch(path, lines[index]!)));
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
        at = escapedLine(out, bytes, at, lines.byteEnd);
        out.bytes(lineEnd);
      }
    }
    out.byte(0x5d); // ]
  }
}
