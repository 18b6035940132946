// One syntax pass per changed file, for every index that needs the file's syntax. The code graph
// (tags), the chunk ranking (terms), the semantic index (chunks) and the tree store (flat trees)
// each still ask for their own product, the way each asked its own worker pool before. This asks
// every other index whether it is waiting for the same file (`awaits`: in the list its build
// or its flush will work through; or asking for it right now, not yet in a pass of its own), and
// then runs one job for all of them on the syntax pass workers (syntax-pass-worker.ts): one read,
// one parse. The products of the others are held until they ask for them.
//
// What is held is bounded: products wait at most `holdMs`, and the oldest are dropped past
// `holdBytes` (an index that then asks finds nothing held and gets a pass of its own: a parse
// more, never a wrong answer). A product is given only for the file's content hash it was made
// from. An index that runs ahead (nothing held for it while the held bytes are over half the
// budget) waits while the others take theirs, so that concurrent builds keep pace instead of
// dropping what they made; it goes on once none of them has taken anything for `leadWaitMs` (an
// index that is not building, or is stuck). Bytes from a buffer (an editor's text) are never held:
// they go straight to a pass of their own.
import os from 'node:os';
import { log } from '../base/logger.js';
import { jobWorkerYoungGenerationMb, WorkerPool } from '../base/worker-pool.js';
import { grammarStoreId, TreeStore, treeKeyOfHash } from '../index/syntax/tree-store.js';
import type { LanguageSpec } from '../index/syntax/languages.js';
import type { FileTerms } from '../index/ranking/chunk-terms-worker.js';
import type { EmbeddedChunks } from '../index/semantic/embedded-chunks.js';
import type { FileChunks } from '../index/syntax/chunk.js';
import type { FileTags } from '../index/syntax/tags.js';
import type { PassCounts, PassProducts, PassWants, SyntaxPassJob, SyntaxPassReply, SyntaxPassWorkerData } from './syntax-pass-worker.js';

export class SyntaxPassError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'SyntaxPassError';
  }
}

/** What a workspace's passes cost on the workers (status; benchmarks: syntax CPU against one bare parse of every file). */
export interface PassTotals {
  jobs: number;
  parses: number;
  parseMs: number;
  workerMs: number;
  bytes: number;
}

/** The workers, shared by every workspace's engine. */
export class SyntaxPassPool {
  private readonly pool: WorkerPool<SyntaxPassJob, SyntaxPassReply>;
  readonly size: number;
  /** Told the bytes each tree the workers store takes (the tree store is trimmed by them). */
  private readonly onStored: ((bytes: number) => void) | undefined;
  /** The store the workers write to, for `hasTree` (a stat on this thread). */
  private readonly treeStore: TreeStore | undefined;

  constructor(options: { size?: number; treeStoreFolder?: string; onStored?: (bytes: number) => void } = {}) {
    this.size = options.size ?? Math.max(1, Math.min(os.availableParallelism(), 4));
    const workerData: SyntaxPassWorkerData = options.treeStoreFolder === undefined ? {} : { treeStoreFolder: options.treeStoreFolder };
    // Two jobs in flight a worker: the next file waits in its queue, not for this thread.
    this.pool = new WorkerPool(new URL('./syntax-pass-worker.js', import.meta.url), this.size, 'syntax pass', {
      workerData,
      depth: 2,
      youngGenerationMb: jobWorkerYoungGenerationMb,
    });
    this.onStored = options.onStored;
    this.treeStore = options.treeStoreFolder === undefined ? undefined : new TreeStore(options.treeStoreFolder);
  }

  /** Whether the workers write trees to a store. */
  get storing(): boolean {
    return this.onStored !== undefined;
  }

  /** Whether the store holds the tree of a file with this content hash under this grammar (a stat, no read). */
  hasTree(spec: LanguageSpec, contentHash: string): boolean {
    return this.treeStore !== undefined && this.treeStore.has(treeKeyOfHash(grammarStoreId(spec), contentHash));
  }

  /**
   * One file's pass; `totals` counts what the worker did. A worker that dies or throws under the
   * job, or traps in it (a WebAssembly trap: its parser's memory may have been spoiled by an
   * earlier file), is replaced and the job run once more elsewhere: a lost worker must not leave a
   * file out of an index that then says it is complete. (Not the worker's own answer that the file
   * cannot be read or parsed; and once only: a file that traps every parser is left out, said.)
   */
  async run(job: Omit<SyntaxPassJob, 'id'>, totals: PassTotals): Promise<PassProducts> {
    const again = (why: string): Promise<SyntaxPassReply> => {
      log.warn(`syntax pass of ${job.path}: ${why}; once more on a fresh worker`);
      return this.pool.run(job);
    };
    let reply = await this.pool.run(job).catch((error: unknown) => again((error as Error).message));
    if ('error' in reply && reply.code === 'trap') reply = await again(`a WebAssembly trap (${reply.error})`);
    if ('error' in reply) throw new SyntaxPassError(reply.error, reply.code);
    count(totals, reply.counts);
    if (reply.products.tree?.stored) this.onStored?.(reply.products.tree.stored);
    return reply.products;
  }

