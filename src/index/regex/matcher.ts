// Turns a grep request (pattern and rg-style options) into a JavaScript RegExp, and finds the
// matching lines of one text the way ripgrep reports them: line by line (a match never spans a
// line unless multiline), each matching line once, with the column of its first match.
// Dialect: JavaScript's u-mode regex, rewritten to ripgrep's meaning of ^ $ . \w \d \b (see
// `lineSemantics`); lookarounds and backreferences exist only here.
import { lastAtOrBefore } from '../../base/sorted.js';
import type { ContextLine } from './context-lines.js';
import { FathomError } from '../../base/errors.js';
import type { AST } from '@eslint-community/regexpp';
import { countNewlines } from './pieces.js';
import { parseRegex, type ByteRun } from './regex-plan.js';
import {
  plainGaveUp,
  plainLine,
  plainUndecided,
  plainWideFlag,
  scanCountNewlines,
  scanLiteralLineStarts,
  scanPlain,
  scanRunLineStarts,
  type ScanLines,
} from './run-scan.js';

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
  /** Context lines before it (-B/-C), when asked for: only those no earlier match showed. */
  before?: ContextLine[];
  /** Context lines after it (-A/-C), up to the next match. */
  after?: ContextLine[];
}

export interface CompiledMatcher {
  regex: RegExp;
  /** The same regex, not global: for one line at a time. */
  lineRegex: RegExp;
  multiline: boolean;
  ignoreCase: boolean;
  /** The pattern has lookarounds of its own: over a whole text they could look into other lines. */
  lineByLine: boolean;
}

