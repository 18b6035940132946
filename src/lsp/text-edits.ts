// Applying LSP TextEdits (ranges in UTF-16 line/character) to a text: every range checked against
// the text (a line past the end, or a character past its line's end, is an error naming the
// edit), edits sorted and refused when they overlap, then applied from the end. Pure. (An edit's
// shape on the wire is its schema's: protocol/params.ts.)
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
