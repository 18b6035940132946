// The one place that converts engine values to wire values: engine status to the protocol's
// WorkspaceStatus, answers to their wire shapes (errors: to-wire-error.ts).
import { GrepLinesJson } from './grep-json.js';
import type { GrepResult as IndexGrepResult } from '../index/regex/regex-index.js';
import { pathToFileURL } from 'node:url';
import type { CodeSearchAnswer } from '../search/code-search.js';
import type {
  StructuralBinding,
  StructuralRewriteResult,
  CodeSearchResult,
  CodeSearchHit as WireCodeSearchHit,
  StructuralSearchResult,
  ChunksResult,
  GrepResult,
  GraphSymbol,
  MerkleResult,
  OutlineResult,
  OutlineSymbol,
  RelatedSymbol as WireRelatedSymbol,
  SymbolsResult,
  WireChunk,
  WireRange,
  WireReference,
  WireSymbol,
  WorkspaceStatus,
} from '../protocol/methods.js';
import type { ReferenceSite, RelatedSymbol as GraphRelated } from '../index/graph/graph-queries.js';
import type { Confidence } from '../index/graph/resolver.js';
import type { OutlineNode } from '../index/graph/outline.js';
import type { SymbolMatch } from '../index/graph/code-graph.js';
import type { FileTags, SymbolDefinition, TagPosition } from '../index/syntax/tags.js';
import type { Chunk } from '../index/syntax/chunk.js';
import type { ChunksAnswer } from './workspaces.js';
import type { StructuralResult } from '../structural/structural-search.js';
import type { BoundText } from '../structural/find.js';
import type { RewritePlanResult } from '../structural/rewrite-planner.js';
import type { MerkleView, WorkspaceStatusInfo } from '../workspace/workspace.js';
import type { SyntaxPass } from '../engine/syntax-pass.js';

/** What a workspace's syntax passes cost (status). */
export function toWireSyntaxPass(pass: SyntaxPass): NonNullable<WorkspaceStatus['syntaxPass']> {
  const { jobs, parses, parseMs, workerMs } = pass.totals;
  return { files: jobs, parses, parseMs: Math.round(parseMs), workerMs: Math.round(workerMs), shared: { ...pass.shared }, dropped: { ...pass.dropped } };
}

export function toWireStatus(status: WorkspaceStatusInfo, indexes: Record<string, string> = {}, indexFacts?: WorkspaceStatus['indexFacts']): WorkspaceStatus {
  return {
    root: status.root,
    state: status.state,
    git: status.git,
    files: status.files,
    bytes: status.bytes,
    skipped: status.skipped,
    merkleRoot: status.merkleRoot,
    indexes: {
      fileSet: status.state === 'ready' ? 'ready' : status.state === 'failed' ? 'failed' : 'building',
      merkle: status.merkleRoot ? 'ready' : 'absent',
      ...(indexes as Record<string, 'absent' | 'building' | 'ready' | 'failed' | 'off'>),
    },
    ...(indexFacts ? { indexFacts } : {}),
    watcher: status.watcher,
    lag: status.lag,
    lastScan: status.lastScan,
    cache: status.cache,
    ...(status.file === undefined ? {} : { file: status.file }),
    ...(status.error ? { error: status.error } : {}),
  };
}

export function toWireGrep(root: string, result: IndexGrepResult): GrepResult {
  // Written to the wire from the workers' bytes by the daemon's encoder (an array of matches to any other reader).
  const matches = new GrepLinesJson(result.lines) as unknown as GrepResult['matches'];
  return {
    root,
    matches,
    total: result.total,
    files: result.files,
    truncated: result.truncated,
    ...(result.next ? { next: result.next } : {}),
    timedOut: result.timedOut,
    stats: result.stats,
  };
}

export function toWireCodeSearch(root: string, query: string, answer: CodeSearchAnswer, elapsedMs: number): CodeSearchResult {
  const hits = answer.hits.map((hit): WireCodeSearchHit => ({
    path: hit.path,
    uri: pathToFileURL(`${root}/${hit.path}`).href,
    start: hit.startLine + 1,
    end: hit.endLine + 1,
    ...(hit.column === undefined ? {} : { column: hit.column }),
    score: hit.score,
    rankers: hit.rankers,
    ...(hit.matched ? { matched: hit.matched } : {}),
    ...(hit.symbol ? { symbol: hit.symbol } : {}),
    line: hit.focusLine + 1,
    snippet: hit.snippet,
    snippetStart: hit.snippetLine + 1,
  }));
  return {
    root,
    query,
    route: answer.route,
    reason: answer.reason,
    hits,
    total: hits.length,
    truncated: answer.truncated,
    elapsedMs: Math.round(elapsedMs * 10) / 10,
  };
}

