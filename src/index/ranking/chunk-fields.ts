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
import { lastLineOf } from '../syntax/source-text.js';
import { forEachTerm } from './code-tokens.js';
import { packTerms, type PackedTerms } from './term-table.js';

export const fieldNames = ['name', 'path', 'doc', 'signature', 'body'] as const;
export type FieldName = (typeof fieldNames)[number];
export const fieldCount = fieldNames.length;
/** Each field's count is saturated at 63 and packed in 6 bits of one u32 (field i at bits 6i). */
export const maxFieldCount = 63;

/** One chunk's terms: parallel arrays of its distinct terms (indices into its file's `terms`) and their packed per-field counts, and the field lengths (in terms). */
export interface ChunkTerms {
  /** 0-based first line and last line (inclusive) of the chunk. */
  startLine: number;
  endLine: number;
  startByte: number;
  endByte: number;
  terms: Uint32Array;
  counts: Uint32Array;
  lengths: number[];
}

/**
 * The terms of a file's chunks: each distinct term of the file once, packed with its hash
 * (term-table.ts), the chunks naming them by index. Chunks of one file share most of their terms
 * (their path's, the file's identifiers): the daemon's thread looks each up once a file, and no
 * string per term crosses to it.
 */
export interface FileChunkTerms {
  terms: PackedTerms;
  chunks: ChunkTerms[];
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

/** For each syntax, the ASCII characters that can start a comment, a docstring or a string: the scanner skips every other character without a look. */
const openers = new WeakMap<CommentSyntax, Uint8Array>();

function openersOf(syntax: CommentSyntax): Uint8Array {
  let table = openers.get(syntax);
  if (!table) {
    table = new Uint8Array(128);
    for (const open of [...syntax.line, ...syntax.block.map(([start]) => start), ...syntax.quotes]) table[open.charCodeAt(0)] = 1;
    if (syntax.tripleQuotes) table[0x22] = table[0x27] = 1;
    openers.set(syntax, table);
  }
  return table;
}

/** Comment (and docstring) spans of a text, as [start, end) code-unit pairs. */
export function commentSpans(text: string, language: string | undefined): Array<[number, number]> {
  const syntax = (language !== undefined ? syntaxes[language] : undefined) ?? (language === undefined ? hashOrC(text) : cLike);
  const opens = openersOf(syntax);
  const spans: Array<[number, number]> = [];
  let at = 0;
  outer: while (at < text.length) {
    const code = text.charCodeAt(at);
    if (code >= 128 || opens[code] === 0) {
      at++;
      continue;
    }
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
export function chunkTerms(path: string, language: string | undefined, chunks: readonly Chunk[]): FileChunkTerms {
  const pathWords = pathText(path);
  const indices = new Map<string, number>();
  const terms: string[] = [];
  const fileChunks = chunks.map((chunk): ChunkTerms => {
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
    const endLine = lastLineOf(chunk.start, chunk.end);
    const termIndices = new Uint32Array(counter.counts.size);
    const counts = new Uint32Array(counter.counts.size);
    let at = 0;
    for (const [term, count] of counter.counts) {
      let index = indices.get(term);
      if (index === undefined) {
        index = terms.push(term) - 1;
        indices.set(term, index);
      }
      termIndices[at] = index;
      counts[at++] = count;
    }
    return { startLine: chunk.start.line, endLine, startByte: chunk.startByte, endByte: chunk.endByte, terms: termIndices, counts, lengths: counter.lengths };
  });
  return { terms: packTerms(terms), chunks: fileChunks };
}
