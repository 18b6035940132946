// Chunking one file: Parse → Extract → Scope → Chunk → Context. Detects the language, parses
// (or takes a tree from the parse cache), cuts the tree (cut.ts), names each chunk's scope and
// entities (entities.ts) and writes its header (context-header.ts). Files without a grammar, or
// whose parse failed or ran past its time limit, fall back to line windows, with the reason in
// `problems`. Pure: bytes in, chunks out. Called by the chunk workers, the parse cache's users and
// tests.
import type { Node, Tree } from 'web-tree-sitter';
import { type Chunk, type ChunkEntity, type ChunkOptions, type FileChunks, defaultBudgetBytes } from './chunk.js';
import { ImportUses, buildHeader } from './context-header.js';
import { type CutRange, cutTree } from './cut.js';
import { type Entity, type FileEntities, extractEntities, oneLine } from './entities.js';
import { type GrammarSet, defaultParseTimeoutMs, parseSource } from './grammars.js';
import { lineWindows } from './line-windows.js';
import type { LanguageSpec } from './languages.js';
import { SourceText } from './source-text.js';

/**
 * Where the parse went wrong (code units): MISSING tokens, and the tokens an ERROR node holds
 * directly. Well-formed subtrees inside an ERROR node are not errors (when a whole file is wrapped
 * in ERROR, its intact functions stay unflagged). Descends only where hasError says errors are.
 */
function errorRanges(root: Node): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  const visit = (node: Node, insideError: boolean): void => {
    if (node.isMissing) {
      ranges.push([node.startIndex, node.endIndex]);
      return;
    }
    const isError = node.type === 'ERROR';
    if (node.childCount === 0) {
      if (insideError || isError) ranges.push([node.startIndex, node.endIndex]);
      return;
    }
    if (!node.hasError && !isError) return;
    for (const child of node.children) if (child) visit(child, isError);
  };
  if (root.hasError) visit(root, false);
  return ranges;
}

/** For each range (sorted), whether an error range (in document order) touches it: one sweep. */
function touchedByErrors(ranges: readonly CutRange[], errors: ReadonlyArray<[number, number]>): boolean[] {
  const sorted = [...errors].sort((a, b) => a[0] - b[0]);
  const out: boolean[] = [];
  let first = 0;
  for (const range of ranges) {
    while (first < sorted.length && sorted[first]![1] < range.start) first++;
    let touched = false;
    for (let index = first; index < sorted.length && sorted[index]![0] <= range.end; index++) {
      const [errorStart, errorEnd] = sorted[index]!;
      // Overlapping, or a MISSING (zero-width) token at either edge.
      if ((errorStart < range.end && errorEnd > range.start) || (errorStart === errorEnd && errorStart >= range.start && errorStart <= range.end)) {
        touched = true;
        break;
      }
    }
    out.push(touched);
  }
  return out;
}

interface Scoped {
  enclosing: Entity[];
  defined: Entity[];
}

/**
 * For each range (sorted, disjoint): the entities it lies in (it overlaps them without holding them
 * whole: a piece of a split class or function), outermost first, along the chain of the innermost
 * one; and the entities it holds whole that are not inside another held one. One sweep over the
 * entities (sorted by start), so linear in ranges + entities.
 */
function scopesOf(entities: readonly Entity[], ranges: readonly CutRange[]): Scoped[] {
  const out: Scoped[] = [];
  const open: Entity[] = [];
  let next = 0;
  for (const range of ranges) {
    while (next < entities.length && entities[next]!.start < range.start) {
      const entity = entities[next++]!;
      while (open.length > 0 && open[open.length - 1]!.end <= entity.start) open.pop();
      open.push(entity);
    }
    while (open.length > 0 && open[open.length - 1]!.end <= range.start) open.pop();
    let innermost = open.length > 0 ? open[open.length - 1] : undefined;
    let innermostOverlap = innermost ? Math.min(range.end, innermost.end) - range.start : 0;
    const defined: Entity[] = [];
    for (let index = next; index < entities.length && entities[index]!.start < range.end; index++) {
      const entity = entities[index]!;
      if (entity.end <= range.end) {
        if (!entity.parent || entity.parent.start < range.start || entity.parent.end > range.end) defined.push(entity);
        continue;
      }
      const overlap = range.end - entity.start;
      if (!innermost || entity.depth > innermost.depth || (entity.depth === innermost.depth && overlap > innermostOverlap)) {
        innermost = entity;
        innermostOverlap = overlap;
      }
    }
    const enclosing: Entity[] = [];
    for (let entity = innermost; entity; entity = entity.parent) enclosing.unshift(entity);
    out.push({ enclosing, defined });
  }
  return out;
}