/** Escapes the syntax characters (u-mode allows no other identity escapes). */
function escapeLiteral(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

/** ripgrep's (the Rust regex crate's) Unicode \w, as JavaScript u-mode property escapes. */
const wordChars = '\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}';
const word = `[${wordChars}]`;
const notWord = `[^${wordChars}]`;

/**
 * Rewrites a pattern to ripgrep's meaning. Lines end at '\n' alone: JavaScript's ^, $ and . also
 * treat '\r', U+2028 and U+2029 as line ends, so `^` becomes "not after a character other than
 * \n", `$` "not before one", `.` "anything but \n". And \w, \d, \b are Unicode-aware, as in
 * ripgrep (JavaScript's are ASCII even in u-mode). \W and \D inside a class stay as they are.
 */
function lineSemantics(pattern: AST.Pattern): { source: string; hasLookaround: boolean } {
  const edits: [number, number, string][] = [];
  let hasLookaround = false;
  const visit = (node: AST.Node): void => {
    switch (node.type) {
      case 'Pattern':
      case 'Group':
      case 'CapturingGroup':
        node.alternatives.forEach(visit);
        return;
      case 'Alternative':
        node.elements.forEach(visit);
        return;
      case 'Quantifier':
        visit(node.element);
        return;
      case 'Assertion':
        // Not "(?<![^\n])": V8 tries empty matches inside a surrogate pair, where that holds.
        if (node.kind === 'start') edits.push([node.start, node.end, '(?:^|(?<=\\n))']);
        else if (node.kind === 'end') edits.push([node.start, node.end, '(?:$|(?=\\n))']);
        else if (node.kind === 'word' && !node.negate) edits.push([node.start, node.end, `(?:(?<=${word})(?!${word})|(?<!${word})(?=${word}))`]);
        else if (node.kind === 'word') edits.push([node.start, node.end, `(?:(?<=${word})(?=${word})|(?<!${word})(?!${word}))`]);
        else if (node.kind === 'lookahead' || node.kind === 'lookbehind') {
          hasLookaround = true;
          node.alternatives.forEach(visit);
        }
        return;
      case 'CharacterClass':
        for (const element of node.elements) {
          if (element.type !== 'CharacterSet') continue;
          if (element.kind === 'word' && !element.negate) edits.push([element.start, element.end, wordChars]);
          else if (element.kind === 'digit') edits.push([element.start, element.end, element.negate ? '\\P{Nd}' : '\\p{Nd}']);
          else if (element.kind === 'space') edits.push([element.start, element.end, element.negate ? '\\P{White_Space}' : '\\p{White_Space}']);
        }
        return;
      case 'CharacterSet':
        if (node.kind === 'any') edits.push([node.start, node.end, '[^\\n]']);
        else if (node.kind === 'word') edits.push([node.start, node.end, node.negate ? notWord : word]);
        else if (node.kind === 'digit') edits.push([node.start, node.end, node.negate ? '\\P{Nd}' : '\\p{Nd}']);
        else if (node.kind === 'space') edits.push([node.start, node.end, node.negate ? '\\P{White_Space}' : '\\p{White_Space}']);
        return;
      default:
        return;
    }
  };
  visit(pattern);
  // The pattern's text in [start, end) with the edits inside it made (from the last back, so that
  // earlier places hold; an insertion goes before a replacement at the same place).
  const edited = (start: number, end: number): string => {
    let text = pattern.raw.slice(start, end);
    for (const [from, to, replacement] of [...edits].sort((a, b) => b[0] - a[0] || b[1] - a[1]))
      if (from >= start && to <= end) text = text.slice(0, from - start) + replacement + text.slice(to - start);
    return text;
  };
  // An alternative that begins with C+ (C one character, never '\n'; any count from one up):
  // where C is before a place, a match starting there also starts one place earlier, so the
  // leftmost match never starts after a C, and the regex need not try there. V8 tries every place
  // of a run of C's, each one running to the run's end: `\w+\s*=\s*\d{5,}` on the kernel's
  // candidate lines spent 250 ms a worker in the regex. The same matches, lines and columns.
  for (const alternative of pattern.alternatives) {
    const first = alternative.elements[0];
    if (first?.type !== 'Quantifier' || first.min < 1 || first.max !== Infinity || !neverNewline(first.element)) continue;
    edits.push([alternative.start, alternative.start, `(?<!${edited(first.element.start, first.element.end)})`]);
  }
  return { source: edited(0, pattern.raw.length), hasLookaround };
}

/** Whether a quantified element matches one character, never '\n' (ignoring case or not). */
function neverNewline(element: AST.QuantifiableElement): boolean {
  const setOk = (set: AST.CharacterSet | AST.EscapeCharacterSet | AST.UnicodePropertyCharacterSet): boolean =>
    (set.kind === 'any' || set.kind === 'word' || set.kind === 'digit') && !('negate' in set && set.negate);
  switch (element.type) {
    case 'Character':
      return element.value !== 10;
    case 'CharacterSet':
      return setOk(element);
    case 'CharacterClass':
      return (
        !element.negate &&
        element.elements.every((part) => {
          if (part.type === 'Character') return part.value !== 10;
          if (part.type === 'CharacterClassRange') return part.min.value > 10 || part.max.value < 10;
          if (part.type === 'CharacterSet') return setOk(part);
          return false;
        })
      );
    default:
      return false;
  }
}

/** Compiles the request; an invalid pattern is an invalidParams error quoting the parser. */
export function compileMatcher(options: GrepOptions): CompiledMatcher {
  let source: string;
  let lineByLine = false;
  if (options.fixedStrings) {
    source = escapeLiteral(options.pattern);
  } else {
    let pattern: AST.Pattern;
    try {
      pattern = parseRegex(options.pattern);
    } catch (error) {
      if (error instanceof FathomError) throw error;
      throw new FathomError('invalidParams', `invalid regex: ${(error as Error).message}`, {
        pattern: options.pattern,
        index: (error as { index?: number }).index,
      });
    }
    ({ source, hasLookaround: lineByLine } = lineSemantics(pattern));
  }
  if (options.wordRegexp) source = `(?<!${word})(?:${source})(?!${word})`;
  const flags = `gu${options.ignoreCase ? 'i' : ''}`;
  return {
    regex: new RegExp(source, flags),
    lineRegex: new RegExp(source, flags.replace('g', '')),
    multiline: options.multiline === true,
    ignoreCase: options.ignoreCase === true,
    lineByLine,
  };
}

const asciiFold = new Uint8Array(256).map((_, byte) => (byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte));

function foldAscii(bytes: Buffer): Buffer {
  const out = Buffer.allocUnsafe(bytes.length);
  for (let index = 0; index < bytes.length; index++) out[index] = asciiFold[bytes[index]!]!;
  return out;
}

/** The needles' bytes, per literals array or plain literal (a worker matches many ranges with the same one). */
const needlesOf = new WeakMap<object, Buffer[]>();

/**
 * Where the matching lines of one text go, in order. A line past the limit is only counted (in a
 * `Tally`), never given: `kept` says how many it holds. A worker copies the lines' bytes into the
 * batch it sends (match-batch.ts), so a line's text need not be decoded there.
 */
export interface LineSink {
  readonly kept: number;
  /** A matching line: bytes [start, end) of `bytes`, without its '\n'; `text`, when it was decoded already. */
  add(line: number, column: number, bytes: Buffer, start: number, end: number, text?: string): void;
  /** A matching line found in a decoded text (always well-formed UTF-16 here). */
  addText(line: number, column: number, text: string): void;
  /**
   * The sink's lines in the SIMD scanner's memory, when they are there (match-batch.ts): the scan
   * of a plain literal writes lines into them itself, then says how many (`wrote`).
   */
  readonly scanLines?: ScanLines;
  wrote?(lines: number): void;
}

/** A sink that makes each line's LineMatch. */
export class LineArray implements LineSink {
  readonly lines: LineMatch[] = [];
  get kept(): number {
    return this.lines.length;
  }
  add(line: number, column: number, bytes: Buffer, start: number, end: number, text?: string): void {
    this.lines.push({ line, column, text: text ?? bytes.toString('utf8', start, end) });
  }
  addText(line: number, column: number, text: string): void {
    this.lines.push({ line, column, text });
  }
}

/**
 * The matching lines of a file's bytes (or of a line-aligned range of them starting on line
 * `firstLine`), looking only at lines that hold one of `literals` (every matching line holds one:
 * see `lineLiterals`), found with Buffer.indexOf, or else a `run` of class bytes (see
 * `requiredRun`); only those lines are decoded and tested. Without either, or in multiline mode,
 * the whole text is matched.
 */
export function matchBytes(
  bytes: Buffer,
  matcher: CompiledMatcher,
  literals: string[] | undefined,
  limit: number,
  firstLine = 1,
  run?: ByteRun,
  tally?: Tally,
  plain?: PlainLiteral,
): LineMatch[] {
  const sink = new LineArray();
  matchBytesInto(sink, bytes, matcher, literals, limit, firstLine, run, tally, plain);
  return sink.lines;
}

/** `matchBytes`, giving the lines to `sink`: at most `limit` in it (lines it held before count). */
export function matchBytesInto(
  sink: LineSink,
  bytes: Buffer,
  matcher: CompiledMatcher,
  literals: string[] | undefined,
  limit: number,
  firstLine = 1,
  run?: ByteRun,
  tally?: Tally,
  plain?: PlainLiteral,
): void {
  if (plain && !matcher.multiline) return matchPlain(sink, bytes, plain, matcher, limit, firstLine, tally);
  if ((!literals && !run) || matcher.multiline) {
    for (const match of matchLines(bytes.toString('utf8'), matcher, limit - sink.kept, tally))
      sink.addText(match.line + firstLine - 1, match.column, match.text);
    return;
  }
  if (bytes.length === 0) return;
  // With a run, the lines holding it, and of those the ones holding a literal too (a one-byte
  // literal like '=' is on too many lines to look for first: measured 1.6× slower on the kernel).
  const starts = run ? runLineStarts(bytes, run) : literalLineStarts(bytes, matcher.ignoreCase, literals!);
  const required = run && literals ? needles(literals) : undefined;
  const haystack = required && matcher.ignoreCase ? foldAscii(bytes) : bytes;
  let line = firstLine;
  let counted = 0;
  // Per required literal, its next place at or after the line looked at (-1: none left; -2: not
  // looked for yet): each byte is searched once, however many lines there are.
  const nextAt = required?.map(() => -2);
  for (const start of starts) {
    if (sink.kept >= limit && !tally) break;
    const endIndex = bytes.indexOf(10, start);
    const lineEnd = endIndex < 0 ? bytes.length : endIndex;
    if (required) {
      let holds = false;
      for (let index = 0; index < required.length && !holds; index++) {
        let at = nextAt![index]!;
        if (at !== -1 && at < start) nextAt![index] = at = haystack.indexOf(required[index]!, start);
        holds = at >= 0 && at + required[index]!.length <= lineEnd;
      }
      if (!holds) continue;
    }
    const content = bytes.toString('utf8', start, lineEnd);
    const match = matcher.lineRegex.exec(content);
    if (!match) continue;
    if (tally) tally.count += 1;
    // Past the limit a line is only counted: its number is not needed.
    if (sink.kept >= limit) continue;
    line += newlinesBetween(bytes, counted, start);
    counted = start;
    sink.add(line, match.index + 1, bytes, start, lineEnd, content);
  }
}

/** '\n' bytes in [start, end): by SIMD for bytes in the scanner's memory (the content windows). */
function newlinesBetween(bytes: Buffer, start: number, end: number): number {
  return scanCountNewlines(bytes, start, end) ?? countNewlines(bytes, start, end);
}

function needles(owner: string[] | PlainLiteral): Buffer[] {
  let found = needlesOf.get(owner);
  if (!found) needlesOf.set(owner, (found = (Array.isArray(owner) ? owner : [owner.text]).map((text) => Buffer.from(text, 'utf8'))));
  return found;
}

/** The starts of lines holding a literal, in order, each once. */
function literalLineStarts(bytes: Buffer, ignoreCase: boolean, literals: string[]): number[] {
  const found = needles(literals);
  // By SIMD in the content windows (folding as it compares).
  const scanned = scanLiteralLineStarts(bytes, found, ignoreCase);
  if (scanned) return scanned;
  const haystack = ignoreCase ? foldAscii(bytes) : bytes;
  const starts: number[] = [];
  // Each needle's next place, searched on from the line after the last line taken (every byte
  // searched once per needle; the lines come out in order, each once).
  const next = found.map((needle) => haystack.indexOf(needle));
  for (;;) {
    let at = -1;
    for (const place of next) if (place >= 0 && (at < 0 || place < at)) at = place;
    if (at < 0) break;
    starts.push(haystack.lastIndexOf(10, at) + 1);
    const end = haystack.indexOf(10, at);
    if (end < 0) break;
    for (let index = 0; index < next.length; index++) if (next[index]! >= 0 && next[index]! <= end) next[index] = haystack.indexOf(found[index]!, end + 1);
  }
  return starts;
}

/**
 * The starts of lines holding `run.length` consecutive member bytes: by SIMD when the bytes lie
 * in the scanner's memory (run-scan.ts: the content windows do), else one byte at a time.
 */
export function runLineStarts(bytes: Uint8Array, run: ByteRun): number[] {
  return (Buffer.isBuffer(bytes) ? scanRunLineStarts(bytes, run) : undefined) ?? loopRunLineStarts(bytes, run);
}

/**
 * `runLineStarts` one byte at a time. Skips ahead like Boyer–Moore: a byte outside the class at i
 * means no run covers i, so the next place a run can end is i + length; only bytes in the class
 * are looked at around.
 */
export function loopRunLineStarts(bytes: Uint8Array, run: ByteRun): number[] {
  const { bytes: member, length } = run;
  const starts: number[] = [];
  const size = bytes.length;
  let from = 0;
  let at = length - 1;
  while (at < size) {
    if (member[bytes[at]!] === 0) {
      at += length;
      continue;
    }
    // Members before `at` (back to `from`), then after it, until the run is long enough.
    let begin = at;
    while (begin > from && at - begin + 1 < length && member[bytes[begin - 1]!] === 1) begin -= 1;
    let end = at + 1;
    while (end - begin < length && end < size && member[bytes[end]!] === 1) end += 1;
    if (end - begin >= length) {
      let lineStart = begin;
      while (lineStart > 0 && bytes[lineStart - 1] !== 10) lineStart -= 1;
      starts.push(lineStart);
      let lineEnd = begin;
      while (lineEnd < size && bytes[lineEnd] !== 10) lineEnd += 1;
      from = lineEnd + 1;
      at = from + length - 1;
    } else {
      from = end + 1;
      at = end + length;
    }
  }
  return starts;
}

/**
 * A pattern that is one literal string matched case-sensitively, whole word or not: its lines are
 * found on the bytes without the regex (see `matchPlain`).
 */
export interface PlainLiteral {
  text: string;
  word: boolean;
}

/** ASCII bytes that are word characters (\w: letters, digits, '_'). */
const asciiWord = new Uint8Array(128).map((_, byte) => (/[A-Za-z0-9_]/.test(String.fromCharCode(byte)) ? 1 : 0));

/**
 * The matching lines of a plain literal, straight from the bytes: each occurrence's line is taken
 * once, the first whole-word occurrence on it when `word` (decided on the neighbouring bytes when
 * they are ASCII; a line with a non-ASCII neighbour goes to the regex, which knows Unicode words).
 * No line is decoded here unless the regex decides it. The column counts UTF-16 units: the byte
 * offset when the line is ASCII before the occurrence (each byte one unit), else the length of the
 * decoded prefix.
 */
function matchPlain(sink: LineSink, bytes: Buffer, plain: PlainLiteral, matcher: CompiledMatcher, limit: number, firstLine: number, tally?: Tally): void {
  const needle = needles(plain)[0]!;
  /**
   * A line holding the literal at `at` (when `undecided`, the regex decides whether it matches):
   * counted, and kept while under the limit, numbered by `lineNumber`. `wide`: whether a byte
   * before `at` on the line is not ASCII (undefined: not known, then the decoded prefix tells).
   */
  const take = (lineStart: number, lineEnd: number, at: number, undecided: boolean, wide: boolean | undefined, lineNumber: () => number): void => {
    let text: string | undefined;
    let column = 0;
    if (undecided) {
      text = bytes.toString('utf8', lineStart, lineEnd);
      const match = matcher.lineRegex.exec(text);
      if (!match) return;
      column = match.index + 1;
    }
    if (tally) tally.count += 1;
    // Past the limit a line is only counted: no line number, no text.
    if (sink.kept >= limit) return;
    if (column === 0) column = wide === false ? at - lineStart + 1 : bytes.toString('utf8', lineStart, at).length + 1;
    sink.add(lineNumber(), column, bytes, lineStart, lineEnd, text);
  };
  // By SIMD when the bytes lie in the scanner's memory (the content windows): lines decided on
  // ASCII go straight into the sink's lines when those are there too (while they have room), the
  // others come back here.
  let scanned: number | undefined;
  const into = sink.scanLines;
  for (let from = 0, line = firstLine; ;) {
    if (sink.kept >= limit && !tally) return;
    const stop = scanPlain(bytes, from, line, needle, plain.word, into, limit - sink.kept, tally !== undefined);
    if (!stop) break;
    if (stop.written > 0) sink.wrote!(stop.written);
    if (tally) tally.count += stop.counted;
    if (stop.reason === plainLine) {
      const { at, lineNumber } = stop;
      const wide = at >= plainWideFlag;
      take(stop.lineStart, stop.lineEnd, wide ? at - plainWideFlag : at, at === plainUndecided, wide, () => lineNumber);
    } else if (stop.reason === plainGaveUp) {
      scanned = stop.next;
      break;
    } else return; // done, or enough lines kept
    from = stop.next;
    line = stop.line;
    if (from >= bytes.length) return;
  }
  // Not in the scanner's memory, or the rest of a text the SIMD scan gave up on (its lines before
  // `scanned` are in the sink).
  const size = bytes.length;
  let line = firstLine;
  let counted = 0;
  const lineOf = (lineStart: number) => (): number => {
    line += newlinesBetween(bytes, counted, lineStart);
    counted = lineStart;
    return line;
  };
  for (let found = bytes.indexOf(needle, scanned ?? 0); found >= 0;) {
    if (sink.kept >= limit && !tally) break;
    const lineStart = bytes.lastIndexOf(10, found) + 1;
    const newline = bytes.indexOf(10, found + needle.length);
    const lineEnd = newline < 0 ? size : newline;
    let at = found;
    // -1: no whole-word occurrence on the line; -2: the regex decides.
    if (plain.word) {
      for (;;) {
        const before = at > lineStart ? bytes[at - 1]! : 32;
        const after = at + needle.length < lineEnd ? bytes[at + needle.length]! : 32;
        if (before >= 0x80 || after >= 0x80) {
          at = -2;
          break;
        }
        if (asciiWord[before] === 0 && asciiWord[after] === 0) break;
        at = bytes.indexOf(needle, at + 1);
        if (at < 0 || at + needle.length > lineEnd) {
          at = -1;
          break;
        }
      }
    }
    if (at !== -1) take(lineStart, lineEnd, at, at === -2, undefined, lineOf(lineStart));
    if (newline < 0) break;
    found = bytes.indexOf(needle, newline + 1);
  }
}

/** Counts every matching line, also past the limit (then without making its object). */
export interface Tally {
  count: number;
}

/** The matching lines of `text`, at most `limit` (all of them counted in `tally` when given). */
export function matchLines(text: string, matcher: CompiledMatcher, limit: number, tally?: Tally): LineMatch[] {
  // An empty file has no lines (ripgrep reports nothing in it, even for a pattern matching '').
  if (text.length === 0) return [];
  if (matcher.multiline) return matchAcrossLines(text, matcher.regex, limit, tally);
  return matcher.lineByLine ? matchLineByLine(text, matcher.lineRegex, limit, tally) : matchEachLine(text, matcher.regex, matcher.lineRegex, limit, tally);
}

/** One line at a time: slower, but a lookaround sees only its own line, as in ripgrep. */
function matchLineByLine(text: string, regex: RegExp, limit: number, tally?: Tally): LineMatch[] {
  const out: LineMatch[] = [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (let index = 0; index < lines.length && (out.length < limit || tally); index++) {
    const match = regex.exec(lines[index]!);
    if (!match) continue;
    if (tally) tally.count += 1;
    if (out.length < limit) out.push({ line: index + 1, column: match.index + 1, text: lines[index]! });
  }
  return out;
}

/**
 * Line-wise matching at the speed of one regex pass over the whole text: a match within a line
 * reports that line and the search goes on from the next line. A match that crosses a line break
 * (possible with \s, [^…] and the like) is not one ripgrep would report, so its first line alone is
 * checked again and the search goes on from the next line: no line is skipped unchecked.
 */
function matchEachLine(text: string, regex: RegExp, single: RegExp, limit: number, tally?: Tally): LineMatch[] {
  const out: LineMatch[] = [];
  let line = 1;
  let lineStart = 0;
  let position = 0;
  while (position <= text.length && (out.length < limit || tally)) {
    regex.lastIndex = position;
    const match = regex.exec(text);
    if (!match) break;
    // Advance the line counter to the line where the match starts.
    for (let newline = text.indexOf('\n', lineStart); newline >= 0 && newline < match.index; newline = text.indexOf('\n', lineStart)) {
      line += 1;
      lineStart = newline + 1;
    }
    // A match starting on the empty piece after a final newline is not a line.
    if (lineStart === text.length && lineStart > 0) break;
    const lineEndIndex = text.indexOf('\n', lineStart);
    const lineEnd = lineEndIndex < 0 ? text.length : lineEndIndex;
    if (match.index + match[0].length <= lineEnd) {
      if (tally) tally.count += 1;
      if (out.length < limit) out.push({ line, column: match.index + 1 - lineStart, text: text.slice(lineStart, lineEnd) });
    } else {
      const content = text.slice(lineStart, lineEnd);
      const within = single.exec(content);
      if (within && tally) tally.count += 1;
      if (within && out.length < limit) out.push({ line, column: within.index + 1, text: content });
    }
    if (lineEndIndex < 0) break;
    position = lineEnd + 1;
    line += 1;
    lineStart = position;
  }
  return out;
}

function matchAcrossLines(text: string, regex: RegExp, limit: number, tally?: Tally): LineMatch[] {
  const lineStarts = [0];
  for (let index = text.indexOf('\n'); index >= 0; index = text.indexOf('\n', index + 1)) lineStarts.push(index + 1);
  const lineOf = (offset: number): number => lastAtOrBefore(lineStarts, offset);
  const lines = new Map<number, number>();
  regex.lastIndex = 0;
  for (let match = regex.exec(text); match && (lines.size < limit || tally); match = regex.exec(text)) {
    // After a final newline there is no line.
    if (match.index === text.length && text.endsWith('\n')) break;
    const first = lineOf(match.index);
    const last = lineOf(Math.max(match.index, match.index + match[0].length - 1));
    for (let line = first; line <= last; line++) if (!lines.has(line)) lines.set(line, line === first ? match.index - lineStarts[line]! + 1 : 1);
    // Past an empty match by one code point: V8 moves a lastIndex inside a surrogate pair back to
    // its start, so stepping one code unit there would find the same match for ever.
    if (match[0].length === 0) regex.lastIndex = match.index + ((text.codePointAt(match.index) ?? 0) > 0xffff ? 2 : 1);
  }
  if (tally) tally.count += lines.size;
  return [...lines]
    .sort((a, b) => a[0] - b[0])
    .slice(0, limit)
    .map(([line, column]) => {
      const end = text.indexOf('\n', lineStarts[line]!);
      return { line: line + 1, column, text: text.slice(lineStarts[line]!, end < 0 ? text.length : end) };
    });
}
