// Top-level regions of a source file, found without parsing, so a structural search parses only
// the regions that hold its literals (tree-sitter's included ranges) instead of the whole file.
// Owns the bracket scanner (strings, comments, template literals, regex literals, C preprocessor
// branches) for the brace languages (Python's indentation scanner is indented-regions.ts).
// region-ranges.ts chooses the regions a search parses; region-trust.ts checks the partial tree.
//
// A region boundary is a line start at bracket depth 0 whose line begins, at column 0, with an
// identifier character, `#`, `@` or a comment, right after a `}` or `;`: the end of one top-level
// item and the start of the next. Boundaries may be missed (regions merge: still correct, only
// larger); a wrong one needs a `;` or `}` at depth 0 inside an item, which the scanner's
// accounting of strings and comments rules out in code that parses. A file whose brackets do not
// balance (a preprocessor branch that opens a block twice, a misread regex) has no regions and is
// parsed whole.
import { pythonRegions } from './indented-regions.js';

export interface RegionSyntax {
  /** C's `#` lines: skipped, and `#if`/`#else`/`#endif` branches counted once. */
  preprocessor: boolean;
  /** `'x'` is a character literal (else `'` is only JavaScript's string quote). */
  charLiterals: boolean;
  /** Go's raw strings in backquotes. */
  rawBackquote: boolean;
  /** JavaScript's template literals with `${…}` and its regex literals. */
  javascript: boolean;
  /** Java's text blocks `"""…"""`. */
  textBlocks: boolean;
  /** C++: raw strings `R"d(…)d"`, digit separators `1'000`, and `requires` blocks that go on. */
  cpp?: boolean;
  /** Python: items by indentation (indented-regions.ts), not brackets. */
  indentation?: boolean;
  /** JavaScript: a file with `</` or `/>` may hold JSX, whose text is not code: no regions. */
  jsx?: boolean;
}

const c: RegionSyntax = { preprocessor: true, charLiterals: true, rawBackquote: false, javascript: false, textBlocks: false };
const cpp: RegionSyntax = { ...c, cpp: true };
const ts: RegionSyntax = { preprocessor: false, charLiterals: false, rawBackquote: false, javascript: true, textBlocks: false };
const js: RegionSyntax = { ...ts, jsx: true };

const syntaxes: ReadonlyMap<string, RegionSyntax> = new Map([
  ['c', c],
  ['cpp', cpp],
  // JavaScript files holding JSX are parsed whole (JSX text is no code: `Don't`, `//` in it);
  // TSX always is.
  ['javascript', js],
  ['typescript', ts],
  ['java', { preprocessor: false, charLiterals: true, rawBackquote: false, javascript: false, textBlocks: true }],
  ['go', { preprocessor: false, charLiterals: true, rawBackquote: true, javascript: false, textBlocks: false }],
  ['python', { preprocessor: false, charLiterals: false, rawBackquote: false, javascript: false, textBlocks: false, indentation: true }],
]);

/** The scanner's syntax for a language; undefined where regions are not found (files parse whole). */
export function regionSyntax(language: string): RegionSyntax | undefined {
  return syntaxes.get(language);
}

const NEWLINE = 10;
const SLASH = 47;
const STAR = 42;
const BACKSLASH = 92;

function isIdentifierStart(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95 || code === 36 || code > 127;
}

export function isIdentifierPart(code: number): boolean {
  return isIdentifierStart(code) || (code >= 48 && code <= 57);
}

/** Words that go on with the statement before them (`} else {`, `}\nfrom "x";`), not start an item. */
const continuations = new Set(['else', 'catch', 'finally', 'while', 'as', 'satisfies', 'extends', 'implements', 'in', 'instanceof', 'from']);

/** Code (not a comment) at `at` may start an item: an identifier (not a continuation), a preprocessor line or a decorator. */
function codeMayStartItem(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  // Past ASCII, a line may start with whitespace the grammars skip (U+00A0, U+200B, U+FEFF…): no
  // cut there (regions only grow).
  if (code > 127) return false;
  if (isIdentifierStart(code)) {
    let end = at + 1;
    while (end < text.length && isIdentifierPart(text.charCodeAt(end))) end += 1;
    return !continuations.has(text.slice(at, end));
  }
  return code === 35 /* # */ || code === 64; /* @ */
}

