// The code-graph requests of a connection: fathom/definition, fathom/references, fathom/callers,
// fathom/callees, fathom/impact, and LSP textDocument/definition and textDocument/references.
// Reads and checks the params, picks the symbols a request is about (a position, a range or a
// name), asks the workspace's GraphQueries and converts the answer with to-wire.ts.
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
import type { Workspace } from '../workspace/workspace.js';
import { type Params, optionalBoolean, optionalCount, optionalProgressToken, optionalString, paramsObject, requiredObject, requiredString } from './params.js';
import { toLspLocation, toLspReferenceLocation, toWireGraphSymbol, toWireReference, toWireRelated } from './to-wire.js';

/** What the requests need from the session. */
export interface GraphRequestContext {
  workspaceFor(params: Params): Workspace;
  fileIn(params: Params): { workspace: Workspace; relative: string; absolute: string };
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

const confidences = new Set<Confidence>(['exact', 'unique', 'name-only']);

function position(params: Params, field: string, base: 0 | 1): { line: number; character: number } {
  const value = requiredObject(params, field);
  const line = value.line;
  const column = base === 1 ? value.column : value.character;
  const columnName = base === 1 ? 'column' : 'character';
  if (typeof line !== 'number' || !Number.isInteger(line) || line < base)
    throw new FathomError('invalidParams', `params.${field}.line must be an integer ≥ ${base}`, { field: `${field}.line` });
  if (typeof column !== 'number' || !Number.isInteger(column) || column < base)
    throw new FathomError('invalidParams', `params.${field}.${columnName} must be an integer ≥ ${base}`, { field: `${field}.${columnName}` });
  return { line: line - base, character: column - base };
}

function bounded(params: Params, field: string, fallback: number, max: number): number {
  const value = optionalCount(params, field) ?? fallback;
  if (value < 1 || value > max) throw new FathomError('invalidParams', `params.${field} must be between 1 and ${max} (got ${value})`, { field });
  return value;
}

export class GraphRequests {
  constructor(private readonly context: GraphRequestContext) {}

  /** The symbols a request is about: a name, the definitions in a range, or what a position means (`around`: a position inside a definition, not on a name, means that definition). */
  private async subject(method: string, params: Params, token: CancellationToken, around: boolean): Promise<Subject> {
    const symbol = optionalString(params, 'symbol');
    const progressToken = optionalProgressToken(params, 'workDoneToken');
    if (symbol !== undefined) {
      const file = params.path === undefined ? undefined : this.context.fileIn(params);
      const workspace = file?.workspace ?? this.context.workspaceFor(params);
      const { graph, queries } = await this.context.readyGraph(workspace, token, progressToken, file?.relative);
      const roots = queries
        .definitionsNamed(symbol, file ? (path) => path === file.relative : undefined)
        .map((place): Target => ({ ...place, confidence: 'exact', via: 'workspace' }));
      return { workspace, graph, queries, roots };
    }
    if (params.path === undefined) throw new FathomError('invalidParams', `${method} needs either symbol, or path with position or range`, { field: 'path' });
    const { workspace, relative } = this.context.fileIn(params);
    const { graph, queries } = await this.context.readyGraph(workspace, token, progressToken, relative);
    if (params.range !== undefined) {
      const range = requiredObject(params, 'range');
      const start = position(range, 'start', 1);
      const end = position(range, 'end', 1);
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
    const at = position(params, 'position', 1);
    let roots = queries.definitionsAt(relative, at.line, at.character);
    if (roots.length === 0 && around) {
      const { around: enclosing } = queries.definitionAtPosition(relative, at.line, at.character);
      if (enclosing >= 0) roots = [{ path: relative, index: enclosing, confidence: 'exact', via: 'scope' }];
    }
    return { workspace, graph, queries, roots };
  }

  private minConfidence(params: Params): Confidence | undefined {
    const value = optionalString(params, 'minConfidence');
    if (value !== undefined && !confidences.has(value as Confidence))
      throw new FathomError('invalidParams', `params.minConfidence must be exact, unique or name-only (got ${value})`, { field: 'minConfidence' });
    return value as Confidence | undefined;
  }

  private graphSymbols(graph: CodeGraph, roots: Target[]): GraphSymbol[] {
    const definitions = graph.definitions(roots);
    return roots.map((root, at) => toWireGraphSymbol(definitions[at]!, root.path, root.confidence, root.via));
  }

  async definition(raw: unknown, token: CancellationToken): Promise<DefinitionResult> {
    const params = paramsObject(Methods.definition, raw);
    const { workspace, graph, roots } = await this.subject(Methods.definition, params, token, false);
    return { root: workspace.root, definitions: this.graphSymbols(graph, roots) };
  }

  /** References of the roots, with each one's container and line. */
  private referencesOf(subject: Subject, minConfidence: Confidence | undefined, token: CancellationToken): Promise<ReferenceSite[]> {
    return subject.queries.referencesTo(subject.roots, { ...(minConfidence ? { minConfidence } : {}), signal: token });
  }

  async references(raw: unknown, token: CancellationToken): Promise<ReferencesResult> {
    const params = paramsObject(Methods.references, raw);
    const minConfidence = this.minConfidence(params);
    const limit = bounded(params, 'limit', 1000, 100_000);
    const offset = optionalCount(params, 'offset') ?? 0;
    // A client that pages (`paged`, or an `offset` given) gets the offset of what follows.
    const paged = optionalBoolean(params, 'paged') === true || params.offset !== undefined;
    const includeDeclaration = optionalBoolean(params, 'includeDeclaration') ?? false;
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

  private relationOptions(params: Params, token: CancellationToken, defaultDepth: number, defaultLimit: number) {
    const minConfidence = this.minConfidence(params);
    const depth = bounded(params, 'depth', defaultDepth, 10);
    const limit = bounded(params, 'limit', defaultLimit, 100_000);
    const signal = token;
    return { depth, limit, options: { ...(minConfidence ? { minConfidence } : {}), signal } };
  }

  async callers(raw: unknown, token: CancellationToken): Promise<CallersResult> {
    const params = paramsObject(Methods.callers, raw);
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

  async callees(raw: unknown, token: CancellationToken): Promise<CalleesResult> {
    const params = paramsObject(Methods.callees, raw);
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

  async impact(raw: unknown, token: CancellationToken): Promise<ImpactResult> {
    const params = paramsObject(Methods.impact, raw);
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
  async lspDefinition(raw: unknown, token: CancellationToken): Promise<unknown[]> {
    const params = paramsObject('textDocument/definition', raw);
    const uri = requiredString(requiredObject(params, 'textDocument'), 'uri');
    const at = position(params, 'position', 0);
    const { workspace, relative } = this.context.fileIn({ path: uri });
    const { graph, queries } = await this.context.readyGraph(workspace, token, undefined, relative);
    const targets = queries.definitionsAt(relative, at.line, at.character);
    const definitions = graph.definitions(targets);
    return targets.map((target, index) => toLspLocation(workspace.root, target.path, definitions[index]!));
  }

  /** LSP textDocument/references: Location[] (context.includeDeclaration honoured). */
  async lspReferences(raw: unknown, token: CancellationToken): Promise<unknown[]> {
    const params = paramsObject('textDocument/references', raw);
    const uri = requiredString(requiredObject(params, 'textDocument'), 'uri');
    const at = position(params, 'position', 0);
    const includeDeclaration = typeof params.context === 'object' && params.context !== null && (params.context as Params).includeDeclaration === true;
    const { workspace, relative } = this.context.fileIn({ path: uri });
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
