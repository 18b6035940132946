// Matching a compiled pattern against syntax-tree nodes. The rules follow ast-grep's "smart"
// strictness, so results agree with it: every node of the pattern must match; unnamed nodes of
// the code (`async`, a trailing comma, `;`) may be skipped where the pattern has a token that does
// not match them; once the pattern's children are all matched, the code's further children are
// allowed (`let $A = 1` matches `let a = 1, b = 2`). Comments are ignored on both sides, so
// `foo($A)` matches `foo(/* why */ x)`. A named leaf matches by text, an unnamed one by kind.
// `$$$X` takes the shortest run of nodes that lets the rest match (backtracking, bounded); when
// that fails, a second pass lets a `,` or `;` next to an empty `$$$` be absent (`foo($$$A, c)`
// matches `foo(c)`; `foo(a, $$$)` matches `foo(a)`, which ast-grep does not). A metavariable seen twice must bind the same tokens (whitespace and comments aside).
import type { SyntaxNode as Node } from '../index/syntax/flat-tree.js';
import type { PatternNode } from './pattern.js';

export type Bound = Node | Node[];

/** Bindings of one match attempt, copied when a branch may fail. */
export class Bindings {
  constructor(readonly values: Map<string, Bound> = new Map()) {}

  clone(): Bindings {
    return new Bindings(new Map(this.values));
  }

  adopt(other: Bindings): void {
    this.values.clear();
    for (const [name, value] of other.values) this.values.set(name, value);
  }
}

/** The candidate's children the matcher sees: no comments (extras), no zero-width MISSING nodes. */
export function significantChildren(node: Node): Node[] {
  // `children` walks the node once; `child(i)` walks from the first child each time (quadratic
  // on a body of 500 members).
  return node.children.filter((child): child is Node => child !== null && !child.isExtra && !child.isMissing);
}

/** The token texts of nodes (leaves, comments left out): two bindings are equal when these are. */
function tokens(nodes: readonly Node[]): string[] {
  const out: string[] = [];
  const visit = (node: Node): void => {
    if (node.isExtra) return;
    if (node.childCount === 0) {
      out.push(node.text);
      return;
    }
    for (const child of node.children) if (child) visit(child);
  };
  nodes.forEach(visit);
  return out;
}

function sameTokens(a: readonly Node[], b: readonly Node[]): boolean {
  if (a.length === 1 && b.length === 1 && a[0]!.text === b[0]!.text) return true;
  const left = tokens(a);
  const right = tokens(b);
  return left.length === right.length && left.every((token, index) => token === right[index]);
}

/** Unnamed nodes at either end of a `$$$` run are not part of what it binds (`a, b,` binds `a, b`). */
function trimRun(nodes: Node[]): Node[] {
  let start = 0;
  let end = nodes.length;
  while (start < end && !nodes[start]!.isNamed) start++;
  while (end > start && !nodes[end - 1]!.isNamed) end--;
  return nodes.slice(start, end);
}

function bind(name: string | undefined, value: Bound, bindings: Bindings): boolean {
  if (name === undefined) return true;
  const previous = bindings.values.get(name);
  if (previous !== undefined) {
    return sameTokens(Array.isArray(previous) ? previous : [previous], Array.isArray(value) ? value : [value]);
  }
  bindings.values.set(name, value);
  return true;
}

const isSeparator = (node: PatternNode | undefined): boolean =>
  node !== undefined && node.type === 'leaf' && !node.named && (node.kind === ',' || node.kind === ';');

const optionalSeparators = new WeakMap<PatternNode, boolean>();

/** Whether a pattern has a `,`/`;` next to a `$$$` (computed once per pattern node). */
function hasOptionalSeparator(node: PatternNode): boolean {
  if (node.type !== 'inner') return false;
  let known = optionalSeparators.get(node);
  if (known === undefined) {
    known = node.children.some(
      (child, index) => (isSeparator(child) && (isMulti(node.children[index - 1]) || isMulti(node.children[index + 1]))) || hasOptionalSeparator(child),
    );
    optionalSeparators.set(node, known);
  }
  return known;
}
const isMulti = (node: PatternNode | undefined): boolean => node !== undefined && node.type === 'meta' && node.variable.kind === 'multi';
const isTerminal = (node: PatternNode): boolean => node.type === 'leaf';

/** Work bound per match attempt: a pathological pattern gives up (no match) instead of hanging. */
const maxSteps = 200_000;

