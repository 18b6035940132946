// The keystroke-fresh regex index of one workspace. A base index over a snapshot of the file set —
// trigram postings to line-aligned pieces (pieces.ts), and a content store holding the snapshot's
// bytes (regex-store.ts) — answers which pieces may match, and verification reads only those
// pieces; files changed since the snapshot and open editor buffers are searched directly, masking
// what the base says about them, so a query always sees what is on disk and in the editor now.
// Candidates are verified with the real regex, in the grep pool's threads.
//
// Persisted with the hash of each indexed file: a restart loads the index and searches fresh only
// the files whose hash differs now.
//
// Invariants: base file ids index `layout.files` in path order, which is also content-store order;
// a path in `changed` is never answered from the base (it is read fresh, or is gone); a buffer's
// text wins over the disk for its path.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import picomatch from 'picomatch';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { CancellationSource, neverCancelled, raceCancellation, throwIfCancelled, type CancellationSignal } from '../../base/cancellation.js';
import { FathomError, errorMessage } from '../../base/errors.js';
import { log } from '../../base/logger.js';
import { toAbsolute, toRelative } from '../../base/paths.js';
import { LanguageTable } from '../syntax/languages.js';
import { sharedGrepPool, type GrepPool } from './grep-pool.js';
import type { GrepFile } from './grep-worker.js';
import { compileMatcher, type GrepOptions, type LineMatch } from './matcher.js';
import { forEachPiece, pieceBytes } from './pieces.js';
import { intersect, PostingsCorrupt, union } from './postings.js';
import { loadRegexIndex, RegexIndexWriter, type LoadedRegexIndex } from './regex-store.js';
import { all, describeQuery, indexable, lineLiterals, parseRegex, planLiteral, planRegex, requiredRun, type Query } from './regex-plan.js';
import { literalTrigrams, newTrigramBitmap, rangeTrigrams } from './trigrams.js';

/** What the index needs from a workspace. */
export interface FileSource {
  readonly root: string;
  files(): string[];
  /** The SHA-256 (hex) of a file's content as the file set knows it now. */
  hashOf(relativePath: string): string | undefined;
  onChanges(listener: (changes: { added: string[]; changed: string[]; removed: string[] }) => void): { dispose(): void };
}

/** What the index needs from the editor buffers (absolute paths). */
export interface BufferSource {
  get(path: string): { text: string } | undefined;
  openPaths(): string[];
}

export interface GrepRequest extends GrepOptions {
  /** picomatch globs over workspace-relative paths; a file matching any is searched. */
  globs?: string[];
  /** Stop after this many matching lines (default 10,000). */
  maxResults?: number;
  /** Only files of these languages (ids, names or extensions of grammars/manifest.json, matched by file name and extension). */
  languages?: string[];
  /** Context lines before / after each match (ripgrep's -B / -A; -C sets both). */
  beforeContext?: number;
  afterContext?: number;
}

export interface GrepMatch extends LineMatch {
  path: string;
}

export interface GrepResult {
  matches: GrepMatch[];
  /** Files with at least one match. */
  files: number;
  truncated: boolean;
  /** Files given up because the regex ran past the per-file time limit there (a partial result). */
  timedOut: string[];
  stats: { plan: string; candidates: number; searched: number; fromIndex: boolean; elapsedMs: number };
}

export type LexicalState = 'absent' | 'building' | 'ready';

const sliceMs = 12;

let sharedLanguageTable: LanguageTable | undefined;

/** The language table (grammars/manifest.json), read once per process. */
function languageTable(): LanguageTable {
  sharedLanguageTable ??= new LanguageTable();
  return sharedLanguageTable;
}

/**
 * A path filter from languages (ids, names or extensions: `python`, `C++`, `py`): a file counts
 * when its name or extension maps to one of them
 * (ripgrep's -t, with Fathom's language table: `typescript` is .ts/.mts/.cts, `tsx` apart; `#!`
 * lines are not read). Unknown ids throw invalidParams naming the known ones.
 */
