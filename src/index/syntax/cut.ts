// Where a syntax tree is cut into chunks. Owns the boundary rules; knows nothing of names,
// headers or files. Called by chunk-file.ts.
//
// One pass over the tree in document order, descending only into nodes over the budget:
// - a node that fits is an atom: it joins the open group when the group still fits, else the group
//   is emitted and the atom opens the next one (so small siblings merge up to the budget and a
//   function that fits is never cut);
// - a node over the budget is split at its children, recursively (a function splits at its
//   statements, a class at its members); the open group is carried into it only when it is the
//   head of that node's parent: everything of the
//   parent so far, at most half the budget, holding no whole entity (`/// doc` + `pub fn audit(…)`
//   goes with the first statements of its body, statements with the head of the loop after them,
//   but a class body's earlier methods never go with a piece of the next method);
// - after a split node, the next named sibling starts a new group (only trailing punctuation such
//   as `}` or `;` joins the split node's last piece);
// - comments right before an atom that does not fit move with it into the next group;
// - tokens that are only whitespace (a newline token) are left out, so no chunk starts or ends with one;
// - a node over the budget that cannot be split (a token, or a literal: strings, comments,
//   regexes and heredocs are never cut even where the grammar gives them parts) is a chunk of its
//   own, flagged oversized. Text a node holds outside its children (a grammar's hidden token) is
//   never a boundary: the final pass joins it to the chunk before it.
// Invariants: ranges are sorted, never overlap, start and end on node boundaries, and what lies
// between them is whitespace (a final pass widens a range over anything else).
import type { Node } from 'web-tree-sitter';
import type { NodeKinds } from './grammars.js';
import type { SourceText } from './source-text.js';

export interface CutRange {
  /** Code-unit offsets into SourceText.text. */
  start: number;
  end: number;
  /** Over the budget because it could not be split. */
  oversized: boolean;
}

interface Group {
  start: number;
  end: number;
  /** It holds a whole entity (a function, a method, a class…). */
  hasEntity: boolean;
  /** Start of the run of comment atoms that ends the group, if it ends with comments. */
  commentStart: number | undefined;
  /** End of the last atom before that run. */
  beforeComments: number;
}

interface Frame {
  start: number;
  isRoot: boolean;
}

function isBlank(text: string, start: number, end: number): boolean {
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index);
    if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09 && code !== 0x0c && code !== 0x0b && code !== 0xfeff) return false;
  }
  return true;
}

export interface Span {
  start: number;
  end: number;
}

/**
 * Cuts the tree. `entities` (sorted by start) are the file's named entities: a group holding a
 * whole one is never carried into a split as its head.
 */
