// Applying LSP TextEdits (ranges in UTF-16 line/character) to a text: every range checked against
// the text (a line past the end, or a character past its line's end, is an error naming the
// edit), edits sorted and refused when they overlap, then applied from the end. Pure.
import { FathomError } from '../base/errors.js';

export interface TextEdit {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  newText: string;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) === 10) starts.push(index + 1);
  return starts;
}

function isPosition(value: unknown): value is { line: number; character: number } {
  const position = value as { line?: unknown; character?: unknown };
  return (
    typeof value === 'object' &&
    value !== null &&
    Number.isInteger(position.line) &&
    Number.isInteger(position.character) &&
    (position.line as number) >= 0 &&
    (position.character as number) >= 0
  );
}

/** Checks the shape of edits from the wire. */
export function checkEdits(value: unknown): TextEdit[] {
  if (!Array.isArray(value)) throw new FathomError('invalidParams', 'params.edits must be an array of TextEdits', { field: 'edits' });
  value.forEach((edit, index) => {
    const candidate = edit as { range?: { start?: unknown; end?: unknown }; newText?: unknown };
    if (
      typeof edit !== 'object' ||
      edit === null ||
      typeof candidate.newText !== 'string' ||
      !isPosition(candidate.range?.start) ||
      !isPosition(candidate.range?.end)
    ) {
      throw new FathomError('invalidParams', `params.edits[${index}] must be { range: { start: { line, character }, end: { line, character } }, newText }`, {
        field: `edits[${index}]`,
      });
    }
  });
  return value as TextEdit[];
}

export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  const starts = lineStarts(text);
  const offset = (position: { line: number; character: number }, index: number): number => {
    if (position.line >= starts.length)
      throw new FathomError('invalidParams', `edits[${index}]: line ${position.line} is past the end (the file has ${starts.length} lines)`, {
        field: `edits[${index}]`,
      });
    const lineStart = starts[position.line]!;
    const lineEnd = position.line + 1 < starts.length ? starts[position.line + 1]! - 1 : text.length;
    if (lineStart + position.character > lineEnd)
      throw new FathomError(
        'invalidParams',
        `edits[${index}]: character ${position.character} is past the end of line ${position.line} (${lineEnd - lineStart} characters)`,
        { field: `edits[${index}]` },
      );
    return lineStart + position.character;
  };
  const spans = edits
    .map((edit, index) => ({ start: offset(edit.range.start, index), end: offset(edit.range.end, index), text: edit.newText, index }))
    .sort((a, b) => a.start - b.start || a.end - b.end);
  for (const span of spans)
    if (span.end < span.start)
      throw new FathomError('invalidParams', `edits[${span.index}]: the range ends before it starts`, { field: `edits[${span.index}]` });
  for (let index = 1; index < spans.length; index++) {
    if (spans[index]!.start < spans[index - 1]!.end)
      throw new FathomError('invalidParams', `edits[${spans[index - 1]!.index}] and edits[${spans[index]!.index}] overlap`, { field: 'edits' });
  }
  let out = text;
  for (const span of spans.reverse()) out = out.slice(0, span.start) + span.text + out.slice(span.end);
  return out;
}
