// A file's symbol tree: its definitions nested by their ranges (a method under its class under
// its namespace), in document order. Used by fathom/outline and LSP textDocument/documentSymbol.
import type { FileTags, SymbolDefinition, TagPosition } from '../syntax/tags.js';

export interface OutlineNode {
  definition: SymbolDefinition;
  children: OutlineNode[];
}

function before(a: TagPosition, b: TagPosition): boolean {
  return a.line < b.line || (a.line === b.line && a.character < b.character);
}

/** True when `inner` lies within `outer` (ends included). */
function within(inner: SymbolDefinition, outer: SymbolDefinition): boolean {
  return !before(inner.start, outer.start) && !before(outer.end, inner.end);
}

export function outlineOf(tags: FileTags): OutlineNode[] {
  const sorted = [...tags.definitions].sort((a, b) => a.start.line - b.start.line || a.start.character - b.start.character || (before(b.end, a.end) ? -1 : 1));
  const roots: OutlineNode[] = [];
  const open: OutlineNode[] = [];
  for (const definition of sorted) {
    const node: OutlineNode = { definition, children: [] };
    while (open.length > 0 && !within(definition, open[open.length - 1]!.definition)) open.pop();
    (open.length > 0 ? open[open.length - 1]!.children : roots).push(node);
    open.push(node);
  }
  return roots;
}
