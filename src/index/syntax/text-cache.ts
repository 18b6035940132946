// Decoded files kept between searches on one thread: a file's SourceText (its bytes, its text and
// their offsets) is handed out again while the bytes read from disk are the same, so that what is
// derived from the text alone (region-parse.ts's regions) is kept with it. Decoding a large file is
// mostly page faults on these machines: a string of 128 KB or more is fresh memory each time, and
// lib.dom.d.ts (1.9 MB) took 22–24 ms to decode (9 ms even as Latin-1), more than its region scan.
// Exact: a hit compares the bytes (a memcmp); bounded by an estimate of the memory held, least
// recently used first out.
import { SourceText } from './source-text.js';

export class TextCache {
  private readonly entries = new Map<string, SourceText>();
  private held = 0;

  constructor(
    /** Estimated bytes held at most (the bytes and the text of each file). */
    private readonly maxBytes: number,
    /** Files smaller than this are decoded each time: cheap to decode, and keeping them all costs more in garbage collection than it saves. */
    private readonly minBytes = 0,
  ) {}

  /** The file's text: the one kept for `key` when its bytes equal `bytes`, else decoded (and kept when it fits). */
  text(key: string, bytes: Uint8Array): SourceText {
    if (bytes.byteLength < this.minBytes) return new SourceText(bytes);
    const cached = this.entries.get(key);
    if (cached) {
      this.entries.delete(key);
      if (Buffer.from(cached.bytes.buffer, cached.bytes.byteOffset, cached.bytes.byteLength).equals(bytes)) {
        this.entries.set(key, cached);
        return cached;
      }
      this.held -= cost(cached);
    }
    const source = new SourceText(bytes);
    const size = cost(source);
    // A file larger than a quarter of the cache would push out most of what it holds.
    if (size * 4 > this.maxBytes) return source;
    this.entries.set(key, source);
    this.held += size;
    for (const [oldest, entry] of this.entries) {
      if (this.held <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.held -= cost(entry);
    }
    return source;
  }

  get size(): number {
    return this.entries.size;
  }
}

/** Bytes a kept file holds, about: its bytes and its text (two bytes a code unit past Latin-1, taken as the worst case past ASCII). */
function cost(source: SourceText): number {
  return source.bytes.byteLength + (source.length === source.bytes.byteLength ? source.length : 2 * source.length);
}
