// Top-level regions of a Python file, found without parsing: the indentation counterpart of
// region-scanner.ts' bracket scanner. Owns splitting the text into logical lines (brackets,
// strings and triple-quoted strings, comments and backslash continuations joined) and cutting them.
//
// A region starts at a logical line at column 0 that begins with an identifier (not `else`,
// `elif`, `except`, `finally`) or `@`, unless the logical line before it at column 0 is a
// decorator (which stays with what it decorates). Comment lines never start one: a comment at
// column 0 may sit inside an indented body. A region whose header ends with `:` and whose body is
// indented consistently records its members the same way at the body's indentation, and so on
// down: a member that is itself a header with a consistently indented body records its own.
import type { Block, Region } from './region-scanner.js';

interface LogicalLine {
  start: number;
  /** Characters of indentation (spaces or tabs). */
  indent: number;
  /** First character is an identifier start or `@`, and not a continuation keyword. */
  mayStart: boolean;
  decorator: boolean;
  /** Only a comment or blank: its indentation means nothing. */
  empty: boolean;
  /** Its last character of code is `:` (a compound statement's header). */
  opensBlock: boolean;
  /** It starts with `from` (then it must hold `import` before it ends). */
  from: boolean;
}

const continuations = new Set(['else', 'elif', 'except', 'finally']);

function isIdentifierStart(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95 || code > 127;
}

function isIdentifierPart(code: number): boolean {
  return isIdentifierStart(code) || (code >= 48 && code <= 57);
}

/** Past a backslash at `at` and what it escapes (a CRLF line break as a whole). */
function pastEscape(text: string, at: number): number {
  return at + (text.charCodeAt(at + 1) === 13 && text.charCodeAt(at + 2) === 10 ? 3 : 2);
}

/**
 * Whether the string whose quote is at `at` is an f-string: its prefix (the letters glued before
 * the quote) is `f`, `rf` or `fr` in any case. Undefined when the letters hold an `f` but are
 * no such prefix (`if"…"`, `fff"…"`: tree-sitter reads some as a keyword, some as a prefix).
 */
function formattedAt(text: string, at: number): boolean | undefined {
  let prefix = at;
  while (prefix > 0 && isIdentifierPart(text.charCodeAt(prefix - 1))) prefix -= 1;
  const letters = text.slice(prefix, at);
  if (!/[fF]/.test(letters)) return false;
  return /^(?:[fF]|[rR][fF]|[fF][rR])$/.test(letters) ? true : undefined;
}

/**
 * The end of the string literal whose (first) quote is at `at`, one-line or triple-quoted, past
 * an f-string's replacement fields, which may hold strings with the same quotes (Python 3.12).
 * Undefined: not read here (no regions): a one-line string reaching a bare line break (an error
 * to Python, but tree-sitter goes on to the next line where a piece of the string starts with
 * it), an f-string prefix it cannot tell, a named escape `\N{…}` in an f-string.
 */
function skipString(text: string, at: number): number | undefined {
  const quote = text.charCodeAt(at);
  const triple = text.charCodeAt(at + 1) === quote && text.charCodeAt(at + 2) === quote;
  const formatted = formattedAt(text, at);
  if (formatted === undefined) return undefined;
  let index = at + (triple ? 3 : 1);
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code === 92) {
      const next = text.charCodeAt(index + 1);
      if (formatted && next === 78 /* N */ && text.charCodeAt(index + 2) === 123) return undefined;
      // In an f-string a backslash does not keep a brace from opening or closing a field.
      index = formatted && (next === 123 || next === 125) ? index + 1 : pastEscape(text, index);
    } else if (code === quote && (!triple || (text.charCodeAt(index + 1) === quote && text.charCodeAt(index + 2) === quote))) return index + (triple ? 3 : 1);
    else if (code === 10 && !triple) return undefined;
    else if (formatted && code === 123 /* { */ && text.charCodeAt(index + 1) === 123) index += 2;
    else if (formatted && code === 123) {
      const end = skipField(text, index + 1, triple);
      if (end === undefined) return undefined;
      index = end;
    } else index += 1;
  }
  return undefined;
}