  close(): void {
    this.pool.close();
  }
}

export type PassProduct = keyof PassWants;

/** A file to read: from disk (`absolutePath`), or a buffer's `bytes` (never held for others). */
export interface PassRequest {
  path: string;
  absolutePath?: string;
  bytes?: Uint8Array;
}

/** An index that takes one product of the pass. */
interface Consumer {
  /** Whether the index will ask for this file soon (its build's or its flush's list holds it). */
  awaits(file: string): boolean;
  /** What it asks for (the same every time: a product held for it must be what it would ask). */
  want: NonNullable<PassWants[PassProduct]>;
}

interface Held {
  hash: string;
  products: PassProducts;
  /** Each product's estimated bytes (what `heldBytes` counts for it). */
  sizes: Partial<Record<PassProduct, number>>;
  at: number;
}

export interface SyntaxPassOptions {
  holdBytes?: number;
  holdMs?: number;
  leadWaitMs?: number;
}

/** One workspace's side of the pass: its indexes, what is held for them, the jobs under way. */
export class SyntaxPass {
  private readonly consumers = new Map<PassProduct, Consumer>();
  private readonly held = new Map<string, Held>();
  private heldBytes = 0;
  /** Held products by kind (whether anything waits for an index). */
  private readonly heldCounts: Record<PassProduct, number> = { tags: 0, terms: 0, chunks: 0, tree: 0 };
  /** Jobs under way by file: what they make and for which content. */
  private readonly running = new Map<string, { hash: string; wants: PassWants; done: Promise<unknown> }>();
  private drained: { promise: Promise<void>; resolve: () => void } | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private readonly holdBytes: number;
  private readonly holdMs: number;
  private readonly leadWaitMs: number;
  /** Products given from another index's pass, by kind (status, benchmarks). */
  readonly shared: Record<PassProduct, number> = { tags: 0, terms: 0, chunks: 0, tree: 0 };
  /** Products made for an index and dropped before it took them (held too long, over the budget, or made from older content), by kind: each costs a pass more. */
  readonly dropped: Record<PassProduct, number> = { tags: 0, terms: 0, chunks: 0, tree: 0 };
  /** Products taken so far (a leader that waits goes on once no one took one for `leadWaitMs`). */
  private claims = 0;
  /** Files an index is asking for a product of and has not run its own pass for yet: file → those products. */
  private readonly taking = new Map<string, Set<PassProduct>>();
  /** What this workspace's passes cost on the workers. */
  readonly totals: PassTotals = { jobs: 0, parses: 0, parseMs: 0, workerMs: 0, bytes: 0 };

  constructor(
    private readonly pool: SyntaxPassPool,
    /** The file set's content hash of a file now (undefined: not in it). */
    private readonly hashOf: (file: string) => string | undefined,
    options: SyntaxPassOptions = {},
  ) {
    this.holdBytes = options.holdBytes ?? 64 * 2 ** 20;
    this.holdMs = options.holdMs ?? 30_000;
    this.leadWaitMs = options.leadWaitMs ?? 1_000;
  }

  /** Declares the index that takes `product`: later passes make it too when it `awaits` the file. */
  register(product: PassProduct, consumer: Consumer): void {
    this.consumers.set(product, consumer);
  }

  /** The code graph's tags of a file. */
  tags(request: PassRequest & { definitionsOnly?: boolean }): Promise<FileTags> {
    return this.take(request, 'tags', { definitionsOnly: request.definitionsOnly === true }) as Promise<FileTags>;
  }

  /** The chunk ranking's chunks with their terms. */
  terms(request: PassRequest & { budgetBytes?: number }): Promise<FileTerms> {
    return this.take(request, 'terms', { budgetBytes: request.budgetBytes ?? 4000 }) as Promise<FileTerms>;
  }

  /** The semantic index's chunks (embedded, when it asks with a static model). */
  chunk(request: PassRequest & { options?: PassWants['chunks'] }): Promise<FileChunks | EmbeddedChunks> {
    return this.take(request, 'chunks', request.options ?? {}) as Promise<FileChunks | EmbeddedChunks>;
  }

