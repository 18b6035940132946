// Whether a parse of chosen ranges (region-ranges.ts) can be trusted: after the parse, `cutsHold`
// looks at the edges of each range for the marks a wrong cut leaves (an ERROR, a MISSING token, a
// node running from one item into the next), and `gapsMayMatch` says when a left-out range may
// hold part of a match. Either failing, the whole file is parsed.
import type { Node, Tree } from 'web-tree-sitter';
import { lastAtOrBefore } from '../base/sorted.js';

/**
 * Whether a match could straddle a range that was left out: some node holding a gap between two
 * ranges (the item whose members were skipped, and its body) is of a kind a match can have, so it
 * may have matched, or failed to, on members it lacked. The whole file must then be parsed.
 */
export function gapsMayMatch(tree: Tree, ranges: ReadonlyArray<readonly [number, number]>, kinds: ReadonlySet<string>): boolean {
  for (let gap = 0; gap + 1 < ranges.length; gap += 1) {
    const before = ranges[gap]![1];
    const after = ranges[gap + 1]![0];
    for (let node: Node | null = tree.rootNode.descendantForIndex(before - 1, after); node; node = node.parent) {
      if (node.startIndex < before && node.endIndex > after && kinds.has(node.type)) return true;
    }
  }
  return false;
}

/** Whether a node ends in a MISSING token (the parser closed what the region left open). */
function endsMissing(node: Node): boolean {
  for (let at: Node | null = node; at; at = at.lastChild) if (at.isMissing) return true;
  return false;
}

/**
 * Whether the children of `parent` sit in `ranges` as whole cuts would leave them: none runs from
 * one range into the next, and the first and last child in each range is neither an ERROR nor ends
 * in a MISSING token.
 */
function childrenHold(parent: Node, ranges: ReadonlyArray<readonly [number, number]>, firstRange: number): boolean {
  let range = firstRange;
  let previous: Node | undefined;
  let previousRange = -1;
  for (const node of parent.children) {
    // A comment is no cut's mark (a wrong cut leaves an ERROR or MISSING in code beside it); an
    // ERROR the parser skipped past is an extra too, and is one.
    if (!node || (node.isExtra && node.type !== 'ERROR')) continue;
    while (range < ranges.length - 1 && node.startIndex >= ranges[range]![1]) range += 1;
    if (node.endIndex > ranges[range]![1]) return false;
    const first = range !== previousRange;
    if (first && previous && (previous.type === 'ERROR' || endsMissing(previous))) return false;
    if (first && (node.type === 'ERROR' || node.isMissing)) return false;
    previous = node;
    previousRange = range;
  }
  return !previous || (previous.type !== 'ERROR' && !endsMissing(previous));
}

/**
 * Whether a parse of `ranges` shows the cuts were right. At the top: no node runs from one item
 * (`items`, from itemSpans; the ranges themselves when no block was entered) into the next, and the
 * first and last top-level node of each item is neither an ERROR nor ends in a MISSING token.
 * Inside an entered item, the same of its block: the smallest node holding each left-out gap is one
 * block that is no ERROR, and its children (the members) sit in the ranges as whole cuts. Errors
 * inside an item or a member (a macro the grammar misreads) are the file's own and pass.
 */
export function cutsHold(tree: Tree, ranges: ReadonlyArray<readonly [number, number]>, items: ReadonlyArray<readonly [number, number]> = ranges): boolean {
  const root = tree.rootNode;
  if (!childrenHold(root, items, 0)) return false;
  const starts = ranges.map(([start]) => start);
  const checked = new Set<number>();
  let item = 0;
  for (let gap = 0; gap + 1 < ranges.length; gap += 1) {
    const before = ranges[gap]![1];
    const after = ranges[gap + 1]![0];
    while (item < items.length - 1 && items[item]![1] <= before) item += 1;
    // A gap between two items was checked at the top.
    if (!(items[item]![0] < before && items[item]![1] > after)) continue;
    let holder: Node | null = root.descendantForIndex(before - 1, after);
    while (holder && !(holder.startIndex < before && holder.endIndex > after)) holder = holder.parent;
    if (!holder || holder.id === root.id || holder.type === 'ERROR' || holder.isMissing) return false;
    if (checked.has(holder.id)) continue;
    checked.add(holder.id);
    if (!childrenHold(holder, ranges, lastAtOrBefore(starts, holder.startIndex))) return false;
  }
  return true;
}
