// Worker thread for structural-pool.ts: reads a file, checks that it holds the search's literals,
// parses it (only the regions that may hold a match, region-parse.ts) and answers its matches.
// Each worker keeps its own grammars and compiled searches (web-tree-sitter state is per thread),
// the files it read lately, decoded, with their regions (TextCache: exact, by their bytes), and
// the trees of files it parsed whole, flattened (TreeCache: the next search matches on them,
// unparsed; this search matches on the flat tree too).
// After a WebAssembly trap it answers the error and exits; after a large file it retires, as the
// chunk workers do (wasm memory only grows).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { FlatTree } from '../index/syntax/flat-tree.js';
import { GrammarSet, parseSource, wasmBinding } from '../index/syntax/grammars.js';
import { SourceText } from '../index/syntax/source-text.js';
import { TextCache } from '../index/syntax/text-cache.js';
import { flatCost, TreeCache } from '../index/syntax/tree-cache.js';
import { grammarStoreId, TreeStore, treeKey } from '../index/syntax/tree-store.js';
import { type FileMatch, findInTree, mayMatch } from './find.js';
import { parseForSearch, rangesCover, searchRanges } from './region-parse.js';
import { type CompiledSearch, compileSearch, type SearchSpec } from './rule.js';
import type { StructuralWorkerData } from './structural-pool.js';

export interface StructuralSearchJob {
  id: number;
  kind?: 'search';
  language: string;
  spec: SearchSpec;
  /** Same key, same spec: the worker compiles each search once. */
  key: string;
  /** Which search this file is for (a search never pushes a tree it used out of the tree cache). */
  search: number;
  path: string;
  /** Read this file unless `text` is given. */
  absolutePath?: string;
  text?: string;
  limit: number;
}

/** Put a file's tree in the tree store (tree-prebuild.ts), unless it is there: no search. */
export interface StructuralStoreJob {
  id: number;
  kind: 'store';
  language: string;
  path: string;
  absolutePath: string;
}

export type StructuralJob = StructuralSearchJob | StructuralStoreJob;

/**
 * `parsed`: the file was parsed now (in part or whole); `reused`: it was matched on a tree kept
 * from an earlier search; `hash`: SHA-256 (hex) of the bytes matched, when there are matches (a
 * rewrite checks it).
 */
export type StructuralReply = (
  | { matches: FileMatch[]; parsed: boolean; reused?: boolean; hash?: string; stored?: number }
  /** A store job: bytes written to the store (0: the tree was there, or could not be written), whether the file was parsed. */
  | { stored: number; parsed: boolean }
  | { error: string; code?: string }
) & { id: number; retire?: boolean };

const grammars = new GrammarSet();
const searches = new Map<string, CompiledSearch>();
const recycleAfterBytes = 2_000_000;
/**
 * Decoded files kept between searches: ~32 MB of bytes and text, about 12 MB of source, in files of
 * 64 KB or more (keeping every file read cost a kernel search of 9,901 files 12–18% more CPU, in
 * garbage collection, for nothing: a pass over the kernel finds none of them again).
 */
const texts = new TextCache(32 << 20, 64 * 1024);
/** Trees of files parsed whole (see tree-cache.ts); none when the budget is 0. */
const treeCacheBytes = (workerData as StructuralWorkerData | null)?.treeCacheBytes ?? 0;
const trees = treeCacheBytes > 0 ? new TreeCache(treeCacheBytes) : undefined;

/** Flat trees on disk (tree-store.ts), shared with the other workers and later daemons; none without a folder. */
const storeFolder = (workerData as StructuralWorkerData | null)?.treeStoreFolder;
const store = storeFolder !== undefined ? new TreeStore(storeFolder) : undefined;
/**
 * The share of a file its regions worth parsing must cover for its tree to come from the store (or,
 * missing there, for the file to be parsed whole and stored): below it, parsing those regions is
 * cheaper than reading and decoding the whole tree.
 */
const storeFrom = 0.2;
/** Below this many code units a file's tree comes from the store whatever its regions (a parse of any part costs more than decoding it). */
const storeAlways = 64 * 1024;

type RunResult = { matches: FileMatch[]; parsed: boolean; reused?: boolean; stored?: number };

/** A store job: the file's tree parsed whole, flattened and stored, unless the store has it. */
async function storeTree(job: StructuralStoreJob, bytes: Uint8Array): Promise<{ stored: number; parsed: boolean }> {
  if (!store) return { stored: 0, parsed: false };
  const state = await grammars.load(job.language);
  if (state.state === 'failed') throw new Error(state.reason);
  const grammar = state.grammar;
  const storeKey = treeKey(grammarStoreId(grammar.spec), bytes);
  if (store.has(storeKey)) return { stored: 0, parsed: false };
  const source = new SourceText(bytes);
  const tree = parseSource(grammars, grammar, source);
  if (!tree) throw new Error('parse timed out');
  let flat: FlatTree;
  try {
    flat = FlatTree.of(tree, source.text, wasmBinding());
  } finally {
    tree.delete();
  }
  return { stored: store.put(storeKey, flat), parsed: true };
}