/** Where the code after the comments and blank space at `at` starts (the text's length when none follows). */
function pastComments(text: string, at: number, preprocessor: boolean): number {
  let index = at;
  for (;;) {
    const code = text.charCodeAt(index);
    if (code === 32 || code === 9 || code === 13 || code === NEWLINE || code === 12) index += 1;
    else if (code === SLASH && text.charCodeAt(index + 1) === SLASH) index = preprocessor ? skipLogicalLine(text, index) : text.indexOf('\n', index);
    else if (code === SLASH && text.charCodeAt(index + 1) === STAR) {
      const end = text.indexOf('*/', index + 2);
      index = end < 0 ? -1 : end + 2;
    } else return index;
    if (index < 0) return text.length;
  }
}

/**
 * Whether a line starting at `at` (its first character) may start a new top-level item or member:
 * code that may (codeMayStartItem), or a comment followed, past comments and blank lines, by such
 * code (a comment between `}` and `else`, or before `.then()`, sits inside the statement). The
 * look past a run of comment lines is remembered, so a long comment block is read once.
 */
function itemStarts(text: string, preprocessor: boolean): (at: number) => boolean {
  let from = -1;
  let to = -1;
  return (at: number): boolean => {
    const code = text.charCodeAt(at);
    if (code !== SLASH) return codeMayStartItem(text, at);
    const next = text.charCodeAt(at + 1);
    if (next !== SLASH && next !== STAR) return false;
    if (!(at > from && at < to)) {
      from = at;
      to = pastComments(text, at, preprocessor);
    }
    return to < text.length && codeMayStartItem(text, to);
  };
}

/** Characters after which `/` starts a regex literal (a `!`, `+` or `-` only as an operator on what follows). */
const beforeRegex = new Set([...'(,=:[!&|?{};+-*%<>~^'].map((ch) => ch.charCodeAt(0)));
/** Keywords after which `/` starts a regex literal (not after a `.`: there they are property names). */
const keywordsBeforeRegex = new Set(['return', 'typeof', 'instanceof', 'in', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'default', 'extends']);
/** Words that may be keywords before a regex or names before a division (`let of = 4; of / 2`). */
const eitherWords = new Set(['of', 'yield', 'await', 'let', 'async', 'get', 'set', 'static']);

/** Whether the code before `at` (past blank space) is a `.`: the word at `at` is a property's name. */
function afterDot(text: string, at: number): boolean {
  let index = at - 1;
  while (index >= 0 && /\s/.test(text.charAt(index))) index -= 1;
  return text.charCodeAt(index) === 46 && text.charCodeAt(index - 1) !== 46; /* `.`, not a spread's `...` */
}

/**
 * Whether the word at `at`, looked at backwards, is surely read as a keyword: not after a `.`, a
 * `#` (a private name), nor a `/` (the end of a comment that may follow a `.`: not known here).
 */
function readAsKeyword(text: string, at: number): boolean {
  let index = at - 1;
  while (index >= 0 && /\s/.test(text.charAt(index))) index -= 1;
  const code = text.charCodeAt(index);
  return code !== 35 && code !== 47 && !afterDot(text, at);
}

/** The identifier ending just before `at` (past blank space), or ''. */
function previousWord(text: string, at: number): string {
  let end = at;
  while (end > 0 && /\s/.test(text.charAt(end - 1))) end -= 1;
  return text.slice(wordBefore(text, end), end);
}

/** The end of a quoted string or character literal starting at `at` (its quote); strings end at a bare newline. */
function skipQuoted(text: string, at: number, quote: number): number {
  let index = at + 1;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    // A backslash escapes the next character, or a CRLF line break as a whole.
    if (code === BACKSLASH) index += text.charCodeAt(index + 1) === 13 && text.charCodeAt(index + 2) === NEWLINE ? 3 : 2;
    else if (code === quote) return index + 1;
    else if (code === NEWLINE) return index;
    else index += 1;
  }
  return text.length;
}

/** Directives whose rest the C grammars read as tokens (a path, an expression), quotes included. */
const tokenDirectives = new Set(['include', 'if', 'elif']);
/** Of those, the ones whose `<…>` is one token (a path). (`#import` and `#include_next` are raw to the bundled grammars.) */
const pathDirectives = new Set(['include']);
/** A directive's `#` and name where tree-sitter-c lexes one, anywhere on a line. */
const directiveAnywhere = /^#[ \t]*(?:define|include|include_next|import|if|ifdef|ifndef|elif|elifdef|elifndef|else|endif|undef|pragma|error|warning|line)\b/;

