// Syntax trees parsed whole, kept between searches on one thread (a structural worker) as flat
// trees (flat-tree.ts): a search that finds a file's tree here matches on it without decoding or
// parsing the file again, which is most of the cost of a pattern that matches in most files (`def
// $F($$$A): $$$B` over Django). Exact: an entry answers only for the same bytes (a memcmp) under
// the same key (language and path). Bounded by the memory held: a flat tree's arrays (19 bytes a
// node) plus the file's bytes and decoded text; before a parse, an estimate of 0.25 nodes a byte
// (measured: 0.23 on the kernel's fs/ext4, 0.20 on Django, 0.12 on TypeScript's lib: flat trees
// of 4.4×, 3.7× and 2.2× the source; tree-sitter's own trees take ~20× the source in wasm memory,
// which is why they are not kept as they are). The least
// recently used tree goes first, except that a search never pushes out a tree it used itself: a
// pass over more files than fit would otherwise keep none of them (each pushed out before its next
// use); this way the first files stay.
import type { FlatTree } from './flat-tree.js';
import type { SourceText } from './source-text.js';

interface Entry {
  source: SourceText;
  tree: FlatTree;
  cost: number;
  /** The search that used it last. */
  usedBy: number;
}

/** The file's bytes and decoded text. */
function sourceCost(source: SourceText): number {
  return source.bytes.byteLength + (source.length === source.bytes.byteLength ? source.length : 2 * source.length);
}

/** Estimated bytes a kept tree of `source` holds, before it is parsed: its flat tree, the file's bytes and text. */
export function treeCost(source: SourceText): number {
  return Math.ceil(source.bytes.byteLength * 0.25) * 19 + sourceCost(source);
}

/** Bytes a kept flat tree holds with its source. */
export function flatCost(source: SourceText, tree: FlatTree): number {
  return tree.bytes + sourceCost(source);
}

export class TreeCache {
  private readonly entries = new Map<string, Entry>();
  private held = 0;

  constructor(
    /** Estimated bytes held at most. */
    readonly maxBytes: number,
  ) {}

  /** The tree kept for `key` when its bytes equal `bytes` (a stale one is dropped). */
  get(key: string, bytes: Uint8Array, search: number): { source: SourceText; tree: FlatTree } | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    const kept = entry.source.bytes;
    if (!Buffer.from(kept.buffer, kept.byteOffset, kept.byteLength).equals(bytes)) {
      this.drop(entry);
      return undefined;
    }
    entry.usedBy = search;
    this.entries.set(key, entry);
    return entry;
  }

  /** Whether a tree of `source` would be kept now (by `offer`, in search `search`), by its estimated cost or the one given. */
  wouldKeep(source: SourceText, search: number, cost = treeCost(source)): boolean {
    // A tree over half the budget would push out most of what is kept (lib.dom.d.ts, 1.9 MB, fits
    // in the default 96 MiB: parsing it took most of a search for interfaces).
    if (cost * 2 > this.maxBytes) return false;
    let free = this.maxBytes - this.held;
    for (const entry of this.entries.values()) {
      if (free >= cost || entry.usedBy === search) break;
      free += entry.cost;
    }
    return free >= cost;
  }

  /** Offers a tree parsed whole from `source` (flattened). True: kept; false: not kept. */
  offer(key: string, source: SourceText, tree: FlatTree, search: number): boolean {
    const cost = flatCost(source, tree);
    const previous = this.entries.get(key);
    if (previous) {
      this.entries.delete(key);
      this.drop(previous);
    }
    // Nothing is pushed out for a tree that would not be kept after all.
    if (!this.wouldKeep(source, search, cost)) return false;
    for (const [oldest, entry] of this.entries) {
      if (this.held + cost <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.drop(entry);
    }
    this.entries.set(key, { source, tree, cost, usedBy: search });
    this.held += cost;
    return true;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Estimated bytes held. */
  get bytes(): number {
    return this.held;
  }

  clear(): void {
    this.entries.clear();
    this.held = 0;
  }

  private drop(entry: Entry): void {
    this.held -= entry.cost;
  }
}
