// A syntax tree flattened out of WebAssembly into typed arrays: every node in document order
// (preorder) with its type id, flags (named, missing, extra) and range in UTF-16 units, and where
// its subtree ends. Matching on it costs no call into WebAssembly (web-tree-sitter marshals each
// node property through a transfer buffer: ~45 ns a call, several per node visited), and it holds
// 19 bytes a node (kernel C has 0.23 nodes a byte) against tree-sitter's ~20× the source's bytes,
// so a structural worker keeps many more of them (tree-cache.ts). `FlatNode` is a node of it with
// the part of web-tree-sitter's Node API that structural matching reads (`SyntaxNode`).
//
// Flattening walks the tree once with a cursor through web-tree-sitter's exported wasm functions
// (grammars.ts `wasmBinding`): the cursor stays in the transfer buffer between calls instead of
// being marshalled from JavaScript for each (0.45 µs a node, 0.32 without the extra flag's two
// calls, against 1.3 µs through TreeCursor's getters, measured on 10 MB of kernel drivers). Without the binding it walks with TreeCursor.
// Invariants: `next[i] > i`; node j is in i's subtree iff i < j < next[i]; parents precede children.
import type { Tree } from 'web-tree-sitter';

const NAMED = 1;
const MISSING = 2;
const EXTRA = 4;

/** What structural matching reads of a node: a subset of web-tree-sitter's Node, which satisfies it too. */
export interface SyntaxNode {
  readonly type: string;
  readonly text: string;
  readonly isNamed: boolean;
  readonly isExtra: boolean;
  readonly isMissing: boolean;
  readonly startIndex: number;
  readonly endIndex: number;
  readonly childCount: number;
  readonly namedChildCount: number;
  readonly children: ReadonlyArray<SyntaxNode | null>;
  readonly parent: SyntaxNode | null;
  namedChild(index: number): SyntaxNode | null;
}

export class FlatTree {
  readonly parents: Int32Array;

  constructor(
    /** The grammar's type names by id (web-tree-sitter's `language.types`). */
    readonly types: readonly string[],
    readonly kinds: Uint16Array,
    readonly flags: Uint8Array,
    readonly starts: Uint32Array,
    readonly ends: Uint32Array,
    readonly next: Uint32Array,
    /** The source text the ranges index. */
    readonly text: string,
  ) {
    this.parents = new Int32Array(kinds.length);
    const stack: number[] = [];
    for (let node = 0; node < kinds.length; node++) {
      while (stack.length > 0 && next[stack[stack.length - 1]!]! <= node) stack.pop();
      this.parents[node] = stack.length > 0 ? stack[stack.length - 1]! : -1;
      stack.push(node);
    }
  }

  get size(): number {
    return this.kinds.length;
  }

  /** Bytes held by the arrays (not the text). */
  get bytes(): number {
    return this.kinds.byteLength + this.flags.byteLength + this.starts.byteLength + this.ends.byteLength + this.next.byteLength + this.parents.byteLength;
  }

  node(index: number): FlatNode {
    return new FlatNode(this, index);
  }

  get rootNode(): FlatNode {
    return this.node(0);
  }

  /** Nothing to free (the arrays are JavaScript's); kept so that a flat tree stands where a Tree did. */
  delete(): void {}

