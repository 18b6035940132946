// The chunk ranking's terms in memory, interned without a string object per term: a file's
// distinct terms cross from the syntax pass's worker packed (one string, the ends, a hash each:
// `PackedTerms`), and the daemon's thread looks them up in an open-addressing table over one
// character arena (`TermTable`). The kernel's 4M terms were a 4M-entry Map of 4M strings, and
// every file's terms arrived as fresh strings that the Map hashed again: the build's lookups took
// 41-61 s of the daemon's thread, and the GC walked every one of those objects on each full mark.
// Here a lookup is a probe of typed arrays and a comparison of characters; nothing is allocated.
//
// Invariants: a term's hash is `termHash` of its characters, wherever it was made (the worker
// packs with the same function the table probes with); an entry never moves nor changes once
// inserted (entries are numbered in insertion order; only the slots are rebuilt when they grow).

/** FNV-1a over the term's UTF-16 code units, 32 bits. */
export function termHash(text: string, start = 0, end = text.length): number {
  let hash = 0x811c9dc5;
  for (let at = start; at < end; at++) hash = Math.imul(hash ^ text.charCodeAt(at), 0x01000193);
  return hash >>> 0;
}

/** Distinct terms, packed to cross a thread as three objects: term i is `text.slice(ends[i-1] ?? 0, ends[i])`. */
export interface PackedTerms {
  text: string;
  ends: Uint32Array;
  hashes: Uint32Array;
}

export function packTerms(terms: readonly string[]): PackedTerms {
  const ends = new Uint32Array(terms.length);
  const hashes = new Uint32Array(terms.length);
  let end = 0;
  terms.forEach((term, index) => {
    ends[index] = end += term.length;
    hashes[index] = termHash(term);
  });
  return { text: terms.join(''), ends, hashes };
}

/** Characters decoded a piece at a time (String.fromCharCode's arguments are bounded). */
function decode(chars: Uint16Array, start: number, end: number): string {
  if (end - start <= 8192) return String.fromCharCode.apply(null, chars.subarray(start, end) as unknown as number[]);
  let text = '';
  for (let at = start; at < end; at += 8192) text += String.fromCharCode.apply(null, chars.subarray(at, Math.min(end, at + 8192)) as unknown as number[]);
  return text;
}

/**
 * A set of terms, each with a u32 value (the ranking's term id). Entries are numbered from 0 in the
 * order they were inserted.
 */
export class TermTable {
  /**
   * Four words a slot, read together: value + 1 (0: empty), hash, where the term's characters
   * start and end in `chars`; a power of two slots, at most half full. A lookup reads its slot
   * and the characters, nothing else.
   */
  private slots = new Uint32Array(4 * 1024);
  private chars = new Uint16Array(4096);
  private charsUsed = 0;
  /** Where each entry's characters start (they end where the next entry's start, or at `charsUsed`). */
  private starts = new Uint32Array(256);
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The value of the term `text[start, end)` whose hash is `hash`; -1 when absent. */
  find(text: string, start: number, end: number, hash: number): number {
    const slots = this.slots;
    const mask = (slots.length >>> 2) - 1;
    const length = end - start;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const at = 4 * slot;
      const held = slots[at]!;
      if (held === 0) return -1;
      if (slots[at + 1] !== hash) continue;
      const from = slots[at + 2]!;
      if (slots[at + 3]! - from !== length) continue;
      const chars = this.chars;
      let same = 0;
      while (same < length && chars[from + same] === text.charCodeAt(start + same)) same++;
      if (same === length) return held - 1;
    }
  }

  /** Adds the term `text[start, end)` (absent: the caller found it so) with `value` (below 2^32 - 1); answers its entry. */
  insert(text: string, start: number, end: number, hash: number, value: number): number {
    if (8 * (this.count + 1) > this.slots.length) this.rehash(2 * this.slots.length);
    const entry = this.count++;
    if (entry === this.starts.length) {
      const starts = new Uint32Array(this.starts.length * 2);
      starts.set(this.starts);
      this.starts = starts;
    }
    const length = end - start;
    if (this.charsUsed + length > this.chars.length) {
      const chars = new Uint16Array(Math.max(this.chars.length * 2, this.charsUsed + length));
      chars.set(this.chars.subarray(0, this.charsUsed));
      this.chars = chars;
    }
    for (let at = 0; at < length; at++) this.chars[this.charsUsed + at] = text.charCodeAt(start + at);
    this.starts[entry] = this.charsUsed;
    this.charsUsed += length;
    this.place(this.slots, value + 1, hash, this.starts[entry]!, this.charsUsed);
    return entry;
  }

  /** The term of an entry, as a string. */
  name(entry: number): string {
    return decode(this.chars, this.starts[entry]!, entry + 1 < this.count ? this.starts[entry + 1]! : this.charsUsed);
  }

  /** Bytes held (benchmarks, status). */
  bytes(): number {
    return this.slots.byteLength + this.chars.byteLength + this.starts.byteLength;
  }

  private place(slots: Uint32Array, held: number, hash: number, start: number, end: number): void {
    const mask = (slots.length >>> 2) - 1;
    let slot = hash & mask;
    while (slots[4 * slot] !== 0) slot = (slot + 1) & mask;
    const at = 4 * slot;
    slots[at] = held;
    slots[at + 1] = hash;
    slots[at + 2] = start;
    slots[at + 3] = end;
  }

  /** The slots in a table `words` long, every held one placed again. */
  private rehash(words: number): void {
    const old = this.slots;
    const slots = new Uint32Array(words);
    for (let at = 0; at < old.length; at += 4) if (old[at] !== 0) this.place(slots, old[at]!, old[at + 1]!, old[at + 2]!, old[at + 3]!);
    this.slots = slots;
  }
}
