// The lines of a grep answer, in path order, kept as they came: a run per file with matches, its
// lines either objects or a view into the batch a grep worker sent (match-batch.ts). An answer of
// 50,000 lines is then a few dozen batches, not 50,000 objects and strings for the garbage
// collector: the daemon writes the views to the wire as they are (their bytes are valid UTF-8),
// and `toArray` makes the objects, once, for a reader that wants them.
import type { LineMatch } from './matcher.js';
import type { KeptLines } from './match-batch.js';

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
    const out: GrepMatch[] = new Array(this.length);
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
