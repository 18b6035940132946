// Verifying a chunk of candidates: ranges of the content stores (base and delta files), files on
// disk (changed since), buffer texts. Each file's lines that hold a planned literal (or the run a
// regex demands) are tested with the regex. Runs in the grep workers, and on the daemon's thread
// for small searches of a plain literal (no user regex there: a literal cannot backtrack). Bytes of
// a content store are matched only after their blocks pass their checksums (ContentDamaged). A
// file read from disk that holds a secret now (secret-content.ts: edited since the file set read
// it, and not yet dropped) answers nothing.
import fs from 'node:fs';
import { findSecret } from '../../workspace/secret-content.js';
import { checkRead, ContentDamaged, type ContentCheck } from './content-check.js';
import { attachContext } from './context-lines.js';
import { LineArray, matchBytes, matchBytesInto, matchLines, type CompiledMatcher, type LineMatch, type LineSink, type PlainLiteral } from './matcher.js';
import type { ByteRun } from './regex-plan.js';
import { scanBuffer, scanRegionBytes } from './run-scan.js';
import type { PackedFiles } from './work-list.js';

/** How to match: the compiled matcher's parts, and the lines wanted at most per file. */
export interface MatchSpec {
  source: string;
  flags: string;
  multiline: boolean;
  ignoreCase: boolean;
  lineByLine: boolean;
  literals: string[] | undefined;
  /** Without literals: a run of class bytes every matching line holds. */
  run?: ByteRun;
  /** A plain literal, matched on the bytes without the regex. */
  plain?: PlainLiteral;
  /** Lines kept at most, over the files in order (every matching line is counted). */
  limit: number;
  /** Context lines wanted before and after each match (0: none). */
  beforeContext: number;
  afterContext: number;
  /** The content stores' descriptors (held open by the index while the search runs): the base's, then the delta's. */
  contentFds?: number[];
  /** Their block checksums, in the same order (content-check.ts): bytes are matched only once checked. */
  contentChecks?: ContentCheck[];
}

/** A file to read, or a buffer's text to search instead (files in a content store are ranges of it: see work-list.ts). */
export interface GrepFile {
  readPath: string;
  text?: string;
}

/** Files to verify (ranges of the content stores, in `contentFds` order, or files) and how. */
export interface GrepChunk extends MatchSpec, PackedFiles {
  id: number;
}

/**
 * Ranges closer than this are read together, up to `windowBytes` per read: a positioned read costs
 * about as much as copying 20 KB more (3.3 µs + 0.14 µs per KB, measured from the page cache).
 */
const gapBytes = 16 * 1024;
const windowBytes = scanRegionBytes;

/** One read buffer per content store, reused across chunks. */
const windowBuffers: Buffer[] = [];

/**
 * Reads the content store's ranges of a chunk in few large reads, in the order they are asked for.
 * The bytes handed out are valid until the next `read`.
 */
class ContentWindows {
  private readonly windows: { start: number; end: number }[] = [];
  private current = -1;
  private bytes: Buffer = Buffer.alloc(0);
  /** Where `bytes` start in the store: the window's start, or the start of its first block when that block is still to be checked. */
  private bytesStart = 0;

  constructor(
    private readonly fd: number,
    private readonly store: number,
    chunk: Pick<GrepChunk, 'ranges' | 'rangeIndex' | 'stores'>,
    private readonly check: ContentCheck | undefined,
  ) {
    let window: { start: number; end: number } | undefined;
    const { ranges, rangeIndex, stores } = chunk;
    for (let file = 0; file < stores.length; file++)
      for (let at = rangeIndex[file]!; stores[file] === store && at < rangeIndex[file + 1]!; at += 3) {
        const start = ranges[at]!;
        const end = start + ranges[at + 1]!;
        // Room is left for a block at each end (read with the window the first time, to be checked).
        if (window && start >= window.end && start - window.end <= gapBytes && end - window.start <= windowBytes - 2 * (check?.blockBytes ?? 0))
          window.end = end;
        else {
          window = { start, end };
          this.windows.push(window);
        }
      }
  }

  /** The bytes of [start, start + length): ranges must be asked for in the order given. */
  read(start: number, length: number): Buffer {
    let window = this.windows[this.current];
    while (!window || start < window.start || start + length > window.end) {
      this.current += 1;
      window = this.windows[this.current];
      if (!window) throw new Error(`range ${start}+${length} is not in this chunk`);
      if (start >= window.start && start + length <= window.end) {
        // One buffer per thread, reused: fresh large buffers cost a page fault per 4 KB.
        // A block at either end not checked yet is read whole with the window (one read, not one
        // more per block), so that it can be checked; once checked, only the window is read.
        let from = window.start;
        let to = window.end;
        const check = this.check;
        if (check) {
          const first = Math.floor(from / check.blockBytes);
          const last = Math.floor((to - 1) / check.blockBytes);
          if (check.verified[first] !== 1) from = first * check.blockBytes;
          if (check.verified[last] !== 1) to = Math.min((last + 1) * check.blockBytes, check.contentBytes);
        }
        const size = to - from;
        // In the run scanner's memory (run-scan.ts: runs are found there by SIMD); a window larger
        // than that (files over 8 MB, whole) gets a buffer of its own, this once.
        windowBuffers[this.store] ??= scanBuffer(this.store, windowBytes) ?? Buffer.allocUnsafeSlow(windowBytes);
        this.bytes = size <= windowBuffers[this.store]!.length ? windowBuffers[this.store]!.subarray(0, size) : Buffer.allocUnsafeSlow(size);
        this.bytesStart = from;
        for (let done = 0; done < this.bytes.length;) {
          const read = fs.readSync(this.fd, this.bytes, done, this.bytes.length - done, from + done);
          if (read <= 0) throw new ContentDamaged(this.store, Math.floor((from + done) / (check?.blockBytes ?? 1)), 'the file ends early');
          done += read;
        }
        if (check) checkRead(check, this.fd, this.store, from, this.bytes);
      }
    }
    return this.bytes.subarray(start - this.bytesStart, start - this.bytesStart + length);
  }
}

