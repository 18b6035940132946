// The code-graph requests of a connection: fathom/definition, fathom/references, fathom/callers,
// fathom/callees, fathom/impact, and LSP textDocument/definition and textDocument/references.
// Given the params as their schemas parsed them (protocol/params.ts), picks the symbols a request is
// about (a position, a range or a name), asks the workspace's GraphQueries and converts the answer
// with to-wire.ts.
import type { CancellationToken } from 'vscode-jsonrpc/node';
import { FathomError } from '../base/errors.js';
import type { CodeGraph } from '../index/graph/code-graph.js';
import { definitionWithin } from '../index/graph/file-graph.js';
import type { GraphQueries, RelatedSymbol, ReferenceSite } from '../index/graph/graph-queries.js';
import type { Confidence, Target } from '../index/graph/resolver.js';
import type { SymbolDefinition } from '../index/syntax/tags.js';
import {
  Methods,
  type CalleesResult,
  type CallersResult,
  type DefinitionResult,
  type GraphSymbol,
  type ImpactResult,
  type ProgressToken,
  type ReferencesResult,
} from '../protocol/methods.js';
import type { ParamsOf } from '../protocol/params.js';
import type { Workspace } from '../workspace/workspace.js';
import { toLspLocation, toLspReferenceLocation, toWireGraphSymbol, toWireReference, toWireRelated } from './to-wire.js';

/** What the requests need from the session. */
export interface GraphRequestContext {
  workspaceFor(params: { root: string }): Workspace;
  fileIn(params: { path: string; root?: string | undefined }): { workspace: Workspace; relative: string; absolute: string };
  /** The workspace's code graph, built (with $/progress on the token) and settled; `path`, when given, must be in the file set (else InvalidParams). */
  readyGraph(
    workspace: Workspace,
    token: CancellationToken,
    progressToken: ProgressToken | undefined,
    path?: string,
  ): Promise<{ graph: CodeGraph; queries: GraphQueries }>;
}

interface Subject {
  workspace: Workspace;
  graph: CodeGraph;
  queries: GraphQueries;
  roots: Target[];
}

/** What a graph question is about, in the params of every fathom/ graph method. */
type TargetParams = ParamsOf<'fathom/definition'>;

/** A wire position (1-based line and column) as the graph's 0-based line and character. */
function zeroBased(position: { line: number; column: number }): { line: number; character: number } {
  return { line: position.line - 1, character: position.column - 1 };
}

export class GraphRequests {
  constructor(private readonly context: GraphRequestContext) {}

  /** The symbols a request is about: a name, the definitions in a range, or what a position means (`around`: a position inside a definition, not on a name, means that definition). */
  private async subject(method: string, params: TargetParams, token: CancellationToken, around: boolean): Promise<Subject> {
    const { symbol, path, root } = params;
    const progressToken = params.workDoneToken;
    if (symbol !== undefined) {
      const file = path === undefined ? undefined : this.context.fileIn({ path, root });
      // Without a path, the schema requires a root.
      const workspace = file?.workspace ?? this.context.workspaceFor({ root: root! });
      const { graph, queries } = await this.context.readyGraph(workspace, token, progressToken, file?.relative);
      const roots = queries
        .definitionsNamed(symbol, file ? (path) => path === file.relative : undefined)
        .map((place): Target => ({ ...place, confidence: 'exact', via: 'workspace' }));
      return { workspace, graph, queries, roots };
    }
    if (path === undefined) throw new FathomError('invalidParams', `${method} needs either symbol, or path with position or range`, { field: 'path' });
    const { workspace, relative } = this.context.fileIn({ path, root });
    const { graph, queries } = await this.context.readyGraph(workspace, token, progressToken, relative);
    if (params.range !== undefined) {
      const start = zeroBased(params.range.start);
      const end = zeroBased(params.range.end);
      const file = graph.file(relative);
      const roots: Target[] = [];
      if (file) {
        const p = file.definitionPositions;
        for (let at = 0; at < file.definitionNames.length; at++) {
          const o = at * 8;
          const after = p[o]! > start.line || (p[o] === start.line && p[o + 1]! >= start.character);
          const before = p[o + 2]! < end.line || (p[o + 2] === end.line && p[o + 3]! <= end.character);
          if (after && before && !roots.some((root) => definitionWithin(file, at, root.index)))
            roots.push({ path: relative, index: at, confidence: 'exact', via: 'scope' });
        }
        // None wholly inside: the outermost definitions that start on the range's lines (FILE:LINE).
        if (roots.length === 0) {
          for (let at = 0; at < file.definitionNames.length; at++) {
            const line = p[at * 8]!;
            if (line >= start.line && line <= end.line && !roots.some((root) => definitionWithin(file, at, root.index)))
              roots.push({ path: relative, index: at, confidence: 'exact', via: 'scope' });
          }
        }
        if (roots.length === 0) {
          const { around: enclosing } = queries.definitionAtPosition(relative, start.line, start.character);
          if (enclosing >= 0) roots.push({ path: relative, index: enclosing, confidence: 'exact', via: 'scope' });
        }
      }
      return { workspace, graph, queries, roots };
    }
    if (params.position === undefined) throw new FathomError('invalidParams', `${method} needs position or range with path (or symbol)`, { field: 'position' });
    const at = zeroBased(params.position);
    let roots = queries.definitionsAt(relative, at.line, at.character);
    if (roots.length === 0 && around) {
      const { around: enclosing } = queries.definitionAtPosition(relative, at.line, at.character);
      if (enclosing >= 0) roots = [{ path: relative, index: enclosing, confidence: 'exact', via: 'scope' }];
    }
    return { workspace, graph, queries, roots };
  }