async function run(job: StructuralSearchJob, bytes: Uint8Array): Promise<RunResult> {
  const state = await grammars.load(job.language);
  if (state.state === 'failed') throw new Error(state.reason);
  const grammar = state.grammar;
  let search = searches.get(job.key);
  if (!search) {
    search = compileSearch(grammars, grammar, job.spec);
    if (searches.size > 16) searches.clear();
    searches.set(job.key, search);
  }
  if (!mayMatch(bytes, search.required)) return { matches: [], parsed: false };
  // A file read from disk is kept decoded (with its regions), and its tree when parsed whole, for
  // the next search; a buffer's text changes too often.
  const key = job.text === undefined ? `${job.language}\0${job.absolutePath ?? job.path}` : undefined;
  const kept = key !== undefined ? trees?.get(key, bytes, job.search) : undefined;
  if (kept) return { matches: findInTree(kept.tree, kept.source, search, job.limit), parsed: false, reused: true };
  const source = key !== undefined ? texts.text(job.absolutePath ?? job.path, bytes) : new SourceText(bytes);
  // A tree on disk, for a file under 64 K units or whose regions that may match cover a fifth of it
  // or more (the bytes are hashed only then): matched as it is, nothing parsed. A smaller share of
  // a large file (a selective pattern's few items) is parsed faster than its whole stored tree is
  // read and decoded.
  let storeKey: string | undefined;
  if (store !== undefined && key !== undefined) {
    const ranges = searchRanges(grammar.spec.id, source, search);
    if (ranges?.length === 0) return { matches: [], parsed: false };
    if (ranges === undefined || source.length < storeAlways || rangesCover(ranges) >= storeFrom * source.length)
      storeKey = treeKey(grammarStoreId(grammar.spec), bytes);
  }
  if (storeKey !== undefined) {
    const stored = store!.get(storeKey, source.text, grammar.language.types);
    if (stored) {
      if (trees?.wouldKeep(source, job.search, flatCost(source, stored))) trees.offer(key!, source, stored, job.search);
      return { matches: findInTree(stored, source, search, job.limit), parsed: false, reused: true };
    }
  }
  // Where the tree would be kept, a file whose regions worth parsing cover a fifth of it (a tree
  // stored on disk serves every later search, and daemon) or half of it (kept in memory only) is
  // parsed whole; otherwise only those regions are.
  const wholeFrom = storeKey !== undefined ? storeFrom : key !== undefined && trees !== undefined && trees.wouldKeep(source, job.search) ? 0.5 : undefined;
  const parsed = parseForSearch(grammars, grammar, source, search, wholeFrom === undefined ? {} : { wholeFrom });
  if (parsed === 'no match') return { matches: [], parsed: false };
  if (parsed === 'timed out') throw new Error('parse timed out');
  const tree = parsed.tree;
  // A whole tree to keep is flattened (its wasm memory freed at once), kept, and matched flat.
  const keepInMemory = key !== undefined && !parsed.partial && trees !== undefined && trees.wouldKeep(source, job.search);
  if (!parsed.partial && (keepInMemory || storeKey !== undefined)) {
    let flat: FlatTree;
    try {
      flat = FlatTree.of(tree, source.text, wasmBinding());
    } finally {
      tree.delete();
    }
    if (keepInMemory) trees!.offer(key!, source, flat, job.search);
    const stored = storeKey !== undefined ? store!.put(storeKey, flat) : 0;
    return { matches: findInTree(flat, source, search, job.limit), parsed: true, stored };
  }
  try {
    return { matches: findInTree(tree, source, search, job.limit), parsed: true };
  } finally {
    tree.delete();
  }
}

parentPort!.on('message', (job: StructuralJob) => {
  void (async () => {
    let reply: StructuralReply;
    let trapped = false;
    // Bytes that may have been parsed: only a parse grows the wasm memory, so a large file its
    // literals ruled out does not retire the worker (a failed parse may have grown it).
    let size = 0;
    try {
      const bytes = job.kind !== 'store' && job.text !== undefined ? Buffer.from(job.text, 'utf8') : fs.readFileSync(job.absolutePath ?? job.path);
      size = bytes.length;
      if (job.kind === 'store') {
        const result = await storeTree(job, bytes);
        if (!result.parsed) size = 0;
        reply = { id: job.id, ...result };
      } else {
        const result = await run(job, bytes);
        if (!result.parsed) size = 0;
        reply = { id: job.id, ...result, ...(result.matches.length > 0 ? { hash: createHash('sha256').update(bytes).digest('hex') } : {}) };
      }
    } catch (error) {
      trapped = error instanceof Error && error.constructor.name === 'RuntimeError';
      reply = {
        id: job.id,
        error: error instanceof Error ? error.message : String(error),
        ...((error as NodeJS.ErrnoException).code ? { code: (error as NodeJS.ErrnoException).code } : {}),
      };
    }
    if (size > recycleAfterBytes) reply.retire = true;
    parentPort!.postMessage(reply);
    if (trapped) process.exit(1);
  })();
});