/**
 * The end of an f-string's replacement field whose `{` is just before `at` (past its `}`): an
 * expression (brackets counted, strings skipped), then after a `:` outside brackets a format spec
 * (text without escapes, with nested fields). Undefined for what is not read here: a line break
 * in a one-line f-string's field or in a spec, a comment, a `:` that may be a lambda's or a
 * walrus's (tree-sitter takes them unparenthesized), a field that does not close.
 */
function skipField(text: string, at: number, triple: boolean): number | undefined {
  let depth = 0;
  let spec = false;
  let index = at;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if ((code === 10 && (!triple || spec)) || (code === 35 /* # */ && !spec)) return undefined;
    if (code === 125 /* } */ && depth === 0) return index + 1;
    if (spec) {
      if (code === 123) {
        const end = skipField(text, index + 1, triple);
        if (end === undefined) return undefined;
        index = end;
      } else index += 1;
      continue;
    }
    if (code === 34 || code === 39) {
      const end = skipString(text, index);
      if (end === undefined) return undefined;
      index = end;
      continue;
    }
    if (code === 40 || code === 91 || code === 123) depth += 1;
    else if (code === 41 || code === 93 || code === 125) depth -= 1;
    else if (code === 58 /* : */ && depth === 0) {
      if (text.charCodeAt(index + 1) === 61 /* = */ || /\blambda\b/.test(text.slice(at, index))) return undefined;
      spec = true;
    }
    index += 1;
  }
  return undefined;
}

/** The logical lines of a Python text, or undefined when brackets or strings do not close. */
function logicalLines(text: string): LogicalLine[] | undefined {
  const lines: LogicalLine[] = [];
  const length = text.length;
  // A byte-order mark is no code.
  let index = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let depth = 0;
  let current: LogicalLine | undefined;
  let last = 0;
  /** Where `last` is. */
  let lastAt = -1;
  while (index < length) {
    if (current === undefined) {
      // A new logical line: its indentation and first word.
      let first = index;
      while (first < length && (text.charCodeAt(first) === 32 || text.charCodeAt(first) === 9 || text.charCodeAt(first) === 12)) first += 1;
      const code = text.charCodeAt(first);
      let word = '';
      if (isIdentifierStart(code)) {
        let end = first + 1;
        while (end < length && isIdentifierPart(text.charCodeAt(end))) end += 1;
        word = text.slice(first, end);
      }
      const empty = first >= length || code === 10 || code === 13 || code === 35; /* # */
      // tree-sitter skips U+FEFF, U+200B and U+2060 at a line's start (a line of only those does
      // not end a block to it): not read here.
      if (code === 0xfeff || code === 0x200b || code === 0x2060) return undefined;
      // Past ASCII otherwise, such a line starts nothing (regions only grow).
      if (code > 127) word = '';
      current = {
        start: index,
        indent: first - index,
        mayStart: (word !== '' && !continuations.has(word)) || code === 64,
        decorator: code === 64,
        empty,
        opensBlock: false,
        from: word === 'from',
      };
      lines.push(current);
      last = 0;
      index = first;
      continue;
    }
    const code = text.charCodeAt(index);
    if (code === 10) {
      index += 1;
      if (depth === 0) {
        if (endsOpen(text, last, lastAt, current) || fromWithoutImport(text, current, index)) return undefined;
        current.opensBlock = last === 58; /* : */
        current = undefined;
      }
      continue;
    }
    if (code === 92 /* \ */) {
      // A backslash before a newline joins the next line; elsewhere it is code.
      index = pastEscape(text, index);
      continue;
    }
    if (code === 35 /* # */) {
      const newline = text.indexOf('\n', index);
      index = newline < 0 ? length : newline;
      continue;
    }
    if (code === 34 || code === 39) {
      const end = skipString(text, index);
      if (end === undefined) return undefined;
      index = end;
      last = code;
      lastAt = end - 1;
      continue;
    }
    if (code === 40 || code === 91 || code === 123) depth += 1;
    else if (code === 41 || code === 93 || code === 125) {
      depth -= 1;
      if (depth < 0) return undefined;
    }
    if (!isBlank(code)) {
      last = code;
      lastAt = index;
    }
    index += 1;
  }
  if (current) {
    if (endsOpen(text, last, lastAt, current) || fromWithoutImport(text, current, length)) return undefined;
    current.opensBlock = last === 58;
  }
  if (depth !== 0) return undefined;
  // A header's `:` with no deeper line after it: tree-sitter reads on into the next line
  // (`e:` then `needle(1)` is an annotated assignment to it).
  for (let at = 0; at < lines.length; at += 1) {
    if (!lines[at]!.opensBlock) continue;
    let next = at + 1;
    while (next < lines.length && lines[next]!.empty) next += 1;
    if (next >= lines.length || lines[next]!.indent <= lines[at]!.indent) return undefined;
  }
  return lines;
}

