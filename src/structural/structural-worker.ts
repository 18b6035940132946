// Worker thread for structural-pool.ts: reads a file, checks that it holds the search's literals,
// parses it (only the regions that may hold a match, region-parse.ts) and answers its matches.
// Each worker keeps its own grammars and compiled searches (web-tree-sitter state is per thread),
// the files it read lately, decoded, with their regions (TextCache: exact, by their bytes), and
// the trees of files it parsed whole (TreeCache: the next search matches on them, unparsed).
// After a WebAssembly trap it answers the error and exits; after a large file it retires, as the
// chunk workers do (wasm memory only grows).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { GrammarSet } from '../index/syntax/grammars.js';
import { SourceText } from '../index/syntax/source-text.js';
import { TextCache } from '../index/syntax/text-cache.js';
import { TreeCache } from '../index/syntax/tree-cache.js';
import { type FileMatch, findInTree, mayMatch } from './find.js';
import { parseForSearch } from './region-parse.js';
import { type CompiledSearch, compileSearch, type SearchSpec } from './rule.js';
import type { StructuralWorkerData } from './structural-pool.js';

export interface StructuralJob {
  id: number;
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

/**
 * `parsed`: the file was parsed now (in part or whole); `reused`: it was matched on a tree kept
 * from an earlier search; `hash`: SHA-256 (hex) of the bytes matched, when there are matches (a
 * rewrite checks it).
 */
export type StructuralReply = ({ matches: FileMatch[]; parsed: boolean; reused?: boolean; hash?: string } | { error: string; code?: string }) & { id: number; retire?: boolean };

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

async function run(job: StructuralJob, bytes: Uint8Array): Promise<{ matches: FileMatch[]; parsed: boolean; reused?: boolean }> {
  const state = await grammars.load(job.language);
  if (state.state === 'failed') throw new Error(state.reason);
  let search = searches.get(job.key);
  if (!search) {
    search = compileSearch(grammars, state.grammar, job.spec);
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
  // Where the cache would keep the tree, a file whose regions worth parsing cover half of it or
  // more is parsed whole (for this search and the next ones); otherwise only those regions are.
  const preferWhole = key !== undefined && trees !== undefined && trees.wouldKeep(source, job.search);
  const parsed = parseForSearch(grammars, state.grammar, source, search, { preferWhole });
  if (parsed === 'no match') return { matches: [], parsed: false };
  if (parsed === 'timed out') throw new Error('parse timed out');
  const tree = parsed.tree;
  const owned = key !== undefined && !parsed.partial && trees !== undefined && trees.offer(key, source, tree, job.search);
  try {
    return { matches: findInTree(tree, source, search, job.limit), parsed: true };
  } finally {
    if (!owned) tree.delete();
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
      const bytes = job.text !== undefined ? Buffer.from(job.text, 'utf8') : fs.readFileSync(job.absolutePath ?? job.path);
      size = bytes.length;
      const result = await run(job, bytes);
      if (!result.parsed) size = 0;
      reply = { id: job.id, ...result, ...(result.matches.length > 0 ? { hash: createHash('sha256').update(bytes).digest('hex') } : {}) };
    } catch (error) {
      trapped = error instanceof Error && error.constructor.name === 'RuntimeError';
      reply = { id: job.id, error: error instanceof Error ? error.message : String(error), ...((error as NodeJS.ErrnoException).code ? { code: (error as NodeJS.ErrnoException).code } : {}) };
    }
    if (size > recycleAfterBytes) reply.retire = true;
    parentPort!.postMessage(reply);
    if (trapped) process.exit(1);
  })();
});