  /** The file's flat tree put in the tree store (unless it is there). */
  async storeTree(request: PassRequest): Promise<{ stored: number; parsed: boolean }> {
    const result = (await this.take(request, 'tree', true)) as NonNullable<PassProducts['tree']>;
    if (result.failed) throw new SyntaxPassError(`${request.path}: no tree to store (its parse failed)`, undefined);
    return { stored: result.stored, parsed: result.parsed };
  }

  /** Whether the workers write trees to a store. */
  get storing(): boolean {
    return this.pool.storing;
  }

  /** Whether the store holds the file's tree for its content now (the file set's hash; a stat, no read). */
  hasTree(spec: LanguageSpec, file: string): boolean {
    const hash = this.hashOf(file);
    return hash !== undefined && this.pool.hasTree(spec, hash);
  }

  get size(): number {
    return this.pool.size;
  }

  private async take(request: PassRequest, product: PassProduct, want: NonNullable<PassWants[PassProduct]>): Promise<unknown> {
    if (request.bytes !== undefined || request.absolutePath === undefined) {
      const products = await this.pool.run({ ...request, want: { [product]: want } }, this.totals);
      return products[product];
    }
    // Until this asker runs a pass of its own, a pass another index starts for the file makes this
    // product too: an index takes the file off its own to-do list (`awaits`) before it asks, and
    // two indexes asking for one file in the same turn each ran a pass without the other's product
    // (a sixth more passes than files in a cold build).
    this.markTaking(request.path, product, true);
    try {
      // The other listeners of the change event that brought this file run first: they join this pass.
      await new Promise<void>((resolve) => setImmediate(resolve));
      const hash = this.hashOf(request.path);
      for (let round = 0; ; round++) {
        const mine = hash === undefined ? undefined : this.claim(request.path, hash, product);
        if (mine !== undefined) return mine;
        const under = this.running.get(request.path);
        if (hash !== undefined && under && under.hash === hash && under.wants[product] !== undefined) {
          await under.done.catch(() => undefined);
          const claimed = this.claim(request.path, hash, product);
          if (claimed !== undefined) return claimed;
          // Dropped meanwhile, or that pass failed: a pass of our own.
        } else if (round === 0) {
          // While it waits, another index's pass of the file may make its product: looked for again.
          await this.waitIfAhead(product);
          continue;
        }
        this.markTaking(request.path, product, false);
        return await this.runFor(request, hash, product, want);
      }
    } finally {
      this.markTaking(request.path, product, false);
    }
  }

  /** Whether an index is asking for this file's product and has not run a pass of its own yet (a pass started now makes it too). */
  private isTaking(file: string, product: PassProduct): boolean {
    return this.taking.get(file)?.has(product) === true;
  }

  private markTaking(file: string, product: PassProduct, asking: boolean): void {
    let products = this.taking.get(file);
    if (asking) {
      if (!products) this.taking.set(file, (products = new Set()));
      products.add(product);
    } else if (products?.delete(product) && products.size === 0) this.taking.delete(file);
  }

  /** A pass for `product`, and for every other index waiting for the file; theirs are held. */
  private async runFor(request: PassRequest, hash: string | undefined, product: PassProduct, want: NonNullable<PassWants[PassProduct]>): Promise<unknown> {
    const wants: PassWants = { [product]: want };
    if (hash !== undefined) {
      const held = this.held.get(request.path);
      // A pass still running for this content that makes a product already: not made twice.
      const under = this.running.get(request.path);
      for (const [other, consumer] of this.consumers) {
        if (other === product || (held?.hash === hash && held.products[other] !== undefined)) continue;
        if (under?.hash === hash && under.wants[other] !== undefined) continue;
        if (consumer.awaits(request.path) || this.isTaking(request.path, other)) (wants as Record<PassProduct, unknown>)[other] = consumer.want;
      }
    }
    const job = this.pool.run({ path: request.path, absolutePath: request.absolutePath!, want: wants }, this.totals);
    const others = Object.keys(wants).filter((name) => name !== product) as PassProduct[];
    if (hash !== undefined && others.length > 0) {
      const done = job.then((products) => {
        this.hold(request.path, hash, products, others);
      });
      this.running.set(request.path, { hash, wants, done });
      void done
        .finally(() => {
          if (this.running.get(request.path)?.done === done) this.running.delete(request.path);
        })
        .catch(() => undefined);
    }
    const products = await job;
    return products[product];
  }

