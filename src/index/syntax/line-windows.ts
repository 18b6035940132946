// The fallback chunker for files without a grammar (or whose parse failed): windows of whole
// lines up to the budget, preferring to end at a blank line once a window is half full. A single
// line over the budget is cut at the last whitespace before the budget, else at the budget (never
// inside a UTF-16 surrogate pair). Called by chunk-file.ts.
import type { SourceText } from './source-text.js';
import type { CutRange } from './cut.js';

function isBlankLine(text: string, start: number, end: number): boolean {
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index);
    if (code !== 0x20 && code !== 0x09 && code !== 0x0d && code !== 0x0a) return false;
  }
  return true;
}

export function lineWindows(source: SourceText, budgetBytes: number): CutRange[] {
  const text = source.text;
  const out: CutRange[] = [];
  const size = (start: number, end: number): number => source.byteLength(start, end);
  // Lines as [start, end) including their newline.
  const lines: Array<[number, number]> = [];
  for (let start = 0; start < text.length;) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline + 1;
    lines.push([start, end]);
    start = end;
  }
  let windowStart = -1;
  let windowEnd = -1;
  let lastBlankEnd = -1;
  const emit = (start: number, end: number): void => {
    // Trim surrounding whitespace so that only whitespace lies between windows.
    while (start < end && isBlankLine(text, start, start + 1)) start++;
    while (end > start && isBlankLine(text, end - 1, end)) end--;
    if (end > start) out.push({ start, end, oversized: false });
  };
  for (const [lineStart, lineEnd] of lines) {
    if (size(lineStart, lineEnd) > budgetBytes) {
      if (windowStart >= 0) emit(windowStart, windowEnd);
      windowStart = -1;
      lastBlankEnd = -1;
      cutLongLine(source, lineStart, lineEnd, budgetBytes, emit);
      continue;
    }
    if (windowStart < 0) {
      windowStart = lineStart;
      windowEnd = lineEnd;
      continue;
    }
    if (size(windowStart, lineEnd) > budgetBytes) {
      if (lastBlankEnd > windowStart && size(windowStart, lastBlankEnd) * 2 >= budgetBytes && size(lastBlankEnd, lineEnd) <= budgetBytes) {
        emit(windowStart, lastBlankEnd);
        windowStart = lastBlankEnd;
      } else {
        emit(windowStart, windowEnd);
        windowStart = lineStart;
      }
      lastBlankEnd = -1;
    }
    windowEnd = lineEnd;
    if (isBlankLine(text, lineStart, lineEnd)) lastBlankEnd = lineEnd;
  }
  if (windowStart >= 0) emit(windowStart, windowEnd);
  return out;
}

function cutLongLine(source: SourceText, start: number, end: number, budgetBytes: number, emit: (start: number, end: number) => void): void {
  const text = source.text;
  let pieceStart = start;
  while (pieceStart < end) {
    if (source.byteLength(pieceStart, end) <= budgetBytes) {
      emit(pieceStart, end);
      return;
    }
    // The furthest unit within the budget.
    let limit = source.unitAt(source.byteOffset(pieceStart) + budgetBytes);
    if (source.byteLength(pieceStart, limit) > budgetBytes) limit -= 1;
    if (limit <= pieceStart) limit = pieceStart + 1;
    const code = text.charCodeAt(limit - 1);
    if (code >= 0xd800 && code <= 0xdbff) limit = limit - 1 > pieceStart ? limit - 1 : limit + 1;
    let cut = limit;
    for (let index = limit - 1; index > pieceStart + (limit - pieceStart) / 2; index--) {
      const char = text.charCodeAt(index);
      if (char === 0x20 || char === 0x09) {
        cut = index + 1;
        break;
      }
    }
    emit(pieceStart, cut);
    pieceStart = cut;
  }
}
