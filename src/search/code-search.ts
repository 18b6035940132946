// fathom/codeSearch: one question, several engines. Owns the modes, the routing of `auto`, and the
// shape of a hit (a file, a line range, a score, the rankers that found it, a snippet read from
// the local file). Engines come in through `CodeSearchEngines` (the daemon builds them on first
// use, with progress), so this module imports only engine types.
//
// Modes:
//   lexical   the chunk ranking (BM25F over whole syntax chunks, index/lexical/chunk-ranking.ts)
//   regex     the regex index (ripgrep's results), one hit per matching line
//   literal   the same, the query taken as a fixed string
//   semantic, hybrid   need an embedding model; none ships yet (answered as unavailable, with why)
//   auto      a regex-shaped query → regex; an identifier-shaped one → the definitions of that name
//             first (code graph), then its whole-word occurrences (literal); a short fragment of
//             code → literal; words → the best ranking available (lexical until a model exists).
//             An identifier no definition matches is ranked as words.
import type { CancellationSignal } from '../base/cancellation.js';
import { FathomError } from '../base/errors.js';
import type { SymbolMatch, SymbolQuery } from '../index/graph/code-graph.js';
import type { ChunkRanking } from '../index/lexical/chunk-ranking.js';
import { queryTerms, termsOf } from '../index/lexical/code-tokens.js';
import type { GrepRequest, GrepResult } from '../index/lexical/lexical-index.js';

export const codeSearchModes = ['auto', 'lexical', 'semantic', 'hybrid', 'regex', 'literal'] as const;
export type CodeSearchMode = (typeof codeSearchModes)[number];
export type Ranker = 'lexical' | 'symbol' | 'regex' | 'literal';
export type Route = 'lexical' | 'symbol' | 'regex' | 'literal';

export interface CodeSearchRequest {
  query: string;
  mode: CodeSearchMode;
  /** picomatch globs and language ids/names/extensions, applied before ranking. */
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
  /** Why semantic search cannot run (no model): answered for semantic and hybrid. */
  semanticUnavailable(): string | undefined;
}