/**
 * Whether tree-sitter-python may skip a character as blank space: a form feed or vertical tab, or
 * past ASCII any white space and U+FEFF, U+200B, U+2060 (a header's `:` before one still ends its
 * line: `e:\f` then `x = 1` is an annotated assignment to it).
 */
function isBlank(code: number): boolean {
  if (code === 32 || code === 9 || code === 13 || code === 11 || code === 12) return true;
  return code > 127 && (code === 0xfeff || code === 0x200b || code === 0x2060 || /\s/.test(String.fromCharCode(code)));
}

/** The longest number a word starting with a digit starts with, as tree-sitter-python lexes one. */
const numberStart = /^(?:0[xX][\da-fA-F_]*[lL]?|0[oO][0-7_]*[lL]?|0[bB][01_]*[lL]?|[\d_]*(?:\.[\d_]*)?(?:[eE][+-]?[\d_]+)?[jJlL]?)/;

/** Operators that cannot end a line of Python (nor can `*` but in `import *`, nor `.` but in `...`). */
const openEnds = new Set([...'=+-/%@&|^~<>.'].map((ch) => ch.charCodeAt(0)));
/** Words that cannot end a line of Python (`else` of a conditional expression too). */
const openWords = new Set([
  'not',
  'and',
  'or',
  'in',
  'is',
  'assert',
  'del',
  'lambda',
  'await',
  'if',
  'elif',
  'else',
  'while',
  'for',
  'with',
  'import',
  'from',
  'as',
  'global',
  'nonlocal',
  'class',
  'def',
  'except',
]);

/**
 * Whether a logical line whose last code character is `last` (at `lastAt`) cannot end there: an
 * error to Python, but tree-sitter reads on into the next line (`x =` then `needle(1)`), so
 * regions are not read.
 */
function endsOpen(text: string, last: number, lastAt: number, line: LogicalLine): boolean {
  // A `,` where no trailing comma may stand (`assert a,`, `lambda x,`): tree-sitter reads on. Where
  // one may (`__all__ = 'a',`), the line ends there.
  if (last === 44 /* , */) return /^\s*assert\b|\blambda\b/.test(text.slice(line.start, lastAt));
  if (last === 46 /* . */) return !(text.charCodeAt(lastAt - 1) === 46 && text.charCodeAt(lastAt - 2) === 46);
  if (last === 42 /* * */) return !/\bimport\s*\*$/.test(text.slice(Math.max(0, lastAt - 40), lastAt + 1));
  if (openEnds.has(last)) return true;
  if (!isIdentifierPart(last)) return false;
  let start = lastAt;
  while (start > 0 && isIdentifierPart(text.charCodeAt(start - 1))) start -= 1;
  const word = text.slice(start, lastAt + 1);
  // A number takes no letters but its own (`1j`, `0x1F`, `1e5`): tree-sitter reads a keyword off
  // what follows them (`1as`, `0x1Fin`; not `0xabcdef`).
  if (word.charCodeAt(0) >= 48 && word.charCodeAt(0) <= 57) return openWords.has(word.replace(numberStart, ''));
  return openWords.has(word);
}