export function toWireMerkle(root: string, rootHash: string, view: MerkleView): MerkleResult {
  return { root, rootHash, ...view };
}

function toWireChunk(chunk: Chunk, includeText: boolean): WireChunk {
  return {
    startByte: chunk.startByte,
    endByte: chunk.endByte,
    start: { line: chunk.start.line + 1, column: chunk.start.character + 1 },
    end: { line: chunk.end.line + 1, column: chunk.end.character + 1 },
    method: chunk.method,
    parseError: chunk.parseError,
    oversized: chunk.oversized,
    scope: chunk.scope,
    entities: chunk.entities,
    header: chunk.header,
    ...(includeText ? { text: chunk.text } : {}),
  };
}

export function toWireChunks(root: string, answer: ChunksAnswer, options: { includeText: boolean }): ChunksResult {
  const file = answer.chunks;
  return {
    root,
    path: file.path,
    source: answer.source,
    ...(answer.version === undefined ? {} : { version: answer.version }),
    language: file.language ?? null,
    languageName: file.languageName ?? null,
    byteLength: file.byteLength,
    parseErrors: file.parseErrors,
    problems: file.problems,
    chunks: file.chunks.map((chunk) => toWireChunk(chunk, options.includeText)),
  };
}

function wireRange(start: TagPosition, end: TagPosition): WireRange {
  return { start: { line: start.line + 1, column: start.character + 1 }, end: { line: end.line + 1, column: end.character + 1 } };
}

function toWireSymbol(match: SymbolMatch): WireSymbol {
  return {
    name: match.name,
    kind: match.kind,
    path: match.path,
    range: wireRange(match.start, match.end),
    selectionRange: wireRange(match.nameStart, match.nameEnd),
    container: match.container,
    signature: match.signature,
  };
}

export function toWireSymbols(root: string, result: { matches: SymbolMatch[]; truncated: boolean }): SymbolsResult {
  return { root, symbols: result.matches.map((match) => ({ ...toWireSymbol(match), score: match.score })), truncated: result.truncated };
}

function toOutlineSymbol(node: OutlineNode): OutlineSymbol {
  const definition = node.definition;
  return {
    name: definition.name,
    kind: definition.kind,
    range: wireRange(definition.start, definition.end),
    selectionRange: wireRange(definition.nameStart, definition.nameEnd),
    signature: definition.signature,
    children: node.children.map(toOutlineSymbol),
  };
}

export function toWireOutline(root: string, tags: FileTags, source: 'disk' | 'buffer', nodes: OutlineNode[]): OutlineResult {
  return { root, path: tags.path, source, language: tags.language ?? null, symbols: nodes.map(toOutlineSymbol) };
}

/** LSP SymbolKind for a tag kind. */
const lspKinds: Record<string, number> = {
  module: 2,
  namespace: 3,
  package: 4,
  class: 5,
  method: 6,
  property: 7,
  field: 8,
  constructor: 9,
  enum: 10,
  interface: 11,
  function: 12,
  variable: 13,
  constant: 14,
  struct: 23,
  type: 5,
  macro: 12,
  trait: 11,
  impl: 5,
};

function lspRange(start: TagPosition, end: TagPosition): { start: { line: number; character: number }; end: { line: number; character: number } } {
  return { start: { line: start.line, character: start.character }, end: { line: end.line, character: end.character } };
}

/** LSP workspace/symbol: SymbolInformation[]. */
export function toLspSymbolInformation(root: string, matches: SymbolMatch[]): unknown[] {
  return matches.map((match) => ({
    name: match.name,
    kind: lspKinds[match.kind] ?? 13,
    location: { uri: pathToFileURL(`${root}/${match.path}`).href, range: lspRange(match.start, match.end) },
    ...(match.container.length > 0 ? { containerName: match.container.join('.') } : {}),
  }));
}

