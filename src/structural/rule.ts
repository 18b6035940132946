// Rules: a pattern plus optional relations and constraints, as JSON params (a small subset of
// ast-grep's YAML rules). A rule object holds any of `pattern`, `kind`, `regex` (on the node's
// text), `inside` / `has` (another rule that an ancestor / a descendant must satisfy; `stopBy:
// "neighbor"` for the parent / a direct child only; the default is `"end"`, any distance), `not`,
// `all` and `any`; every key present must hold. `constraints` maps a metavariable to a rule its
// bound node must satisfy. Metavariables bound in a relation are shared with the rest (`$X` in
// `inside` is the same `$X` as in the pattern). Owns validation (each bad field named), compiling
// the patterns, evaluation on a node, the kinds a match can have and the literals it must contain.
import type { Language } from 'web-tree-sitter';
import type { SyntaxNode as Node } from '../index/syntax/flat-tree.js';
import { FathomError, errorMessage } from '../base/errors.js';
import { checkRegex } from '../base/pattern-limits.js';
import type { GrammarSet, LoadedGrammar } from '../index/syntax/grammars.js';
import { and, or, type Query } from '../index/regex/query.js';
import { Bindings, type Matcher } from './match.js';
import { compilePattern, type Pattern } from './pattern.js';

export interface RuleSpec {
  pattern?: string;
  kind?: string;
  regex?: string;
  inside?: RelationSpec;
  has?: RelationSpec;
  not?: RuleSpec;
  all?: RuleSpec[];
  any?: RuleSpec[];
}

export interface RelationSpec extends RuleSpec {
  stopBy?: 'neighbor' | 'end';
}

export interface SearchSpec {
  rule: RuleSpec;
  constraints?: Record<string, RuleSpec>;
}

interface Relation {
  rule: CompiledRule;
  neighborOnly: boolean;
}

export interface CompiledRule {
  pattern?: Pattern;
  kind?: string;
  regex?: RegExp;
  inside?: Relation;
  has?: Relation;
  not?: CompiledRule;
  all?: CompiledRule[];
  any?: CompiledRule[];
}

export interface CompiledSearch {
  rule: CompiledRule;
  constraints: Map<string, CompiledRule>;
  /** The node kinds a match can have; undefined when any node may match. */
  kinds: string[] | undefined;
  /** What a matching file must contain, for the regex index. */
  query: Query;
  /** Literals every matching file contains (checked on the bytes before parsing). */
  required: string[];
  /**
   * Literals inside every match's own text (its pattern's and its `has` parts'), so a top-level
   * region without them holds no match; empty when a match may be the root, an ERROR or a
   * preprocessor node (whose extent depends on the rest of the file), or when the rule looks at
   * ancestors (a region parse may leave out a preprocessor block around an item).
   */
  regionLiterals: string[];
  /** Bound metavariables of the top-level pattern, in order. */
  variables: string[];
}

const ruleKeys = new Set(['pattern', 'kind', 'regex', 'inside', 'has', 'not', 'all', 'any']);
const relationKeys = new Set([...ruleKeys, 'stopBy']);
const maxDepth = 12;

function invalid(field: string, message: string): FathomError {
  return new FathomError('invalidParams', `${field}: ${message}`, { field });
}

function kindExists(language: Language, kind: string): boolean {
  return language.idForNodeType(kind, true) !== null || language.idForNodeType(kind, false) !== null;
}