/** A surrogate code unit that is not half of a pair (u-mode matches pairs as one code point). */
const loneSurrogate = /\p{Surrogate}/u;

function chunkMatcher(spec: MatchSpec): CompiledMatcher {
  return {
    regex: new RegExp(spec.source, spec.flags),
    lineRegex: new RegExp(spec.source, spec.flags.replace('g', '')),
    multiline: spec.multiline,
    ignoreCase: spec.ignoreCase,
    lineByLine: spec.lineByLine,
  };
}

/**
 * Where a chunk's matching lines go, file after file: a file's lines (as bytes, or as objects when
 * they carry context or come from a text that is not well-formed), then `endFile`.
 */
export interface MatchSink extends LineSink {
  /** Lines made as objects: the file's lines all come this way, or none do. */
  addMatches(lines: LineMatch[]): void;
  /** The file's lines are all given: `count` matched in all (at most `limit` kept). */
  endFile(index: number, count: number): void;
}

/** A sink that hands each file's lines, as LineMatch objects, to `found` (files with a match only). */
export class FileLines extends LineArray implements MatchSink {
  constructor(private readonly found: (index: number, matches: LineMatch[], count: number) => void) {
    super();
  }
  addMatches(lines: LineMatch[]): void {
    for (const line of lines) this.lines.push(line);
  }
  endFile(index: number, count: number): void {
    if (count > 0) this.found(index, this.lines.splice(0), count);
  }
}

/**
 * A file's matches with their context lines, the first `keep` of them: `found` holds one more when
 * there is one, so that the last kept match's after-context stops before the next match, as it
 * does for every other match (context-lines.ts), wherever the answer is cut.
 */
/** How many matches to find to keep `keep` with their context (none when none is kept). */
const oneMore = (keep: number): number => (keep > 0 ? keep + 1 : 0);

function withContext(found: LineMatch[], keep: number, chunk: Pick<MatchSpec, 'beforeContext' | 'afterContext'>, text: () => string): LineMatch[] {
  if (keep <= 0 || found.length === 0) return [];
  attachContext(text(), found, chunk.beforeContext, chunk.afterContext);
  return found.length > keep ? found.slice(0, keep) : found;
}

/**
 * Verifies the chunk's files in order: `before(index)` runs before each file; each file's lines
 * go to `sink`, all counted, the first `limit` of the chunk kept (a truncated answer holds the
 * first lines in path order: lines after those cannot be in it). A file removed since planning is
 * skipped.
 */
export function verifyChunk(chunk: Omit<GrepChunk, 'id'>, sink: MatchSink, before?: (index: number) => void): void {
  const matcher = chunkMatcher(chunk);
  const wantsContext = chunk.beforeContext > 0 || chunk.afterContext > 0;
  const windows = (chunk.contentFds ?? []).map((fd, store) => new ContentWindows(fd, store, chunk, chunk.contentChecks?.[store]));
  // Lines the chunk may still keep.
  let left = chunk.limit;
  chunk.files.forEach((file, index) => {
    before?.(index);
    // Every matching line is counted; at most `limit` are kept.
    const limit = left;
    const tally = { count: 0 };
    if (file === null) {
      const ranges = chunk.ranges;
      const end = chunk.rangeIndex[index + 1]!;
      for (let at = chunk.rangeIndex[index]!; at < end; at += 3) {
        const bytes = windows[chunk.stores[index]!]!.read(ranges[at]!, ranges[at + 1]!);
        if (!wantsContext) {
          matchBytesInto(sink, bytes, matcher, chunk.literals, limit, ranges[at + 2]!, chunk.run, tally, chunk.plain);
          continue;
        }
        // Context comes with whole files only (one range from line 1).
        const keep = limit - sink.kept;
        sink.addMatches(
          withContext(matchBytes(bytes, matcher, chunk.literals, oneMore(keep), ranges[at + 2]!, chunk.run, tally, chunk.plain), keep, chunk, () =>
            bytes.toString('utf8'),
          ),
        );
      }
    } else if (file.text !== undefined) {
      if (wantsContext) sink.addMatches(withContext(matchLines(file.text, matcher, oneMore(limit), tally), limit, chunk, () => file.text!));
      else {
        const matches = matchLines(file.text, matcher, limit, tally);
        // A lone surrogate has no UTF-8 bytes: such a text's lines travel as they are.
        if (loneSurrogate.test(file.text)) sink.addMatches(matches);
        else for (const match of matches) sink.addText(match.line, match.column, match.text);
      }
    } else {
      let bytes: Buffer;
      try {
        bytes = fs.readFileSync(file.readPath);
      } catch {
        sink.endFile(index, 0);
        return; // removed between planning and verifying
      }
      if (findSecret(bytes) !== undefined) {
        sink.endFile(index, 0);
        return;
      }
      if (!wantsContext) matchBytesInto(sink, bytes, matcher, chunk.literals, limit, 1, chunk.run, tally, chunk.plain);
      else
        sink.addMatches(
          withContext(matchBytes(bytes, matcher, chunk.literals, oneMore(limit), 1, chunk.run, tally, chunk.plain), limit, chunk, () => bytes.toString('utf8')),
        );
    }
    left -= sink.kept;
    sink.endFile(index, tally.count);
  });
}