/** LSP textDocument/documentSymbol: DocumentSymbol[] (hierarchical). */
export function toLspDocumentSymbols(nodes: OutlineNode[]): unknown[] {
  const convert = (node: OutlineNode): unknown => {
    const definition: SymbolDefinition = node.definition;
    return {
      name: definition.name,
      detail: definition.signature,
      kind: lspKinds[definition.kind] ?? 13,
      range: lspRange(definition.start, definition.end),
      selectionRange: lspRange(definition.nameStart, definition.nameEnd),
      children: node.children.map(convert),
    };
  };
  return nodes.map(convert);
}

function toWireBinding(bound: BoundText): StructuralBinding {
  return {
    text: bound.text,
    ...(bound.start && bound.end ? { range: wireRange(bound.start, bound.end), startByte: bound.startByte!, endByte: bound.endByte! } : {}),
    ...(bound.count === undefined ? {} : { count: bound.count }),
  };
}

export function toWireStructural(root: string, result: StructuralResult): StructuralSearchResult {
  return {
    root,
    language: result.language,
    patternContext: result.rung ?? null,
    variables: result.variables,
    matches: result.matches.map((match) => ({
      path: match.path,
      range: wireRange(match.start, match.end),
      startByte: match.startByte,
      endByte: match.endByte,
      text: match.text,
      lineText: match.lineText,
      bindings: Object.fromEntries(Object.entries(match.bindings).map(([name, bound]) => [name, toWireBinding(bound)])),
    })),
    files: result.files,
    truncated: result.truncated,
    ...(result.next ? { next: result.next } : {}),
    errors: result.errors,
    stats: result.stats,
  };
}

export function toWireRewritePlan(root: string, plan: RewritePlanResult): StructuralRewriteResult {
  return {
    root,
    token: plan.token ?? null,
    expiresAt: plan.expiresAt === undefined ? null : new Date(plan.expiresAt).toISOString(),
    language: plan.language,
    count: plan.count,
    files: plan.files,
    changes: plan.changes.map((change) => ({
      path: change.path,
      range: wireRange(change.start, change.end),
      startByte: change.startByte,
      endByte: change.endByte,
      before: change.before,
      after: change.after,
    })),
    diff: plan.diff,
    skipped: plan.skipped,
    overlapping: plan.overlapping,
    errors: plan.errors,
    stats: plan.stats,
  };
}

/** A definition reached through the code graph. */
export function toWireGraphSymbol(definition: SymbolDefinition, path: string, confidence: Confidence, via: string): GraphSymbol {
  return {
    name: definition.name,
    kind: definition.kind,
    path,
    range: wireRange(definition.start, definition.end),
    selectionRange: wireRange(definition.nameStart, definition.nameEnd),
    container: definition.container,
    signature: definition.signature,
    confidence,
    via,
  };
}

function siteRange(site: ReferenceSite): WireRange {
  return { start: { line: site.line + 1, column: site.character + 1 }, end: { line: site.line + 1, column: site.endCharacter + 1 } };
}

export function toWireReference(site: ReferenceSite, container: string[], text: string): WireReference {
  return { path: site.path, range: siteRange(site), kind: site.kind, confidence: site.confidence, via: site.via, container, text };
}

export function toWireRelated(entry: GraphRelated, symbol: SymbolDefinition | undefined, from: SymbolDefinition | undefined): WireRelatedSymbol {
  return {
    symbol: symbol ? toWireSymbol({ ...symbol, path: entry.path, score: 0 }) : null,
    path: entry.path,
    distance: entry.distance,
    confidence: entry.confidence,
    sites: entry.sites.map((site) => ({ path: site.path, range: siteRange(site), kind: site.kind, confidence: site.confidence })),
    from: from && entry.from ? { name: from.name, path: entry.from.path, line: from.nameStart.line + 1 } : null,
  };
}

/** LSP Location of a definition's name (what an editor jumps to). */
export function toLspLocation(root: string, path: string, definition: SymbolDefinition): unknown {
  return { uri: pathToFileURL(`${root}/${path}`).href, range: lspRange(definition.nameStart, definition.nameEnd) };
}

/** LSP Location of a reference. */
export function toLspReferenceLocation(root: string, site: ReferenceSite): unknown {
  return {
    uri: pathToFileURL(`${root}/${site.path}`).href,
    range: { start: { line: site.line, character: site.character }, end: { line: site.line, character: site.endCharacter } },
  };
}
