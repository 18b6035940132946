// fathom/codeSearch: one question, several engines. Owns the modes, the routing of `auto`, and the
// shape of a hit (a file, a line range, a score, the rankers that found it, a snippet read from
// the local file). Engines come in through `CodeSearchEngines` (the daemon builds them on first
// use, with progress), so this module imports only engine types.
//
// Modes:
//   lexical   the chunk ranking (BM25F over whole syntax chunks, index/ranking/chunk-ranking.ts)
//   regex     the regex index (ripgrep's results), one hit per matching line
//   literal   the same, the query taken as a fixed string
//   semantic  the workspace's semantic index (an embedding model the user set): nearest chunks
//   hybrid    the lexical candidates and the semantic ones fused (fusion.ts): (1-w)·lexical score
//             / best + w·similarity scaled to [0, 1] over the semantic candidates; a lexical chunk
//             takes the best similarity of the semantic chunks inside it. w: params.hybridWeight,
//             else the model's measured weight (fathom.json), else 0.3 (said in `reason`); a model
//             with a learned `fusion` is ranked by it unless the request names a weight
//   auto      a regex-shaped query → regex; an identifier-shaped one → the definitions of that name
//             first (code graph), then its whole-word occurrences (literal); a short fragment of
//             code → literal; words → hybrid when the workspace's model has a measured weight,
//             else lexical (an unmeasured fusion may rank worse than lexical alone).
//             An identifier no definition matches is ranked as words.
import type { CancellationSignal } from '../base/cancellation.js';
import { FathomError } from '../base/errors.js';
import type { SymbolMatch, SymbolQuery } from '../index/graph/code-graph.js';
import { type ChunkRanking, RankingDamaged, type RankedChunk, type RankQuery } from '../index/ranking/chunk-ranking.js';
import { queryTerms, termsOf } from '../index/ranking/code-tokens.js';
import type { GrepRequest, GrepResult } from '../index/regex/regex-index.js';
import type { VectorHit } from '../index/semantic/vector-store.js';
import { lastLineOf } from '../index/syntax/source-text.js';
import { type Fusion, type LearnedFusion, fuse, fusionCandidates } from './fusion.js';

export const codeSearchModes = ['auto', 'lexical', 'semantic', 'hybrid', 'regex', 'literal'] as const;
export type CodeSearchMode = (typeof codeSearchModes)[number];
export type Ranker = 'lexical' | 'semantic' | 'symbol' | 'regex' | 'literal';
export type Route = 'lexical' | 'semantic' | 'hybrid' | 'symbol' | 'regex' | 'literal';

export interface CodeSearchRequest {
  query: string;
  mode: CodeSearchMode;
  /** Globs that narrow the regex index's candidates (hits are then checked with `accepts`). */
  globs?: string[];
  languages?: string[];
  /** Path filter built from globs and languages (the daemon's). */
  accepts: (relativePath: string) => boolean;
  /** At most this many hits (default 20 for rankings, 200 for regex/literal). */
  maxResults?: number;
  /** Lines of snippet per hit (default 5, at most 50). */
  snippetLines?: number;
  /** Case-insensitive regex/literal matching (auto: literal and identifier routes are case-sensitive). */
  ignoreCase?: boolean;
  /** hybrid: the semantic weight (0 to 1) instead of the model's. */
  hybridWeight?: number;
}

export interface CodeSearchHit {
  path: string;
  /** 0-based, inclusive: the whole chunk, definition or matching line. */
  startLine: number;
  endLine: number;
  /** 1-based column of a regex/literal match. */
  column?: number;
  /** Higher is better; comparable only within one ranker. */
  score: number;
  rankers: Ranker[];
  /** Query terms the chunk holds (lexical). */
  matched?: string[];
  /** The definition (symbol route). */
  symbol?: { name: string; kind: string; container: string[] };
  snippet: string;
  /** 0-based line the snippet starts at. */
  snippetLine: number;
  /** 0-based line to jump to: the chunk's line with the most query terms, the definition's first line, the matching line. */
  focusLine: number;
}

export interface CodeSearchAnswer {
  /** What actually ran (auto resolved). */
  route: Route;
  /** Why auto chose the route (or "mode=…"). */
  reason: string;
  hits: CodeSearchHit[];
  truncated: boolean;
}

