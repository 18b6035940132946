// Syntax trees parsed whole, kept between searches on one thread (a structural worker): a search
// that finds a file's tree here matches on it without decoding or parsing the file again, which is
// most of the cost of a pattern that matches in most files (`def $F($$$A): $$$B` over Django).
// Exact: an entry answers only for the same bytes (a memcmp) under the same key (language and
// path). Bounded by an estimate of the memory held: tree-sitter's trees take ~20× their source's
// bytes in wasm memory (measured: 19.7× over Django's 859 files, 20.5× over 410 of the kernel's C
// files), plus the decoded text. The least recently used tree goes first, except that a search
// never pushes out a tree it used itself: a pass over more files than fit would otherwise keep
// none of them (each pushed out before its next use); this way the first files stay.
import type { Tree } from 'web-tree-sitter';
import type { SourceText } from './source-text.js';

interface Entry {
  source: SourceText;
  tree: Tree;
  cost: number;
  /** The search that used it last. */
  usedBy: number;
}

/** Estimated bytes a kept tree holds: the tree in wasm memory and the file's bytes and text. */
export function treeCost(source: SourceText): number {
  return source.bytes.byteLength * 21 + (source.length === source.bytes.byteLength ? source.length : 2 * source.length);
}

export class TreeCache {
  private readonly entries = new Map<string, Entry>();
  private held = 0;

  constructor(
    /** Estimated bytes held at most. */
    readonly maxBytes: number,
  ) {}

  /** The tree kept for `key` when its bytes equal `bytes` (a stale one is dropped). */
  get(key: string, bytes: Uint8Array, search: number): { source: SourceText; tree: Tree } | undefined {
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

  /** Whether a tree of `source` would be kept now (by `offer`, in search `search`). */
  wouldKeep(source: SourceText, search: number): boolean {
    const cost = treeCost(source);
    // A tree over half the budget would push out most of what is kept (lib.dom.d.ts, 1.9 MB, ~41
    // MB as a tree, fits in the default 96 MiB: parsing it took most of a search for interfaces).
    if (cost * 2 > this.maxBytes) return false;
    let free = this.maxBytes - this.held;
    for (const entry of this.entries.values()) {
      if (free >= cost || entry.usedBy === search) break;
      free += entry.cost;
    }
    return free >= cost;
  }

  /**
   * Offers a tree parsed whole from `source`. True: kept (the cache owns it now and deletes it when
   * it goes); false: not kept (the caller deletes it).
   */
  offer(key: string, source: SourceText, tree: Tree, search: number): boolean {
    const cost = treeCost(source);
    const previous = this.entries.get(key);
    if (previous) {
      this.entries.delete(key);
      this.drop(previous);
    }
    // Nothing is pushed out for a tree that would not be kept after all.
    if (!this.wouldKeep(source, search)) return false;
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
    for (const entry of this.entries.values()) entry.tree.delete();
    this.entries.clear();
    this.held = 0;
  }

  private drop(entry: Entry): void {
    entry.tree.delete();
    this.held -= entry.cost;
  }
}