/**
 * The end of the C preprocessor line `directive` starting at `at`, or -1 when it is not read here
 * (no regions). Token directives: strings, character literals (a digit separator aside), a
 * `<…>` path, comments, backslash continuations. The rest of any other directive (`#define`,
 * `#error`, `#pragma`…) is one raw token to tree-sitter-c, `\S([^/\n]|\/[^*]|\\\r?\n)*`: quotes
 * hold nothing, a `/` takes the next character with it (a line break too, so the directive goes
 * on), a `//` is part of it and only a block comment's opening ends it.
 */
function skipDirective(text: string, at: number, directive: string): number {
  const tokens = tokenDirectives.has(directive);
  const rest = operandAfter(text, at, directive);
  if (rest === undefined) return -1;
  let index = at;
  /** A `//` was seen in a raw directive. */
  let lineComment = false;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code === NEWLINE) {
      // Blank space ending a directive that is no raw token: the grammar skips the line break
      // with it and reads on (`#endif\t` then code).
      let before = index - 1;
      if (text.charCodeAt(before) === 13) before -= 1;
      if (tokens || bareDirectives.has(directive) || nameDirectives.has(directive)) {
        const last = text.charCodeAt(before);
        if (last === 32 || last === 9) return -1;
      }
      return index;
    }
    if (code === BACKSLASH && (text.charCodeAt(index + 1) === NEWLINE || (text.charCodeAt(index + 1) === 13 && text.charCodeAt(index + 2) === NEWLINE)))
      index += text.charCodeAt(index + 1) === 13 ? 3 : 2;
    else if (code === SLASH && text.charCodeAt(index + 1) === STAR) {
      const end = text.indexOf('*/', index + 2);
      // After a `//` the grammar may have read a comment to the line's end instead: the two
      // readings agree only when the block comment ends on this line.
      const newline = text.indexOf('\n', index);
      if (lineComment && (end < 0 || (newline >= 0 && end > newline))) return -1;
      index = end < 0 ? text.length : end + 2;
    } else if (!tokens) {
      if (code === SLASH) {
        const next = text.charCodeAt(index + 1);
        // Whether a `/` takes a line break or a backslash with it depends on whether it starts
        // the raw token (`\S` does not take the next character): not read here.
        if (next === NEWLINE || next === 13 || next === BACKSLASH) return -1;
        if (next === SLASH) lineComment = true;
        index += 2;
      } else index += 1;
    } else if (code === BACKSLASH)
      return -1; // not before a line break: not read here
    else if (code === SLASH && text.charCodeAt(index + 1) === SLASH) return skipLogicalLine(text, index);
    else if (code === 34) index = skipQuoted(text, index, code);
    else if (code === 39) index = isDigitSeparator(text, index) ? index + 1 : skipQuoted(text, index, code);
    else if (code === 60 /* < */ && pathDirectives.has(directive)) {
      const close = text.indexOf('>', index);
      const newline = text.indexOf('\n', index);
      index = close >= 0 && (newline < 0 || close < newline) ? close + 1 : index + 1;
    } else index += 1;
  }
  return text.length;
}

/** Directives that go on or end an `#if`. */
const branchDirectives = new Set(['elif', 'elifdef', 'elifndef', 'else', 'endif']);

/** Directives that take no operand. */
const bareDirectives = new Set(['else', 'endif']);
/** Directives whose operand is one name, the rest of the line being code to tree-sitter-c. */
const nameDirectives = new Set(['ifdef', 'ifndef', 'elifdef', 'elifndef', 'undef']);

/**
 * Whether the directive at `at` (its `#`) reads here as tree-sitter-c reads it: undefined when it
 * does not. A directive that needs an operand and has none on its line (past blank space and
 * backslash continuations) takes one from the next non-blank line; after `#ifdef NAME` anything
 * but a comment is code on that line.
 */
