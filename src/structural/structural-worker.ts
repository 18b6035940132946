// Worker thread for structural-pool.ts: reads a file, checks that it holds the search's literals,
// parses it (only the regions that may hold a match, region-parse.ts) and answers its matches.
// Each worker keeps its own grammars and compiled searches (web-tree-sitter state is per thread),
// and the files it read lately, decoded, with their regions (TextCache: exact, by their bytes).
// After a WebAssembly trap it answers the error and exits; after a large file it retires, as the
// chunk workers do (wasm memory only grows).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { GrammarSet } from '../index/syntax/grammars.js';
import { SourceText } from '../index/syntax/source-text.js';
import { TextCache } from '../index/syntax/text-cache.js';
import { type FileMatch, findInTree, mayMatch } from './find.js';
import { parseForSearch } from './region-parse.js';
import { type CompiledSearch, compileSearch, type SearchSpec } from './rule.js';

export interface StructuralJob {
  id: number;
  language: string;
  spec: SearchSpec;
  /** Same key, same spec: the worker compiles each search once. */
  key: string;
  path: string;
  /** Read this file unless `text` is given. */
  absolutePath?: string;
  text?: string;
  limit: number;
}

/** `hash`: SHA-256 (hex) of the bytes matched, when there are matches (a rewrite checks it). */
export type StructuralReply = ({ matches: FileMatch[]; parsed: boolean; hash?: string } | { error: string; code?: string }) & { id: number; retire?: boolean };

const grammars = new GrammarSet();
const searches = new Map<string, CompiledSearch>();
const recycleAfterBytes = 2_000_000;
/**
 * Decoded files kept between searches: ~32 MB of bytes and text, about 12 MB of source, in files of
 * 64 KB or more (keeping every file read cost a kernel search of 9,901 files 12–18% more CPU, in
 * garbage collection, for nothing: a pass over the kernel finds none of them again).
 */
const texts = new TextCache(32 << 20, 64 * 1024);

async function run(job: StructuralJob, bytes: Uint8Array): Promise<{ matches: FileMatch[]; parsed: boolean }> {
  const state = await grammars.load(job.language);
  if (state.state === 'failed') throw new Error(state.reason);
  let search = searches.get(job.key);
  if (!search) {
    search = compileSearch(grammars, state.grammar, job.spec);
    if (searches.size > 16) searches.clear();
    searches.set(job.key, search);
  }
  if (!mayMatch(bytes, search.required)) return { matches: [], parsed: false };
  // A file read from disk is kept decoded (with its regions) for the next search; a buffer's text changes too often.
  const source = job.text === undefined ? texts.text(job.absolutePath ?? job.path, bytes) : new SourceText(bytes);
  const parsed = parseForSearch(grammars, state.grammar, source, search);
  if (parsed === 'no match') return { matches: [], parsed: false };
  if (parsed === 'timed out') throw new Error('parse timed out');
  const tree = parsed.tree;
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
    let size = 0;
    try {
      const bytes = job.text !== undefined ? Buffer.from(job.text, 'utf8') : fs.readFileSync(job.absolutePath ?? job.path);
      size = bytes.length;
      const result = await run(job, bytes);
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
