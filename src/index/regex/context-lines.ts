// Context lines around grep matches (ripgrep's -B/-A/-C): each match gets the lines before it
// that no earlier match or context showed, and the lines after it up to the next match, so a line
// is shown once and a reader can rebuild ripgrep's output (`--` between groups that do not touch).
// Lines are split at `\n` only; a line's text keeps a `\r`, as ripgrep prints it. Runs in the
// grep workers, on the text the matches were found in.
import type { LineMatch } from './matcher.js';

export interface ContextLine {
  /** 1-based. */
  line: number;
  text: string;
}

export function attachContext(text: string, matches: LineMatch[], before: number, after: number): void {
  if (matches.length === 0 || (before <= 0 && after <= 0)) return;
  const starts: number[] = [0];
  for (let index = text.indexOf('\n'); index >= 0; index = text.indexOf('\n', index + 1)) starts.push(index + 1);
  // A final `\n` ends the last line; it does not start another.
  const lineCount = starts[starts.length - 1] === text.length ? starts.length - 1 : starts.length;
  const lineText = (line: number): string => {
    const start = starts[line - 1]!;
    const end = line < starts.length ? starts[line]! - 1 : text.length;
    return text.slice(start, end);
  };
  let shown = 0;
  matches.forEach((match, index) => {
    if (before > 0) {
      const lines: ContextLine[] = [];
      for (let line = Math.max(shown + 1, match.line - before); line < match.line; line++) lines.push({ line, text: lineText(line) });
      if (lines.length > 0) match.before = lines;
    }
    shown = Math.max(shown, match.line);
    if (after > 0) {
      const next = matches[index + 1]?.line ?? Number.POSITIVE_INFINITY;
      const last = Math.min(match.line + after, next - 1, lineCount);
      const lines: ContextLine[] = [];
      for (let line = match.line + 1; line <= last; line++) lines.push({ line, text: lineText(line) });
      if (lines.length > 0) match.after = lines;
      shown = Math.max(shown, last);
    }
  });
}