export function cutTree(source: SourceText, root: Node, budgetBytes: number, kinds: NodeKinds, entities: readonly Span[] = []): CutRange[] {
  const text = source.parseText;
  /** True when a whole entity lies in [start, end). */
  const holdsEntity = (start: number, end: number): boolean => {
    let low = 0;
    let high = entities.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (entities[middle]!.start < start) low = middle + 1;
      else high = middle;
    }
    for (let index = low; index < entities.length && entities[index]!.start < end; index++) if (entities[index]!.end <= end) return true;
    return false;
  };
  const out: CutRange[] = [];
  const size = (start: number, end: number): number => source.byteLength(start, end);
  let group: Group | undefined;
  let afterSplit = false;

  const emit = (start: number, end: number, oversized: boolean): void => {
    if (end > start) out.push({ start, end, oversized });
  };
  const flush = (): void => {
    if (group) emit(group.start, group.end, false);
    group = undefined;
  };
  const open = (start: number, end: number, comment: boolean): void => {
    group = { start, end, hasEntity: holdsEntity(start, end), commentStart: comment ? start : undefined, beforeComments: comment ? start : end };
  };

  const addAtom = (start: number, end: number, named: boolean, comment: boolean): void => {
    // A token that is only whitespace (Go's and Python's newline tokens) never starts or ends a chunk.
    if (!named && isBlank(text, start, end)) return;
    if (group && size(group.start, end) <= budgetBytes && !(afterSplit && named)) {
      if (comment) group.commentStart ??= start;
      else {
        group.commentStart = undefined;
        group.beforeComments = end;
      }
      group.end = end;
      if (named && !group.hasEntity) group.hasEntity = holdsEntity(start, end);
    } else if (group && !comment && group.commentStart !== undefined && group.commentStart > group.start && size(group.commentStart, end) <= budgetBytes) {
      // The comments above this atom go with it.
      const comments = group.commentStart;
      emit(group.start, group.beforeComments, false);
      group = { start: comments, end, hasEntity: holdsEntity(start, end), commentStart: undefined, beforeComments: end };
    } else {
      flush();
      open(start, end, comment);
    }
    if (named) afterSplit = false;
  };

  const addOversized = (start: number, end: number): void => {
    flush();
    emit(start, end, true);
    afterSplit = true;
  };

  const rootStart = root.startIndex;
  const rootEnd = root.endIndex;
  const cursor = root.walk();
  try {
    if (rootEnd <= rootStart) {
      // nothing parsed: the coverage pass below keeps any text
    } else if (size(rootStart, rootEnd) <= budgetBytes) {
      // The whole file fits: one chunk from its first child to its last (the root's own range
      // often runs on over trailing whitespace).
      let start = rootStart;
      let end = rootEnd;
      if (cursor.gotoFirstChild()) {
        start = cursor.startIndex;
        do end = cursor.endIndex;
        while (cursor.gotoNextSibling());
        cursor.gotoParent();
      }
      emit(start, end, false);
    } else if (kinds.literal[cursor.nodeTypeId] || !cursor.gotoFirstChild()) {
      emit(rootStart, rootEnd, true);
    } else {
      const frames: Frame[] = [{ start: rootStart, isRoot: true }];
      for (;;) {
        const start = cursor.startIndex;
        const end = cursor.endIndex;
        let descended = false;
        if (end > start) {
          const typeId = cursor.nodeTypeId;
          const named = kinds.named[typeId] === 1;
          const literal = kinds.literal[typeId] === 1;
          const parent = frames[frames.length - 1]!;
          const fits = size(start, end) <= budgetBytes;
          const isHead =
            group !== undefined && !parent.isRoot && group.start === parent.start && !group.hasEntity && size(group.start, group.end) * 2 <= budgetBytes;
          // A node that fits alone but not after its parent's head is split too, so the head
          // (`for x in xs`, `if (…)`) goes with its first statements rather than alone; never a
          // node that holds a whole entity (a function that fits is never cut).
          const splitWithHead = fits && isHead && size(group!.start, end) > budgetBytes && named && !literal && !holdsEntity(start, end);
          // Descending moves the cursor to the first child; a node without children stays whole.
          if ((fits && !splitWithHead) || literal || !cursor.gotoFirstChild()) {
            if (fits) addAtom(start, end, named, kinds.comment[typeId] === 1);
            else addOversized(start, end);
          } else {
            if (group && !isHead) {
              // Not the parent's head: keep only a trailing run of comments (this node's doc).
              if (group.commentStart !== undefined && group.commentStart > group.start) {
                const comments = group.commentStart;
                emit(group.start, group.beforeComments, false);
                group = { start: comments, end: group.end, hasEntity: false, commentStart: comments, beforeComments: comments };
              } else if (group.commentStart === undefined) {
                flush();
              }
            }
            afterSplit = false;
            // The frame starts where its carried head starts, so a nested split keeps carrying it.
            frames.push({ start: group ? group.start : start, isRoot: false });
            descended = true;
          }
        }
        if (descended) continue;
        let done = false;
        while (!cursor.gotoNextSibling()) {
          frames.pop();
          if (frames.length === 0) {
            done = true;
            break;
          }
          cursor.gotoParent();
          afterSplit = true;
        }
        if (done) break;
      }
      flush();
    }
  } finally {
    cursor.delete();
  }
  return coverText(out, text);
}

/** Widens ranges so that only whitespace is left between them (and before the first, after the last). */
function coverText(ranges: CutRange[], text: string): CutRange[] {
  if (ranges.length === 0) {
    let start = 0;
    let end = text.length;
    while (start < end && isBlank(text, start, start + 1)) start++;
    while (end > start && isBlank(text, end - 1, end)) end--;
    return end > start ? [{ start, end, oversized: false }] : [];
  }
  const first = ranges[0]!;
  if (!isBlank(text, 0, first.start)) {
    let start = 0;
    while (isBlank(text, start, start + 1)) start++;
    first.start = start;
  }
  for (let index = 1; index < ranges.length; index++) {
    const previous = ranges[index - 1]!;
    const current = ranges[index]!;
    if (current.start < previous.end) current.start = previous.end; // defensive: never overlap
    if (!isBlank(text, previous.end, current.start)) previous.end = current.start;
  }
  const last = ranges[ranges.length - 1]!;
  if (!isBlank(text, last.end, text.length)) {
    let end = text.length;
    while (isBlank(text, end - 1, end)) end--;
    last.end = end;
  }
  return ranges.filter((range) => range.end > range.start);
}