  private graphSymbols(graph: CodeGraph, roots: Target[]): GraphSymbol[] {
    const definitions = graph.definitions(roots);
    return roots.map((root, at) => toWireGraphSymbol(definitions[at]!, root.path, root.confidence, root.via));
  }

  async definition(params: ParamsOf<'fathom/definition'>, token: CancellationToken): Promise<DefinitionResult> {
    const { workspace, graph, roots } = await this.subject(Methods.definition, params, token, false);
    return { root: workspace.root, definitions: this.graphSymbols(graph, roots) };
  }

  /** References of the roots, with each one's container and line. */
  private referencesOf(subject: Subject, minConfidence: Confidence | undefined, token: CancellationToken): Promise<ReferenceSite[]> {
    return subject.queries.referencesTo(subject.roots, { ...(minConfidence ? { minConfidence } : {}), signal: token });
  }

  async references(params: ParamsOf<'fathom/references'>, token: CancellationToken): Promise<ReferencesResult> {
    const { minConfidence } = params;
    const limit = params.limit ?? 1000;
    const offset = params.offset ?? 0;
    // A client that pages (`paged`, or an `offset` given) gets the offset of what follows.
    const paged = params.paged === true || params.offset !== undefined;
    const includeDeclaration = params.includeDeclaration ?? false;
    const subject = await this.subject(Methods.references, params, token, false);
    const { graph } = subject;
    let sites = await this.referencesOf(subject, minConfidence, token);
    if (includeDeclaration) {
      const declarations = graph.definitions(subject.roots).map((definition, at): ReferenceSite => ({
        path: subject.roots[at]!.path,
        line: definition.nameStart.line,
        character: definition.nameStart.character,
        endCharacter: definition.nameEnd.character,
        kind: 'declaration',
        confidence: 'exact',
        via: 'scope',
        enclosing: graph.file(subject.roots[at]!.path)!.definitionParents[subject.roots[at]!.index]!,
      }));
      sites = [...declarations, ...sites];
    }
    // A page: the references after the first `offset` (the order is the same for the same graph).
    const truncated = sites.length > offset + limit;
    const shown = sites.slice(offset, offset + limit);
    const lines = new Map<string, number[]>();
    for (const site of shown) {
      const list = lines.get(site.path);
      if (list) list.push(site.line);
      else lines.set(site.path, [site.line]);
    }
    const texts = new Map([...lines].map(([path, numbers]) => [path, graph.firstLines(path, numbers)]));
    const references = shown.map((site) => {
      const file = graph.file(site.path);
      const container =
        file && site.enclosing >= 0
          ? [...graph.kinds.chain(file.definitionChains[site.enclosing]!), graph.names.name(file.definitionNames[site.enclosing]!)]
          : [];
      return toWireReference(site, container, texts.get(site.path)?.get(site.line) ?? '');
    });
    return {
      root: subject.workspace.root,
      symbols: this.graphSymbols(graph, subject.roots),
      references,
      truncated,
      ...(paged && truncated ? { next: offset + limit } : {}),
    };
  }

  /** Wire entries for related symbols, their definitions read once per file. */
  private related(graph: CodeGraph, entries: RelatedSymbol[]) {
    const symbols = graph.definitions(entries.filter((entry) => entry.place).map((entry) => entry.place!));
    const froms = graph.definitions(entries.filter((entry) => entry.from).map((entry) => entry.from!));
    let symbolAt = 0;
    let fromAt = 0;
    return entries.map((entry) => toWireRelated(entry, entry.place ? symbols[symbolAt++] : undefined, entry.from ? froms[fromAt++] : undefined));
  }

  private relationOptions(params: ParamsOf<'fathom/callers'>, token: CancellationToken, defaultDepth: number, defaultLimit: number) {
    const { minConfidence } = params;
    const depth = params.depth ?? defaultDepth;
    const limit = params.limit ?? defaultLimit;
    const signal = token;
    return { depth, limit, options: { ...(minConfidence ? { minConfidence } : {}), signal } };
  }