export function languageFilter(names: readonly string[]): (relativePath: string) => boolean {
  const table = languageTable();
  const unknown = names.filter((name) => table.resolve(name) === undefined);
  if (unknown.length > 0) throw new FathomError('invalidParams', `unknown language ${unknown.map((name) => JSON.stringify(name)).join(', ')}; known: ${[...table.languages.keys()].join(', ')}`, { field: 'languages' });
  const wanted = new Set(names.map((name) => table.resolve(name)!.id));
  return (relativePath) => {
    const spec = table.detect(relativePath);
    return spec !== undefined && wanted.has(spec.id);
  };
}

/**
 * A path filter from globs, as ripgrep's -g reads them: a glob without a slash matches the file
 * name in any folder, one with a slash (a leading one anchors it at the root) the whole
 * workspace-relative path; `!glob` excludes; with any positive glob, a file must match one.
 * Globs are checked for size and shape here: a bad one is an invalidParams error.
 */
export function globFilter(globs: readonly string[]): (relativePath: string) => boolean {
  const compile = (list: string[]): ((relativePath: string) => boolean) => {
    const byPath = list.filter((glob) => glob.includes('/')).map((glob) => glob.replace(/^\//, ''));
    const byName = list.filter((glob) => !glob.includes('/'));
    const options = { dot: true, noextglob: true, posix: true };
    const pathMatches = byPath.length > 0 ? picomatch(byPath, options) : () => false;
    const nameMatches = byName.length > 0 ? picomatch(byName, options) : () => false;
    return (relativePath) => pathMatches(relativePath) || nameMatches(relativePath.slice(relativePath.lastIndexOf('/') + 1));
  };
  for (const glob of globs) {
    // picomatch turns '*' into a backtracking regex: many of them in one glob can take exponential
    // time on the daemon's thread.
    if (glob.length > 1_000 || (glob.match(/\*/g)?.length ?? 0) > 8) throw new FathomError('invalidParams', `glob too long or with too many wildcards (at most 8): ${glob.slice(0, 80)}`);
  }
  const positive = globs.filter((glob) => !glob.startsWith('!'));
  const negative = globs.filter((glob) => glob.startsWith('!')).map((glob) => glob.slice(1));
  try {
    const included = positive.length > 0 ? compile(positive) : () => true;
    const excluded = negative.length > 0 ? compile(negative) : () => false;
    return (relativePath) => included(relativePath) && !excluded(relativePath);
  } catch (error) {
    throw new FathomError('invalidParams', `bad glob: ${errorMessage(error)}`);
  }
}

/** A base file to verify from the content store: flat [offset, length, firstLine] triples. */
type Ranges = number[];

/** Pieces closer than this many apart are verified as one range (one read instead of two). */
const mergeGap = 2;

export class LexicalIndex {
  private index: LoadedRegexIndex | undefined;
  /** The file each piece belongs to. */
  private pieceFile = new Uint32Array(0);
  private loadedFromCache = false;
  private changed = new Set<string>();
  /** Changes reported while a build runs: they become `changed` when the build is swapped in. */
  private changedDuringBuild: Set<string> | undefined;
  private building: Promise<void> | undefined;
  /** Cancelled by `dispose`: a build in progress stops. */
  private readonly stopped = new CancellationSource();
  private readonly progressListeners = new Set<(done: number, total: number) => void>();
  private readonly subscription: { dispose(): void };
  /** Without a cache folder: a temporary one, removed by `dispose`. */
  private temporaryFolder: string | undefined;

  constructor(
    private readonly source: FileSource,
    private readonly buffers: BufferSource,
    /** The folder the index and its content store are persisted in (none: a temporary folder). */
    private readonly cacheFolder?: string,
    private readonly pool: GrepPool = sharedGrepPool(),
    /** Target piece size (tests use tiny pieces to cut small files into many). */
    private readonly pieceTarget: number = pieceBytes,
  ) {
    // Changes recorded from the start, so none made during a build is lost.
    this.subscription = source.onChanges((changes) => {
      for (const file of [...changes.added, ...changes.changed, ...changes.removed]) {
        this.changed.add(file);
        this.changedDuringBuild?.add(file);
      }
      if (this.index && !this.building && this.changed.size > Math.max(2_000, this.index.layout.files.length / 10)) this.rebuild().catch(() => undefined);
    });
  }

  get state(): LexicalState {
    return this.index ? 'ready' : this.building ? 'building' : 'absent';
  }

  /** Build progress (files read of all), for `$/progress`. */
  onProgress(listener: (done: number, total: number) => void): { dispose(): void } {
    this.progressListeners.add(listener);
    return { dispose: () => this.progressListeners.delete(listener) };
  }

  /**
   * Size facts for status and benchmarks: `indexBytes` the index file on disk, `contentBytes`
   * the content store, `memoryBytes` what the loaded index holds in memory.
   */
  facts(): { files: number; pieces: number; changed: number; indexBytes: number; contentBytes: number; memoryBytes: number; loadedFromCache: boolean } {
    const index = this.index;
    let indexBytes = 0;
    if (index) indexBytes = fs.statSync(path.join(this.folder(), 'regex-index.bin'), { throwIfNoEntry: false })?.size ?? 0;
    return {
      files: index?.layout.files.length ?? 0,
      pieces: index?.layout.pieceLines.length ?? 0,
      changed: this.changed.size,
      indexBytes,
      contentBytes: index?.contentBytes ?? 0,
      memoryBytes: (index?.memoryBytes ?? 0) + this.pieceFile.byteLength,
      loadedFromCache: this.loadedFromCache,
    };
  }

  private folder(): string {
    if (this.cacheFolder) return this.cacheFolder;
    this.temporaryFolder ??= fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-regex-'));
    return this.temporaryFolder;
  }

  /**
   * Makes the base index ready: from the cache when it is valid (files whose content hash differs
   * now are then searched fresh), else by a build. Concurrent callers share one build.
   */
  ensureBuilt(signal: CancellationSignal = neverCancelled): Promise<void> {
    if (this.index) return Promise.resolve();
    if (this.cacheFolder && !this.building && this.loadCache()) return Promise.resolve();
    // The build is shared: one caller giving up stops waiting, not the build others wait for.
    return raceCancellation(this.rebuild(), signal);
  }

  private loadCache(): boolean {
    const loaded = loadRegexIndex(this.cacheFolder!);
    if (loaded.status === 'corrupt') log.warn(`${this.source.root}: regex index in ${this.cacheFolder} is corrupt (${loaded.reason}); rebuilding`);
    if (loaded.status !== 'valid') return false;
    if (loaded.index.layout.root !== this.source.root) {
      loaded.index.close();
      return false;
    }
    const { files, hashes } = loaded.index.layout;
    const indexed = new Set(files);
    // What changed since the index was written: a different hash now, or not indexed at all.
    files.forEach((file, index) => {
      if (this.source.hashOf(file) !== hashes[index]) this.changed.add(file);
    });
    for (const file of this.source.files()) if (!indexed.has(file)) this.changed.add(file);
    this.install(loaded.index);
    this.loadedFromCache = true;
    return true;
  }

  /** Makes `index` the base (closing the one it replaces). */
  private install(index: LoadedRegexIndex): void {
    const { fileFirstPiece, files } = index.layout;
    const pieceFile = new Uint32Array(index.layout.pieceLines.length);
    for (let file = 0; file < files.length; file++) pieceFile.fill(file, fileFirstPiece[file]!, fileFirstPiece[file + 1]!);
    const old = this.index;
    this.index = index;
    this.pieceFile = pieceFile;
    old?.close();
  }

  private rebuild(): Promise<void> {
    if (!this.building) {
      this.building = this.build(this.stopped).finally(() => {
        this.building = undefined;
      });
    }
    return this.building;
  }

  private async build(signal: CancellationSignal): Promise<void> {
    // Until the new index is swapped in, the old one (and what changed since it) answers.
    const during = new Set<string>();
    this.changedDuringBuild = during;
    const files = [...this.source.files()].sort();
    const folder = this.folder();
    // The single-file cache of earlier versions.
    if (this.cacheFolder) fs.rmSync(path.join(folder, 'lexical.bin'), { force: true });
    const writer = RegexIndexWriter.open(folder);
    const hashes: string[] = [];
    const fileOffsets = new Float64Array(files.length + 1);
    const fileFirstPiece = new Uint32Array(files.length + 1);
    let pieceStarts = new Float64Array(1024);
    let pieceLines = new Uint32Array(1024);
    let pieces = 0;
    const seen = newTrigramBitmap();
    let keys = new Uint32Array(64 * 1024);
    let sliceStart = performance.now();
    let installed: LoadedRegexIndex;
    try {
      for (let id = 0; id < files.length; id++) {
        if (performance.now() - sliceStart > sliceMs) {
          for (const listener of this.progressListeners) listener(id, files.length);
          await yieldToEventLoop();
          throwIfCancelled(signal);
          sliceStart = performance.now();
        }
        fileFirstPiece[id] = pieces;
        let bytes: Buffer;
        try {
          bytes = fs.readFileSync(toAbsolute(this.source.root, files[id]!));
        } catch {
          // Gone or unreadable since the file set listed it: search it fresh.
          during.add(files[id]!);
          hashes.push('');
          fileOffsets[id] = writer.contentSize;
          continue;
        }
        hashes.push(createHash('sha256').update(bytes).digest('hex'));
        const base = writer.appendContent(bytes);
        fileOffsets[id] = base;
        forEachPiece(bytes, (start, end, line) => {
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
        }, this.pieceTarget);
      }
      fileOffsets[files.length] = writer.contentSize;
      fileFirstPiece[files.length] = pieces;
      pieceStarts[pieces] = writer.contentSize;
      installed = await writer.commit({ root: this.source.root, files, hashes, fileOffsets, fileFirstPiece, pieceStarts: pieceStarts.slice(0, pieces + 1), pieceLines: pieceLines.slice(0, pieces) });
    } catch (error) {
      writer.abort();
      throw error;
    } finally {
      this.changedDuringBuild = undefined;
    }
    this.changed = during;
    this.install(installed);
    this.loadedFromCache = false;
  }

  /** Drops a base whose files failed a check; the next query rebuilds it. */
  private discardCorrupt(reason: string): void {
    log.warn(`${this.source.root}: regex index is damaged (${reason}); rebuilding`);
    this.index?.close();
    this.index = undefined;
    this.pieceFile = new Uint32Array(0);
    fs.rmSync(path.join(this.folder(), 'regex-index.bin'), { force: true });
  }

  /**
   * The sorted ids (pieces, or files at file level) that may hold a match of `query`; undefined
   * when the query has no usable literal (everything may).
   */
  private candidates(query: Query, level: 'piece' | 'file'): Uint32Array | undefined {
    const postings = this.index!.postings;
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
    const total = level === 'file' ? this.index!.layout.files.length : pieceFile.length;
    // The smallest list a literal's trigrams have: how selective the literal is likely to be.
    const rarity = (node: Query): number => (node.op === 'literal' && indexable(node.text) ? Math.min(...literalTrigrams(node.text).map((key) => postings.count(key))) : Infinity);
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
      let result = within;
      let used = 0;
      for (const key of keys) {
        const count = postings.count(key);
        if (result && count > 250 * result.length * (1 - count / total)) break;
        const ids = level === 'file' ? toFiles(postings.list(key)) : postings.list(key);
        const before = result?.length;
        result = result ? intersect(result, ids) : ids;
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

  /** Candidates, dropping a base that fails its checks (and building it again) on the way. */
  private async checkedCandidates(query: Query, level: 'piece' | 'file', signal: CancellationSignal): Promise<Uint32Array | undefined> {
    for (;;) {
      await this.ensureBuilt(signal);
      try {
        return this.candidates(query, level);
      } catch (error) {
        if (!(error instanceof PostingsCorrupt) && !/posting list|file ends/.test(errorMessage(error))) throw error;
        this.discardCorrupt(errorMessage(error));
      }
    }
  }

  /** Open buffers of the workspace, by relative path. */
  private bufferPaths(): Map<string, string> {
    const out = new Map<string, string>();
    for (const absolute of this.buffers.openPaths()) {
      const relative = toRelative(this.source.root, absolute);
      if (relative !== undefined && relative !== '') out.set(relative, absolute);
    }
    return out;
  }

  /** Changed paths and buffers that are in the file set now (a deleted file never is, nor a buffer of a secret, ignored or binary file). */
  private freshPaths(bufferPaths: Map<string, string>): Set<string> {
    return new Set([...this.changed, ...bufferPaths.keys()]);
  }

  /**
   * The files that may hold a match of `query` now, in path order: base candidates whose content
   * is unchanged since the index was built, plus changed files and open buffers that are in the
   * file set (a buffer's text is given; a deleted file never appears). `fromIndex` is false when
   * the query had no usable literal (every file is a candidate).
   */
  async candidateFiles(query: Query, accepts: (relativePath: string) => boolean, signal: CancellationSignal = neverCancelled): Promise<{ files: { path: string; text?: string }[]; fromIndex: boolean }> {
    const ids = await this.checkedCandidates(query, 'file', signal);
    const bufferPaths = this.bufferPaths();
    const fresh = this.freshPaths(bufferPaths);
    const baseFiles = this.index!.layout.files;
    const fromBase: string[] = [];
    if (ids === undefined) {
      for (const file of baseFiles) if (!fresh.has(file)) fromBase.push(file);
    } else {
      for (const id of ids) if (!fresh.has(baseFiles[id]!)) fromBase.push(baseFiles[id]!);
    }
    const paths = [...fromBase, ...[...fresh].filter((file) => this.source.hashOf(file) !== undefined)].filter((file) => accepts(file)).sort();
    const files = paths.map((path) => {
      const text = bufferPaths.has(path) ? this.buffers.get(bufferPaths.get(path)!)?.text : undefined;
      return text === undefined ? { path } : { path, text };
    });
    return { files, fromIndex: ids !== undefined };
  }

  /**
   * What to verify, in path order: base files as ranges of the content store (the candidate
   * pieces, or whole files at file level), changed files from disk, buffers as their text.
   */
  private async workList(query: Query, level: 'piece' | 'file', accepts: (relativePath: string) => boolean, signal: CancellationSignal): Promise<{ items: { path: string; file: GrepFile }[]; fromIndex: boolean; index: LoadedRegexIndex }> {
    const ids = await this.checkedCandidates(query, level, signal);
    const index = this.index!;
    // Held (its files stay open) until the search that asked is done with it.
    index.retain();
    const { files, fileOffsets, pieceStarts, pieceLines } = index.layout;
    const bufferPaths = this.bufferPaths();
    const fresh = this.freshPaths(bufferPaths);
    const base: { path: string; file: GrepFile }[] = [];
    // Whether a base file is searched from the base (cached per file for this query).
    const wanted = new Int8Array(files.length);
    const wants = (file: number): boolean => {
      if (wanted[file] === 0) wanted[file] = !fresh.has(files[file]!) && accepts(files[file]!) ? 1 : -1;
      return wanted[file] === 1;
    };
    const whole = (file: number): void => {
      const length = fileOffsets[file + 1]! - fileOffsets[file]!;
      if (length > 0 && wants(file)) base.push({ path: files[file]!, file: { readPath: '', ranges: [fileOffsets[file]!, length, 1] } });
    };
    if (ids === undefined) for (let file = 0; file < files.length; file++) whole(file);
    else if (level === 'file') for (const file of ids) whole(file);
    else {
      const pieceFile = this.pieceFile;
      let current = -1;
      let ranges: Ranges = [];
      let lastPiece = -2;
      for (const piece of ids) {
        const file = pieceFile[piece]!;
        if (!wants(file)) continue;
        if (file !== current) {
          if (ranges.length > 0) base.push({ path: files[current]!, file: { readPath: '', ranges } });
          current = file;
          ranges = [];
          lastPiece = -2;
        }
        const end = pieceStarts[piece + 1]!;
        if (ranges.length > 0 && piece - lastPiece <= mergeGap) ranges[ranges.length - 2] = end - ranges[ranges.length - 3]!;
        else ranges.push(pieceStarts[piece]!, end - pieceStarts[piece]!, pieceLines[piece]!);
        lastPiece = piece;
      }
      if (ranges.length > 0) base.push({ path: files[current]!, file: { readPath: '', ranges } });
    }
    const freshItems = [...fresh]
      .filter((file) => this.source.hashOf(file) !== undefined && accepts(file))
      .sort()
      .map((file) => {
        const text = bufferPaths.has(file) ? this.buffers.get(bufferPaths.get(file)!)?.text : undefined;
        return { path: file, file: text === undefined ? { readPath: toAbsolute(this.source.root, file) } : { readPath: '', text } };
      });
    // Both lists are in path order: merge them.
    const items: { path: string; file: GrepFile }[] = [];
    let i = 0;
    let j = 0;
    while (i < base.length || j < freshItems.length) {
      if (j >= freshItems.length || (i < base.length && base[i]!.path < freshItems[j]!.path)) items.push(base[i++]!);
      else items.push(freshItems[j++]!);
    }
    return { items, fromIndex: ids !== undefined, index };
  }

  /** Runs a query: plan → candidates from the base → fresh files and buffers → verify. */
  async search(request: GrepRequest, signal: CancellationSignal = neverCancelled): Promise<GrepResult> {
    const started = performance.now();
    const matcher = compileMatcher(request);
    const ignoreCase = request.ignoreCase === true;
    const query = request.fixedStrings ? planLiteral(request.pattern, { ignoreCase }) : planRegex(parseRegex(request.pattern), { ignoreCase });
    // Lines to test: those holding a literal of the plan, or where the literals are too short to
    // narrow much (one byte like '='), those holding a run of class bytes the regex demands.
    const literals = lineLiterals(query);
    let run = request.fixedStrings || matcher.multiline ? undefined : requiredRun(parseRegex(request.pattern), { ignoreCase });
    if (literals && literals.every((text) => Buffer.byteLength(text) >= 3)) run = undefined;
    const limit = request.maxResults ?? 10_000;
    const byGlob = request.globs && request.globs.length > 0 ? globFilter(request.globs) : () => true;
    const byLanguage = request.languages && request.languages.length > 0 ? languageFilter(request.languages) : () => true;
    const accepts = (file: string): boolean => byGlob(file) && byLanguage(file);
    const beforeContext = request.beforeContext ?? 0;
    const afterContext = request.afterContext ?? 0;
    // Pieces answer for matches within a line; a multiline match, or context lines, need whole files.
    const level = matcher.multiline || beforeContext > 0 || afterContext > 0 ? 'file' : 'piece';
    const { items, fromIndex, index } = await this.workList(query, level, accepts, signal);
    const toSearch = items.map((item) => item.path);

    // Verification runs in the grep pool's threads: all cores, and a runaway regex is cut off.
    const found: LineMatch[][] = [];
    let total = 0;
    const { timedOut } = await this.pool
      .run(
      {
        files: items.map((item) => item.file),
        contentFd: index.contentFd,
        source: matcher.regex.source,
        flags: matcher.regex.flags,
        multiline: matcher.multiline,
        ignoreCase: matcher.ignoreCase,
        lineByLine: matcher.lineByLine,
        literals,
        run,
        // One more than wanted per file, so that a single file with too many matches shows as truncated.
        limit: limit + 1,
        beforeContext,
        afterContext,
      },
      // Every candidate is verified, so that a truncated result is the first matches in path order.
      (index, lines) => {
        found[index] = lines;
        total += lines.length;
      },
      signal,
    )
      .finally(() => index.release());
    throwIfCancelled(signal);
    const matches: GrepMatch[] = [];
    let files = 0;
    found.forEach((lines, index) => {
      if (!lines || matches.length >= limit) return;
      files += 1;
      for (const line of lines.slice(0, limit - matches.length)) matches.push({ path: toSearch[index]!, ...line });
    });
    return {
      matches,
      files,
      truncated: total > limit,
      timedOut: timedOut.map((index) => toSearch[index]!),
      stats: { plan: query === all ? '*' : describeQuery(query), candidates: toSearch.length, searched: toSearch.length, fromIndex, elapsedMs: Math.round((performance.now() - started) * 100) / 100 },
    };
  }

  dispose(): void {
    this.stopped.cancel();
    this.subscription.dispose();
    this.index?.close();
    this.index = undefined;
    if (this.temporaryFolder) {
      const folder = this.temporaryFolder;
      this.temporaryFolder = undefined;
      // After a build that is still stopping has let go of its files.
      void (this.building ?? Promise.resolve()).catch(() => undefined).finally(() => fs.rmSync(folder, { recursive: true, force: true }));
    }
  }
}