/** A `from` line (logical line `line`, ending at `end`) with no `import`: tree-sitter reads on into the next line. */
function fromWithoutImport(text: string, line: LogicalLine, end: number): boolean {
  return line.from && !/\bimport\b/.test(text.slice(line.start, end));
}

/** Whether logical line `at` starts an item at this indentation (the previous one at it is not a decorator). */
function startsItem(lines: readonly LogicalLine[], at: number, indent: number): boolean {
  const line = lines[at]!;
  if (line.empty || line.indent !== indent || !line.mayStart) return false;
  let before = at - 1;
  while (before >= 0 && lines[before]!.empty) before -= 1;
  // A decorator goes with the line after it, whatever the two lines' indentation (tree-sitter
  // takes ` @d` then `def f():` at column 0 as one decorated definition).
  if (before >= 0 && lines[before]!.decorator) return false;
  return true;
}

/** The top-level regions of a Python text, or undefined when its brackets or strings do not close. */
export function pythonRegions(text: string): Region[] | undefined {
  // tree-sitter-python starts a line's column again at a form feed and takes a lone CR for a line
  // break: indentation holding either (or a lone CR anywhere) is not read here.
  if (/\r(?!\n)|^[ \t]*\f[ \t\f]*[^\s#]/m.test(text)) return undefined;
  const lines = logicalLines(text);
  if (!lines) return undefined;
  const regions: Region[] = [];
  let first = 0;
  const close = (end: number, to: number): void => {
    const region: Region = { start: lines[first]?.start ?? 0, end };
    const block = blockOf(text, lines, first, to, end);
    if (block) region.block = block;
    regions.push(region);
  };
  for (let at = 1; at < lines.length; at += 1) {
    if (!startsItem(lines, at, 0)) continue;
    close(lines[at]!.start, at);
    first = at;
  }
  close(text.length, lines.length);
  if (regions.length > 0) regions[0]!.start = 0;
  return regions;
}

/** How many bodies deep blocks are recorded (a method in a class, a block in the method, …). */
const maxNesting = 6;

/**
 * The block of the item made of logical lines [from, to) ending at `end`: a header ending with `:`
 * and a body indented deeper than the header, never less; each member's own block likewise. Every
 * line of the body must begin with the body's indentation exactly (the same spaces and tabs):
 * tree-sitter counts a tab as up to 8 columns, so `\t x` may sit deeper than `  if a:` although
 * it has as many characters.
 */
function blockOf(text: string, lines: readonly LogicalLine[], from: number, to: number, end: number, depth = 0): Block | undefined {
  let header = from;
  while (header < to && (lines[header]!.empty || lines[header]!.decorator)) header += 1;
  if (header >= to || !lines[header]!.opensBlock) return undefined;
  let body = header + 1;
  while (body < to && lines[body]!.empty) body += 1;
  if (body >= to) return undefined;
  const indent = lines[body]!.indent;
  const headerIndentation = text.slice(lines[header]!.start, lines[header]!.start + lines[header]!.indent);
  const indentation = text.slice(lines[body]!.start, lines[body]!.start + indent);
  if (indent <= headerIndentation.length || !indentation.startsWith(headerIndentation)) return undefined;
  const open = lines[header + 1]!.start;
  const members = [open];
  const firstLines = [header + 1];
  for (let at = body; at < to; at += 1) {
    const line = lines[at]!;
    if (line.empty) continue;
    if (line.indent < indent || !text.startsWith(indentation, line.start)) return undefined;
    if (at > body && startsItem(lines, at, indent)) {
      members.push(line.start);
      firstLines.push(at);
    }
  }
  const block: Block = { open, close: end, members };
  // Bodies nested deeper than this are parsed whole (each level reads its lines again).
  if (members.length > 1 && depth < maxNesting) {
    const inner = firstLines.map((first, member) => blockOf(text, lines, first, firstLines[member + 1] ?? to, members[member + 1] ?? end, depth + 1));
    if (inner.some(Boolean)) block.inner = inner;
  }
  return block;
}