  async callers(params: ParamsOf<'fathom/callers'>, token: CancellationToken): Promise<CallersResult> {
    const { depth, limit, options } = this.relationOptions(params, token, 1, 200);
    const subject = await this.subject(Methods.callers, params, token, true);
    const answer = await subject.queries.callers(subject.roots, depth, limit, options);
    return {
      root: subject.workspace.root,
      symbols: this.graphSymbols(subject.graph, subject.roots),
      callers: this.related(subject.graph, order(answer.symbols)),
      truncated: answer.truncated,
    };
  }

  async callees(params: ParamsOf<'fathom/callees'>, token: CancellationToken): Promise<CalleesResult> {
    const { depth, limit, options } = this.relationOptions(params, token, 1, 200);
    const subject = await this.subject(Methods.callees, params, token, true);
    const answer = await subject.queries.callees(subject.roots, depth, limit, options);
    return {
      root: subject.workspace.root,
      symbols: this.graphSymbols(subject.graph, subject.roots),
      callees: this.related(subject.graph, order(answer.symbols)),
      unresolved: answer.unresolved,
      truncated: answer.truncated,
    };
  }

  async impact(params: ParamsOf<'fathom/impact'>, token: CancellationToken): Promise<ImpactResult> {
    const { depth, limit, options } = this.relationOptions(params, token, 3, 1000);
    const subject = await this.subject(Methods.impact, params, token, true);
    const answer = await subject.queries.impact(subject.roots, depth, limit, options);
    const entries = order(answer.symbols);
    const files = new Map<string, { path: string; distance: number; symbols: number; references: number }>();
    for (const entry of entries) {
      const file = files.get(entry.path) ?? { path: entry.path, distance: entry.distance, symbols: 0, references: 0 };
      file.distance = Math.min(file.distance, entry.distance);
      if (entry.place) file.symbols++;
      file.references += entry.sites.length;
      files.set(entry.path, file);
    }
    const byDistance = new Map<number, { distance: number; symbols: number; files: Set<string> }>();
    for (const entry of entries) {
      const level = byDistance.get(entry.distance) ?? { distance: entry.distance, symbols: 0, files: new Set<string>() };
      if (entry.place) level.symbols++;
      level.files.add(entry.path);
      byDistance.set(entry.distance, level);
    }
    return {
      root: subject.workspace.root,
      symbols: this.graphSymbols(subject.graph, subject.roots),
      impacted: this.related(subject.graph, entries),
      files: [...files.values()].sort((a, b) => a.distance - b.distance || b.references - a.references || (a.path < b.path ? -1 : 1)),
      byDistance: [...byDistance.values()]
        .sort((a, b) => a.distance - b.distance)
        .map((level) => ({ distance: level.distance, symbols: level.symbols, files: level.files.size })),
      truncated: answer.truncated,
    };
  }

  /** LSP textDocument/definition: Location[] of the definitions' names. */
  async lspDefinition(params: ParamsOf<'textDocument/definition'>, token: CancellationToken): Promise<unknown[]> {
    const at = params.position;
    const { workspace, relative } = this.context.fileIn({ path: params.textDocument.uri });
    const { graph, queries } = await this.context.readyGraph(workspace, token, undefined, relative);
    const targets = queries.definitionsAt(relative, at.line, at.character);
    const definitions = graph.definitions(targets);
    return targets.map((target, index) => toLspLocation(workspace.root, target.path, definitions[index]!));
  }

  /** LSP textDocument/references: Location[] (context.includeDeclaration honoured). */
  async lspReferences(params: ParamsOf<'textDocument/references'>, token: CancellationToken): Promise<unknown[]> {
    const at = params.position;
    const includeDeclaration = params.context?.includeDeclaration === true;
    const { workspace, relative } = this.context.fileIn({ path: params.textDocument.uri });
    const { graph, queries } = await this.context.readyGraph(workspace, token, undefined, relative);
    const roots = queries.definitionsAt(relative, at.line, at.character);
    const sites = await this.referencesOf({ workspace, graph, queries, roots }, undefined, token);
    const locations = sites.map((site) => toLspReferenceLocation(workspace.root, site));
    if (!includeDeclaration) return locations;
    const definitions: SymbolDefinition[] = graph.definitions(roots);
    return [...roots.map((root, index) => toLspLocation(workspace.root, root.path, definitions[index]!)), ...locations];
  }
}

/** Nearest first, then surest, then most edges, then by place. */
function order(entries: RelatedSymbol[]): RelatedSymbol[] {
  const strength: Record<Confidence, number> = { exact: 2, unique: 1, 'name-only': 0 };
  return entries.sort(
    (a, b) =>
      a.distance - b.distance ||
      strength[b.confidence] - strength[a.confidence] ||
      b.sites.length - a.sites.length ||
      (a.path < b.path ? -1 : a.path > b.path ? 1 : (a.place?.index ?? -1) - (b.place?.index ?? -1)),
  );
}
