// One generation of the regex index: an index file and its content store (regex-store.ts) loaded
// from a folder, with what a query needs in memory (the piece → file map); how a generation is
// written from a list of files; and how a query becomes candidate pieces or files in it.
// RegexIndex keeps two: the base over a snapshot of the workspace, and a smaller delta over the
// files changed since, rewritten as they accumulate (a merge that touches only changed files).
import { createHash } from 'node:crypto';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { throwIfCancelled, type CancellationSignal } from '../../base/cancellation.js';
import { forEachPiece } from './pieces.js';
import { intersect, union } from './postings.js';
import type { Query } from './query.js';
import { indexable } from './regex-plan.js';
import { RegexIndexWriter, type LoadedRegexIndex } from './regex-store.js';
import { literalTrigrams, newTrigramBitmap, rangeTrigrams } from './trigrams.js';

const sliceMs = 12;
/** Path filters whose answers a generation keeps (a byte per file each). */
const filterMemoLimit = 8;

export class Generation {
  /** The file each piece belongs to. */
  readonly pieceFile: Uint32Array;
  /** File ids by path. */
  private byPath: Map<string, number> | undefined;
  private readonly filterMemos = new Map<string, Int8Array>();
  /** Its content store failed a checksum: candidates are read from the disk (regex-index.ts). */
  contentDamaged = false;

  constructor(readonly index: LoadedRegexIndex) {
    const { fileFirstPiece, files } = index.layout;
    this.pieceFile = new Uint32Array(index.layout.pieceLines.length);
    for (let file = 0; file < files.length; file++) this.pieceFile.fill(file, fileFirstPiece[file]!, fileFirstPiece[file + 1]!);
  }

  get files(): string[] {
    return this.index.layout.files;
  }

  /** The id of a path in this generation, if it holds it. */
  idOf(path: string): number | undefined {
    this.byPath ??= new Map(this.files.map((file, id) => [file, id]));
    return this.byPath.get(path);
  }

  /**
   * Which files a path filter (globs, languages) accepts: 1 yes, -1 no, 0 not asked yet. Kept for
   * the last few filters (named by `key`), so a filter used again is not matched again file by
   * file (picomatch costs about half a microsecond a path: ~10 ms for a common literal's files).
   */
  filterAnswers(key: string): Int8Array {
    let answers = this.filterMemos.get(key);
    if (answers) {
      // Most recently used last.
      this.filterMemos.delete(key);
    } else {
      answers = new Int8Array(this.files.length);
      if (this.filterMemos.size >= filterMemoLimit) this.filterMemos.delete(this.filterMemos.keys().next().value!);
    }
    this.filterMemos.set(key, answers);
    return answers;
  }

  /** Bytes held in memory. */
  get memoryBytes(): number {
    let memos = 0;
    for (const answers of this.filterMemos.values()) memos += answers.byteLength;
    return this.index.memoryBytes + this.pieceFile.byteLength + memos;
  }

  /**
   * Writes a generation of `files` (workspace-relative, any order: they are indexed in path order)
   * into `folder` and loads it. Files that cannot be read are left out and passed to `missing`,
   * and so are files whose bytes' SHA-256 `vetted` refuses: the content store holds only bytes
   * the file set has judged (a file that changed since, perhaps to hold a key, is not kept).
   */
  static async write(options: {
    folder: string;
    root: string;
    files: string[];
    pieceTarget: number;
    read: (path: string) => Buffer;
    vetted: (path: string, hash: string) => boolean;
    signal: CancellationSignal;
    onProgress?: (done: number, total: number) => void;
    missing: (path: string) => void;
  }): Promise<Generation> {
    const files = [...options.files].sort();
    const writer = RegexIndexWriter.open(options.folder);
    const hashes: string[] = [];
    const fileOffsets = new Float64Array(files.length + 1);
    const fileFirstPiece = new Uint32Array(files.length + 1);
    let pieceStarts = new Float64Array(1024);
    let pieceLines = new Uint32Array(1024);
    let pieces = 0;
    const seen = newTrigramBitmap();
    let keys = new Uint32Array(64 * 1024);
    let sliceStart = performance.now();
    try {
      for (let id = 0; id < files.length; id++) {
        if (performance.now() - sliceStart > sliceMs) {
          options.onProgress?.(id, files.length);
          await yieldToEventLoop();
          throwIfCancelled(options.signal);
          sliceStart = performance.now();
        }
        fileFirstPiece[id] = pieces;
        let bytes: Buffer | undefined;
        let hash = '';
        try {
          bytes = options.read(files[id]!);
          hash = createHash('sha256').update(bytes).digest('hex');
        } catch {
          bytes = undefined;
        }
        if (bytes === undefined || !options.vetted(files[id]!, hash)) {
          // Gone, unreadable or changed since it was listed: indexed as empty, searched fresh.
          options.missing(files[id]!);
          hashes.push('');
          fileOffsets[id] = writer.contentSize;
          continue;
        }
        hashes.push(hash);
        const base = writer.appendContent(bytes);
        fileOffsets[id] = base;
        forEachPiece(
          bytes,
          (start, end, line) => {
            if (pieces + 1 >= pieceLines.length) {
              const grownStarts = new Float64Array(pieceLines.length * 2);
              grownStarts.set(pieceStarts);
              pieceStarts = grownStarts;
              const grownLines = new Uint32Array(pieceLines.length * 2);
              grownLines.set(pieceLines);
              pieceLines = grownLines;
            }
            pieceStarts[pieces] = base + start;
            pieceLines[pieces] = line;
            if (keys.length < end - start) keys = new Uint32Array(end - start);
            writer.postings.addPiece(pieces, keys, rangeTrigrams(bytes, start, end, seen, keys));
            pieces += 1;
          },
          options.pieceTarget,
        );
      }
      fileOffsets[files.length] = writer.contentSize;
      fileFirstPiece[files.length] = pieces;
      pieceStarts[pieces] = writer.contentSize;
      const loaded = await writer.commit({
        root: options.root,
        files,
        hashes,
        fileOffsets,
        fileFirstPiece,
        pieceStarts: pieceStarts.slice(0, pieces + 1),
        pieceLines: pieceLines.slice(0, pieces),
      });
      return new Generation(loaded);
    } catch (error) {
      writer.abort();
      throw error;
    }
  }