function operandAfter(text: string, at: number, directive: string): true | undefined {
  // A null directive (`#` alone, `# 1 "file"`): not read here.
  if (directive === '') return undefined;
  const name = text.indexOf(directive, at) + directive.length;
  let index = name;
  if (bareDirectives.has(directive)) {
    // `#else`, `#endif`: only blank space and comments may follow on the line (code after them,
    // or a backslash going on to the next line, is read otherwise by the grammar).
    for (;;) {
      const code = text.charCodeAt(index);
      if (code === 32 || code === 9 || code === 13) index += 1;
      else if (code === SLASH && text.charCodeAt(index + 1) === STAR) {
        const end = text.indexOf('*/', index + 2);
        const newline = text.indexOf('\n', index);
        if (end < 0 || (newline >= 0 && end > newline)) return true;
        index = end + 2;
      } else return index >= text.length || code === NEWLINE || (code === SLASH && text.charCodeAt(index + 1) === SLASH) ? true : undefined;
    }
  }
  const blank = (): void => {
    for (;;) {
      const code = text.charCodeAt(index);
      if (code === 32 || code === 9 || code === 11 || code === 12 || code === 13) index += 1;
      else if (code === BACKSLASH && (text.charCodeAt(index + 1) === NEWLINE || (text.charCodeAt(index + 1) === 13 && text.charCodeAt(index + 2) === NEWLINE)))
        index += text.charCodeAt(index + 1) === 13 ? 3 : 2;
      else return;
    }
  };
  blank();
  // No operand on the line (a comment first counts as none): the grammar takes the next line's.
  if (
    index >= text.length ||
    text.charCodeAt(index) === NEWLINE ||
    (text.charCodeAt(index) === SLASH && (text.charCodeAt(index + 1) === SLASH || text.charCodeAt(index + 1) === STAR))
  )
    return undefined;
  if (directive === 'define') {
    // After the macro's name (and parameters), blank space and no value: the grammar skips the
    // line break too and takes its value from the next line.
    while (index < text.length && isIdentifierPart(text.charCodeAt(index))) index += 1;
    if (text.charCodeAt(index) === 40 /* ( */) {
      const close = text.indexOf(')', index);
      if (close < 0) return undefined;
      index = close + 1;
    }
    const valueAt = index;
    blank();
    const code = text.charCodeAt(index);
    return index > valueAt && (index >= text.length || code === NEWLINE) ? undefined : true;
  }
  if (!nameDirectives.has(directive)) return true;
  while (index < text.length && isIdentifierPart(text.charCodeAt(index))) index += 1;
  blank();
  const code = text.charCodeAt(index);
  return index >= text.length || code === NEWLINE || (code === SLASH && (text.charCodeAt(index + 1) === SLASH || text.charCodeAt(index + 1) === STAR))
    ? true
    : undefined;
}

/** The end of a line, past backslash continuations. */
function skipLogicalLine(text: string, at: number): number {
  let index = at;
  for (;;) {
    const newline = text.indexOf('\n', index);
    if (newline < 0) return text.length;
    let back = newline - 1;
    if (text.charCodeAt(back) === 13) back -= 1;
    if (text.charCodeAt(back) !== BACKSLASH) return newline;
    index = newline + 1;
  }
}

/** Where the run of identifier characters that ends just before `at` starts (`at` when none). */
function wordBefore(text: string, at: number): number {
  let start = at;
  while (start > 0 && isIdentifierPart(text.charCodeAt(start - 1))) start -= 1;
  return start;
}

/** The C++ raw string starting at `at` (its `"`, after `R`, `LR`, `uR`, `UR` or `u8R`): its end, or -1 when it is not one. */
function skipRawString(text: string, at: number): number {
  if (!/^(?:|L|u|U|u8)R$/.test(text.slice(wordBefore(text, at), at))) return -1;
  const open = text.indexOf('(', at + 1);
  if (open < 0 || open - at - 1 > 16) return -1;
  const close = text.indexOf(`)${text.slice(at + 1, open)}"`, open + 1);
  return close < 0 ? text.length : close + open - at + 1;
}

/**
 * Whether the `'` at `at` separates digits (C++14 and C23 `1'000`, `0xFFFF'FFFF`, `1'0.5'0`), not
 * opens a character literal: the number it is in (back over letters, digits, `.` and earlier
 * separators) starts with a digit.
 */
function isDigitSeparator(text: string, at: number): boolean {
  let start = at;
  for (;;) {
    const code = text.charCodeAt(start - 1);
    if (start > 0 && (isIdentifierPart(code) || code === 46 /* . */ || code === 39)) start -= 1;
    else break;
  }
  // A number may start with its point (`.5'0`).
  if (text.charCodeAt(start) === 46 && start + 1 < at) start += 1;
  const code = text.charCodeAt(start);
  return start < at && code >= 48 && code <= 57;
}