function compileRule(grammars: GrammarSet, grammar: LoadedGrammar, spec: unknown, field: string, depth: number, relation: boolean): CompiledRule {
  if (depth > maxDepth) throw invalid(field, `rules nest deeper than ${maxDepth}`);
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) throw invalid(field, 'must be an object');
  const record = spec as Record<string, unknown>;
  const unknown = Object.keys(record).filter((key) => !(relation ? relationKeys : ruleKeys).has(key));
  if (unknown.length > 0)
    throw invalid(field, `unknown key ${unknown.map((key) => JSON.stringify(key)).join(', ')}; known: ${[...(relation ? relationKeys : ruleKeys)].join(', ')}`);
  if (Object.keys(record).filter((key) => key !== 'stopBy').length === 0)
    throw invalid(field, 'empty rule: give a pattern, kind, regex, inside, has, not, all or any');
  const rule: CompiledRule = {};
  if (record.pattern !== undefined) {
    if (typeof record.pattern !== 'string') throw invalid(`${field}.pattern`, 'must be a string');
    try {
      rule.pattern = compilePattern(grammars, grammar, record.pattern);
    } catch (error) {
      if (error instanceof FathomError)
        throw new FathomError('invalidParams', field === 'rule' ? error.message : `${field}.pattern: ${error.message}`, {
          ...(error.data as object),
          field: field === 'rule' ? 'pattern' : `${field}.pattern`,
        });
      throw error;
    }
  }
  if (record.kind !== undefined) {
    if (typeof record.kind !== 'string' || !kindExists(grammar.language, record.kind))
      throw invalid(`${field}.kind`, `${JSON.stringify(record.kind)} is not a node kind of the ${grammar.spec.name} grammar`);
    rule.kind = record.kind;
  }
  if (record.regex !== undefined) {
    if (typeof record.regex !== 'string') throw invalid(`${field}.regex`, 'must be a string');
    try {
      checkRegex(record.regex, `${field}.regex`);
    } catch (error) {
      throw invalid(`${field}.regex`, errorMessage(error));
    }
    try {
      rule.regex = new RegExp(record.regex, 'u');
    } catch (error) {
      throw invalid(`${field}.regex`, errorMessage(error));
    }
  }
  for (const key of ['inside', 'has'] as const) {
    if (record[key] === undefined) continue;
    const nested = record[key] as Record<string, unknown>;
    const stopBy = typeof nested === 'object' && nested !== null ? nested.stopBy : undefined;
    if (stopBy !== undefined && stopBy !== 'neighbor' && stopBy !== 'end') throw invalid(`${field}.${key}.stopBy`, 'must be "neighbor" or "end"');
    rule[key] = { rule: compileRule(grammars, grammar, nested, `${field}.${key}`, depth + 1, true), neighborOnly: stopBy === 'neighbor' };
  }
  if (record.not !== undefined) rule.not = compileRule(grammars, grammar, record.not, `${field}.not`, depth + 1, false);
  for (const key of ['all', 'any'] as const) {
    if (record[key] === undefined) continue;
    const list = record[key];
    if (!Array.isArray(list) || list.length === 0) throw invalid(`${field}.${key}`, 'must be a non-empty array of rules');
    rule[key] = list.map((item, index) => compileRule(grammars, grammar, item, `${field}.${key}[${index}]`, depth + 1, false));
  }
  return rule;
}

/** The kinds a node matching the rule can have (undefined: any). */
function kindsOf(rule: CompiledRule): string[] | undefined {
  if (rule.kind !== undefined) return [rule.kind];
  if (rule.pattern && rule.pattern.root.type !== 'meta') return [rule.pattern.root.kind];
  if (rule.all) {
    for (const part of rule.all) {
      const kinds = kindsOf(part);
      if (kinds) return kinds;
    }
  }
  if (rule.any) {
    const kinds = new Set<string>();
    for (const part of rule.any) {
      const each = kindsOf(part);
      if (!each) return undefined;
      each.forEach((kind) => kinds.add(kind));
    }
    return [...kinds];
  }
  return undefined;
}

/** What a file holding a match contains: the literals of every positive part of the rule. */
function queryOf(rule: CompiledRule): Query {
  const parts: Query[] = [];
  if (rule.pattern) parts.push(and(...rule.pattern.literals.map((text): Query => ({ op: 'literal', text }))));
  if (rule.inside) parts.push(queryOf(rule.inside.rule));
  if (rule.has) parts.push(queryOf(rule.has.rule));
  if (rule.all) parts.push(...rule.all.map(queryOf));
  if (rule.any) parts.push(or(...rule.any.map(queryOf)));
  return and(...parts);
}

/** Kinds whose nodes' extent a region parse may change: roots, errors, preprocessor blocks. */
const wholeFileKinds = new Set(['program', 'translation_unit', 'source_file', 'compilation_unit', 'module', 'ERROR']);

/** Whether the rule looks at ancestors anywhere (a region parse can drop a preprocessor block around an item). */
function looksUp(rule: CompiledRule): boolean {
  const parts = [rule.has?.rule, rule.not, ...(rule.all ?? []), ...(rule.any ?? [])];
  return rule.inside !== undefined || parts.some((part) => part !== undefined && looksUp(part));
}

