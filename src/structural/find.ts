// Finding the matches of a compiled search in one parsed file, a live tree or a flat one
// (index/syntax/flat-tree.ts): the candidate nodes (those of the kinds a match can have, found
// inside wasm by descendantsOfType or from the literal's occurrences, or by a scan of a flat tree's
// type ids; every node when any kind may match) are tried in document order, nested matches
// included (as ast-grep reports them). Owns the match record (positions as UTF-16 lines/columns
// and byte offsets, bindings with their text).
import type { Node, Tree } from 'web-tree-sitter';
import { FlatTree, type SyntaxNode } from '../index/syntax/flat-tree.js';
import type { SourceText } from '../index/syntax/source-text.js';
import { Bindings, Matcher, type Bound } from './match.js';
import { type CompiledSearch, meetsConstraints, satisfies } from './rule.js';

export interface Span {
  /** 0-based line and UTF-16 column (end exclusive), as tree-sitter and LSP count. */
  start: { line: number; character: number };
  end: { line: number; character: number };
  startByte: number;
  endByte: number;
  /** Offsets in the decoded text (UTF-16 units). */
  startUnit: number;
  endUnit: number;
}

export interface BoundText extends Partial<Span> {
  text: string;
  /** For `$$$X`: how many nodes it took. */
  count?: number;
}

export interface FileMatch extends Span {
  text: string;
  /** The whole first line of the match, without its line terminator. */
  lineText: string;
  bindings: Record<string, BoundText>;
}

/** Below one occurrence of the rarest literal in this many code units, candidates are found from the occurrences. */
const unitsPerOccurrence = 300;

/** How often `literal` occurs in `text`, counting no further than `cap`. */
function occurrences(text: string, literal: string, cap: number): number {
  let count = 0;
  for (let at = text.indexOf(literal); at >= 0 && count < cap; at = text.indexOf(literal, at + 1)) count++;
  return count;
}

/**
 * The nodes of `kinds` that hold an occurrence of `literal`, in document order (outer first). Every
 * match holds each literal of its pattern, and the nodes that hold a range form one chain from the
 * root (siblings never overlap). One cursor visits the occurrences in order: from the chain of the
 * last one it moves right among siblings and up only as far as the next one needs, then down, so
 * a node is entered once however many occurrences it holds. (web-tree-sitter 0.25.10's
 * `gotoFirstChildForIndex` ignores the index: it always goes to the first child.)
 */
function anchoredCandidates(tree: Tree, text: string, literal: string, kinds: ReadonlySet<string>): Node[] {
  const nodes: Node[] = [];
  const cursor = tree.walk();
  try {
    if (kinds.has(cursor.nodeType)) nodes.push(cursor.currentNode);
    // The range of each node on the cursor's chain, kept here: each read is a call into WebAssembly.
    const starts: number[] = [cursor.startIndex];
    const ends: number[] = [cursor.endIndex];
    const rootStart = starts[0]!;
    const rootEnd = ends[0]!;
    for (let at = text.indexOf(literal); at >= 0; at = text.indexOf(literal, at + 1)) {
      const end = at + literal.length;
      if (at < rootStart || end > rootEnd) continue;
      // Up: the chain's nodes start at or before `at` (they held an earlier occurrence), so one
      // that does not hold this one ends before it; a sibling to its right may hold it.
      let depth = starts.length - 1;
      while (ends[depth]! < end) {
        let moved = false;
        while (cursor.gotoNextSibling()) {
          const start = cursor.startIndex;
          if (start > at) break;
          const stop = cursor.endIndex;
          if (stop >= end) {
            starts[depth] = start;
            ends[depth] = stop;
            if (kinds.has(cursor.nodeType)) nodes.push(cursor.currentNode);
            moved = true;
            break;
          }
        }
        if (moved) break;
        cursor.gotoParent();
        starts.pop();
        ends.pop();
        depth--;
      }
      // Down: the child that holds it, while one does.
      while (cursor.gotoFirstChild()) {
        let found = false;
        do {
          const start = cursor.startIndex;
          if (start > at) break;
          const stop = cursor.endIndex;
          if (stop >= end) {
            found = true;
            break;
          }
        } while (cursor.gotoNextSibling());
        if (!found) {
          cursor.gotoParent();
          break;
        }
        starts.push(cursor.startIndex);
        ends.push(cursor.endIndex);
        if (kinds.has(cursor.nodeType)) nodes.push(cursor.currentNode);
      }
      starts.length = ends.length;
    }
  } finally {
    cursor.delete();
  }
  return nodes;
}

function candidates(tree: Tree, kinds: readonly string[] | undefined): Node[] {
  // descendantsOfType walks inside wasm: ~30% faster than a query's captures on kernel files.
  if (kinds) return tree.rootNode.descendantsOfType(kinds as string[]).filter((node): node is Node => node !== null);
  const nodes: Node[] = [];
  const cursor = tree.walk();
  try {
    for (;;) {
      nodes.push(cursor.currentNode);
      if (cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) if (!cursor.gotoParent()) return nodes;
    }
  } finally {
    cursor.delete();
  }
}

export function spanOf(source: SourceText, startUnit: number, endUnit: number): Span {
  return {
    start: source.position(startUnit),
    end: source.position(endUnit),
    startByte: source.byteOffset(startUnit),
    endByte: source.byteOffset(endUnit),
    startUnit,
    endUnit,
  };
}

function boundText(source: SourceText, bound: Bound): BoundText {
  if (!Array.isArray(bound)) return { text: source.text.slice(bound.startIndex, bound.endIndex), ...spanOf(source, bound.startIndex, bound.endIndex) };
  if (bound.length === 0) return { text: '', count: 0 };
  const start = bound[0]!.startIndex;
  const end = bound[bound.length - 1]!.endIndex;
  return { text: source.text.slice(start, end), count: bound.length, ...spanOf(source, start, end) };
}