/**
 * Merges a small range (under a quarter of the budget) into its neighbour in the same scope when
 * both fit the budget together: the pieces a split leaves behind (`} finally {`, a lone return)
 * join the statements around them. Adjacent ranges start and end on node boundaries, so their
 * union does too.
 */
function mergeSmall(ranges: CutRange[], entities: readonly Entity[], source: SourceText, budget: number): CutRange[] {
  const homes = scopesOf(entities, ranges).map((scoped) => scoped.enclosing.at(-1));
  const size = (range: CutRange): number => source.byteLength(range.start, range.end);
  const out: CutRange[] = [];
  let previousHome: Entity | undefined;
  for (const [index, range] of ranges.entries()) {
    const home = homes[index];
    const previous = out.at(-1);
    if (
      previous &&
      !previous.oversized &&
      !range.oversized &&
      previousHome === home &&
      source.byteLength(previous.start, range.end) <= budget &&
      (size(previous) * 4 < budget || size(range) * 4 < budget)
    ) {
      previous.end = range.end;
      continue;
    }
    out.push({ ...range });
    previousHome = home;
  }
  return out;
}

function label(scoped: Scoped, text: string): string {
  if (scoped.defined.length > 0)
    return (
      scoped.defined
        .slice(0, 2)
        .map((entity) => oneLine(entity.signature, 80))
        .join(', ') + (scoped.defined.length > 2 ? ', …' : '')
    );
  let lineStart = 0;
  while (lineStart < text.length && /\s/.test(text[lineStart]!)) lineStart++;
  const lineEnd = text.indexOf('\n', lineStart);
  const firstLine = text.slice(lineStart, lineEnd < 0 ? text.length : lineEnd);
  const inner = scoped.enclosing[scoped.enclosing.length - 1];
  return inner ? `${inner.name}: ${oneLine(firstLine, 60)}` : oneLine(firstLine, 80);
}

export interface ChunkInput {
  /** Shown in headers; also used to detect the language. */
  path: string;
  bytes: Uint8Array;
  /** A tree for exactly these bytes (from the parse cache); the caller keeps ownership. */
  tree?: Tree;
  /** The caller parsed these bytes and got no tree (why): cut into line windows, not parsed again. */
  parseFailure?: string;
  /** These bytes decoded (the caller's, when it has them). */
  source?: SourceText;
  /** Force a language id instead of detecting it. */
  language?: string;
}

export async function chunkFile(grammars: GrammarSet, input: ChunkInput, options: ChunkOptions = {}): Promise<FileChunks> {
  return (await chunkFileAt(grammars, input, [options.budgetBytes ?? defaultBudgetBytes], options.parseTimeoutMs))[0]!;
}

/** What one tree gives every budget: the ranges are cut per budget, the rest is found once. */
interface Parsed {
  entities: FileEntities;
  errors: Array<[number, number]>;
  parseErrors: boolean;
  /** Per budget: the cut, or undefined for line windows. */
  cuts: Array<{ ranges: CutRange[]; scoped: Scoped[] } | undefined>;
}

/**
 * The file cut at each budget from one parse (the syntax pass's two budgets: the ranking's and the
 * embedder's): the entities, their docs and the parse errors are found once; only the cut, the
 * scopes and the headers are per budget.
 */
