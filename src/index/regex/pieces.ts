// Line-aligned pieces: the unit the regex index posts trigrams to. A file's bytes are cut into
// pieces of about `pieceBytes`, each ending just after a '\n' (or at the end of the file), so a
// line lies wholly inside one piece and a match that stays within a line — every match outside
// multiline mode — lies inside the piece its line is in. A line longer than the target makes one
// piece of its own (it is never cut). The cut depends only on the bytes: the same file always
// gives the same pieces.

/** Target size of a piece in bytes (chosen by measurement: bench/RESULTS.md, "Regex index"). */
export const pieceBytes = 1024;

/**
 * Calls `each(start, end, line)` for the pieces of `bytes` in order: byte range [start, end) and
 * the 1-based number of its first line. An empty file has no pieces.
 */
export function forEachPiece(bytes: Buffer, each: (start: number, end: number, line: number) => void, target: number = pieceBytes): void {
  let start = 0;
  let line = 1;
  while (start < bytes.length) {
    let end: number;
    if (bytes.length - start <= target) end = bytes.length;
    else {
      // The last '\n' within the target, else the first one after it (a long line), else the end.
      const before = bytes.lastIndexOf(10, start + target - 1);
      if (before >= start) end = before + 1;
      else {
        const after = bytes.indexOf(10, start + target);
        end = after < 0 ? bytes.length : after + 1;
      }
    }
    each(start, end, line);
    line += countNewlines(bytes, start, end);
    start = end;
  }
}

/** The number of '\n' bytes in [start, end). */
export function countNewlines(bytes: Buffer, start: number, end: number): number {
  let count = 0;
  for (let index = bytes.indexOf(10, start); index >= 0 && index < end; index = bytes.indexOf(10, index + 1)) count += 1;
  return count;
}
