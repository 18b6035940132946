// Rewrite templates: the replacement text for one match, built from a template that uses the
// pattern's metavariables (`$X`, `$$X`, `$$$X`; each replaced by the text it bound). Owns
// indentation: a multi-line template is written as if its first line stood at the match, so its
// later lines take the indentation of the matched line; a multi-line binding keeps its own
// shape, re-indented from where it stood to where it lands. Also turns a file's matches into
// edits (overlapping matches: the first, outermost one wins; the others are reported).
import { FathomError } from '../base/errors.js';
import type { FileMatch } from './find.js';

export type TemplatePart = { text: string } | { variable: string };

const templateToken = /\$\$\$([A-Z_][A-Z0-9_]*)|\$\$([A-Z_][A-Z0-9_]*)|\$([A-Z_][A-Z0-9_]*)/g;

/** Parses a template; throws invalidParams for a metavariable the pattern does not bind. */
export function parseTemplate(template: string, bound: readonly string[]): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let last = 0;
  const unknown = new Set<string>();
  for (const match of template.matchAll(templateToken)) {
    const name = match[1] ?? match[2] ?? match[3]!;
    if (!bound.includes(name)) {
      unknown.add(name);
      continue;
    }
    if (match.index > last) parts.push({ text: template.slice(last, match.index) });
    parts.push({ variable: name });
    last = match.index + match[0].length;
  }
  if (unknown.size > 0) {
    throw new FathomError(
      'invalidParams',
      `rewrite uses ${[...unknown].map((name) => `$${name}`).join(', ')}, which the pattern does not bind (it binds ${bound.length > 0 ? bound.map((name) => `$${name}`).join(', ') : 'nothing'})`,
      { field: 'rewrite' },
    );
  }
  if (last < template.length) parts.push({ text: template.slice(last) });
  return parts;
}

/** The whitespace a line starts with. */
function indentOf(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}

/** The text of the line holding `offset` (UTF-16 units), from its start up to `offset`. */
function lineBefore(text: string, offset: number): string {
  return text.slice(text.lastIndexOf('\n', offset - 1) + 1, offset);
}

/** Moves the lines after the first from one indentation to another. */
function reindent(text: string, from: string, to: string): string {
  if (!text.includes('\n')) return text;
  const lines = text.split('\n');
  return lines.map((line, index) => (index === 0 ? line : to + (line.startsWith(from) ? line.slice(from.length) : line.trimStart()))).join('\n');
}

/** The replacement for one match in a file whose decoded text is `fileText`. */
export function renderTemplate(parts: readonly TemplatePart[], match: FileMatch, fileText: string): string {
  const siteIndent = indentOf(lineBefore(fileText, match.startUnit));
  let out = '';
  for (const part of parts) {
    if ('text' in part) {
      out += part.text.replace(/\n/g, `\n${siteIndent}`);
      continue;
    }
    const bound = match.bindings[part.variable];
    if (!bound) continue;
    // A binding's later lines move from its own line's indentation to that of the line it lands on.
    const from = bound.startUnit === undefined ? '' : indentOf(lineBefore(fileText, bound.startUnit));
    const to = out.includes('\n') ? indentOf(out.slice(out.lastIndexOf('\n') + 1)) : siteIndent;
    out += reindent(bound.text, from, to);
  }
  return out;
}

export interface Edit {
  startByte: number;
  endByte: number;
  replacement: string;
}

/** Applies non-overlapping edits (sorted by start) to a file's bytes. */
export function applyEdits(bytes: Uint8Array, edits: readonly Edit[]): Buffer {
  const pieces: Buffer[] = [];
  let at = 0;
  const source = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (const edit of edits) {
    pieces.push(source.subarray(at, edit.startByte), Buffer.from(edit.replacement, 'utf8'));
    at = edit.endByte;
  }
  pieces.push(source.subarray(at));
  return Buffer.concat(pieces);
}

/** Keeps the first of overlapping matches (document order puts the outermost first). */
export function nonOverlapping<T extends { startByte: number; endByte: number }>(matches: readonly T[]): { kept: T[]; overlapping: number } {
  const kept: T[] = [];
  let end = -1;
  let overlapping = 0;
  for (const match of [...matches].sort((a, b) => a.startByte - b.startByte || b.endByte - a.endByte)) {
    if (match.startByte < end) {
      overlapping += 1;
      continue;
    }
    kept.push(match);
    end = match.endByte;
  }
  return { kept, overlapping };
}