export async function chunkFileAt(grammars: GrammarSet, input: ChunkInput, budgets: readonly number[], parseTimeoutMs?: number): Promise<FileChunks[]> {
  const spec = input.language !== undefined ? grammars.table.languages.get(input.language) : grammars.table.detect(input.path, input.bytes.subarray(0, 256));
  const source = input.source ?? new SourceText(input.bytes);
  const problems: string[] = [];
  const parsed: Parsed = { entities: { entities: [], imports: [] }, errors: [], parseErrors: false, cuts: budgets.map(() => undefined) };
  if (spec) {
    const state = await grammars.load(spec.id);
    if (state.state === 'failed') {
      problems.push(state.reason);
    } else {
      let tree: Tree | undefined;
      let failure: string | undefined;
      try {
        if (input.parseFailure === undefined)
          tree = input.tree ?? parseSource(grammars, state.grammar, source, { timeoutMs: parseTimeoutMs ?? defaultParseTimeoutMs });
      } catch (error) {
        failure = error instanceof Error ? error.message : String(error);
      }
      if (input.parseFailure !== undefined) {
        problems.push(`${input.parseFailure}; cut into line windows`);
      } else if (failure !== undefined) {
        problems.push(`the ${spec.name} grammar failed on this file (${failure}); cut into line windows`);
      } else if (!tree) {
        problems.push(`parsing took longer than ${parseTimeoutMs ?? defaultParseTimeoutMs} ms; cut into line windows`);
      } else {
        let entities: FileEntities = { entities: [], imports: [] };
        try {
          const root = tree.rootNode;
          entities = extractEntities(root, state.grammar.chunksQuery, source.text, spec.entityDepth);
          parsed.entities = entities;
          parsed.cuts = budgets.map((budget) => {
            const ranges = mergeSmall(cutTree(source, root, budget, state.grammar.kinds, entities.entities), entities.entities, source, budget);
            const scoped = scopesOf(entities.entities, ranges);
            // Docs only for the entity each header names, while the tree is alive.
            for (const { enclosing, defined } of scoped) (defined.length === 1 ? defined[0] : enclosing.at(-1))?.resolveDoc();
            return { ranges, scoped };
          });
          parsed.errors = errorRanges(root);
          parsed.parseErrors = root.hasError;
        } finally {
          for (const entity of entities.entities) entity.dropNode();
          if (!input.tree) tree.delete();
        }
      }
    }
  }
  const importUses = new ImportUses(parsed.entities.imports, source.text);
  return budgets.map((budget, index) => chunksOf(input, spec, source, budget, parsed, index, importUses, problems));
}

function chunksOf(
  input: ChunkInput,
  spec: LanguageSpec | undefined,
  source: SourceText,
  budget: number,
  parsed: Parsed,
  budgetIndex: number,
  importUses: ImportUses,
  problems: readonly string[],
): FileChunks {
  const cut = parsed.cuts[budgetIndex];
  const method = cut ? 'syntax' : 'lines';
  const ranges = cut ? cut.ranges : lineWindows(source, budget);
  const scoped = cut ? cut.scoped : ranges.map(() => ({ enclosing: [], defined: [] }));
  const texts = ranges.map((range) => source.text.slice(range.start, range.end));
  const flagged = parsed.errors.length > 0 ? touchedByErrors(ranges, parsed.errors) : undefined;
  const labels = ranges.map((_, index) => label(scoped[index]!, texts[index]!));
  const chunks: Chunk[] = ranges.map((range, index) => {
    const { enclosing, defined } = scoped[index]!;
    const scope = enclosing.map((entity) => entity.name);
    if (defined.length === 1) scope.push(defined[0]!.name);
    const text = texts[index]!;
    const header = buildHeader({
      path: input.path,
      languageName: spec?.name,
      scope,
      enclosing,
      defined,
      start: range.start,
      end: range.end,
      imports: importUses,
      previousLabel: index > 0 ? labels[index - 1] : undefined,
      nextLabel: index + 1 < ranges.length ? labels[index + 1] : undefined,
    });
    return {
      startByte: source.byteOffset(range.start),
      endByte: source.byteOffset(range.end),
      start: source.position(range.start),
      end: source.position(range.end),
      method,
      parseError: flagged?.[index] ?? false,
      oversized: range.oversized,
      scope,
      entities: defined.map((entity): ChunkEntity => ({ kind: entity.kind, name: entity.name, signature: entity.signature })),
      text,
      header,
    };
  });
  return {
    path: input.path,
    language: spec?.id,
    languageName: spec?.name,
    byteLength: input.bytes.length,
    chunks,
    parseErrors: parsed.parseErrors,
    problems: [...problems],
  };
}