  /**
   * Flattens `tree` (which the caller still owns and deletes). `binding`: web-tree-sitter's
   * module, for the fast walk; without it the walk goes through TreeCursor.
   */
  static of(tree: Tree, text: string, binding: FlatWalkBinding | undefined): FlatTree {
    const types = tree.language.types;
    let capacity = Math.max(64, text.length >> 2);
    let kinds = new Uint16Array(capacity);
    let flags = new Uint8Array(capacity);
    let starts = new Uint32Array(capacity);
    let ends = new Uint32Array(capacity);
    let next = new Uint32Array(capacity);
    let count = 0;
    const grow = (): void => {
      capacity *= 2;
      const grown = <T extends Uint8Array | Uint16Array | Uint32Array>(array: T, make: (length: number) => T): T => {
        const bigger = make(capacity);
        bigger.set(array);
        return bigger;
      };
      kinds = grown(kinds, (length) => new Uint16Array(length));
      flags = grown(flags, (length) => new Uint8Array(length));
      starts = grown(starts, (length) => new Uint32Array(length));
      ends = grown(ends, (length) => new Uint32Array(length));
      next = grown(next, (length) => new Uint32Array(length));
    };
    // Open nodes: their subtree's end is set when the walk leaves them.
    const open: number[] = [];
    const walk = binding ? fastWalker(binding, tree) : cursorWalker(tree);
    try {
      for (;;) {
        if (count === capacity) grow();
        kinds[count] = walk.typeId();
        starts[count] = walk.startIndex();
        ends[count] = walk.endIndex();
        flags[count] = walk.flags();
        open.push(count);
        count += 1;
        if (walk.firstChild()) continue;
        let done = false;
        for (;;) {
          next[open.pop()!] = count;
          if (walk.nextSibling()) break;
          if (!walk.parent()) {
            done = true;
            break;
          }
        }
        if (done) break;
      }
    } finally {
      walk.close();
    }
    return new FlatTree(types, kinds.slice(0, count), flags.slice(0, count), starts.slice(0, count), ends.slice(0, count), next.slice(0, count), text);
  }
}

interface Walker {
  typeId(): number;
  startIndex(): number;
  endIndex(): number;
  flags(): number;
  firstChild(): boolean;
  nextSibling(): boolean;
  parent(): boolean;
  close(): void;
}

/** A cursor kept in web-tree-sitter's transfer buffer, moved by its exported wasm functions. */
function fastWalker(binding: FlatWalkBinding, tree: Tree): Walker {
  // Every public getter marshals into the transfer buffer: these come before the cursor is put there.
  const mayHaveMissing = tree.rootNode.hasError;
  const cursor = tree.walk();
  const pointer = (tree as unknown as { [0]: number })[0];
  // The transfer buffer's address (ts_init only writes two version numbers into it).
  const transfer = binding._ts_init() >> 2;
  // A public getter marshals the cursor into the transfer buffer; the calls below keep it there.
  void cursor.nodeTypeId;
  // Read afresh each time: a grown wasm memory gets new views.
  const heap = (): Uint32Array => binding.HEAPU32;
  return {
    typeId: () => binding._ts_tree_cursor_current_node_type_id_wasm(pointer),
    startIndex: () => binding._ts_tree_cursor_start_index_wasm(pointer),
    endIndex: () => binding._ts_tree_cursor_end_index_wasm(pointer),
    flags: () => {
      let flags = binding._ts_tree_cursor_current_node_is_named_wasm(pointer) === 1 ? NAMED : 0;
      if (mayHaveMissing && binding._ts_tree_cursor_current_node_is_missing_wasm(pointer) === 1) flags |= MISSING;
      // Extra-ness is a node's, not its cursor's: the node is marshalled over the cursor's words,
      // which are put back after.
      const words = heap();
      const a = words[transfer]!;
      const b = words[transfer + 1]!;
      const c = words[transfer + 2]!;
      const d = words[transfer + 3]!;
      binding._ts_tree_cursor_current_node_wasm(pointer);
      if (binding._ts_node_is_extra_wasm(pointer) === 1) flags |= EXTRA;
      words[transfer] = a;
      words[transfer + 1] = b;
      words[transfer + 2] = c;
      words[transfer + 3] = d;
      return flags;
    },
    firstChild: () => binding._ts_tree_cursor_goto_first_child_wasm(pointer) === 1,
    nextSibling: () => binding._ts_tree_cursor_goto_next_sibling_wasm(pointer) === 1,
    parent: () => binding._ts_tree_cursor_goto_parent_wasm(pointer) === 1,
    // The cursor's own fields were never updated: put the buffer's words back into it before
    // deleting, so that it frees what the walk allocated.
    close: () => {
      const words = heap();
      const fields = cursor as unknown as Record<number, number>;
      for (let word = 0; word < 4; word++) fields[word] = words[transfer + word]!;
      cursor.delete();
    },
  };
}

