// Compiling a structural pattern: code in the target language with metavariables, parsed up the
// context ladder (contexts.ts) until one wrapper parses it cleanly as one node, then turned into a
// plain tree the matcher walks (PatternNode). Owns the ladder climb, the "pattern does not parse"
// error with the parser's positions, and the literals every match must contain (the prefilter).
import type { Node, Tree } from 'web-tree-sitter';
import { FathomError } from '../base/errors.js';
import { type GrammarSet, type LoadedGrammar, parseSource } from '../index/syntax/grammars.js';
import { SourceText } from '../index/syntax/source-text.js';
import { isLastResort, ladderOf, mayBeExpression, type Rung, wrap } from './contexts.js';
import { expandPattern, type MetaVariable, MetaVariableReader } from './metavariables.js';

export type PatternNode =
  | { type: 'meta'; variable: MetaVariable }
  /** A node without children: matched by kind, and by text when it is named. */
  | { type: 'leaf'; kind: string; named: boolean; text: string }
  | { type: 'inner'; kind: string; children: PatternNode[] };

export interface Pattern {
  language: string;
  /** The pattern as the user wrote it. */
  source: string;
  root: PatternNode;
  /** Which rung of the ladder parsed it. */
  rung: Rung['name'];
  /** Texts every match contains (named leaves, keywords): the file must contain them all. */
  literals: string[];
  /** Names of the bound metavariables, in order of first appearance. */
  variables: string[];
}

export interface PatternProblem {
  /** 1-based line and UTF-16 column in the pattern. */
  line: number;
  column: number;
  message: string;
}

export const maxPatternLength = 10_000;

/**
 * Whether a tree has an ERROR node anywhere, other than one that is just a `$$$` (C has no
 * statement that is a bare identifier, so `{ $$$ }` parses as a block holding an ERROR that
 * holds `$$$`; it stands for the statements). MISSING nodes (a `;` the fragment leaves out) are
 * fine: the matcher ignores them, as ast-grep does.
 */
function hasErrorNode(tree: Tree, reader: MetaVariableReader): boolean {
  if (!tree.rootNode.hasError) return false;
  const cursor = tree.walk();
  try {
    for (;;) {
      if (cursor.nodeType === 'ERROR' && reader.read(cursor.currentNode.text.trim())?.kind !== 'multi') return true;
      if (cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) if (!cursor.gotoParent()) return false;
    }
  } finally {
    cursor.delete();
  }
}

function children(node: Node): Node[] {
  const list: Node[] = [];
  for (let index = 0; index < node.childCount; index++) {
    const child = node.child(index)!;
    // Comments are left out; an ERROR that passed hasErrorNode is a metavariable and kept.
    if ((!child.isExtra || child.type === 'ERROR') && !child.isMissing) list.push(child);
  }
  return list;
}

/**
 * The node a fragment stands for: the largest node spanning exactly [start, end), then down while
 * it has a single child (ignoring missing and zero-width ones), as ast-grep reduces `foo(x)` from
 * an expression statement to the call.
 */
function fragmentNode(tree: Tree, start: number, end: number): Node | undefined {
  const found = tree.rootNode.descendantForIndex(start, end);
  if (!found || found.startIndex !== start || found.endIndex !== end) return undefined;
  let node: Node = found;
  while (node.parent && node.parent.startIndex === start && node.parent.endIndex === end) node = node.parent;
  for (;;) {
    const kept: Node[] = children(node).filter((child) => child.endIndex > child.startIndex);
    if (node.childCount === 0 || kept.length !== 1 || children(node).length !== kept.length) break;
    node = kept[0]!;
  }
  return node;
}

/** Whether the node holds a MISSING token other than at the allowed offsets. */
function containsMissing(node: Node, allowedAt: ReadonlySet<number>): boolean {
  if (node.isMissing) return !allowedAt.has(node.startIndex);
  if (!node.hasError) return false;
  for (let index = 0; index < node.childCount; index++) if (containsMissing(node.child(index)!, allowedAt)) return true;
  return false;
}

function convert(node: Node, reader: MetaVariableReader): PatternNode {
  if (node.endIndex - node.startIndex <= 80) {
    const variable = reader.read(node.text);
    if (variable) return { type: 'meta', variable };
  }
  const list = children(node);
  if (node.childCount === 0) return { type: 'leaf', kind: node.type, named: node.isNamed, text: node.text };
  return { type: 'inner', kind: node.type, children: list.map((child) => convert(child, reader)) };
}

function collect(root: PatternNode): { literals: string[]; variables: string[] } {
  const literals = new Set<string>();
  const variables: string[] = [];
  const visit = (node: PatternNode, afterEllipsis: boolean): void => {
    if (node.type === 'meta') {
      if (node.variable.name !== undefined && !variables.includes(node.variable.name)) variables.push(node.variable.name);
    } else if (node.type === 'leaf') {
      // An unnamed leaf right after `$$$` may be skipped by the matcher (`foo($$$A, c)` on `foo(c)`).
      // A keyword or an operator of two or more characters counts when the token is its own kind
      // (matching compares unnamed tokens by kind).
      if (node.named ? node.text.trim() !== '' : node.text === node.kind && node.text.length >= 2 && !afterEllipsis) literals.add(node.text);
    } else {
      node.children.forEach((child, index) => {
        const previous = node.children[index - 1];
        const next = node.children[index + 1];
        const nearEllipsis = (previous?.type === 'meta' && previous.variable.kind === 'multi') || (next?.type === 'meta' && next.variable.kind === 'multi');
        visit(child, nearEllipsis);
      });
    }
  };
  visit(root, false);
  return { literals: [...literals], variables };
}