const regexShaped = /\\[bBdDsSwW.()[\]{}|*+?^$\\]|\.[*+?]|\[[^\]]+\]|[^\\]\||^\^|[^\\]\$$|\(\?[:=!<]/;
const identifierShaped = /^[A-Za-z_$][\w$]*(?:(?:\.|::|#|->)[A-Za-z_$][\w$]*)*$/;
const codeShaped = /[(){}[\];=<>"'`]|^\S+$/;

/** How auto reads a query. */
export function routeOf(query: string): { route: Route; reason: string } {
  const trimmed = query.trim();
  if (identifierShaped.test(trimmed)) return { route: 'symbol', reason: 'an identifier: its definitions first, then where it is written' };
  if (regexShaped.test(trimmed) && compiles(trimmed)) return { route: 'regex', reason: 'a regular expression' };
  if (codeShaped.test(trimmed) && trimmed.split(/\s+/).length <= 6) return { route: 'literal', reason: 'a fragment of code: searched as written' };
  return { route: 'lexical', reason: 'words: ranked by the chunk ranking (no embedding model yet)' };
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
    case 'semantic':
    case 'hybrid': {
      const why = engines.semanticUnavailable();
      if (why !== undefined) throw new FathomError('invalidParams', `mode ${request.mode} is not available: ${why}. Use mode lexical or auto.`, { field: 'mode' });
      throw new FathomError('internal', `mode ${request.mode} has no engine`);
    }
    case 'auto':
      ({ route, reason } = routeOf(query));
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
  return { route, reason, ...(await grepRoute(query, route === 'literal', request, engines, signal)) };
}

async function lexicalRoute(query: string, request: CodeSearchRequest, engines: CodeSearchEngines, signal: CancellationSignal, snippetLines: number): Promise<{ hits: CodeSearchHit[]; truncated: boolean }> {
  const terms = queryTerms(query);
  if (terms.length === 0) throw new FathomError('invalidParams', `the query "${query}" has no searchable words (only stop words or punctuation); try mode regex or literal`, { field: 'query' });
  const limit = request.maxResults ?? 20;
  const ranking = await engines.ranking(signal);
  const chunks = ranking.search({ terms, accepts: request.accepts, limit: limit + 1 });
  const texts = new Map<string, string[] | undefined>();
  const hits = chunks.slice(0, limit).map((chunk): CodeSearchHit => {
    const lines = linesOf(texts, engines, chunk.path);
    const snippet = bestWindow(lines, chunk.startLine, chunk.endLine, snippetLines, new Set(chunk.matched));
    return { path: chunk.path, startLine: chunk.startLine, endLine: chunk.endLine, score: round(chunk.score), rankers: ['lexical'], matched: chunk.matched, ...snippet };
  });
  return { hits, truncated: chunks.length > limit };
}

async function symbolRoute(query: string, request: CodeSearchRequest, engines: CodeSearchEngines, signal: CancellationSignal, snippetLines: number): Promise<{ hits: CodeSearchHit[]; truncated: boolean } | undefined> {
  const name = query.split(/\.|::|#|->/).pop()!;
  const limit = request.maxResults ?? 200;
  const found = await engines.symbols({ query, accepts: request.accepts, limit: 50 }, signal);
  // Definitions of this very name (any case), not every fuzzy neighbour.
  const definitions = found.matches.filter((match) => match.name.toLowerCase() === name.toLowerCase()).slice(0, Math.min(limit, 20));
  if (definitions.length === 0) return undefined;
  const texts = new Map<string, string[] | undefined>();
  const hits: CodeSearchHit[] = definitions.map((definition) => {
    const lines = linesOf(texts, engines, definition.path);
    const endLine = definition.end.character === 0 && definition.end.line > definition.start.line ? definition.end.line - 1 : definition.end.line;
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
  const grep = await engines.grep({ pattern: name, fixedStrings: true, wordRegexp: true, ...(request.globs ? { globs: request.globs } : {}), ...(request.languages ? { languages: request.languages } : {}), maxResults: limit + 1 }, signal);
  const inside = (path: string, line: number): boolean => hits.some((hit) => hit.path === path && line >= hit.startLine && line <= hit.endLine);
  let truncated = grep.truncated;
  for (const match of grep.matches) {
    if (!request.accepts(match.path) || inside(match.path, match.line - 1)) continue;
    if (hits.length >= limit) {
      truncated = true;
      break;
    }
    hits.push({ path: match.path, startLine: match.line - 1, endLine: match.line - 1, column: match.column, score: 0, rankers: ['literal'], snippet: match.text, snippetLine: match.line - 1, focusLine: match.line - 1 });
  }
  return { hits, truncated };
}

async function grepRoute(query: string, literal: boolean, request: CodeSearchRequest, engines: CodeSearchEngines, signal: CancellationSignal): Promise<{ hits: CodeSearchHit[]; truncated: boolean }> {
  const limit = request.maxResults ?? 200;
  const result = await engines.grep(
    { pattern: query, fixedStrings: literal, ignoreCase: request.ignoreCase === true, ...(request.globs ? { globs: request.globs } : {}), ...(request.languages ? { languages: request.languages } : {}), maxResults: limit },
    signal,
  );
  const hits = result.matches.map((match): CodeSearchHit => ({ path: match.path, startLine: match.line - 1, endLine: match.line - 1, column: match.column, score: 0, rankers: [literal ? 'literal' : 'regex'], snippet: match.text, snippetLine: match.line - 1, focusLine: match.line - 1 }));
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
export function bestWindow(lines: string[] | undefined, start: number, end: number, size: number, matched: ReadonlySet<string>): { snippet: string; snippetLine: number; focusLine: number } {
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