export interface CodeSearchEngines {
  /** The chunk ranking, built. */
  ranking(signal: CancellationSignal): Promise<ChunkRanking>;
  grep(request: GrepRequest, signal: CancellationSignal): Promise<GrepResult>;
  symbols(query: SymbolQuery, signal: CancellationSignal): Promise<{ matches: SymbolMatch[] }>;
  /** A file's text as saved on disk (undefined: unreadable). */
  readText(relativePath: string): string | undefined;
  /** The workspace's semantic index, built; or why there is none (no model). */
  semantic(signal: CancellationSignal): Promise<SemanticEngine | { unavailable: string }>;
  /** Without building anything: whether a model is set and its measured hybrid weight. */
  semanticReady(): { hybridWeight?: number } | undefined;
}

export interface SemanticEngine {
  search(query: string, k: number, accepts?: (file: string) => boolean): Promise<VectorHit[]>;
  /** Measured on the retrieval evaluation (the model's fathom.json), if it was. */
  hybridWeight?: number;
  /** A fusion learned on the retrieval evaluation's first set (the model's fathom.json); used instead of the weight unless a request names one. */
  fusion?: LearnedFusion;
}

const regexShaped = /\\[bBdDsSwW.()[\]{}|*+?^$\\]|\.[*+?]|\[[^\]]+\]|[^\\]\||^\^|[^\\]\$$|\(\?[:=!<]/;
const identifierShaped = /^[A-Za-z_$][\w$]*(?:(?:\.|::|#|->)[A-Za-z_$][\w$]*)*$/;
const codeShaped = /[(){}[\];=<>"'`]|^\S+$/;

/** How auto reads a query (`hybridWeight`: the workspace's model has a measured one). */
export function routeOf(query: string, measuredHybrid = false): { route: Route; reason: string } {
  const trimmed = query.trim();
  if (identifierShaped.test(trimmed)) return { route: 'symbol', reason: 'an identifier: its definitions first, then where it is written' };
  if (regexShaped.test(trimmed) && compiles(trimmed)) return { route: 'regex', reason: 'a regular expression' };
  if (codeShaped.test(trimmed) && trimmed.split(/\s+/).length <= 6) return { route: 'literal', reason: 'a fragment of code: searched as written' };
  if (measuredHybrid) return { route: 'hybrid', reason: 'words: the chunk ranking fused with the semantic index (measured weight)' };
  return { route: 'lexical', reason: 'words: ranked by the chunk ranking' };
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

export async function codeSearch(request: CodeSearchRequest, engines: CodeSearchEngines, signal: CancellationSignal): Promise<CodeSearchAnswer> {
  const query = request.query.trim();
  if (query === '') throw new FathomError('invalidParams', 'params.query must hold something to search for', { field: 'query' });
  let route: Route;
  let reason: string;
  switch (request.mode) {
    case 'auto':
      ({ route, reason } = routeOf(query, engines.semanticReady()?.hybridWeight !== undefined));
      break;
    default:
      route = request.mode;
      reason = `mode=${request.mode}`;
  }
  const snippetLines = Math.min(Math.max(request.snippetLines ?? 5, 1), 50);
  if (route === 'symbol') {
    const answer = await symbolRoute(query, request, engines, signal, snippetLines);
    if (answer) return { route, reason, ...answer };
    route = 'lexical';
    reason = 'an identifier no definition matches: ranked as words';
  }
  if (route === 'lexical') return { route, reason, ...(await lexicalRoute(query, request, engines, signal, snippetLines)) };
  if (route === 'semantic' || route === 'hybrid') {
    const semantic = await engines.semantic(signal);
    if ('unavailable' in semantic)
      throw new FathomError('invalidParams', `mode ${route} is not available: ${semantic.unavailable}. Use mode lexical or auto.`, { field: 'mode' });
    if (route === 'semantic') return { route, reason, ...(await semanticRoute(query, semantic, request, engines, snippetLines)) };
    let fusion: Fusion;
    if (request.hybridWeight === undefined && semantic.fusion !== undefined) {
      fusion = { learned: semantic.fusion };
      reason += '; learned fusion';
    } else {
      const weight = request.hybridWeight ?? semantic.hybridWeight ?? defaultHybridWeight;
      fusion = { weight };
      if (request.hybridWeight === undefined && semantic.hybridWeight === undefined)
        reason += `; semantic weight ${defaultHybridWeight} (not measured for this model)`;
      else reason += `; semantic weight ${weight}`;
    }
    try {
      return { route, reason, ...(await hybridRoute(query, semantic, fusion, request, engines, signal, snippetLines)) };
    } catch (error) {
      // auto chose hybrid itself: a model that fails now (moved, crashed) falls back to lexical.
      if (request.mode !== 'auto' || (error instanceof FathomError && error.kind === 'cancelled')) throw error;
      return {
        route: 'lexical',
        reason: `words: ranked by the chunk ranking (the semantic index failed: ${(error as Error).message})`,
        ...(await lexicalRoute(query, request, engines, signal, snippetLines)),
      };
    }
  }
  return { route, reason, ...(await grepRoute(query, route === 'literal', request, engines, signal)) };
}

async function lexicalRoute(
  query: string,
  request: CodeSearchRequest,
  engines: CodeSearchEngines,
  signal: CancellationSignal,
  snippetLines: number,
): Promise<{ hits: CodeSearchHit[]; truncated: boolean }> {
  const terms = queryTerms(query);
  if (terms.length === 0)
    throw new FathomError('invalidParams', `the query "${query}" has no searchable words (only stop words or punctuation); try mode regex or literal`, {
      field: 'query',
    });
  const limit = request.maxResults ?? 20;
  const chunks = await rankedChunks(engines, { terms, accepts: request.accepts, limit: limit + 1 }, signal);
  const texts = new Map<string, string[] | undefined>();
  const hits = chunks.slice(0, limit).map((chunk): CodeSearchHit => {
    const lines = linesOf(texts, engines, chunk.path);
    const snippet = bestWindow(lines, chunk.startLine, chunk.endLine, snippetLines, new Set(chunk.matched));
    return {
      path: chunk.path,
      startLine: chunk.startLine,
      endLine: chunk.endLine,
      score: round(chunk.score),
      rankers: ['lexical'],
      matched: chunk.matched,
      ...snippet,
    };
  });
  return { hits, truncated: chunks.length > limit };
}

/**
 * The chunk ranking's answer; asked again once it is built again when a list it read from
 * chunks.bin failed its check (the ranking discarded itself: never an answer from damaged lists).
 */
async function rankedChunks(engines: CodeSearchEngines, query: RankQuery, signal: CancellationSignal): Promise<RankedChunk[]> {
  for (let attempt = 0; ; attempt++) {
    const ranking = await engines.ranking(signal);
    try {
      return ranking.search(query);
    } catch (error) {
      if (!(error instanceof RankingDamaged) || attempt >= 2) throw error;
    }
  }
}

const defaultHybridWeight = 0.3;

async function semanticRoute(
  query: string,
  semantic: SemanticEngine,
  request: CodeSearchRequest,
  engines: CodeSearchEngines,
  snippetLines: number,
): Promise<{ hits: CodeSearchHit[]; truncated: boolean }> {
  const limit = request.maxResults ?? 20;
  const found = await semantic.search(query, limit + 1, request.accepts);
  const matched = new Set(queryTerms(query));
  const texts = new Map<string, string[] | undefined>();
  const hits = found.slice(0, limit).map((hit): CodeSearchHit => ({
    path: hit.path,
    startLine: hit.startLine,
    endLine: hit.endLine,
    score: round(hit.similarity),
    rankers: ['semantic'],
    ...bestWindow(linesOf(texts, engines, hit.path), hit.startLine, hit.endLine, snippetLines, matched),
  }));
  return { hits, truncated: found.length > limit };
}

/** Lexical and semantic candidates fused (see the module comment). */
async function hybridRoute(
  query: string,
  semantic: SemanticEngine,
  fusion: Fusion,
  request: CodeSearchRequest,
  engines: CodeSearchEngines,
  signal: CancellationSignal,
  snippetLines: number,
): Promise<{ hits: CodeSearchHit[]; truncated: boolean }> {
  const limit = request.maxResults ?? 20;
  const terms = queryTerms(query);
  const lexical = terms.length > 0 ? await rankedChunks(engines, { terms, accepts: request.accepts, limit: Math.max(limit, 50) }, signal) : [];
  const near = await semantic.search(query, 100, request.accepts);
  const scored = fuse(fusionCandidates(lexical, near), terms, fusion);
  const texts = new Map<string, string[] | undefined>();
  const matchedAll = new Set(terms);
  const hits = scored.slice(0, limit).map(({ candidate, score }): CodeSearchHit => ({
    path: candidate.path,
    startLine: candidate.startLine,
    endLine: candidate.endLine,
    score: round(score),
    rankers: [...(candidate.lexical > 0 ? (['lexical'] as const) : []), ...(candidate.similarity !== undefined ? (['semantic'] as const) : [])],
    ...(candidate.matched.length > 0 ? { matched: candidate.matched } : {}),
    ...bestWindow(
      linesOf(texts, engines, candidate.path),
      candidate.startLine,
      candidate.endLine,
      snippetLines,
      candidate.matched.length > 0 ? new Set(candidate.matched) : matchedAll,
    ),
  }));
  return { hits, truncated: scored.length > limit };
}

async function symbolRoute(
  query: string,
  request: CodeSearchRequest,
  engines: CodeSearchEngines,
  signal: CancellationSignal,
  snippetLines: number,
): Promise<{ hits: CodeSearchHit[]; truncated: boolean } | undefined> {
  const name = query.split(/\.|::|#|->/).pop()!;
  const limit = request.maxResults ?? 200;
  const found = await engines.symbols({ query, accepts: request.accepts, limit: 50 }, signal);
  // Definitions of this very name (any case), not every fuzzy neighbour.
  const definitions = found.matches.filter((match) => match.name.toLowerCase() === name.toLowerCase()).slice(0, Math.min(limit, 20));
  if (definitions.length === 0) return undefined;
  const texts = new Map<string, string[] | undefined>();
  const hits: CodeSearchHit[] = definitions.map((definition) => {
    const lines = linesOf(texts, engines, definition.path);
    const endLine = lastLineOf(definition.start, definition.end);
    const count = Math.min(snippetLines, endLine - definition.start.line + 1);
    return {
      path: definition.path,
      startLine: definition.start.line,
      endLine,
      score: round(definition.score),
      rankers: ['symbol'],
      symbol: { name: definition.name, kind: definition.kind, container: definition.container },
      snippet: (lines ?? []).slice(definition.start.line, definition.start.line + count).join('\n'),
      snippetLine: definition.start.line,
      focusLine: definition.start.line,
    };
  });
  // Then where the name is written, outside the definitions already shown.
  const grep = await engines.grep(
    {
      pattern: name,
      fixedStrings: true,
      wordRegexp: true,
      ...(request.globs ? { globs: request.globs } : {}),
      ...(request.languages ? { languages: request.languages } : {}),
      maxResults: limit + 1,
    },
    signal,
  );
  const inside = (path: string, line: number): boolean => hits.some((hit) => hit.path === path && line >= hit.startLine && line <= hit.endLine);
  let truncated = grep.truncated;
  for (const match of grep.matches) {
    if (!request.accepts(match.path) || inside(match.path, match.line - 1)) continue;
    if (hits.length >= limit) {
      truncated = true;
      break;
    }
    hits.push({
      path: match.path,
      startLine: match.line - 1,
      endLine: match.line - 1,
      column: match.column,
      score: 0,
      rankers: ['literal'],
      snippet: match.text,
      snippetLine: match.line - 1,
      focusLine: match.line - 1,
    });
  }
  return { hits, truncated };
}

async function grepRoute(
  query: string,
  literal: boolean,
  request: CodeSearchRequest,
  engines: CodeSearchEngines,
  signal: CancellationSignal,
): Promise<{ hits: CodeSearchHit[]; truncated: boolean }> {
  const limit = request.maxResults ?? 200;
  const result = await engines.grep(
    {
      pattern: query,
      fixedStrings: literal,
      ignoreCase: request.ignoreCase === true,
      ...(request.globs ? { globs: request.globs } : {}),
      ...(request.languages ? { languages: request.languages } : {}),
      maxResults: limit,
    },
    signal,
  );
  const hits = result.matches
    .filter((match) => request.accepts(match.path))
    .map((match): CodeSearchHit => ({
      path: match.path,
      startLine: match.line - 1,
      endLine: match.line - 1,
      column: match.column,
      score: 0,
      rankers: [literal ? 'literal' : 'regex'],
      snippet: match.text,
      snippetLine: match.line - 1,
      focusLine: match.line - 1,
    }));
  return { hits, truncated: result.truncated };
}

function linesOf(cache: Map<string, string[] | undefined>, engines: CodeSearchEngines, path: string): string[] | undefined {
  if (!cache.has(path)) cache.set(path, engines.readText(path)?.split(/\r?\n/));
  return cache.get(path);
}

/**
 * The line of [start, end] holding the most matched terms (the first line when none does), and
 * the `size` lines around it (inside the range).
 */
export function bestWindow(
  lines: string[] | undefined,
  start: number,
  end: number,
  size: number,
  matched: ReadonlySet<string>,
): { snippet: string; snippetLine: number; focusLine: number } {
  if (!lines) return { snippet: '', snippetLine: start, focusLine: start };
  const last = Math.max(start, Math.min(end, lines.length - 1));
  let focus = start;
  let most = 0;
  for (let line = start; line <= last; line++) {
    const count = new Set(termsOf(lines[line] ?? '').filter((term) => matched.has(term))).size;
    if (count > most) {
      most = count;
      focus = line;
    }
  }
  const first = Math.max(start, Math.min(focus - Math.floor((size - 1) / 2), last - size + 1));
  return { snippet: lines.slice(first, Math.min(first + size, last + 1)).join('\n'), snippetLine: first, focusLine: focus };
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