function containsAll(text: string, start: number, end: number, literals: readonly string[]): boolean {
  for (const literal of literals) {
    const at = text.indexOf(literal, start);
    if (at < 0 || at + literal.length > end) return false;
  }
  return true;
}

function lineAround(text: string, unit: number): string {
  const start = text.lastIndexOf('\n', unit - 1) + 1;
  let end = text.indexOf('\n', unit);
  if (end < 0) end = text.length;
  if (end > start && text.charCodeAt(end - 1) === 13) end -= 1;
  return text.slice(start, end);
}

/**
 * How candidates are found: from the rarest literal's occurrences, by walking the whole tree, or
 * (`auto`) by whichever costs less for this text. The answer is the same; tests compare them.
 */
export type CandidateStrategy = 'auto' | 'occurrences' | 'walk';

/** For each type id of a grammar (its `types`), whether it is one of `kinds`; kept per grammar and kind set. */
const kindTables = new WeakMap<readonly string[], Map<string, Uint8Array>>();

function kindTable(types: readonly string[], kinds: readonly string[]): Uint8Array {
  let tables = kindTables.get(types);
  if (!tables) kindTables.set(types, (tables = new Map<string, Uint8Array>()));
  const key = kinds.join('\0');
  let table = tables.get(key);
  if (!table) {
    // Type ids are 16 bits; ERROR is 65535 (tree-sitter's -1).
    table = new Uint8Array(65_536);
    const wanted = new Set(kinds);
    types.forEach((type, id) => {
      if (wanted.has(type || 'ERROR')) table![id] = 1;
    });
    if (wanted.has('ERROR')) table[65_535] = 1;
    if (tables.size > 32) tables.clear();
    tables.set(key, table);
  }
  return table;
}

/** A flat tree's candidates: its nodes of `kinds` (every node when undefined), in document order. */
function flatCandidates(tree: FlatTree, kinds: readonly string[] | undefined): SyntaxNode[] {
  const nodes: SyntaxNode[] = [];
  const ids = tree.kinds;
  const table = kinds ? kindTable(tree.types, kinds) : undefined;
  for (let index = 0; index < ids.length; index++) if (!table || table[ids[index]!] === 1) nodes.push(tree.node(index));
  return nodes;
}

/** The matches of `search` in a parsed file, in document order, at most `limit`. */
export function findInTree(
  tree: Tree | FlatTree,
  source: SourceText,
  search: CompiledSearch,
  limit = Number.POSITIVE_INFINITY,
  strategy: CandidateStrategy = 'auto',
): FileMatch[] {
  // The pattern's own literals lie inside any node it matches: a node without them is skipped
  // before the matcher walks it (most candidates of a common kind fail here).
  const inside = search.rule.pattern?.literals ?? [];
  if (tree instanceof FlatTree) return matchCandidates(flatCandidates(tree, search.kinds), inside, source, search, limit);
  const text = source.text;
  // From the rarest literal's occurrences up, where they are few; otherwise every node of the
  // kinds (a walk of the whole tree inside WebAssembly). Measured on 8.6 MB of kernel drivers: an
  // occurrence costs ~15 µs, the whole walk ~35 ns a code unit.
  let nodes: Node[] | undefined;
  if (search.kinds && inside.length > 0 && strategy !== 'walk') {
    const cap = strategy === 'occurrences' ? Number.POSITIVE_INFINITY : Math.floor(text.length / unitsPerOccurrence);
    let best = inside[0]!;
    let fewest = occurrences(text, best, cap + 1);
    for (const literal of inside.slice(1)) {
      if (fewest === 0) break;
      const count = occurrences(text, literal, fewest);
      if (count < fewest) [best, fewest] = [literal, count];
    }
    if (fewest <= cap) nodes = anchoredCandidates(tree, text, best, new Set(search.kinds));
  }
  nodes ??= candidates(tree, search.kinds);
  if (search.kinds && search.kinds.length > 1) nodes.sort((a, b) => a.startIndex - b.startIndex || b.endIndex - a.endIndex);
  return matchCandidates(nodes, inside, source, search, limit);
}

/**
 * The candidates (in document order) that hold the pattern's literals (`inside`) and satisfy the
 * search, at most `limit` (the candidates after the last match kept are not looked at).
 */
function matchCandidates(nodes: readonly SyntaxNode[], inside: readonly string[], source: SourceText, search: CompiledSearch, limit: number): FileMatch[] {
  const matcher = new Matcher();
  const found: FileMatch[] = [];
  const text = source.text;
  for (const node of nodes) {
    if (node.isMissing || (node.isExtra && search.kinds === undefined)) continue;
    if (inside.length > 0 && !containsAll(text, node.startIndex, node.endIndex, inside)) continue;
    const bindings = new Bindings();
    if (!satisfies(search.rule, node, bindings, matcher) || !meetsConstraints(search, bindings, matcher)) continue;
    const record: Record<string, BoundText> = {};
    for (const [name, bound] of bindings.values) record[name] = boundText(source, bound);
    found.push({
      text: source.text.slice(node.startIndex, node.endIndex),
      lineText: lineAround(source.text, node.startIndex),
      bindings: record,
      ...spanOf(source, node.startIndex, node.endIndex),
    });
    if (found.length >= limit) break;
  }
  return found;
}

/** Whether the bytes contain every literal (a match is impossible otherwise): no parse needed. */
export function mayMatch(bytes: Uint8Array, required: readonly string[]): boolean {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return required.every((literal) => buffer.indexOf(literal, 0, 'utf8') >= 0);
}