function regionLiteralsOf(rule: CompiledRule, constraints: Map<string, CompiledRule>, kinds: string[] | undefined): string[] {
  if (!kinds || kinds.some((kind) => wholeFileKinds.has(kind) || kind.startsWith('preproc'))) return [];
  if (looksUp(rule) || [...constraints.values()].some(looksUp)) return [];
  return requiredOf(queryOf(rule));
}

function requiredOf(query: Query): string[] {
  if (query.op === 'literal') return [query.text];
  if (query.op === 'and') return query.args.flatMap(requiredOf);
  return [];
}

/** Validates and compiles a search: throws invalidParams naming the bad field. */
export function compileSearch(grammars: GrammarSet, grammar: LoadedGrammar, spec: SearchSpec): CompiledSearch {
  const rule = compileRule(grammars, grammar, spec.rule, 'rule', 0, false);
  const constraints = new Map<string, CompiledRule>();
  if (spec.constraints !== undefined) {
    if (typeof spec.constraints !== 'object' || spec.constraints === null || Array.isArray(spec.constraints))
      throw invalid('constraints', 'must be an object from metavariable names to rules');
    for (const [name, constraint] of Object.entries(spec.constraints)) {
      const bare = name.replace(/^\$/, '');
      if (!/^[A-Z][A-Z0-9_]*$/.test(bare)) throw invalid(`constraints.${name}`, 'not a metavariable name ($X)');
      constraints.set(bare, compileRule(grammars, grammar, constraint, `constraints.${name}`, 1, false));
    }
  }
  const query = queryOf(rule);
  const kinds = kindsOf(rule);
  return {
    rule,
    constraints,
    kinds,
    query,
    required: requiredOf(query),
    regionLiterals: regionLiteralsOf(rule, constraints, kinds),
    variables: rule.pattern?.variables ?? [],
  };
}

/** Whether `node` satisfies `rule`; on success `bindings` holds what its patterns bound. */
export function satisfies(rule: CompiledRule, node: Node, bindings: Bindings, matcher: Matcher): boolean {
  if (rule.kind !== undefined && node.type !== rule.kind) return false;
  const attempt = bindings.clone();
  if (rule.pattern && !matcher.matchNode(rule.pattern.root, node, attempt)) return false;
  if (rule.regex && !rule.regex.test(node.text)) return false;
  if (rule.all) for (const part of rule.all) if (!satisfies(part, node, attempt, matcher)) return false;
  if (rule.any && !rule.any.some((part) => satisfies(part, node, attempt, matcher))) return false;
  if (rule.inside && !related(rule.inside, node, 'up', attempt, matcher)) return false;
  if (rule.has && !related(rule.has, node, 'down', attempt, matcher)) return false;
  if (rule.not && satisfies(rule.not, node, attempt.clone(), matcher)) return false;
  bindings.adopt(attempt);
  return true;
}

function related(relation: Relation, node: Node, direction: 'up' | 'down', bindings: Bindings, matcher: Matcher): boolean {
  if (direction === 'up') {
    for (let parent = node.parent; parent; parent = parent.parent) {
      if (satisfies(relation.rule, parent, bindings, matcher)) return true;
      if (relation.neighborOnly) return false;
    }
    return false;
  }
  const stack: Node[] = [];
  for (let index = node.namedChildCount - 1; index >= 0; index--) stack.push(node.namedChild(index)!);
  while (stack.length > 0) {
    const child = stack.pop()!;
    if (satisfies(relation.rule, child, bindings, matcher)) return true;
    if (relation.neighborOnly) continue;
    for (let index = child.namedChildCount - 1; index >= 0; index--) stack.push(child.namedChild(index)!);
  }
  return false;
}

/** Whether every constrained metavariable's binding satisfies its rule. */
export function meetsConstraints(search: CompiledSearch, bindings: Bindings, matcher: Matcher): boolean {
  for (const [name, rule] of search.constraints) {
    const bound = bindings.values.get(name);
    if (bound === undefined) continue;
    const nodes = Array.isArray(bound) ? bound : [bound];
    if (!nodes.every((node) => satisfies(rule, node, new Bindings(), matcher))) return false;
  }
  return true;
}
