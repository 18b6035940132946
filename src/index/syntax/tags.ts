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
  /** call, type, class, implementation, module, import (a name an import statement binds), … */
  kind: string;
  start: TagPosition;
  end: TagPosition;
  /**
   * What the name is accessed on, when it is a member access or a qualified name: `this`, `self`,
   * an identifier (`fmt` of fmt.Println, `os.path` of os.path.join) or `?` for any other
   * expression; '' when the name stands alone.
   */
  receiver: string;
  /** Index in `definitions` of the innermost definition that contains it; -1 at top level. */
  enclosing: number;
  /** For kind `import`: index in `imports` of the binding it names; -1 otherwise. */
  binding: number;
}

/**
 * A name an import, include, use or re-export brings into a file: `import { a as b } from './m'`
 * is { source './m', name 'a', local 'b' }; a whole module (`import * as ns`, Go's import, C's
 * #include, `from m import *`) has name '*' (local: the namespace's name, or '' when the module's
 * names come in unqualified); a default import has name 'default'.
 */
export interface ImportBinding {
  /** The module specifier as written, quotes and <> removed. */
  source: string;
  name: string;
  local: string;
  /** `export … from`: the binding is also an export of this file. */
  reexport: boolean;
  line: number;
}

export interface FileTags {
  path: string;
  language: string | undefined;
  definitions: SymbolDefinition[];
  references: SymbolReference[];
  imports: ImportBinding[];
}

function position(point: { row: number; column: number }): TagPosition {
  return { line: point.row, character: point.column };
}

interface Pending {
  definition: SymbolDefinition;
  startIndex: number;
  endIndex: number;
}

/** Fields that hold the object of a member access or the path of a qualified name, per grammar. */
const receiverFields = ['object', 'operand', 'value', 'argument', 'path', 'scope'];
/** Node types whose name child is accessed on a receiver (member access, qualified names, calls on an object). */
const accessTypes = new Set([
  'member_expression',
  'attribute',
  'selector_expression',
  'field_expression',
  'scoped_identifier',
  'method_invocation',
  'qualified_identifier',
  'scoped_type_identifier',
  'qualified_type',
  'nested_type_identifier',
  'navigation_expression',
  'member_access_expression',
]);

/**
 * The parent of `node`, found from `ancestor` (the tagged node around it) down. `node.parent`
 * searches from the root, through every top-level declaration of the file before it.
 */
function parentWithin(ancestor: Node, node: Node): Node | null {
  if (ancestor.id === node.id) return node.parent;
  let parent = ancestor;
  for (;;) {
    const child = parent.childWithDescendant(node);
    if (!child) return node.parent; // not below the tagged node after all
    if (child.id === node.id) return parent;
    parent = child;
  }
}

/** `this`, `self`, an identifier or dotted path, or '?' for any other expression the name is accessed on ('' when it stands alone), with its node. */
function receiverOf(nameNode: Node, tagged: Node): { text: string; node: Node | undefined } {
  const parent = parentWithin(tagged, nameNode);
  if (!parent || !accessTypes.has(parent.type)) return { text: '', node: undefined };
  for (const field of receiverFields) {
    const object = parent.childForFieldName(field);
    if (object && object.startIndex !== nameNode.startIndex) {
      const text = object.text;
      return { text: text.length <= 64 && /^[\p{L}\p{N}_$]+(?:(?:\.|::|->)[\p{L}\p{N}_$]+)*$/u.test(text) ? text : '?', node: object };
    }
  }
  return { text: '', node: undefined };
}

const selfNames = new Set(['this', 'self', 'Self', 'super', 'cls']);

