// The form in which grep workers send matching lines back: a batch packs every line number and
// column into one typed array and every line's text into one string (a line's text holds no
// '\n'), so a message costs a few copies instead of one cloned object per line. Lines that carry
// context lines travel as objects.
import type { LineMatch } from './matcher.js';

export interface MatchBatch {
  /** Per file with matches: its index within the chunk, how many lines it sends, how many match. */
  files: Int32Array;
  /** Per line: line number and column. */
  numbers: Int32Array;
  /** The lines' texts joined by '\n'. */
  texts: string;
  /** Files whose lines carry context (sent as objects). */
  withContext: FileMatches[];
}

/** A file's index within its chunk, the lines kept, and how many lines match in all. */
export type FileMatches = [number, LineMatch[], number];

export function packMatches(found: FileMatches[]): MatchBatch {
  const plain = found.filter(([, lines]) => !lines.some((line) => line.before || line.after));
  const lineCount = plain.reduce((sum, [, lines]) => sum + lines.length, 0);
  const files = new Int32Array(plain.length * 3);
  const numbers = new Int32Array(lineCount * 2);
  const texts: string[] = [];
  let at = 0;
  plain.forEach(([index, lines, count], slot) => {
    files[slot * 3] = index;
    files[slot * 3 + 1] = lines.length;
    files[slot * 3 + 2] = count;
    for (const line of lines) {
      numbers[at++] = line.line;
      numbers[at++] = line.column;
      texts.push(line.text);
    }
  });
  return { files, numbers, texts: texts.join('\n'), withContext: found.filter(([, lines]) => lines.some((line) => line.before || line.after)) };
}

/** The batch's files and their lines, in chunk order. */
export function unpackMatches(batch: MatchBatch): FileMatches[] {
  const texts = batch.texts.split('\n');
  const out: FileMatches[] = [];
  let line = 0;
  for (let slot = 0; slot < batch.files.length; slot += 3) {
    const count = batch.files[slot + 1]!;
    const lines: LineMatch[] = new Array(count);
    // Shaped like a GrepMatch (`path` first, filled in by the index), so no second object is made.
    for (let index = 0; index < count; index++, line++) lines[index] = { path: '', line: batch.numbers[line * 2]!, column: batch.numbers[line * 2 + 1]!, text: texts[line]! } as LineMatch;
    out.push([batch.files[slot]!, lines, batch.files[slot + 2]!]);
  }
  if (batch.withContext.length > 0) return [...out, ...batch.withContext].sort((a, b) => a[0] - b[0]);
  return out;
}