/** The end of a Java text block starting at `at` (its `"""`): the next `"""` not escaped. */
function skipTextBlock(text: string, at: number): number {
  for (let from = at + 3; ;) {
    const end = text.indexOf('"""', from);
    if (end < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return end + 3;
    from = end + 1;
  }
}

/** Words before a `(` after whose `)` a `/` starts a regex literal (`if (ok) /x/.test(s)`). */
const controlWords = new Set(['if', 'while', 'for', 'with']);

/**
 * Whether a C or C++ item goes on after the block that this header opens. Only a function body
 * (the header ends with `)` and qualifiers, `-> T` or `try`), a namespace or an `extern "C"` block
 * ends its item at the `}`; anything else (a struct, class, union or enum definition, an
 * initializer, a typedef, a requires-clause, a header too long to read) waits for the `;`.
 */
function itemGoesOn(header: string): boolean {
  if (header.length > 2_000) return true;
  // Comments (a `//` one goes on past a backslash at the line's end) and preprocessor lines aside.
  const code = header.replace(/\/\*[^]*?\*\/|\/\/(?:\\\r?\n|[^\n])*|^[ \t]*#[^\n]*/gm, ' ').trim();
  if (/(?:^|[\s;])(?:inline\s+)?namespace(?:\s+[\w:]+)?$/.test(code) || /\bextern\s*"[^"]*"$/.test(code)) return false;
  if (/\b(?:typedef|requires)\b|=/.test(code)) return true;
  // `struct __attribute__((packed))`, `struct alignas(8)`, `struct s __aligned(8)`: a type's
  // header ending in an attribute's `)`, not a function's (attributes are read past; a word
  // right after the keyword, then parentheses, is taken for one too).
  const bare = code.replace(/\b(?:__attribute__|__declspec|alignas|_Alignas|__aligned)\s*\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)/g, ' ').trim();
  if (/\b(?:struct|union|class|enum)\s+\w+\s*\([^]*\)$/.test(bare)) return true;
  const close = bare.lastIndexOf(')');
  if (close < 0) return true;
  return !/^(?:\s|const\b|volatile\b|noexcept\b|override\b|final\b|try\b|&|->[^]*)*$/.test(bare.slice(close + 1));
}

/**
 * Whether [start, end) reads alike as a regex's text and as code: no quote, no `/` (as code it
 * may open a comment), brackets that balance.
 */
function readsAlike(text: string, start: number, end: number): boolean {
  let depth = 0;
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index);
    if (code === 34 || code === 39 || code === 96 || code === SLASH) return false;
    if (code === 40 || code === 91 || code === 123) depth += 1;
    else if (code === 41 || code === 93 || code === 125) {
      depth -= 1;
      if (depth < 0) return false;
    }
  }
  return depth === 0;
}

/** The end of a regex literal starting at `at` (its `/`), or -1 when none ends on this line. */
function skipRegex(text: string, at: number): number {
  let index = at + 1;
  let inClass = false;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code === NEWLINE) return -1;
    if (code === BACKSLASH) {
      // A regex holds no line break, escaped or not.
      const next = text.charCodeAt(index + 1);
      if (next === NEWLINE || next === 13) return -1;
      index += 2;
    } else {
      if (code === 91 /* [ */) inClass = true;
      else if (code === 93 /* ] */) inClass = false;
      else if (code === SLASH && !inClass) return index + 1;
      index += 1;
    }
  }
  return -1;
}

/**
 * A block of a region: `header { members } trailer` with a trailer of at most `;` and no
 * preprocessor line inside, or Python's `header:` and indented body: `open` just after the `{`
 * (after the header's line), `close` at the `}` (the region's end), and the start of each member
 * (the first at `open`), found as top-level items are but at any indentation.
 */
export interface Block {
  open: number;
  close: number;
  members: number[];
  /** Python: the block of each member that is itself a `header:` with an indented body. */
  inner?: Array<Block | undefined>;
}

/** A top-level region: [start, end) in UTF-16 units. */
export interface Region {
  start: number;
  end: number;
  /** Its one block, when it has one. */
  block?: Block;
}