/** A module specifier without its quotes or angle brackets. */
function unquote(text: string): string {
  return text.replace(/^[\s'"`<]+|[\s'"`>]+$/g, '');
}

interface PendingReference {
  reference: SymbolReference;
  startIndex: number;
}

export function extractTags(root: Node, query: Query, path: string, language: string): FileTags {
  const definitions: Pending[] = [];
  const references: PendingReference[] = [];
  const imports: ImportBinding[] = [];
  const seen = new Set<number>();
  const seenImports = new Set<string>();
  const receivers: Node[] = [];
  for (const match of query.matches(root)) {
    let tagged: Node | undefined;
    let tag = '';
    let nameNode: Node | undefined;
    let source: Node | undefined;
    let importName: Node | undefined;
    let alias: Node | undefined;
    let namespace: Node | undefined;
    let isDefault = false;
    let reexport = false;
    for (const capture of match.captures) {
      if (capture.name === 'name') nameNode ??= capture.node;
      else if (capture.name.startsWith('definition.') || capture.name.startsWith('reference.')) {
        tagged = capture.node;
        tag = capture.name;
      } else if (capture.name === 'import.source') source = capture.node;
      else if (capture.name === 'import.name') importName = capture.node;
      else if (capture.name === 'import.alias') alias = capture.node;
      else if (capture.name === 'import.namespace') namespace = capture.node;
      else if (capture.name === 'import.default') {
        alias = capture.node;
        isDefault = true;
      } else if (capture.name === 'import.reexport') reexport = true;
    }
    if (source) {
      const specifier = unquote(source.text);
      const name = isDefault ? 'default' : importName ? importName.text : '*';
      const local = alias ? alias.text : importName ? importName.text : namespace ? namespace.text : '';
      const key = `${specifier}\u0000${name}\u0000${local}\u0000${reexport}`;
      if (specifier.length === 0 || seenImports.has(key)) continue;
      seenImports.add(key);
      const binding = imports.push({ source: specifier, name, local, reexport, line: source.startPosition.row }) - 1;
      // The imported name is a reference to what it imports (an editor's "find references" shows it).
      const named = importName ?? (isDefault ? alias : undefined);
      if (named && named.text.length > 0 && named.text.length <= 200) {
        references.push({
          reference: {
            name: named.text,
            kind: 'import',
            start: position(named.startPosition),
            end: position(named.endPosition),
            receiver: '',
            enclosing: -1,
            binding,
          },
          startIndex: named.startIndex,
        });
      }
      // JavaScript and TypeScript count the local name of `a as b` as a reference to `a` too
      // (typescript-language-server reports it; Python's tools do not).
      if (
        importName &&
        alias &&
        alias.text !== importName.text &&
        alias.text.length <= 200 &&
        (alias.parent?.type === 'import_specifier' || alias.parent?.type === 'export_specifier')
      ) {
        references.push({
          reference: {
            name: alias.text,
            kind: 'import',
            start: position(alias.startPosition),
            end: position(alias.endPosition),
            receiver: '',
            enclosing: -1,
            binding,
          },
          startIndex: alias.startIndex,
        });
      }
      continue;
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
      const receiver = receiverOf(nameNode, tagged);
      references.push({
        reference: {
          name,
          kind,
          start: position(nameNode.startPosition),
          end: position(nameNode.endPosition),
          receiver: receiver.text,
          enclosing: -1,
          binding: -1,
        },
        startIndex: nameNode.startIndex,
      });
      if (receiver.node && receiver.node.type.endsWith('identifier')) receivers.push(receiver.node);
    }
  }
  // A receiver that names a class or an imported module (Counter.create(), np.array()) is a
  // reference too; other receivers are mostly local variables, which the graph does not track.
  const locals = new Set(imports.map((binding) => binding.local));
  for (const node of receivers) {
    const text = node.text;
    if (selfNames.has(text) || !(/^\p{Lu}/u.test(text) || locals.has(text))) continue;
    const key = (node.startIndex * 67_108_864 + node.endIndex) * 2;
    if (seen.has(key)) continue;
    seen.add(key);
    references.push({
      reference: { name: text, kind: 'other', start: position(node.startPosition), end: position(node.endPosition), receiver: '', enclosing: -1, binding: -1 },
      startIndex: node.startIndex,
    });
  }
  // Containers: the definitions that enclose each one, by a stack in document order.
  definitions.sort((a, b) => a.startIndex - b.startIndex || b.endIndex - a.endIndex);
  const open: Pending[] = [];
  for (const pending of definitions) {
    while (open.length > 0 && open[open.length - 1]!.endIndex < pending.endIndex) open.pop();
    pending.definition.container = open.map((outer) => outer.definition.name);
    open.push(pending);
  }
  // Enclosing definitions of references: a sweep in document order over the sorted definitions.
  references.sort((a, b) => a.startIndex - b.startIndex);
  const stack: number[] = [];
  let nextDefinition = 0;
  for (const pending of references) {
    while (nextDefinition < definitions.length && definitions[nextDefinition]!.startIndex <= pending.startIndex) {
      while (stack.length > 0 && definitions[stack[stack.length - 1]!]!.endIndex <= definitions[nextDefinition]!.startIndex) stack.pop();
      stack.push(nextDefinition++);
    }
    while (stack.length > 0 && definitions[stack[stack.length - 1]!]!.endIndex <= pending.startIndex) stack.pop();
    pending.reference.enclosing = stack.length > 0 ? stack[stack.length - 1]! : -1;
  }
  return { path, language, definitions: definitions.map((pending) => pending.definition), references: references.map((pending) => pending.reference), imports };
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
  const empty: FileTags = { path: input.path, language: spec?.id, definitions: [], references: [], imports: [] };
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
