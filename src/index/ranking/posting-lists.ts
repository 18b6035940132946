// The chunk ranking's posting lists in memory: each term's list is a block of a few large pages
// (u32 words: chunk id, packed per-field counts), not a typed array of its own. The kernel's 4M
// lists were 4M typed arrays, each an object and most a buffer outside the heap that the GC
// tracks; here they are 16 MiB pages and four numbers a term.
//
// A block's capacity is a power of two (two words at least: a term of one chunk takes exactly
// its posting); a list that outgrows its block moves to one twice the size, and the old block
// goes to a free list of its size, which the next list of that size takes. Pages start small
// (256 KiB) and double up to 16 MiB, so a small workspace holds little; a block over half a page
// gets a page of its own.
//
// Invariants: a term not in memory (a list still on disk: chunk-ranking.ts reads it on demand)
// has no block (`has` is false); a term's first `length` words are its postings.

const firstPageWords = 1 << 16;
const maxPageWords = 1 << 22;
/** A block's address: page * addressPage + word offset. */
const addressPage = 2 ** 32;

export class PostingLists {
  private pages: Uint32Array[] = [];
  /** The page blocks are cut from (-1: none yet), the words cut from it, the pages cut so far. */
  private current = -1;
  private used = 0;
  private cutPages = 0;
  /**
   * Four words a term, read together: its block's page + 1 (0: no block), offset, capacity; its
   * length. Zero for a term never touched: a restart's millions of terms on disk cost no memory
   * until they are read (the pages of a large zeroed buffer are not resident until written).
   */
  private meta = new Uint32Array(0);
  /** Free blocks by log2 of their capacity, as addresses. */
  private free: number[][] = [];
  private terms = 0;

  /** Terms known: ids below this have a slot (with or without a block). */
  get termCount(): number {
    return this.terms;
  }

  /** Makes ids below `count` known (new ones without a block). */
  ensureTerms(count: number): void {
    if (count <= this.terms) return;
    if (4 * count > this.meta.length) {
      const meta = new Uint32Array(4 * Math.max(count, this.meta.length / 2, 1024));
      meta.set(this.meta.subarray(0, 4 * this.terms));
      this.meta = meta;
    }
    this.terms = count;
  }

  has(term: number): boolean {
    return this.meta[4 * term] !== 0;
  }

  /** An empty list for `term` (a new term: one posting's room). */
  create(term: number): void {
    this.ensureTerms(term + 1);
    this.allocate(term, 2);
    this.meta[4 * term + 3] = 0;
  }

  /** `term`'s list is `words` (a list read from disk, a snapshot's). */
  put(term: number, words: Uint32Array): void {
    this.ensureTerms(term + 1);
    if (this.has(term)) this.release(term);
    this.allocate(term, words.length);
    this.pages[this.meta[4 * term]! - 1]!.set(words, this.meta[4 * term + 1]!);
    this.meta[4 * term + 3] = words.length;
  }

  /** Appends one posting (two words). */
  push(term: number, first: number, second: number): void {
    const meta = this.meta;
    const at = 4 * term;
    const length = meta[at + 3]!;
    if (length + 2 > meta[at + 2]!) this.grow(term, length + 2);
    const page = this.pages[meta[at]! - 1]!;
    const word = meta[at + 1]! + length;
    page[word] = first;
    page[word + 1] = second;
    meta[at + 3] = length + 2;
  }

  /** The page that holds `term`'s list (read with `start` and `length`). */
  page(term: number): Uint32Array {
    return this.pages[this.meta[4 * term]! - 1]!;
  }

  start(term: number): number {
    return this.meta[4 * term + 1]!;
  }

  length(term: number): number {
    return this.meta[4 * term + 3]!;
  }

  /** Keeps the first `length` words (a compaction filtered the list in place). */
  truncate(term: number, length: number): void {
    this.meta[4 * term + 3] = length;
  }

  /** `term`'s postings as a view (valid until the list next grows). */
  view(term: number): Uint32Array {
    const start = this.start(term);
    return this.page(term).subarray(start, start + this.length(term));
  }

  /** Bytes of the pages and the per-term table. */
  bytes(): number {
    return this.pages.reduce((sum, page) => sum + page.byteLength, 0) + this.meta.byteLength;
  }

  private grow(term: number, needed: number): void {
    const at = 4 * term;
    const source = this.pages[this.meta[at]! - 1]!;
    const start = this.meta[at + 1]!;
    const length = this.meta[at + 3]!;
    this.release(term);
    this.allocate(term, needed);
    const target = this.pages[this.meta[at]! - 1]!;
    if (target === source) target.copyWithin(this.meta[at + 1]!, start, start + length);
    else target.set(source.subarray(start, start + length), this.meta[at + 1]!);
  }

  /** Gives `term`'s block back to its free list (its words stay readable until the block is taken again). */
  private release(term: number): void {
    const at = 4 * term;
    (this.free[Math.log2(this.meta[at + 2]!)] ??= []).push((this.meta[at]! - 1) * addressPage + this.meta[at + 1]!);
    this.meta[at] = 0;
  }

  /** A block of at least `words` words for `term`. */
  private allocate(term: number, words: number): void {
    const at = 4 * term;
    const size = Math.max(2, 2 ** Math.ceil(Math.log2(Math.max(words, 1))));
    this.meta[at + 2] = size;
    const address = this.free[Math.log2(size)]?.pop();
    if (address !== undefined) {
      this.meta[at] = Math.floor(address / addressPage) + 1;
      this.meta[at + 1] = address % addressPage;
      return;
    }
    const pageWords = Math.min(maxPageWords, firstPageWords * 2 ** this.cutPages);
    if (size > pageWords / 2) {
      // A page of its own; the page being cut goes on being cut.
      this.meta[at] = this.pages.push(new Uint32Array(size));
      this.meta[at + 1] = 0;
      return;
    }
    if (this.current < 0 || this.used + size > this.pages[this.current]!.length) {
      this.current = this.pages.push(new Uint32Array(pageWords)) - 1;
      this.cutPages++;
      this.used = 0;
    }
    this.meta[at] = this.current + 1;
    this.meta[at + 1] = this.used;
    this.used += size;
  }
}
