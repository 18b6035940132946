// What a file defines and imports, from its language's chunks.scm query (see grammars/README.md):
// entities (kind, name, signature, doc, nesting) and import statements with the names they bind.
// The chunker uses them for scope chains, signatures and context headers. Offsets are code units.
import type { Node, Query } from 'web-tree-sitter';

/**
 * One named entity. Its signature is built on first use; its doc is resolved by resolveDoc()
 * while the tree is alive (only for the entities a header shows: walking comment siblings for
 * every method of a large file costs more than the rest of the chunking), and reads as '' after.
 */
export class Entity {
  parent: Entity | undefined = undefined;
  depth = 0;
  private signatureText: string | undefined;
  private docText: string | undefined;
  private docStartOffset: number | undefined;

  constructor(
    readonly kind: string,
    readonly name: string,
    readonly start: number,
    readonly end: number,
    /** Where the body starts (the signature ends), when the query captured a body. */
    readonly bodyStart: number | undefined,
    private readonly text: string,
    /** The entity's node, until the tree is released (dropNode). */
    private node: Node | undefined,
    /** A docstring captured inside the entity (@doc). */
    private readonly docRange: [number, number] | undefined,
  ) {}

  /** One line: the text before the body with whitespace collapsed, or the first line. */
  get signature(): string {
    if (this.signatureText === undefined) {
      const firstLineEnd = this.text.indexOf('\n', this.start);
      const end = this.bodyStart ?? (firstLineEnd < 0 || firstLineEnd > this.end ? this.end : firstLineEnd);
      this.signatureText = oneLine(this.text.slice(this.start, end), maxSignature);
    }
    return this.signatureText;
  }

  /** Docstring or the comment block right above, whitespace collapsed; '' when none (or not resolved). */
  get doc(): string {
    return this.docText ?? '';
  }

  /** Start of the doc comment above the entity (or the entity's start). */
  get docStart(): number {
    return this.docStartOffset ?? this.start;
  }

  /** Finds the doc while the tree is alive. */
  resolveDoc(): void {
    if (this.docText !== undefined) return;
    if (this.docRange) {
      this.docText = cleanDoc(this.text.slice(this.docRange[0], this.docRange[1]));
      return;
    }
    const above = this.node ? commentsAbove(this.node, this.text) : undefined;
    this.docText = above ? cleanDoc(above.text) : '';
    this.docStartOffset = above?.start;
  }

  /** Forgets the node before its tree is deleted. */
  dropNode(): void {
    this.node = undefined;
  }
}

export interface ImportStatement {
  start: number;
  end: number;
  /** One line, whitespace collapsed. */
  text: string;
  /** Names the statement brings into scope (best effort). */
  names: string[];
}

export interface FileEntities {
  /** Sorted by start, outer before inner at the same start. */
  entities: Entity[];
  imports: ImportStatement[];
}

const maxSignature = 200;
const maxDoc = 300;

export function oneLine(text: string, limit: number): string {
  // Collapse only what can be shown: a long input is cut first (whitespace only shrinks it).
  const collapsed = (text.length > limit * 4 ? text.slice(0, limit * 4) : text).replace(/\s+/g, ' ').trim();
  return collapsed.length > limit ? `${collapsed.slice(0, limit - 1)}…` : collapsed;
}

