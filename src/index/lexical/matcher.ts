// Turns a grep request (pattern and rg-style options) into a JavaScript RegExp, and finds the
// matching lines of one text the way ripgrep reports them: line by line (a match never spans a
// line unless multiline), each matching line once, with the column of its first match.
// Dialect: JavaScript's u-mode regex. Known differences from ripgrep's Rust regex: \w, \d, \b are
// ASCII in JavaScript and Unicode in ripgrep; lookarounds and backreferences exist only here.
import { FathomError } from '../../base/errors.js';
import { parseRegex } from './regex-plan.js';

export interface GrepOptions {
  pattern: string;
  /** -F: the pattern is a literal string. */
  fixedStrings?: boolean;
  /** -i */
  ignoreCase?: boolean;
  /** -w: matches must be whole words. */
  wordRegexp?: boolean;
  /** -U: a match may span lines. */
  multiline?: boolean;
}

export interface LineMatch {
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units (as LSP counts). */
  column: number;
  /** The line's text, without its line terminator. */
  text: string;
}

export interface CompiledMatcher {
  regex: RegExp;
  multiline: boolean;
}

/** Escapes the syntax characters (u-mode allows no other identity escapes). */
function escapeLiteral(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

/** Compiles the request; an invalid pattern is an invalidParams error quoting the parser. */
export function compileMatcher(options: GrepOptions): CompiledMatcher {
  let source = options.fixedStrings ? escapeLiteral(options.pattern) : options.pattern;
  if (!options.fixedStrings) {
    try {
      parseRegex(source);
    } catch (error) {
      throw new FathomError('invalidParams', `invalid regex: ${(error as Error).message}`, { pattern: options.pattern, index: (error as { index?: number }).index });
    }
  }
  if (options.wordRegexp) source = `(?<![\\p{L}\\p{N}_])(?:${source})(?![\\p{L}\\p{N}_])`;
  const flags = `gu${options.ignoreCase ? 'i' : ''}${options.multiline ? 'm' : ''}`;
  return { regex: new RegExp(source, flags), multiline: options.multiline === true };
}

/** The matching lines of `text`, at most `limit`. */
export function matchLines(text: string, matcher: CompiledMatcher, limit: number): LineMatch[] {
  // An empty file has no lines (ripgrep reports nothing in it, even for a pattern matching '').
  if (text.length === 0) return [];
  return matcher.multiline ? matchAcrossLines(text, matcher.regex, limit) : matchEachLine(text, matcher.regex, limit);
}

function matchEachLine(text: string, regex: RegExp, limit: number): LineMatch[] {
  const out: LineMatch[] = [];
  let start = 0;
  let line = 1;
  while (start <= text.length && out.length < limit) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (end === text.length && start === end && start > 0) break;
    const content = text.slice(start, end);
    regex.lastIndex = 0;
    const match = regex.exec(content);
    if (match) out.push({ line, column: match.index + 1, text: content });
    start = end + 1;
    line += 1;
  }
  return out;
}

function matchAcrossLines(text: string, regex: RegExp, limit: number): LineMatch[] {
  const lineStarts = [0];
  for (let index = text.indexOf('\n'); index >= 0; index = text.indexOf('\n', index + 1)) lineStarts.push(index + 1);
  const lineOf = (offset: number): number => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (lineStarts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return low;
  };
  const lines = new Map<number, number>();
  regex.lastIndex = 0;
  for (let match = regex.exec(text); match && lines.size < limit; match = regex.exec(text)) {
    const first = lineOf(match.index);
    const last = lineOf(Math.max(match.index, match.index + match[0].length - 1));
    for (let line = first; line <= last; line++) if (!lines.has(line)) lines.set(line, line === first ? match.index - lineStarts[line]! + 1 : 1);
    if (match[0].length === 0) regex.lastIndex += 1;
  }
  return [...lines]
    .sort((a, b) => a[0] - b[0])
    .slice(0, limit)
    .map(([line, column]) => {
      const end = text.indexOf('\n', lineStarts[line]!);
      return { line: line + 1, column, text: text.slice(lineStarts[line]!, end < 0 ? text.length : end) };
    });
}