  /** How rare a literal is here: its rarest trigram's count (Infinity when it has none to look up). */
  literalRarity(text: string): number {
    if (!indexable(text)) return Infinity;
    const postings = this.index.postings;
    return Math.min(...literalTrigrams(text).map((key) => postings.count(key)));
  }

  /**
   * The sorted ids (pieces, or files at file level) that may hold a match of `query`; undefined
   * when the query has no usable literal (everything may).
   */
  candidates(query: Query, level: 'piece' | 'file'): Uint32Array | undefined {
    const postings = this.index.postings;
    const pieceFile = this.pieceFile;
    const toFiles = (pieces: Uint32Array): Uint32Array => {
      const out = new Uint32Array(pieces.length);
      let count = 0;
      for (const piece of pieces) {
        const file = pieceFile[piece]!;
        if (count === 0 || out[count - 1] !== file) out[count++] = file;
      }
      return out.subarray(0, count);
    };
    const total = level === 'file' ? this.index.layout.files.length : pieceFile.length;
    // The smallest list a literal's trigrams have: how selective the literal is likely to be.
    const rarity = (node: Query): number => (node.op === 'literal' ? this.literalRarity(node.text) : Infinity);
    /**
     * A literal's candidates within `within` (all when undefined). Lists go rarest first; a list is
     * read only while it can pay for itself (reading an id costs ~1/250 of verifying a piece for
     * nothing), and reading stops once a list hardly narrows the candidates: the literal's other
     * trigrams are then mostly found together with the ones already read.
     */
    const literal = (text: string, within: Uint32Array | undefined): Uint32Array | undefined => {
      // A match within a line holds no '\n': at piece level such a literal rules a piece out.
      if (level === 'piece' && text.includes('\n')) return new Uint32Array(0);
      const keys = literalTrigrams(text).sort((a, b) => postings.count(a) - postings.count(b));
      if (keys.length === 0) return within;
      let result = within;
      let used = 0;
      for (const key of keys) {
        const count = postings.count(key);
        if (result && count > 250 * result.length * (1 - count / total)) break;
        const before = result?.length;
        if (level === 'file') {
          const ids = toFiles(postings.list(key));
          result = result ? intersect(result, ids) : ids;
        } else result = result ? postings.listWithin(key, result) : postings.list(key);
        used += 1;
        if (result.length === 0) break;
        if (used >= 2 && before !== undefined && result.length > 0.97 * before) break;
      }
      return result;
    };
    const evaluate = (node: Query, within?: Uint32Array): Uint32Array | undefined => {
      switch (node.op) {
        case 'all':
          return within;
        case 'literal':
          return indexable(node.text) ? literal(node.text, within) : within;
        case 'and': {
          // The most selective literal first: the others are then read only where they can help.
          let result = within;
          for (const arg of [...node.args].sort((a, b) => rarity(a) - rarity(b))) {
            result = evaluate(arg, result);
            if (result && result.length === 0) break;
          }
          return result;
        }
        case 'or': {
          let result: Uint32Array = new Uint32Array(0);
          for (const arg of node.args) {
            const ids = evaluate(arg);
            if (ids === undefined) return within;
            result = union(result, ids);
          }
          return within ? intersect(within, result) : result;
        }
      }
    };
    return evaluate(query);
  }
}
