// Definitions and references of one file, from its language's tags.scm (tree-sitter's tagging
// convention: `@definition.<kind>` / `@reference.<kind>` with `@name`). Plain data that crosses
// worker threads; the code graph (src/index/graph) indexes it. Positions are 0-based lines and
// UTF-16 characters, as tree-sitter reports them for the UTF-16 text it parses.
import type { Node, Query, Tree } from 'web-tree-sitter';
import { oneLine } from './entities.js';
import { type GrammarSet, parseSource } from './grammars.js';
import { SourceText } from './source-text.js';

export interface TagPosition {
  line: number;
  character: number;
}

export interface SymbolDefinition {
  name: string;
  /** function, method, class, interface, type, module, constant, macro, property, variable, … */
  kind: string;
  /** The whole definition. */
  start: TagPosition;
  end: TagPosition;
  /** The name. */
  nameStart: TagPosition;
  nameEnd: TagPosition;
  /** Names of the definitions that enclose it, outermost first. */
  container: string[];
  /** Its first line, whitespace collapsed. */
  signature: string;
}

export interface SymbolReference {
  name: string;
  /** call, type, class, implementation, module, … */
  kind: string;
  start: TagPosition;
  end: TagPosition;
}

export interface FileTags {
  path: string;
  language: string | undefined;
  definitions: SymbolDefinition[];
  references: SymbolReference[];
}

function position(point: { row: number; column: number }): TagPosition {
  return { line: point.row, character: point.column };
}

interface Pending {
  definition: SymbolDefinition;
  startIndex: number;
  endIndex: number;
}

export function extractTags(root: Node, query: Query, path: string, language: string): FileTags {
  const definitions: Pending[] = [];
  const references: SymbolReference[] = [];
  const seen = new Set<number>();
  for (const match of query.matches(root)) {
    let tagged: Node | undefined;
    let tag = '';
    let nameNode: Node | undefined;
    for (const capture of match.captures) {
      if (capture.name === 'name') nameNode ??= capture.node;
      else if (capture.name.startsWith('definition.') || capture.name.startsWith('reference.')) {
        tagged = capture.node;
        tag = capture.name;
      }
    }
    if (!tagged || !nameNode) continue;
    const name = nameNode.text;
    if (name.length === 0 || name.length > 200) continue;
    const isDefinition = tag.startsWith('definition.');
    const kind = tag.slice(tag.indexOf('.') + 1);
    // One tag per name node and role: the first pattern that names it wins.
    const key = (nameNode.startIndex * 67_108_864 + nameNode.endIndex) * 2 + (isDefinition ? 1 : 0);
    if (seen.has(key)) continue;
    seen.add(key);
    if (isDefinition) {
      const firstLine = tagged.text.split('\n', 1)[0] ?? '';
      definitions.push({
        definition: {
          name,
          kind,
          start: position(tagged.startPosition),
          end: position(tagged.endPosition),
          nameStart: position(nameNode.startPosition),
          nameEnd: position(nameNode.endPosition),
          container: [],
          signature: oneLine(firstLine, 160),
        },
        startIndex: tagged.startIndex,
        endIndex: tagged.endIndex,
      });
    } else {
      references.push({ name, kind, start: position(nameNode.startPosition), end: position(nameNode.endPosition) });
    }
  }
  // Containers: the definitions that enclose each one, by a stack in document order.
  definitions.sort((a, b) => a.startIndex - b.startIndex || b.endIndex - a.endIndex);
  const open: Pending[] = [];
  for (const pending of definitions) {
    while (open.length > 0 && open[open.length - 1]!.endIndex < pending.endIndex) open.pop();
    pending.definition.container = open.map((outer) => outer.definition.name);
    open.push(pending);
  }
  references.sort((a, b) => a.start.line - b.start.line || a.start.character - b.start.character);
  return { path, language, definitions: definitions.map((pending) => pending.definition), references };
}

export interface TagInput {
  path: string;
  bytes: Uint8Array;
  /** Definitions only (the reference patterns are switched off): what a symbol index needs. */
  definitionsOnly?: boolean;
  /** A tree for exactly these bytes (parse cache); the caller keeps it. */
  tree?: Tree;
  language?: string;
}

/** Tags of one file: detect, parse (unless a tree is given), run tags.scm. Empty when the language has no tags or the parse failed. */
export async function tagFile(grammars: GrammarSet, input: TagInput): Promise<FileTags> {
  const spec = input.language !== undefined ? grammars.table.languages.get(input.language) : grammars.table.detect(input.path, input.bytes.subarray(0, 256));
  const empty: FileTags = { path: input.path, language: spec?.id, definitions: [], references: [] };
  if (!spec) return empty;
  const state = await grammars.load(spec.id);
  if (state.state === 'failed') return empty;
  const query = grammars.tagsQuery(state.grammar, { definitionsOnly: input.definitionsOnly === true });
  if (!query) return empty;
  let tree: Tree | undefined = input.tree;
  if (!tree) {
    try {
      tree = parseSource(grammars, state.grammar, new SourceText(input.bytes));
    } catch {
      return empty; // the grammar failed on this file
    }
  }
  if (!tree) return empty;
  try {
    return extractTags(tree.rootNode, query, input.path, spec.id);
  } finally {
    if (!input.tree) tree.delete();
  }
}