/** The top-level regions of a file, in order, or undefined when the brackets do not balance. */
export function topLevelRegions(text: string, syntax: RegionSyntax): Region[] | undefined {
  if (syntax.indentation) return pythonRegions(text);
  if (syntax.jsx && (text.includes('</') || text.includes('/>'))) return undefined;
  const regions: Region[] = [];
  const length = text.length;
  const mayStartItem = itemStarts(text, syntax.preprocessor);
  let depth = 0;
  /** For each open `${` of a template literal: the depth inside it. */
  const templates: number[] = [];
  /** For each open `#if`: the depth at it (an `#else` branch starts from it again). */
  const branches: number[] = [];
  /** The last character of code (not comment or space); 0 before any. */
  let last = 0;
  /** Where `last` is (a `+` or `-` right after another is a postfix `++`/`--`). */
  let lastAt = -1;
  // Where the last `}` followed on its line by a comment is (JavaScript).
  let braceCommentAt = -2;
  /** JavaScript: where the last code token starts when it is a word (it ends at `lastAt`); -1 when it is none. */
  let lastWordStart = -1;
  /** JavaScript: that word follows a `.` (not a spread's `...`) or a `#` (past comments): a property or private name, never a keyword. */
  let lastWordIsName = false;
  /** For each open `(`: whether `if`, `while`, `for` or `with` came before it (then a `/` after its `)` starts a regex). */
  const parens: boolean[] = [];
  let controlParenClosed = false;
  /** Slashes tried as regexes on the line of the last one (a line of many is not read here). */
  let slashTries = 0;
  /** The line of the last `/` checked: a slash whose line goes on with a backquote or `/*` gives up. */
  let slashLineEnd = -1;
  /** A template literal or block comment ran to the end of the text. */
  let unterminated = false;
  // A byte-order mark is no code; nor is a JavaScript file's `#!` line.
  let index = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  if (syntax.javascript && text.startsWith('#!', index)) {
    const newline = text.indexOf('\n', index);
    index = newline < 0 ? length : newline;
  }
  let lineStart = true;
  // C and C++: a block whose item goes on after its `}` (a struct or enum definition, an
  // initializer, a typedef, a C++ requires-clause) ends nothing; where this statement's header
  // starts; whether the region has a `;` at depth 0 (then a `{` at depth 0 is a K&R definition's
  // body, cut from its header: no regions).
  let blockGoesOn = false;
  let headerFrom = 0;
  let regionSemicolon = false;
  // The region being scanned and its block: 'none' before a `{` at depth 0, 'open' inside it,
  // 'closed' after it, 'no' once it cannot be descended into.
  let regionStart = 0;
  let blockState: 'none' | 'open' | 'closed' | 'no' = 'none';
  let open = 0;
  let close = 0;
  let members: number[] = [];

  const endRegion = (end: number): void => {
    const region: Region = { start: regionStart, end };
    if (blockState === 'closed') region.block = { open, close, members };
    regions.push(region);
    regionStart = end;
    blockState = 'none';
    members = [];
    headerFrom = end;
    regionSemicolon = false;
  };

  /**
   * What a `/` (not a comment) is after the code before it: 'regex' after an operator, an opening
   * bracket, a keyword or a control statement's `)`; 'division' after a name, a number, a string,
   * a `)` or a `]`; undefined where it may be either (`}` of a block or of an object literal, a
   * non-null `x!`, `++`, `--`, `of`, `await`, `yield`, a `.`…).
   */
  const slashReading = (): 'regex' | 'division' | undefined => {
    if (last === 0) return 'regex';
    if (lastWordStart >= 0) {
      if (lastWordIsName) return 'division';
      const lastWord = text.slice(lastWordStart, lastAt + 1);
      if (keywordsBeforeRegex.has(lastWord)) return 'regex';
      return eitherWords.has(lastWord) ? undefined : 'division';
    }
    if (last === 41 /* ) */) return controlParenClosed ? 'regex' : 'division';
    if (last === 93 /* ] */ || last === 34 || last === 39 || last === 96 || (last >= 48 && last <= 57)) return 'division';
    if (last === 43 || last === 45) return text.charCodeAt(lastAt - 1) === last ? undefined : 'regex'; /* ++ -- */
    if (last === 33 /* ! */) {
      // A prefix `!` (or `!!`) after an operator or a keyword; after an operand, TypeScript's
      // non-null `x!` (or `x!!`).
      let before = lastAt - 1;
      while (before >= 0 && (/\s/.test(text.charAt(before)) || text.charCodeAt(before) === 33)) before -= 1;
      const word = previousWord(text, before + 1);
      if (word !== '' && /^[\w$]/.test(word)) return keywordsBeforeRegex.has(word) && readAsKeyword(text, before + 1 - word.length) ? 'regex' : undefined;
      return /[)\]"'`}/>]/.test(text.charAt(before)) ? undefined : 'regex';
    }
    // TypeScript: `f<T> / 2` is an instantiation expression divided (not after `=>`).
    if (last === 62 /* > */ && !syntax.jsx && text.charCodeAt(lastAt - 1) !== 61) return undefined;
    if (last === 125 /* } */) return undefined;
    return beforeRegex.has(last) ? 'regex' : undefined;
  };

  /** Scans a template literal's text from `at` (after its backquote or a `}`); returns where code resumes. */
  const template = (at: number): number => {
    let position = at;
    while (position < length) {
      const code = text.charCodeAt(position);
      if (code === BACKSLASH) position += 2;
      else if (code === 96 /* ` */) {
        last = 96;
        lastAt = position;
        return position + 1;
      } else if (code === 36 /* $ */ && text.charCodeAt(position + 1) === 123 /* { */) {
        depth += 1;
        templates.push(depth);
        // A `/` first in the field starts a regex, as after any `{`.
        last = 123;
        lastAt = position + 1;
        return position + 2;
      } else position += 1;
    }
    unterminated = true;
    return length;
  };

  while (index < length) {
    if (lineStart) {
      lineStart = false;
      const itemEnded = templates.length === 0 && ((last === 125 /* } */ && !blockGoesOn && braceCommentAt !== lastAt) || last === 59); /* ; */
      if (depth === 0 && itemEnded && index > regionStart && mayStartItem(index)) endRegion(index);
      let first = index;
      while (first < length && (text.charCodeAt(first) === 32 || text.charCodeAt(first) === 9)) first += 1;
      // A form feed or vertical tab before a directive: not read here.
      if (syntax.preprocessor && (text.charCodeAt(first) === 12 || text.charCodeAt(first) === 11)) return undefined;
      // HTML-like comments (`<!--` in code, `-->` at a line's start) are comments to the grammars.
      if (syntax.javascript && text.startsWith('-->', first)) return undefined;
      // In C and C++ a member ends only at a `;` (a nested struct or typedef may go on after its `}`).
      const memberEnded = syntax.preprocessor ? templates.length === 0 && last === 59 : itemEnded;
      if (depth === 1 && blockState === 'open' && memberEnded && index > members[members.length - 1]! && mayStartItem(first)) members.push(index);
      if (syntax.preprocessor && text.charCodeAt(first) === 35 /* # */) {
        const directive = /^#[ \t]*(\w+)/.exec(text.slice(first, first + 32))?.[1] ?? '';
        // An `#elif`, `#else` or `#endif` with no `#if` open is a raw directive to tree-sitter-c
        // (`#elif x/` takes the line break with its `/`): not read here.
        if (branchDirectives.has(directive) && branches.length === 0) return undefined;
        if (directive === 'if' || directive === 'ifdef' || directive === 'ifndef') branches.push(depth);
        else if (directive.startsWith('el') && branches.length > 0) depth = branches[branches.length - 1]!;
        else if (directive === 'endif') branches.pop();
        if (depth > 0 || blockState === 'closed') blockState = 'no';
        index = skipDirective(text, first, directive);
        if (index < 0) return undefined;
        continue;
      }
    }
    const code = text.charCodeAt(index);
    if (code === NEWLINE) {
      // TypeScript: `f<T>` ending a line may be an instantiation expression (then a new
      // statement) or a comparison going on: tree-sitter's choice may depend on what precedes.
      if (syntax.javascript && last === 62 && /[\w$\]>]/.test(text.charAt(lastAt - 1))) return undefined;
      index += 1;
      lineStart = true;
      continue;
    }
    if (code === 32 || code === 9 || code === 13) {
      index += 1;
      continue;
    }
    if (code === SLASH) {
      const next = text.charCodeAt(index + 1);
      // JavaScript: a comment on the line of a `}` may belong inside the block the `}` closes
      // (tree-sitter-javascript gives it to the block when a statement follows): the item goes on.
      if (syntax.javascript && last === 125 && (next === SLASH || next === STAR) && !text.slice(lastAt + 1, index).includes('\n')) braceCommentAt = lastAt;
      if (next === SLASH) {
        // In C a backslash at the end of a `//` comment carries it on to the next line.
        const newline = syntax.preprocessor ? skipLogicalLine(text, index) : text.indexOf('\n', index);
        index = newline < 0 ? length : newline;
        continue;
      }
      if (next === STAR) {
        const end = text.indexOf('*/', index + 2);
        if (end < 0) unterminated = true;
        index = end < 0 ? length : end + 2;
        continue;
      }
      // Regex or division is a guess: where the guess could open or close a template literal or
      // a block comment spanning lines (a backquote or `/*` later on the line), regions are not
      // worth the risk.
      if (syntax.javascript && index >= slashLineEnd) {
        const newline = text.indexOf('\n', index);
        slashLineEnd = newline < 0 ? length : newline;
        const rest = text.slice(index, slashLineEnd);
        if (rest.includes('`') || rest.includes('/*')) return undefined;
        slashTries = 0;
      }
      if (syntax.javascript) {
        // A long line of slashes is not read here (each try reads on to the line's end).
        if (++slashTries > 64) return undefined;
        const end = skipRegex(text, index);
        if (end > 0) {
          const reading = slashReading();
          // Where the two readings differ on the code between (a quote, a `/`, brackets that do
          // not balance), only a certain reading will do.
          if (reading === undefined && !readsAlike(text, index + 1, end - 1)) return undefined;
          if (reading !== 'division') {
            index = end;
            last = SLASH;
            lastAt = end - 1;
            lastWordStart = -1;
            continue;
          }
        }
      }
    }
    // Code after the block other than `;` (a declarator, a second block): not descended into.
    if (depth === 0 && blockState === 'closed' && code !== 59) blockState = 'no';
    if (isIdentifierStart(code)) {
      let end = index + 1;
      while (end < length && isIdentifierPart(text.charCodeAt(end))) end += 1;
      // Sliced only where it is read (before a `/` or a `(`): most words are not.
      if (syntax.javascript) {
        lastWordStart = index;
        lastWordIsName = (last === 46 /* . */ && text.charCodeAt(lastAt - 1) !== 46) || last === 35; /* # */
      }
      last = code;
      lastAt = end - 1;
      index = end;
      continue;
    }
    if (syntax.javascript && code === 60 /* < */ && text.startsWith('!--', index + 1)) return undefined;
    // `-->` after code on its line (`x --> 0`, `throw-->`): the grammar's HTML-like comment may take it.
    if (syntax.javascript && code === 45 /* - */ && text.startsWith('-->', index)) return undefined;
    // tree-sitter-c lexes a directive after code or a comment on its line too: not read here.
    if (syntax.preprocessor && code === 35 && directiveAnywhere.test(text.slice(index, index + 40))) return undefined;
    const wordBeforeStart = lastWordStart;
    const wordBeforeIsName = lastWordIsName;
    const wordBeforeEnd = lastAt + 1;
    lastWordStart = -1;
    lastAt = index;
    if (code === 34 /* " */) {
      const start = index;
      const raw = syntax.cpp ? skipRawString(text, index) : -1;
      if (raw >= 0) index = raw;
      else if (syntax.textBlocks && text.startsWith('"""', index)) index = skipTextBlock(text, index);
      else index = skipQuoted(text, index, code);
      // Java's string templates (`STR."…\{x}…"`) may hold strings of their own: not read here.
      if (syntax.textBlocks && text.slice(start, index).includes('\\{')) return undefined;
      last = code;
      continue;
    }
    if (code === 39 /* ' */ && (syntax.charLiterals || syntax.javascript)) {
      index = syntax.preprocessor && isDigitSeparator(text, index) ? index + 1 : skipQuoted(text, index, code);
      last = code;
      continue;
    }
    if (code === 96 /* ` */ && (syntax.rawBackquote || syntax.javascript)) {
      if (syntax.javascript) index = template(index + 1);
      else {
        const end = text.indexOf('`', index + 1);
        index = end < 0 ? length : end + 1;
        last = code;
      }
      continue;
    }
    if (code === 123 /* { */ || code === 40 /* ( */ || code === 91 /* [ */) {
      if (code === 123 && depth === 0 && syntax.preprocessor) {
        if (regionSemicolon) return undefined;
        blockGoesOn = itemGoesOn(text.slice(headerFrom, index));
      }
      if (code === 123 && depth === 0 && blockState === 'none') {
        blockState = 'open';
        open = index + 1;
        members = [open];
      }
      // `if (…)`, `for await (…)`, not a method named `if` (`obj.if(a) / 2`).
      if (code === 40) {
        const wordBefore = wordBeforeStart >= 0 ? text.slice(wordBeforeStart, wordBeforeEnd) : '';
        parens.push(
          wordBefore !== '' && !wordBeforeIsName && (controlWords.has(wordBefore) || (wordBefore === 'await' && previousWord(text, wordBeforeStart) === 'for')),
        );
      }
      depth += 1;
    } else if (code === 125 /* } */ || code === 41 /* ) */ || code === 93 /* ] */) {
      if (code === 125 && templates.length > 0 && templates[templates.length - 1] === depth) {
        templates.pop();
        depth -= 1;
        index = template(index + 1);
        continue;
      }
      depth -= 1;
      if (depth < 0) return undefined;
      if (code === 41) controlParenClosed = parens.pop() ?? false;
      if (depth === 0 && code === 125) headerFrom = index + 1;
      if (depth === 0 && blockState === 'open') {
        if (code === 125) {
          blockState = 'closed';
          close = index;
        } else blockState = 'no';
      }
    }
    if (code === 59 /* ; */ && depth === 0) {
      headerFrom = index + 1;
      regionSemicolon = true;
      blockGoesOn = false;
    }
    last = code;
    index += 1;
  }
  if (depth !== 0 || templates.length > 0 || unterminated) return undefined;
  endRegion(length);
  return regions;
}