  /** Takes a held product for this content, if there is one. */
  private claim(file: string, hash: string, product: PassProduct): unknown {
    const held = this.held.get(file);
    if (!held || held.products[product] === undefined) return undefined;
    if (held.hash !== hash) {
      this.drop(file);
      return undefined;
    }
    const value = held.products[product];
    delete held.products[product];
    this.heldCounts[product] -= 1;
    this.heldBytes -= held.sizes[product] ?? 0;
    delete held.sizes[product];
    this.shared[product] += 1;
    this.claims += 1;
    if (Object.keys(held.products).length === 0) this.drop(file);
    else this.noteDrained();
    return value;
  }

  private hold(file: string, hash: string, products: PassProducts, kinds: PassProduct[]): void {
    const previous = this.held.get(file);
    if (previous && previous.hash !== hash) this.drop(file);
    const entry = this.held.get(file) ?? { hash, products: {}, sizes: {}, at: Date.now() };
    for (const kind of kinds) {
      if (products[kind] === undefined || entry.products[kind] !== undefined) continue;
      (entry.products as Record<PassProduct, unknown>)[kind] = products[kind];
      this.heldCounts[kind] += 1;
      const size = estimateBytes(kind, products);
      entry.sizes[kind] = size;
      this.heldBytes += size;
    }
    if (Object.keys(entry.products).length === 0) return;
    // Re-inserted: the map's order is the order products were held in (the oldest go first).
    this.held.delete(file);
    this.held.set(file, entry);
    this.trim();
    this.sweeper ??= setInterval(() => this.trim(), this.holdMs).unref();
  }

  /** Drops what waited too long, then the oldest while over the budget. */
  private trim(): void {
    const now = Date.now();
    for (const [file, entry] of this.held) {
      if (this.heldBytes <= this.holdBytes && now - entry.at < this.holdMs) break;
      this.drop(file);
    }
    if (this.held.size === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  private drop(file: string): void {
    const entry = this.held.get(file);
    if (!entry) return;
    this.held.delete(file);
    for (const kind of Object.keys(entry.products) as PassProduct[]) {
      this.heldCounts[kind] -= 1;
      this.heldBytes -= entry.sizes[kind] ?? 0;
      this.dropped[kind] += 1;
    }
    this.noteDrained();
  }

  /** Lets an index that waited for the others go on once what is held is down to a quarter of the budget. */
  private noteDrained(): void {
    if (this.heldBytes <= this.holdBytes / 4 && this.drained) {
      this.drained.resolve();
      this.drained = undefined;
    }
  }

  /**
   * An index ahead of the others waits for them: while much is held (over half the budget) and
   * nothing of it for this index, as long as one of them takes something every `leadWaitMs`.
   */
  private async waitIfAhead(product: PassProduct): Promise<void> {
    while (this.ahead(product)) {
      if (!this.drained) {
        let resolve!: () => void;
        const promise = new Promise<void>((done) => (resolve = done));
        this.drained = { promise, resolve };
      }
      const claims = this.claims;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.drained.promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, this.leadWaitMs)))]);
      clearTimeout(timer);
      if (this.claims === claims) return;
    }
  }

  /** Whether much is held (over half the budget) and nothing of it for `product`'s index. */
  private ahead(product: PassProduct): boolean {
    return this.heldBytes > this.holdBytes / 2 && this.heldCounts[product] === 0;
  }

  /** Drops everything held (the engine is disposed). */
  dispose(): void {
    for (const file of [...this.held.keys()]) this.drop(file);
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}

function count(totals: PassTotals, counts: PassCounts): void {
  totals.jobs += 1;
  totals.parses += counts.parses;
  totals.parseMs += counts.parseMs;
  totals.workerMs += counts.elapsedMs;
  totals.bytes += counts.byteLength;
}

/** About what a held product costs in memory (text is UTF-16; terms and tags a fraction of it). */
function estimateBytes(kind: PassProduct, products: PassProducts): number {
  if (kind === 'chunks') {
    const chunks = products.chunks;
    if (!chunks) return 256;
    // Embedded: vectors and places; else the text (UTF-16).
    return 'vectors' in chunks
      ? chunks.vectors.byteLength + chunks.chunks.length * 160 + 256
      : chunks.chunks.reduce((sum, chunk) => sum + chunk.text.length, 0) * 2 + 256;
  }
  if (kind === 'terms') return (products.terms?.chunks.length ?? 0) * 512 + 256;
  if (kind === 'tags') return ((products.tags?.definitions.length ?? 0) + (products.tags?.references.length ?? 0)) * 96 + 256;
  return 64;
}
