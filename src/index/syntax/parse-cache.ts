// Syntax trees kept per file for text that changes often (open editor buffers): a new version is
// re-parsed incrementally from the previous tree (`tree.edit` with the changed span, then a parse
// that reuses the unchanged subtrees). Owns the trees it holds and deletes them on eviction, on
// forget() and when a newer version replaces them. A tree handed out is valid until the next call
// into the cache: use it synchronously. Bounded by entries (least recently used go first).
// Structural search and the code graph reuse it; the daemon feeds it buffers for fathom/chunks.
import type { Tree } from 'web-tree-sitter';
import { type GrammarSet, type LoadedGrammar, parseSource } from './grammars.js';
import { SourceText } from './source-text.js';

interface Entry {
  grammar: LoadedGrammar;
  source: SourceText;
  tree: Tree;
}

export interface CachedTree {
  tree: Tree;
  source: SourceText;
  grammar: LoadedGrammar;
  /** 'cached': same text as last time; 'incremental': re-parsed from the previous tree; 'full': parsed from scratch. */
  reuse: 'cached' | 'incremental' | 'full';
}

/** The single span where two texts differ: common prefix, then common suffix of what is left. */
export function changedSpan(before: string, after: string): { start: number; oldEnd: number; newEnd: number } {
  const limit = Math.min(before.length, after.length);
  let start = 0;
  while (start < limit && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  // Never end a span inside a surrogate pair.
  if (start > 0 && start < limit && isHighSurrogate(before.charCodeAt(start - 1))) start--;
  let suffix = 0;
  while (suffix < limit - start && before.charCodeAt(before.length - 1 - suffix) === after.charCodeAt(after.length - 1 - suffix)) suffix++;
  let oldEnd = before.length - suffix;
  let newEnd = after.length - suffix;
  if (oldEnd < before.length && isLowSurrogate(before.charCodeAt(oldEnd))) {
    oldEnd++;
    newEnd++;
  }
  return { start, oldEnd, newEnd };
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

export class ParseCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly grammars: GrammarSet,
    private readonly maxEntries = 32,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /**
   * The tree of `bytes` as `key`'s new content, parsed in `languageId`'s grammar. Undefined when
   * the language has no loadable grammar or the parse ran past its time limit.
   */
  async tree(key: string, languageId: string, bytes: Uint8Array, options: { timeoutMs?: number } = {}): Promise<CachedTree | undefined> {
    const state = await this.grammars.load(languageId);
    if (state.state === 'failed') return undefined;
    const grammar = state.grammar;
    const source = new SourceText(bytes);
    const previous = this.entries.get(key);
    this.entries.delete(key);
    if (previous && previous.grammar === grammar) {
      if (previous.source.parseText === source.parseText) {
        this.entries.set(key, previous);
        return { tree: previous.tree, source: previous.source, grammar, reuse: 'cached' };
      }
      const span = changedSpan(previous.source.parseText, source.parseText);
      const startPosition = previous.source.position(span.start);
      const oldEndPosition = previous.source.position(span.oldEnd);
      const newEndPosition = source.position(span.newEnd);
      previous.tree.edit({
        startIndex: span.start,
        oldEndIndex: span.oldEnd,
        newEndIndex: span.newEnd,
        startPosition: { row: startPosition.line, column: startPosition.character },
        oldEndPosition: { row: oldEndPosition.line, column: oldEndPosition.character },
        newEndPosition: { row: newEndPosition.line, column: newEndPosition.character },
      });
      let tree: Tree | undefined;
      try {
        tree = parseSource(this.grammars, grammar, source, {
          ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
          oldTree: previous.tree,
        });
      } catch {
        tree = undefined;
      }
      previous.tree.delete();
      if (!tree) return undefined;
      this.remember(key, { grammar, source, tree });
      return { tree, source, grammar, reuse: 'incremental' };
    }
    previous?.tree.delete();
    let tree: Tree | undefined;
    try {
      tree = parseSource(this.grammars, grammar, source, options);
    } catch {
      tree = undefined; // the grammar failed on this text: no tree (callers fall back to line windows)
    }
    if (!tree) return undefined;
    this.remember(key, { grammar, source, tree });
    return { tree, source, grammar, reuse: 'full' };
  }

  private remember(key: string, entry: Entry): void {
    this.entries.set(key, entry);
    while (this.entries.size > this.maxEntries) {
      const [oldest, evicted] = this.entries.entries().next().value as [string, Entry];
      this.entries.delete(oldest);
      evicted.tree.delete();
    }
  }

  forget(key: string): void {
    this.entries.get(key)?.tree.delete();
    this.entries.delete(key);
  }

  clear(): void {
    for (const entry of this.entries.values()) entry.tree.delete();
    this.entries.clear();
  }
}
