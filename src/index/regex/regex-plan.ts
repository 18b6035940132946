// From a regular expression to the literals every match must contain (Russ Cox, "Regular
// Expression Matching with a Trigram Index"): an AND/OR query over literal strings, computed on
// the regexpp syntax tree. For each node we know either its exact set of matched strings (when it
// is small) or only a query its matches satisfy; sequences join exact sets into longer literals.
// Literals keep their case for a case-sensitive query (they also prefilter lines, byte for byte)
// and are ASCII-folded under -i; the index folds both the same way when it looks them up. The
// query is sound: a file it excludes cannot hold a match.
import { RegExpParser, type AST } from '@eslint-community/regexpp';
import { checkRegex } from '../../base/pattern-limits.js';
import { all, and, or, type Query } from './query.js';

interface Info {
  /** Every string the node can match (folded), when there are few: null when unknown or too many. */
  exact: string[] | null;
  /** What a match of the node must satisfy beyond `exact`. */
  query: Query;
}

const maxExact = 16;
/** A run of exact strings is ended (kept as a literal every match holds) once this long: longer says little more to the index. */
const maxRunLength = 256;

/** Whether -i matching can equate this character with one the index folds differently. */
function foldsBeyondAscii(character: string): boolean {
  if (character.codePointAt(0)! > 0x7f) return character.toLowerCase() !== character.toUpperCase();
  return /[ksKS]/.test(character);
}

