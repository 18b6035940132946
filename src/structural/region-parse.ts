// Parsing one file for one search: only the top-level regions (and members of a large block) that
// may hold a match, through tree-sitter's included ranges, or the whole file where regions do not
// apply (a language without a region scanner, a rule without literals inside its match, brackets
// that do not balance, regions covering most of the file) or where the partial tree cannot be
// trusted (an error at a range's edge, a node holding a left-out gap that may match).
import type { Tree } from 'web-tree-sitter';
import { type GrammarSet, type LoadedGrammar, parseSource } from '../index/syntax/grammars.js';
import type { SourceText } from '../index/syntax/source-text.js';
import type { CompiledSearch } from './rule.js';
import { itemSpans, rangesToParse } from './region-ranges.js';
import { type Region, type RegionSyntax, regionSyntax, topLevelRegions } from './region-scanner.js';
import { cutsHold, gapsMayMatch } from './region-trust.js';

export type SearchParse =
  /** `partial`: only some ranges were parsed (nodes outside them are absent). */
  | { tree: Tree; partial: boolean }
  /** No region holds every literal: the file has no match, nothing was parsed. */
  | 'no match'
  /** The parse ran out of time. */
  | 'timed out';

/** The ranges worth parsing (undefined: the whole file; empty: none holds a match). */
export function searchRanges(language: string, source: SourceText, search: CompiledSearch): Array<[number, number]> | undefined {
  return searchPlan(language, source, search)?.ranges;
}

/** Regions depend on the text alone: kept with each SourceText (a worker's TextCache hands the same one out again). */
const regionsKept = new WeakMap<SourceText, Map<RegionSyntax, Region[] | undefined>>();

function regionsOf(source: SourceText, syntax: RegionSyntax): Region[] | undefined {
  let kept = regionsKept.get(source);
  if (!kept) regionsKept.set(source, (kept = new Map<RegionSyntax, Region[] | undefined>()));
  if (!kept.has(syntax)) kept.set(syntax, topLevelRegions(source.text, syntax));
  return kept.get(syntax);
}

/** Code units the ranges cover. */
export function rangesCover(ranges: ReadonlyArray<readonly [number, number]>): number {
  let units = 0;
  for (const [start, end] of ranges) units += end - start;
  return units;
}

type SearchPlan = { ranges: Array<[number, number]>; regions: Region[] } | undefined;

/** Each text's plan for each search, kept while both live (a worker asks for it, then parses by it). */
const plansKept = new WeakMap<SourceText, WeakMap<CompiledSearch, { plan: SearchPlan }>>();

function searchPlan(language: string, source: SourceText, search: CompiledSearch): SearchPlan {
  let plans = plansKept.get(source);
  if (!plans) plansKept.set(source, (plans = new WeakMap()));
  let kept = plans.get(search);
  if (!kept) {
    const syntax = regionSyntax(language);
    const regions = syntax && search.regionLiterals.length > 0 ? regionsOf(source, syntax) : undefined;
    const ranges = regions && rangesToParse(source.text, regions, search.regionLiterals);
    kept = { plan: ranges && { ranges, regions: regions! } };
    plans.set(search, kept);
  }
  return kept.plan;
}

/**
 * `wholeFrom`: the caller keeps whole trees (in memory, tree-cache.ts, or on disk, tree-store.ts),
 * so a file whose regions worth parsing cover this share of it or more is parsed whole: at most
 * 1 / share times the work now, once, for a tree every later search can use.
 */
export function parseForSearch(
  grammars: GrammarSet,
  grammar: LoadedGrammar,
  source: SourceText,
  search: CompiledSearch,
  options: { wholeFrom?: number } = {},
): SearchParse {
  const plan = searchPlan(grammar.spec.id, source, search);
  if (plan?.ranges.length === 0) return 'no match';
  if (plan && !(options.wholeFrom !== undefined && rangesCover(plan.ranges) >= options.wholeFrom * source.length)) {
    const { ranges, regions } = plan;
    const tree = parseSource(grammars, grammar, source, { includedRanges: ranges });
    if (!tree) return 'timed out';
    const trusted = (!tree.rootNode.hasError || cutsHold(tree, ranges, itemSpans(regions, ranges))) && !gapsMayMatch(tree, ranges, new Set(search.kinds));
    if (trusted) return { tree, partial: true };
    tree.delete();
  }
  const tree = parseSource(grammars, grammar, source);
  return tree ? { tree, partial: false } : 'timed out';
}
