// Which parts of a file a structural search parses: the top-level regions (region-scanner.ts), or
// members of a large one's block, that hold every literal a match must contain (an identifier or
// keyword as a whole word). A match is one node, which lies inside one top-level item: a region
// without the literals holds no match. region-trust.ts checks the parse of what was chosen.
import { lastAtOrBefore } from '../base/sorted.js';
import { type Block, isIdentifierPart, type Region } from './region-scanner.js';

/** A character that can be part of an identifier (ASCII word characters, `$`, Unicode ID_Continue). */
function isWordCharacter(code: number): boolean {
  if (code < 128) return isIdentifierPart(code);
  return Number.isNaN(code) ? false : /[\p{ID_Continue}]/u.test(String.fromCharCode(code));
}

/** Whether an identifier touches `at` from before; a number does not (`1if c else 2` in Python). */
function touchesWordBefore(text: string, at: number): boolean {
  let start = at - 1;
  while (start >= 0 && isWordCharacter(text.charCodeAt(start))) start -= 1;
  if (start === at - 1) return false;
  const first = text.charCodeAt(start + 1);
  // Where no name may come next, tree-sitter lexes a keyword off a word's front (`}inneedle` is
  // `in needle`, `export consta` is `export const a`): a keyword before the literal does not touch it.
  return !(first >= 48 && first <= 57) && !gluedKeywords.has(text.slice(start + 1, at));
}

/** Keywords tree-sitter may read off the front of a word (JavaScript, TypeScript, C, Python…). */
const gluedKeywords = new Set([
  'in',
  'instanceof',
  'as',
  'satisfies',
  'of',
  'extends',
  'implements',
  'is',
  'not',
  'and',
  'or',
  'if',
  'else',
  'const',
  'let',
  'var',
  'return',
  'typeof',
  'keyof',
  'new',
  'delete',
  'void',
  'await',
  'yield',
  'export',
  'import',
  'from',
  'case',
  'default',
  'do',
  'while',
  'for',
  'static',
  'class',
  'function',
  'struct',
  'enum',
  'union',
  'sizeof',
  'goto',
  'lambda',
  'def',
]);

/** An identifier or keyword literal is a whole token in a match: it counts only where no identifier character touches it. */
const wordLiteral = /^[A-Za-z_$][\w$]*$/;

/** For each part (its starts, in order; the last ends at `end`): whether it holds every literal. */
function partsHolding(text: string, starts: readonly number[], end: number, literals: readonly string[]): boolean[] {
  const count = new Uint16Array(starts.length);
  const stamp = new Int32Array(starts.length).fill(-1);
  const first = starts[0]!;
  const partOf = (offset: number): number => lastAtOrBefore(starts, offset);
  literals.forEach((literal, which) => {
    const word = wordLiteral.test(literal);
    for (let at = text.indexOf(literal, first); at >= 0 && at + literal.length <= end;) {
      if (word && (isWordCharacter(text.charCodeAt(at + literal.length)) || touchesWordBefore(text, at))) {
        at = text.indexOf(literal, at + 1);
        continue;
      }
      const part = partOf(at);
      const partEnd = part + 1 < starts.length ? starts[part + 1]! : end;
      // A literal that runs past its part's end is not inside it.
      if (at + literal.length <= partEnd && stamp[part] !== which) {
        stamp[part] = which;
        count[part] += 1;
      }
      at = text.indexOf(literal, Math.max(at + 1, partEnd - literal.length + 1));
    }
  });
  return Array.from(count, (held) => held === literals.length);
}

/**
 * A region (or a member with a block of its own) is descended into from this size (UTF-16 units):
 * below it a whole item costs little to parse. Measured on 600 kernel files (`if ($A) return $B;`,
 * `return -$E;`): parse time 2.34 s at 4 K units, 1.93 s at 1 K, 1.85 s at 512 (each entered
 * block adds included ranges, ~50 µs each); on Django `return $A` 632–685 ms at 1 K, 580–594 ms
 * at 512.
 */
const descendFrom = 512;

/**
 * The ranges [start, end) (UTF-16 units) to parse: the regions holding every literal (an identifier
 * or keyword as a whole word), and inside a large one whose block has members and whose header
 * holds no literal, only its header, the members holding every literal and its trailer (when one
 * member holds them all), a member with a block of its own (Python) chosen from alike; adjacent
 * ranges merged. Undefined when they cover nine tenths of the text
 * or more (a whole parse then costs about the same); empty when no region holds every literal (the
 * file has no match).
 */
export function rangesToParse(text: string, regions: readonly Region[], literals: readonly string[]): Array<[number, number]> | undefined {
  if (literals.length === 0 || regions.length === 0) return undefined;
  const held = partsHolding(
    text,
    regions.map((region) => region.start),
    text.length,
    literals,
  );
  const ranges: Array<[number, number]> = [];
  let covered = 0;
  const add = (start: number, end: number): void => {
    if (end <= start) return;
    covered += end - start;
    const previous = ranges[ranges.length - 1];
    if (previous && previous[1] === start) previous[1] = end;
    else ranges.push([start, end]);
  };
  // An item [start, end) holding every literal: its block entered when it is large, has members
  // and a header without a literal, else the whole item.
  const addItem = (start: number, end: number, block: Block | undefined): void => {
    const header = block ? text.slice(start, block.open) : '';
    // A header holding a literal hints that the item itself matches: parsed whole. A `switch` or
    // an `enum` body holds children that are not its lines' items (a case's statements, Java's
    // enum body declarations): not entered.
    if (
      block &&
      block.members.length > 1 &&
      end - start >= descendFrom &&
      !/\b(?:switch|enum)\b/.test(header) &&
      !literals.some((literal) => header.includes(literal))
    ) {
      const members = partsHolding(text, block.members, block.close, literals);
      if (members.some(Boolean)) {
        // A body with no closing token (Python's) would start at its first member parsed and end
        // at its last: its first and last members are always parsed, so that it spans (and holds
        // every gap) as in the whole file.
        const edges = block.close === end;
        add(start, block.open);
        members.forEach((holds, member) => {
          const from = block.members[member]!;
          const to = member + 1 < block.members.length ? block.members[member + 1]! : block.close;
          if (holds) addItem(from, to, block.inner?.[member]);
          else if (edges && (member === 0 || member === members.length - 1)) add(from, to);
        });
        add(block.close, end);
        return;
      }
    }
    add(start, end);
  };
  regions.forEach((region, at) => {
    if (held[at]) addItem(region.start, region.end, region.block);
  });
  return covered * 10 >= text.length * 9 ? undefined : ranges;
}

/**
 * The spans of the items the ranges lie in ([start, end) of their regions, adjacent ones merged):
 * an item whose block was entered is one span holding several ranges.
 */
export function itemSpans(regions: readonly Region[], ranges: ReadonlyArray<readonly [number, number]>): Array<[number, number]> {
  const starts = regions.map((region) => region.start);
  const spans: Array<[number, number]> = [];
  for (const [start, end] of ranges) {
    const region = regions[lastAtOrBefore(starts, start)]!;
    const from = Math.min(region.start, start);
    const to = Math.max(region.end, end);
    const last = spans[spans.length - 1];
    if (last && last[1] >= from) last[1] = Math.max(last[1], to);
    else spans.push([from, to]);
  }
  return spans;
}
