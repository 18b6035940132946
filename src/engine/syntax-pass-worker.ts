// Worker thread for syntax-pass.ts: one file read once and parsed once, and out of that one tree
// everything the engine's indexes want of it (the job says which): the graph's tags, the chunk
// ranking's chunks with their terms, the semantic index's chunks (another budget, same tree;
// embedded here for a static model), and
// the flat tree put in the tree store (unless the store holds it). A file whose parse timed out
// or failed is not parsed again for the next product: its chunks are line windows, its tags empty.
// Like the other syntax workers it loads its own grammars, answers and exits after a WebAssembly
// trap, and retires after a file over 2 MB (base/file-job-worker.ts).
import { workerData } from 'node:worker_threads';
import type { Tree } from 'web-tree-sitter';
import { serveFileJobs } from '../base/file-job-worker.js';
import { chunkTerms } from '../index/ranking/chunk-fields.js';
import type { FileTerms } from '../index/ranking/chunk-terms-worker.js';
import { type ChunkOptions, defaultBudgetBytes, type FileChunks } from '../index/syntax/chunk.js';
import { chunkFileAt } from '../index/syntax/chunk-file.js';
import { type EmbeddedChunks, embedChunks, type WorkerEmbedding } from '../index/semantic/embedded-chunks.js';
import { FlatTree } from '../index/syntax/flat-tree.js';
import { defaultParseTimeoutMs, GrammarSet, type LoadedGrammar, parseSource, wasmBinding } from '../index/syntax/grammars.js';
import { SourceText } from '../index/syntax/source-text.js';
import { extractTags, type FileTags } from '../index/syntax/tags.js';
import { grammarStoreId, TreeStore, treeKey } from '../index/syntax/tree-store.js';

/** What a job asks of its file; absent: not wanted. */
export interface PassWants {
  /** The graph's definitions and references (tags.scm). */
  tags?: { definitionsOnly?: boolean };
  /** Chunks at this budget with their ranking fields and terms (chunk-fields.ts). */
  terms?: { budgetBytes: number };
  /**
   * Chunks at this budget, whole (what the semantic index embeds); with `embed` (a static model),
   * embedded here, and what comes back is each chunk's place, text hash and vector, not its text.
   */
  chunks?: ChunkOptions & { embed?: WorkerEmbedding };
  /** The flat tree in the tree store. */
  tree?: boolean;
}

export interface PassProducts {
  tags?: FileTags;
  terms?: FileTerms;
  chunks?: FileChunks | EmbeddedChunks;
  /** Bytes written to the tree store (0: it held the tree, or there is none); `failed`: no tree to store (the parse timed out or failed). */
  tree?: { stored: number; parsed: boolean; failed?: boolean };
}

export interface SyntaxPassJob {
  id: number;
  /** Relative path: shown in headers, used for the language and the path field. */
  path: string;
  /** Read this file when `bytes` is absent. */
  absolutePath?: string;
  bytes?: Uint8Array;
  want: PassWants;
}

export interface PassCounts {
  /** Parses run for this file (0 or 1). */
  parses: number;
  /** Time spent in the parser (ms). */
  parseMs: number;
  /** Time spent on the job after reading the file (ms). */
  elapsedMs: number;
  byteLength: number;
}

export type SyntaxPassReply = ({ products: PassProducts; counts: PassCounts } | { error: string; code?: string }) & { id: number; retire?: boolean };

/** What a syntax pass worker gets as its workerData. */
export interface SyntaxPassWorkerData {
  /** The tree store's folder, when there is one. */
  treeStoreFolder?: string;
}

const grammars = new GrammarSet();
const storeFolder = (workerData as SyntaxPassWorkerData | null)?.treeStoreFolder;
const store = storeFolder !== undefined ? new TreeStore(storeFolder) : undefined;

