// The lines of a grep answer, in path order, kept as they came: a run per file with matches, its
// lines either objects or a view into the batch a grep worker sent (match-batch.ts). An answer of
// 50,000 lines is then a few dozen batches, not 50,000 objects and strings for the garbage
// collector: the daemon writes the views to the wire as they are (their bytes are valid UTF-8),
// and `toArray` makes the objects, once, for a reader that wants them.
import type { LineMatch } from './matcher.js';
import { BatchLines, type KeptLines } from './match-batch.js';

export interface GrepMatch extends LineMatch {
  path: string;
}

/** A file's lines in an answer: the first `take` of `lines`. */
export interface GrepLineRun {
  /** Workspace-relative. */
  path: string;
  lines: KeptLines;
  take: number;
}

export class GrepLines {
  private array: GrepMatch[] | undefined;

  constructor(
    /** In path order, each with at least one line taken. */
    readonly runs: readonly GrepLineRun[],
    /** Lines in all (the sum of the runs' `take`). */
    readonly length: number,
  ) {}

  /** The lines as objects, made on the first call. */
  toArray(): GrepMatch[] {
    if (this.array) return this.array;
    const out = new Array<GrepMatch>(this.length);
    let at = 0;
    for (const { path, lines, take } of this.runs) {
      if (Array.isArray(lines)) {
        for (let index = 0; index < take; index++) out[at++] = grepMatch(path, lines[index]!);
      } else for (const match of lines.decode((line, column, text): GrepMatch => ({ path, line, column, text }), take)) out[at++] = match;
    }
    this.array = out;
    return out;
  }
}

/** A line with its path: `path` first, then line, column, text and any context. */
export function grepMatch(path: string, line: LineMatch): GrepMatch {
  const match: GrepMatch = { path, line: line.line, column: line.column, text: line.text };
  if (line.before) match.before = line.before;
  if (line.after) match.after = line.after;
  return match;
}

/**
 * The lines of `lines` after line number `line` (a page's cursor inside its file): a view of the
 * same batch, or a slice of the objects. Lines are in ascending order, so those dropped are a prefix.
 */
export function linesAfter(lines: KeptLines, line: number): KeptLines {
  if (Array.isArray(lines)) {
    let drop = 0;
    while (drop < lines.length && lines[drop]!.line <= line) drop += 1;
    return drop === 0 ? lines : lines.slice(drop);
  }
  let drop = 0;
  while (drop < lines.length && lines.numbers[(lines.first + drop) * 2]! <= line) drop += 1;
  if (drop === 0) return lines;
  // Each line's bytes end with a '\n' in the batch (match-batch.ts).
  let byteStart = lines.byteStart;
  for (let index = 0; index < drop; index++) byteStart = lines.bytes.indexOf(10, byteStart) + 1;
  return new BatchLines(lines.numbers, lines.bytes, lines.first + drop, lines.length - drop, byteStart, lines.byteEnd);
}
