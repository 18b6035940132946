// What the chunk ranking indexes of one chunk: its terms in five fields, each counted separately
// so BM25F can weigh them (chunk-ranking.ts):
//   name       the scope chain and the names of the entities the chunk defines
//   path       the file's folders and name (without the extension)
//   doc        comments and docstrings inside the chunk, and the doc the header carries
//   signature  the signatures of the entities defined, and of the enclosing ones (header `in:`)
//   body       the rest of the text: code and string literals, comments taken out
// Comments are found by a small scanner per family of languages (line and block comments,
// Python's triple-quoted strings), skipping quoted strings; good enough to tell prose from code,
// not a parser. Runs on the worker threads (chunk-terms-worker.ts).
import type { Chunk } from '../syntax/chunk.js';
import { forEachTerm } from './code-tokens.js';

export const fieldNames = ['name', 'path', 'doc', 'signature', 'body'] as const;
export type FieldName = (typeof fieldNames)[number];
export const fieldCount = fieldNames.length;
/** Each field's count is saturated at 63 and packed in 6 bits of one u32 (field i at bits 6i). */
export const maxFieldCount = 63;

/** One chunk's terms: parallel arrays of distinct terms and their packed per-field counts, and the field lengths (in terms). */
export interface ChunkTerms {
  /** 0-based first line and last line (inclusive) of the chunk. */
  startLine: number;
  endLine: number;
  startByte: number;
  endByte: number;
  terms: string[];
  counts: number[];
  lengths: number[];
}

interface CommentSyntax {
  line: string[];
  block: Array<[string, string]>;
  /** Python: `"""…"""` and `'''…'''` are docs. */
  tripleQuotes: boolean;
  /** Characters that open a string the scanner must skip. */
  quotes: string;
}

const cLike: CommentSyntax = { line: ['//'], block: [['/*', '*/']], tripleQuotes: false, quotes: `"'\`` };
const hash: CommentSyntax = { line: ['#'], block: [], tripleQuotes: false, quotes: `"'` };
const syntaxes: Record<string, CommentSyntax> = {
  python: { line: ['#'], block: [], tripleQuotes: true, quotes: `"'` },
  ruby: { line: ['#'], block: [['=begin', '=end']], tripleQuotes: false, quotes: `"'` },
  bash: hash,
  toml: hash,
  php: { line: ['//', '#'], block: [['/*', '*/']], tripleQuotes: false, quotes: `"'` },
  html: { line: [], block: [['<!--', '-->']], tripleQuotes: false, quotes: '' },
  css: { line: [], block: [['/*', '*/']], tripleQuotes: false, quotes: `"'` },
  lua: { line: ['--'], block: [['--[[', ']]']], tripleQuotes: false, quotes: `"'` },
  json: { line: [], block: [], tripleQuotes: false, quotes: '"' },
};

/** Comment (and docstring) spans of a text, as [start, end) code-unit pairs. */
export function commentSpans(text: string, language: string | undefined): Array<[number, number]> {
  const syntax = (language !== undefined ? syntaxes[language] : undefined) ?? (language === undefined ? hashOrC(text) : cLike);
  const spans: Array<[number, number]> = [];
  let at = 0;
  outer: while (at < text.length) {
    const code = text.charCodeAt(at);
    if (syntax.tripleQuotes && (code === 0x22 || code === 0x27) && text.startsWith(code === 0x22 ? '"""' : "'''", at)) {
      const close = text.indexOf(code === 0x22 ? '"""' : "'''", at + 3);
      const end = close < 0 ? text.length : close + 3;
      spans.push([at, end]);
      at = end;
      continue;
    }
    for (const [open, close] of syntax.block) {
      if (text.startsWith(open, at)) {
        const found = text.indexOf(close, at + open.length);
        const end = found < 0 ? text.length : found + close.length;
        spans.push([at, end]);
        at = end;
        continue outer;
      }
    }
    for (const open of syntax.line) {
      if (text.startsWith(open, at)) {
        const found = text.indexOf('\n', at);
        const end = found < 0 ? text.length : found;
        spans.push([at, end]);
        at = end;
        continue outer;
      }
    }
    if (syntax.quotes.includes(text[at]!)) {
      const quote = text[at]!;
      let end = at + 1;
      while (end < text.length && text[end] !== quote && (quote === '`' || text[end] !== '\n')) end += text[end] === '\\' ? 2 : 1;
      at = end + 1;
      continue;
    }
    at++;
  }
  return spans;
}

/** No grammar: a file whose lines start with `#` comments reads as hash-commented, else C-like. */
function hashOrC(text: string): CommentSyntax {
  return /^\s*#/m.test(text) && !/^\s*#\s*(include|define|if|endif|pragma)\b/m.test(text) ? hash : cLike;
}

class FieldCounter {
  readonly counts = new Map<string, number>();
  readonly lengths = new Array<number>(fieldCount).fill(0);

  add(field: number, text: string): void {
    const shift = 6 * field;
    forEachTerm(text, (term) => {
      const packed = this.counts.get(term) ?? 0;
      const count = (packed >>> shift) & maxFieldCount;
      if (count < maxFieldCount) this.counts.set(term, packed + (1 << shift));
      this.lengths[field]! += 1;
    });
  }
}

/** The path's words: folders and the file name without its extension. */
export function pathText(path: string): string {
  return path.replace(/\.[A-Za-z0-9]+$/, '').replace(/[/.-]/g, ' ');
}

/** The fields of each chunk of a file. */
export function chunkTerms(path: string, language: string | undefined, chunks: readonly Chunk[]): ChunkTerms[] {
  const pathWords = pathText(path);
  return chunks.map((chunk) => {
    const counter = new FieldCounter();
    counter.add(0, [...chunk.scope, ...chunk.entities.map((entity) => entity.name)].join(' '));
    counter.add(1, pathWords);
    const text = chunk.text;
    const spans = commentSpans(text, language);
    let body = '';
    let last = 0;
    const docs: string[] = [];
    for (const [start, end] of spans) {
      body += text.slice(last, start);
      body += ' ';
      docs.push(text.slice(start, end));
      last = end;
    }
    body += text.slice(last);
    const signatures = chunk.entities.map((entity) => entity.signature);
    for (const line of chunk.header.split('\n')) {
      if (line.startsWith('doc: ')) docs.push(line.slice(5));
      else if (line.startsWith('in: ')) signatures.push(line.slice(4));
    }
    counter.add(2, docs.join('\n'));
    counter.add(3, signatures.join('\n'));
    counter.add(4, body);
    const endLine = chunk.end.character === 0 && chunk.end.line > chunk.start.line ? chunk.end.line - 1 : chunk.end.line;
    return {
      startLine: chunk.start.line,
      endLine,
      startByte: chunk.startByte,
      endByte: chunk.endByte,
      terms: [...counter.counts.keys()],
      counts: [...counter.counts.values()],
      lengths: counter.lengths,
    };
  });
}