/** The one parse: a tree, or why there is none (a timeout, a grammar that failed). */
function parseOnce(grammar: LoadedGrammar, source: SourceText, counts: PassCounts): { tree: Tree } | { failure: string } {
  const started = performance.now();
  counts.parses += 1;
  try {
    const tree = parseSource(grammars, grammar, source, { timeoutMs: defaultParseTimeoutMs });
    return tree ? { tree } : { failure: `parsing took longer than ${defaultParseTimeoutMs} ms` };
  } catch (error) {
    if (error instanceof Error && error.constructor.name === 'RuntimeError') throw error; // a trap: the worker goes
    return { failure: `the ${grammar.spec.name} grammar failed on this file (${error instanceof Error ? error.message : String(error)})` };
  } finally {
    counts.parseMs += performance.now() - started;
  }
}

async function pass(job: SyntaxPassJob, bytes: Uint8Array, counts: PassCounts): Promise<PassProducts> {
  const { want } = job;
  const products: PassProducts = {};
  const spec = grammars.table.detect(job.path, bytes.subarray(0, 256));
  const loaded = spec && spec.disabled === undefined ? await grammars.load(spec.id) : undefined;
  const grammar = loaded?.state === 'loaded' ? loaded.grammar : undefined;
  const source = new SourceText(bytes);
  const tagsQuery = grammar && want.tags ? grammars.tagsQuery(grammar, { definitionsOnly: want.tags.definitionsOnly === true }) : undefined;
  let storeKey: string | undefined;
  if (want.tree) {
    if (!store || !grammar) products.tree = { stored: 0, parsed: false };
    else {
      storeKey = treeKey(grammarStoreId(grammar.spec), bytes);
      if (store.has(storeKey)) {
        products.tree = { stored: 0, parsed: false };
        storeKey = undefined;
      }
    }
  }
  // Parsed only when a product needs the tree: chunks (the chunker cuts any tree it has), tags, a tree to store.
  const needsTree = grammar !== undefined && (storeKey !== undefined || tagsQuery !== undefined || want.terms !== undefined || want.chunks !== undefined);
  const parsed = needsTree ? parseOnce(grammar, source, counts) : undefined;
  const tree = parsed && 'tree' in parsed ? parsed.tree : undefined;
  try {
    if (storeKey !== undefined) {
      if (!tree) products.tree = { stored: 0, parsed: false, failed: true };
      else products.tree = { stored: store!.put(storeKey, FlatTree.of(tree, source.text, wasmBinding())), parsed: true };
    }
    if (want.tags) {
      products.tags =
        tree && tagsQuery
          ? extractTags(tree.rootNode, tagsQuery, job.path, spec!.id)
          : { path: job.path, language: spec?.id, definitions: [], references: [], imports: [] };
    }
    const input = { path: job.path, bytes, source, ...(tree ? { tree } : {}), ...(parsed && 'failure' in parsed ? { parseFailure: parsed.failure } : {}) };
    // Both budgets cut from one look at the tree (its entities, docs and errors found once).
    const budgets = [...(want.terms ? [want.terms.budgetBytes] : []), ...(want.chunks ? [want.chunks.budgetBytes ?? defaultBudgetBytes] : [])];
    const cut = budgets.length > 0 ? await chunkFileAt(grammars, input, budgets, want.chunks?.parseTimeoutMs) : [];
    if (want.terms) {
      const chunked = cut[0]!;
      products.terms = { language: chunked.language, byteLength: chunked.byteLength, ...chunkTerms(job.path, chunked.language, chunked.chunks) };
    }
    if (want.chunks) {
      const chunked = cut[cut.length - 1]!;
      products.chunks = want.chunks.embed ? await embedChunks(chunked, want.chunks.embed) : chunked;
    }
  } finally {
    tree?.delete();
  }
  return products;
}

serveFileJobs<SyntaxPassJob>(async (job, bytes) => {
  const counts: PassCounts = { parses: 0, parseMs: 0, elapsedMs: 0, byteLength: bytes.length };
  const started = performance.now();
  const products = await pass(job, bytes, counts);
  counts.elapsedMs = performance.now() - started;
  return { products, counts };
});