function cleanDoc(raw: string): string {
  // Strip comment markers and docstring quotes; keep the words.
  const stripped = raw
    .replace(/^\s*("""|'''|"|')/, '')
    .replace(/("""|'''|"|')\s*$/, '')
    .split('\n')
    .map((line) => line.replace(/^\s*(\/\/\/?|\/\*\*?|\*\/|\*|#+|--+|;+)\s?/, '').replace(/\*\/\s*$/, ''))
    .join(' ');
  return oneLine(stripped, maxDoc);
}

/** Words an import statement holds that bind nothing: the import keyword-functions of some languages. */
const notBound = new Set(['require', 'require_relative', 'load', 'source', 'import', 'from', 'use', 'include', '__DIR__', '__FILE__', 'dofile', 'loadfile']);

const identifierTypes = /identifier|^name$|^constant$|^word$|^variable_name$|^simple_identifier$/;

function boundNames(node: Node): string[] {
  const names: string[] = [];
  const strings: string[] = [];
  const visit = (current: Node): void => {
    const type = current.type;
    if (type.includes('string') || type === 'system_lib_string' || type === 'interpreted_string_literal') {
      strings.push(current.text);
      return;
    }
    if (current.childCount === 0) {
      if (identifierTypes.test(type) && !notBound.has(current.text)) names.push(current.text);
      return;
    }
    for (const child of current.children) if (child) visit(child);
  };
  visit(node);
  // A C/C++ #include names a file, not the identifiers it declares: no names (left to the code graph).
  if (names.length === 0 && !node.type.startsWith('preproc_')) {
    // `import "fmt"`, `#include <linux/slab.h>`, `require 'json'`: the last path segment.
    for (const raw of strings) {
      const segment =
        raw
          .replace(/^["'<`]+|[">'`]+$/g, '')
          .split('/')
          .pop() ?? '';
      const name = segment.replace(/\.[A-Za-z0-9]+$/, '');
      if (/^[A-Za-z_$][\w$-]*$/.test(name)) names.push(name);
    }
  }
  return [...new Set(names)];
}

/** The comment block directly above a node (adjacent comment siblings, no blank line between). */
function commentsAbove(node: Node, text: string): { start: number; text: string } | undefined {
  let first: Node | undefined;
  let current = node.previousSibling;
  let boundary = node.startIndex;
  while (current && current.type.includes('comment')) {
    const gap = text.slice(current.endIndex, boundary);
    if ((gap.match(/\n/g)?.length ?? 0) > 1) break;
    first = current;
    boundary = current.startIndex;
    current = current.previousSibling;
  }
  if (!first) return undefined;
  return { start: first.startIndex, text: text.slice(first.startIndex, node.startIndex) };
}

const nameTypes = /identifier|^name$|^constant$|^word$|^operator_name$|^destructor_name$/;

/**
 * The name an entity's @name capture stands for: the capture itself when it is a name, else the
 * name inside a declarator (`*foo(void)` → `foo`, `Foo::bar(int)` → `Foo::bar`), following
 * `declarator` fields; a composite name (`Fleet.Maintenance`) is its whole text.
 */
function nameOf(node: Node): string {
  let current: Node = node;
  for (let steps = 0; steps < 16; steps++) {
    if (nameTypes.test(current.type)) return current.text;
    const inner: Node | null = current.childForFieldName('declarator') ?? (current.type.endsWith('declarator') ? current.firstNamedChild : null);
    if (!inner) break;
    current = inner;
  }
  // A composite name (`Fleet.Maintenance`, `a::b`): its text on one line.
  return oneLine(current.text, 120);
}

export function extractEntities(root: Node, query: Query | undefined, text: string, maxStartDepth = 8): FileEntities {
  if (!query) return { entities: [], imports: [] };
  const entities: Entity[] = [];
  const imports: ImportStatement[] = [];
  /** Nodes already taken, as start * 2^26 + end (exact while offsets stay under 2^26 · 2^27). */
  const seenEntities = new Set<number>();
  const seenImports = new Set<number>();
  for (const match of query.matches(root, { maxStartDepth })) {
    let entityNode: Node | undefined;
    let kind = '';
    let nameNode: Node | undefined;
    let bodyNode: Node | undefined;
    let docNode: Node | undefined;
    for (const capture of match.captures) {
      if (capture.name.startsWith('entity.')) {
        entityNode = capture.node;
        kind = capture.name.slice('entity.'.length);
      } else if (capture.name === 'name') nameNode ??= capture.node;
      else if (capture.name === 'body') bodyNode ??= capture.node;
      else if (capture.name === 'doc') docNode ??= capture.node;
      else if (capture.name === 'import') {
        const node = capture.node;
        const key = node.startIndex * 67_108_864 + node.endIndex;
        if (seenImports.has(key)) continue;
        seenImports.add(key);
        imports.push({ start: node.startIndex, end: node.endIndex, text: oneLine(node.text, 160).replace(/;$/, ''), names: boundNames(node) });
      }
    }
    if (!entityNode || !nameNode) continue;
    const key = entityNode.startIndex * 67_108_864 + entityNode.endIndex;
    if (seenEntities.has(key)) continue; // the first pattern that names a node wins
    seenEntities.add(key);
    const start = entityNode.startIndex;
    const bodyStart = bodyNode && bodyNode.startIndex > start ? bodyNode.startIndex : undefined;
    entities.push(
      new Entity(kind, nameOf(nameNode), start, entityNode.endIndex, bodyStart, text, entityNode, docNode ? [docNode.startIndex, docNode.endIndex] : undefined),
    );
  }
  entities.sort((a, b) => a.start - b.start || b.end - a.end);
  // Nesting: a stack of open entities in document order.
  const open: Entity[] = [];
  for (const entity of entities) {
    while (open.length > 0 && open[open.length - 1]!.end < entity.end) open.pop();
    const parent = open[open.length - 1];
    if (parent && parent.start <= entity.start && parent.end >= entity.end) {
      entity.parent = parent;
      entity.depth = parent.depth + 1;
    }
    open.push(entity);
  }
  imports.sort((a, b) => a.start - b.start);
  return { entities, imports };
}