function foldText(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

/**
 * A literal every match contains. Under three bytes the index cannot look it up (it answers
 * "any file"), but it still prefilters lines; the empty string says nothing at all.
 */
function literal(text: string): Query {
  return text === '' ? all : { op: 'literal', text };
}

/** Whether the index can look a literal up (it has at least one trigram). */
export function indexable(text: string): boolean {
  return Buffer.byteLength(text, 'utf8') >= 3;
}

function exactQuery(strings: string[]): Query {
  return or(...strings.map(literal));
}

/** Everything known about a node as one query. */
function asQuery(info: Info): Query {
  return info.exact ? and(info.query, exactQuery(info.exact)) : info.query;
}

const unknown: Info = { exact: null, query: all };
const empty: Info = { exact: [''], query: all };

class Planner {
  constructor(private readonly ignoreCase: boolean) {}

  private character(codePoint: number): Info {
    const text = String.fromCodePoint(codePoint);
    // Under -i, letters whose case folding leaves ASCII say nothing: non-ASCII letters, and k and
    // s (the Kelvin sign and the long s fold to them).
    if (this.ignoreCase && foldsBeyondAscii(text)) return unknown;
    return { exact: [this.ignoreCase ? foldText(text) : text], query: all };
  }

  private characterClass(node: AST.CharacterClass): Info {
    if (node.negate) return unknown;
    const strings = new Set<string>();
    for (const element of node.elements) {
      if (element.type === 'Character') {
        const info = this.character(element.value);
        if (!info.exact) return unknown;
        info.exact.forEach((text) => strings.add(text));
      } else if (element.type === 'CharacterClassRange') {
        if (element.max.value - element.min.value > 8) return unknown;
        for (let code = element.min.value; code <= element.max.value; code++) {
          const info = this.character(code);
          if (!info.exact) return unknown;
          info.exact.forEach((text) => strings.add(text));
        }
      } else {
        return unknown;
      }
      if (strings.size > 8) return unknown;
    }
    return { exact: [...strings], query: all };
  }

  private sequence(elements: readonly AST.Element[]): Info {
    // Every element's own query holds, and so does each run of exact strings once it ends: the
    // conjuncts are gathered in one list (a 64 KiB pattern has 64k elements: re-flattening an
    // AND per element, or growing one literal by a character at a time, is quadratic). `run`
    // is the exact strings of the run still open.
    const conjuncts: Query[] = [];
    let run: string[] | null = [''];
    // Once a run of exact strings is broken, `run` holds only the last one: the sequence as a
    // whole is then no longer exact.
    let broken = false;
    for (const element of elements) {
      const next = this.element(element);
      conjuncts.push(next.query);
      const b = next.exact;
      if (run && b && run.length * b.length <= maxExact && run[0]!.length < maxRunLength) {
        const joined = new Set<string>();
        for (const left of run) for (const right of b) joined.add(left + right);
        run = [...joined];
        continue;
      }
      // The run so far ends here (as a query); a new exact run starts with this element, if exact.
      if (run) conjuncts.push(exactQuery(run));
      run = b;
      broken = true;
    }
    if (broken && run) conjuncts.push(exactQuery(run));
    return broken ? { exact: null, query: and(...conjuncts) } : { exact: run, query: and(...conjuncts) };
  }

  alternatives(alternatives: readonly AST.Alternative[]): Info {
    const infos = alternatives.map((alternative) => this.sequence(alternative.elements));
    const exact = new Set<string>();
    let allExact = true;
    for (const info of infos) {
      if (!info.exact) {
        allExact = false;
        break;
      }
      info.exact.forEach((text) => exact.add(text));
    }
    if (allExact && exact.size <= maxExact) return { exact: [...exact], query: or(...infos.map((info) => info.query)) };
    return { exact: null, query: or(...infos.map(asQuery)) };
  }

  private quantifier(node: AST.Quantifier): Info {
    if (node.max === 0) return empty;
    const inner = this.element(node.element);
    if (node.min === 0) {
      if (node.max === 1 && inner.exact && inner.exact.length < maxExact) return { exact: [...new Set(['', ...inner.exact])], query: all };
      return unknown;
    }
    if (inner.exact && node.min === node.max && node.min <= 4 && inner.exact.length ** node.min <= maxExact) {
      let strings = [''];
      for (let round = 0; round < node.min; round++) strings = strings.flatMap((left) => inner.exact!.map((right) => left + right));
      return { exact: [...new Set(strings)], query: inner.query };
    }
    // At least one occurrence: what one occurrence needs, every match needs.
    return { exact: null, query: asQuery(inner) };
  }

  element(node: AST.Element): Info {
    switch (node.type) {
      case 'Character':
        return this.character(node.value);
      case 'CharacterClass':
        return this.characterClass(node);
      case 'Group':
      case 'CapturingGroup':
        return this.alternatives(node.alternatives);
      case 'Quantifier':
        return this.quantifier(node);
      case 'Assertion':
        // Anchors, word boundaries and lookarounds consume nothing; ignoring a lookaround is sound.
        return empty;
      default:
        // Character sets (\d \w \s . \p{…}), backreferences, class expressions: anything.
        return unknown;
    }
  }
}

/** Recent parses (a search reads its pattern several times: matcher, plan, run, literal checks; ~20 µs each). Trees are only read. */
const parsed = new Map<string, AST.Pattern>();

/**
 * Parses a JavaScript (u-mode) regex; throws regexpp's SyntaxError, which names the position, or
 * invalidParams for one past the limits (base/pattern-limits.ts: the parser recurses per nesting
 * level, the planner holds every alternative).
 */
export function parseRegex(source: string): AST.Pattern {
  let pattern = parsed.get(source);
  if (pattern) return pattern;
  checkRegex(source);
  pattern = new RegExpParser({ ecmaVersion: 2024 }).parsePattern(source, undefined, undefined, { unicode: true });
  if (parsed.size >= 64) parsed.clear();
  parsed.set(source, pattern);
  return pattern;
}

export function planRegex(pattern: AST.Pattern, options: { ignoreCase: boolean }): Query {
  return asQuery(new Planner(options.ignoreCase).alternatives(pattern.alternatives));
}

/**
 * A fixed string: the whole string must appear. Under -i it is ASCII-folded, and a letter whose
 * folding leaves ASCII (see `foldsBeyondAscii`) splits it: the pieces between must appear.
 */
export function planLiteral(text: string, options: { ignoreCase: boolean }): Query {
  if (!options.ignoreCase) return literal(text);
  const pieces = [''];
  for (const character of text) {
    if (foldsBeyondAscii(character)) pieces.push('');
    else pieces[pieces.length - 1] += character;
  }
  return and(...pieces.map((piece) => literal(foldText(piece))));
}

/**
 * Literals one of which every matching line holds (a match lies within one line), chosen from the
 * plan: the literal itself, an OR of literals, or the first such conjunct of an AND.
 */
export function lineLiterals(query: Query, rarity?: (text: string) => number): string[] | undefined {
  switch (query.op) {
    case 'literal':
      return [query.text];
    case 'or': {
      if (!query.args.every((arg) => arg.op === 'literal')) return undefined;
      const texts = query.args.map((arg) => (arg as { text: string }).text);
      // Many one-character needles cost more passes than they save: match the whole text instead.
      return texts.length > 2 && texts.some((text) => text.length === 1) ? undefined : texts;
    }
    case 'and': {
      // The rarest set by the index (the sum of its literals' smallest trigram counts: `struct
      // \w+_ops \{` looks for "_ops {", not "struct "); without one, the longest (usually rarer).
      const options = query.args.map((arg) => lineLiterals(arg, rarity)).filter((texts): texts is string[] => texts !== undefined);
      const cost = (texts: string[]): number => texts.reduce((sum, text) => sum + rarity!(text), 0);
      if (rarity && options.every((texts) => Number.isFinite(cost(texts)))) return options.sort((a, b) => cost(a) - cost(b))[0];
      return options.sort((a, b) => Math.min(...b.map((text) => text.length)) - Math.min(...a.map((text) => text.length)))[0];
    }
    case 'all':
      return undefined;
  }
}

/**
 * A run of bytes every match must contain where the regex has no usable literal: `length`
 * consecutive bytes each in `bytes` (a 256-entry membership table). Characters beyond ASCII are
 * several bytes, each ≥ 0x80, and every such byte counts as a member, so the run is a sound
 * (if loose) line filter: `\w+\s*=\s*\d{5,}` needs five bytes in [0-9] or ≥ 0x80.
 */
export interface ByteRun {
  bytes: Uint8Array;
  length: number;
}

/** The ASCII members of one single-character element (over-approximated where unsure). */
function asciiMembers(node: AST.Element, ignoreCase: boolean): Uint8Array | undefined {
  const single = node.type === 'Character' || node.type === 'CharacterClass' || node.type === 'CharacterSet';
  if (!single) return undefined;
  const table = new Uint8Array(256).fill(1, 0x80);
  if (node.type === 'CharacterSet' && node.kind === 'any') {
    table.fill(1, 0, 0x80);
    table[10] = 0;
    return table;
  }
  let tester: RegExp;
  try {
    tester = new RegExp(`^(?:${node.raw})$`, ignoreCase ? 'iu' : 'u');
  } catch {
    return undefined;
  }
  for (let code = 0; code < 0x80; code++) if (tester.test(String.fromCharCode(code))) table[code] = 1;
  // ripgrep's '.'-like classes and JavaScript's can differ on '\r': count it in. A run never
  // crosses a line end (a match outside multiline mode lies within its line).
  table[13] = 1;
  table[10] = 0;
  return table;
}

/**
 * The most selective byte run the top-level sequence demands (none when the pattern has top-level
 * alternatives, or no run of at least two bytes). Consecutive single-character elements (a
 * quantifier counts with its minimum) join into one run over the union of their classes.
 */
export function requiredRun(pattern: AST.Pattern, options: { ignoreCase: boolean }): ByteRun | undefined {
  if (pattern.alternatives.length !== 1) return undefined;
  let best: ByteRun | undefined;
  let bestScore = 0;
  let current: ByteRun | undefined;
  const tables = new Map<string, Uint8Array | undefined>();
  const close = (): void => {
    if (!current || current.length < 2) return;
    let members = 0;
    for (let code = 0; code < 0x80; code++) members += current.bytes[code]!;
    // Longer runs over smaller classes are rarer.
    const score = current.length * Math.log2(128 / Math.max(members, 1));
    if (score > bestScore) {
      best = current;
      bestScore = score;
    }
  };
  for (const element of pattern.alternatives[0]!.elements) {
    const inner = element.type === 'Quantifier' ? element.element : element;
    const count = element.type === 'Quantifier' ? element.min : 1;
    let table: Uint8Array | undefined;
    if (count >= 1) {
      // One table per distinct element (a pattern may repeat one 64k times: each is a RegExp tried on 128 characters).
      if (!tables.has(inner.raw)) tables.set(inner.raw, asciiMembers(inner, options.ignoreCase));
      table = tables.get(inner.raw);
    }
    if (element.type === 'Assertion') continue;
    if (!table || count > 4096) {
      close();
      current = undefined;
      continue;
    }
    if (!current) current = { bytes: table.slice(), length: count };
    else {
      for (let byte = 0; byte < 256; byte++) current.bytes[byte] = current.bytes[byte]! | table[byte]!;
      current.length += count;
    }
    // A quantifier that may repeat more than its minimum ends the run (what follows need not be adjacent to its minimum).
    if (element.type === 'Quantifier' && element.max !== element.min) {
      close();
      current = undefined;
    }
  }
  close();
  return best;
}