export class Matcher {
  private steps = 0;
  /** Second attempt: a separator next to `$$$` may be absent (see `sequence`). */
  private lenient = false;

  /** Whether `candidate` matches `goal`; on success `bindings` holds what the metavariables bound. */
  matchNode(goal: PatternNode, candidate: Node, bindings: Bindings): boolean {
    this.steps = 0;
    this.lenient = false;
    if (this.node(goal, candidate, bindings)) return true;
    // Strict first, so that `foo($$$A)` binds `a, b` rather than nothing plus ignored leftovers.
    if (!hasOptionalSeparator(goal)) return false;
    this.lenient = true;
    return this.node(goal, candidate, bindings);
  }

  private node(goal: PatternNode, candidate: Node, bindings: Bindings): boolean {
    if (++this.steps > maxSteps) return false;
    switch (goal.type) {
      case 'meta': {
        if (goal.variable.kind === 'multi') return bind(goal.variable.name, [candidate], bindings);
        if (goal.variable.namedOnly && !candidate.isNamed) return false;
        return bind(goal.variable.name, candidate, bindings);
      }
      case 'leaf':
        return candidate.type === goal.kind && (!goal.named || candidate.text === goal.text);
      case 'inner': {
        if (candidate.type !== goal.kind) return false;
        const candidates = significantChildren(candidate);
        if (candidates.length === 0) return false;
        const attempt = bindings.clone();
        if (!this.sequence(goal.children, 0, candidates, 0, attempt)) return false;
        bindings.adopt(attempt);
        return true;
      }
    }
  }

  /** Matches goals[gi..] against candidates[ci..]; mutates `bindings` only on success. */
  private sequence(goals: readonly PatternNode[], gi: number, candidates: readonly Node[], ci: number, bindings: Bindings): boolean {
    if (++this.steps > maxSteps) return false;
    if (gi === goals.length) return true; // further candidates are allowed (ast-grep's smart strictness)
    const goal = goals[gi]!;
    if (goal.type === 'meta' && goal.variable.kind === 'multi') {
      const name = goal.variable.name;
      // Last in the pattern: it takes everything that is left.
      if (gi === goals.length - 1) return name === undefined || bind(name, trimRun(candidates.slice(ci)), bindings);
      // An unnamed run binds nothing: each try needs no copy of its nodes or of the bindings
      // (`sequence` changes them only when it succeeds).
      if (name === undefined) {
        for (let end = ci; end <= candidates.length; end++) if (this.sequence(goals, gi + 1, candidates, end, bindings)) return true;
        return false;
      }
      for (let end = ci; end <= candidates.length; end++) {
        const attempt = bindings.clone();
        if (bind(name, trimRun(candidates.slice(ci, end)), attempt) && this.sequence(goals, gi + 1, candidates, end, attempt)) {
          bindings.adopt(attempt);
          return true;
        }
      }
      return false;
    }
    if (ci < candidates.length) {
      const candidate = candidates[ci]!;
      const attempt = bindings.clone();
      if (this.node(goal, candidate, attempt) && this.sequence(goals, gi + 1, candidates, ci + 1, attempt)) {
        bindings.adopt(attempt);
        return true;
      }
      // An unnamed token of the code the pattern does not have (`async`, a trailing `,`) is skipped.
      if (isTerminal(goal) && !candidate.isNamed && this.sequence(goals, gi, candidates, ci + 1, bindings)) return true;
    }
    // Lenient pass: a separator next to `$$$` may be absent when the run is empty (`foo($$$A, c)`
    // on `foo(c)`, `foo(a, $$$)` on `foo(a)`).
    if (this.lenient && isSeparator(goal)) {
      if (isMulti(goals[gi + 1])) {
        const attempt = bindings.clone();
        const multi = goals[gi + 1] as Extract<PatternNode, { type: 'meta' }>;
        if (bind(multi.variable.name, [], attempt) && this.sequence(goals, gi + 2, candidates, ci, attempt)) {
          bindings.adopt(attempt);
          return true;
        }
      }
      if (isMulti(goals[gi - 1])) {
        const previous = goals[gi - 1] as Extract<PatternNode, { type: 'meta' }>;
        const name = previous.variable.name;
        const bound = name === undefined ? [] : bindings.values.get(name);
        if (Array.isArray(bound) && bound.length === 0) return this.sequence(goals, gi + 1, candidates, ci, bindings);
      }
    }
    return false;
  }
}