/** The same walk through TreeCursor's public API. */
function cursorWalker(tree: Tree): Walker {
  const cursor = tree.walk();
  return {
    typeId: () => cursor.nodeTypeId,
    startIndex: () => cursor.startIndex,
    endIndex: () => cursor.endIndex,
    flags: () => {
      const node = cursor.currentNode;
      return (node.isNamed ? NAMED : 0) | (node.isMissing ? MISSING : 0) | (node.isExtra ? EXTRA : 0);
    },
    firstChild: () => cursor.gotoFirstChild(),
    nextSibling: () => cursor.gotoNextSibling(),
    parent: () => cursor.gotoParent(),
    close: () => cursor.delete(),
  };
}

/** A node of a FlatTree: made on demand (two fields), equal to another for the same index. */
export class FlatNode implements SyntaxNode {
  constructor(
    readonly tree: FlatTree,
    readonly index: number,
  ) {}

  get type(): string {
    return this.tree.types[this.tree.kinds[this.index]!] || 'ERROR';
  }

  get typeId(): number {
    return this.tree.kinds[this.index]!;
  }

  get text(): string {
    return this.tree.text.slice(this.tree.starts[this.index]!, this.tree.ends[this.index]!);
  }

  get isNamed(): boolean {
    return (this.tree.flags[this.index]! & NAMED) !== 0;
  }

  get isExtra(): boolean {
    return (this.tree.flags[this.index]! & EXTRA) !== 0;
  }

  get isMissing(): boolean {
    return (this.tree.flags[this.index]! & MISSING) !== 0;
  }

  get startIndex(): number {
    return this.tree.starts[this.index]!;
  }

  get endIndex(): number {
    return this.tree.ends[this.index]!;
  }

  get parent(): FlatNode | null {
    const parent = this.tree.parents[this.index]!;
    return parent < 0 ? null : new FlatNode(this.tree, parent);
  }

  /** Child indices, in order. */
  private childIndices(): number[] {
    const { next } = this.tree;
    const out: number[] = [];
    const end = next[this.index]!;
    for (let child = this.index + 1; child < end; child = next[child]!) out.push(child);
    return out;
  }

  get childCount(): number {
    const { next } = this.tree;
    let count = 0;
    const end = next[this.index]!;
    for (let child = this.index + 1; child < end; child = next[child]!) count++;
    return count;
  }

  get children(): FlatNode[] {
    return this.childIndices().map((child) => new FlatNode(this.tree, child));
  }

  private namedIndices(): number[] {
    return this.childIndices().filter((child) => (this.tree.flags[child]! & NAMED) !== 0);
  }

  get namedChildCount(): number {
    return this.namedIndices().length;
  }

  namedChild(index: number): FlatNode | null {
    const child = this.namedIndices()[index];
    return child === undefined ? null : new FlatNode(this.tree, child);
  }
}

/** The functions of web-tree-sitter's Emscripten module that the fast walk calls (grammars.ts `wasmBinding`). */
export interface FlatWalkBinding {
  readonly HEAPU32: Uint32Array;
  _ts_init(): number;
  _ts_tree_cursor_current_node_type_id_wasm(tree: number): number;
  _ts_tree_cursor_start_index_wasm(tree: number): number;
  _ts_tree_cursor_end_index_wasm(tree: number): number;
  _ts_tree_cursor_current_node_is_named_wasm(tree: number): number;
  _ts_tree_cursor_current_node_is_missing_wasm(tree: number): number;
  _ts_tree_cursor_current_node_wasm(tree: number): void;
  _ts_node_is_extra_wasm(tree: number): number;
  _ts_tree_cursor_goto_first_child_wasm(tree: number): number;
  _ts_tree_cursor_goto_next_sibling_wasm(tree: number): number;
  _ts_tree_cursor_goto_parent_wasm(tree: number): number;
}

/** The functions `FlatWalkBinding` names (a module lacking one gets the TreeCursor walk). */
export const flatWalkFunctions = [
  '_ts_init',
  '_ts_tree_cursor_current_node_type_id_wasm',
  '_ts_tree_cursor_start_index_wasm',
  '_ts_tree_cursor_end_index_wasm',
  '_ts_tree_cursor_current_node_is_named_wasm',
  '_ts_tree_cursor_current_node_is_missing_wasm',
  '_ts_tree_cursor_current_node_wasm',
  '_ts_node_is_extra_wasm',
  '_ts_tree_cursor_goto_first_child_wasm',
  '_ts_tree_cursor_goto_next_sibling_wasm',
  '_ts_tree_cursor_goto_parent_wasm',
] as const;