/** Maps an offset in the wrapped source back to a 1-based line and column in the user's pattern. */
function positionIn(pattern: string, offset: number): { line: number; column: number } {
  const before = pattern.slice(0, Math.max(0, Math.min(offset, pattern.length)));
  const lines = before.split('\n');
  return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
}

/** Where the parser found errors in the fragment parsed bare (the first rung's wrapper). */
function problemsOf(tree: Tree, rungUsed: Rung, expanded: ReturnType<typeof expandPattern>, pattern: string): PatternProblem[] {
  const problems: PatternProblem[] = [];
  const { start } = wrap(rungUsed, expanded.text);
  const cursor = tree.walk();
  try {
    for (;;) {
      const type = cursor.nodeType;
      if (type === 'ERROR' || cursor.currentNode.isMissing) {
        const node = cursor.currentNode;
        const offset = Math.min(Math.max(node.startIndex - start, 0), expanded.text.length);
        const at = positionIn(pattern, expanded.origin[offset]!);
        const text = node.text.slice(0, 40);
        problems.push({ ...at, message: node.isMissing ? `missing ${type}` : text === '' ? 'unexpected end' : `unexpected ${JSON.stringify(text)}` });
        if (problems.length >= 5) break;
      } else if (cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) if (!cursor.gotoParent()) return problems;
    }
  } finally {
    cursor.delete();
  }
  return problems;
}

/**
 * Compiles a pattern for a loaded grammar. Throws invalidParams when it parses in no rung of the
 * ladder (with the parser's error positions in the pattern) or is empty or too long.
 */
export function compilePattern(grammars: GrammarSet, grammar: LoadedGrammar, pattern: string): Pattern {
  const language = grammar.spec.id;
  if (pattern.trim() === '') throw new FathomError('invalidParams', 'empty pattern', { field: 'pattern' });
  if (pattern.length > maxPatternLength) throw new FathomError('invalidParams', `pattern longer than ${maxPatternLength} characters`, { field: 'pattern' });
  const expanded = expandPattern(pattern, language);
  const leading = expanded.text.length - expanded.text.trimStart().length;
  const fragment = expanded.text.trim();
  const reader = new MetaVariableReader(language);
  const ladder = ladderOf(language);
  let severalNodes = false;
  let lastResort: Pattern | undefined;
  // First pass: a rung where the fragment is complete. Second: one where the parser had to assume
  // a token the fragment leaves out (`for (...) $D` in C lacks its body's `;`).
  for (const allowMissing of [false, true]) {
    for (const rung of ladder) {
      if (rung.name === 'expression' && !mayBeExpression(fragment)) continue;
      const { source, start, end } = wrap(rung, fragment);
      const tree = parseSource(grammars, grammar, SourceText.fromString(source), { timeoutMs: 1_000 });
      if (!tree) continue;
      try {
        if (hasErrorNode(tree, reader)) continue;
        // A trailing `;` or `,` may belong to the parent (a class body's member separator).
        const node = fragmentNode(tree, start, end) ?? (/[;,]$/.test(fragment) ? fragmentNode(tree, start, end - 1) : undefined);
        // The whole file's node with several children: several statements, not one node.
        if (!node || (node.equals(tree.rootNode) && children(node).length > 1)) {
          if (!tree.rootNode.hasError) severalNodes = true;
          continue;
        }
        // Allowed in the second pass: a token missing at the fragment's end or right after a
        // metavariable (C's `{ $$$BODY }` reads as a declaration without its `;`).
        const allowed = new Set(allowMissing ? [end, ...reader.ends(fragment).map((offset) => start + offset)] : []);
        if (containsMissing(node, allowed)) continue;
        const root = convert(node, reader);
        const compiled: Pattern = { language, source: pattern, root, rung: rung.name, ...collect(root) };
        if (!isLastResort(language, node.type)) return compiled;
        lastResort ??= compiled;
      } finally {
        tree.delete();
      }
    }
  }
  if (lastResort) return lastResort;
  const name = grammar.spec.name;
  if (severalNodes) {
    throw new FathomError(
      'invalidParams',
      `pattern is not one ${name} syntax node (several statements or an incomplete fragment?): match one node and use $$$ for what surrounds it`,
      { field: 'pattern', problems: [] },
    );
  }
  // The parser's complaints about the fragment in the first rung, in the pattern's coordinates.
  const { source } = wrap(ladder[0]!, fragment);
  const tree = parseSource(grammars, grammar, SourceText.fromString(source), { timeoutMs: 1_000 });
  const problems = tree ? problemsOf(tree, ladder[0]!, { text: fragment, origin: expanded.origin.slice(leading) }, pattern) : [];
  tree?.delete();
  const where = problems.map((problem) => `${problem.line}:${problem.column} ${problem.message}`).join('; ');
  throw new FathomError(
    'invalidParams',
    `pattern does not parse as ${name} code${where ? ` (${where})` : ''}; tried as ${[...new Set(ladder.map((rung) => rung.name))].join(', ')}`,
    { field: 'pattern', problems },
  );
}
