// The keystroke-fresh regex index of one workspace. A base index (trigram postings over a snapshot
// of the file set) answers which files may match; files changed since the snapshot and open editor
// buffers are searched directly, masking what the base says about them, so a query always sees
// what is on disk and in the editor now. Candidates are verified with the real regex.
//
// Persisted with the hash of each indexed file: a restart loads the index and searches fresh only
// the files whose hash differs now.
//
// Invariants: base file ids index `baseFiles` (and `baseHashes`); a path in `changed` is never
// answered from the base postings (it is read fresh, or is gone); a buffer's text wins over the
// disk for its path.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import picomatch from 'picomatch';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { CancellationSource, neverCancelled, raceCancellation, throwIfCancelled, type CancellationSignal } from '../../base/cancellation.js';
import { FathomError, errorMessage } from '../../base/errors.js';
import { log } from '../../base/logger.js';
import { toAbsolute, toRelative } from '../../base/paths.js';
import { LanguageTable } from '../syntax/languages.js';
import { sharedGrepPool, type GrepPool } from './grep-pool.js';
import { loadLexical, saveLexical } from './lexical-store.js';
import { compileMatcher, type GrepOptions, type LineMatch } from './matcher.js';
import { intersect, PostingsBuilder, union, type Postings } from './postings.js';
import { all, describeQuery, indexable, lineLiterals, parseRegex, planLiteral, planRegex, type Query } from './regex-plan.js';
import { forEachTrigram, literalTrigrams, newTrigramBitmap } from './trigrams.js';

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

export class LexicalIndex {
  private baseFiles: string[] = [];
  private baseHashes: string[] = [];
  private postings: Postings | undefined;
  private loadedFromCache = false;
  private changed = new Set<string>();
  /** Changes reported while a build runs: they become `changed` when the build is swapped in. */
  private changedDuringBuild: Set<string> | undefined;
  private building: Promise<void> | undefined;
  /** Cancelled by `dispose`: a build in progress stops. */
  private readonly stopped = new CancellationSource();
  private readonly progressListeners = new Set<(done: number, total: number) => void>();
  private readonly subscription: { dispose(): void };

  constructor(
    private readonly source: FileSource,
    private readonly buffers: BufferSource,
    /** Where the index is persisted (none: kept in memory only). */
    private readonly cacheFile?: string,
    private readonly pool: GrepPool = sharedGrepPool(),
  ) {
    // Changes recorded from the start, so none made during a build is lost.
    this.subscription = source.onChanges((changes) => {
      for (const file of [...changes.added, ...changes.changed, ...changes.removed]) {
        this.changed.add(file);
        this.changedDuringBuild?.add(file);
      }
      if (this.postings && !this.building && this.changed.size > Math.max(2_000, this.baseFiles.length / 10)) this.rebuild().catch(() => undefined);
    });
  }

  get state(): LexicalState {
    return this.postings ? 'ready' : this.building ? 'building' : 'absent';
  }

  /** Size facts for status and benchmarks. */
  /** Build progress (files read of all), for `$/progress`. */
  onProgress(listener: (done: number, total: number) => void): { dispose(): void } {
    this.progressListeners.add(listener);
    return { dispose: () => this.progressListeners.delete(listener) };
  }

  facts(): { files: number; changed: number; indexBytes: number; loadedFromCache: boolean } {
    return { files: this.baseFiles.length, changed: this.changed.size, indexBytes: this.postings?.byteSize ?? 0, loadedFromCache: this.loadedFromCache };
  }

  /**
   * Makes the base index ready: from the cache when it is valid (files whose content hash differs
   * now are then searched fresh), else by a build. Concurrent callers share one build.
   */
  ensureBuilt(signal: CancellationSignal = neverCancelled): Promise<void> {
    if (this.postings) return Promise.resolve();
    if (this.cacheFile && !this.building && this.loadCache()) return Promise.resolve();
    // The build is shared: one caller giving up stops waiting, not the build others wait for.
    return raceCancellation(this.rebuild(), signal);
  }

  private loadCache(): boolean {
    const loaded = loadLexical(this.cacheFile!);
    if (loaded.status === 'corrupt') log.warn(`${this.source.root}: regex index cache ${this.cacheFile} is corrupt (${loaded.reason}); rebuilding`);
    if (loaded.status !== 'valid' || loaded.snapshot.root !== this.source.root) return false;
    const { files, hashes, postings } = loaded.snapshot;
    const indexed = new Set(files);
    // What changed since the index was written: a different hash now, or not indexed at all.
    files.forEach((file, index) => {
      if (this.source.hashOf(file) !== hashes[index]) this.changed.add(file);
    });
    for (const file of this.source.files()) if (!indexed.has(file)) this.changed.add(file);
    this.baseFiles = files;
    this.baseHashes = hashes;
    this.postings = postings;
    this.loadedFromCache = true;
    return true;
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
    // Until the new postings are swapped in, the old ones (and what changed since them) answer.
    const during = new Set<string>();
    this.changedDuringBuild = during;
    const files = this.source.files();
    const builder = new PostingsBuilder();
    const hashes: string[] = [];
    const seen = newTrigramBitmap();
    let sliceStart = performance.now();
    try {
      for (let id = 0; id < files.length; id++) {
        if (performance.now() - sliceStart > sliceMs) {
          for (const listener of this.progressListeners) listener(id, files.length);
          await yieldToEventLoop();
          throwIfCancelled(signal);
          sliceStart = performance.now();
        }
        let bytes: Buffer;
        try {
          bytes = fs.readFileSync(toAbsolute(this.source.root, files[id]!));
        } catch {
          // Gone or unreadable since the file set listed it: search it fresh.
          during.add(files[id]!);
          hashes.push('');
          continue;
        }
        hashes.push(createHash('sha256').update(bytes).digest('hex'));
        forEachTrigram(bytes, seen, (key) => builder.add(key, id));
      }
    } finally {
      this.changedDuringBuild = undefined;
    }
    this.changed = during;
    this.baseFiles = files;
    this.baseHashes = hashes;
    this.postings = builder.freeze();
    this.loadedFromCache = false;
    this.save();
  }

  /** Writes the base index to the cache (atomically); a failure is logged, the index stays usable. */
  private save(): void {
    if (!this.cacheFile || !this.postings) return;
    try {
      saveLexical(this.cacheFile, { root: this.source.root, files: this.baseFiles, hashes: this.baseHashes, postings: this.postings });
    } catch (error) {
      log.warn(`${this.source.root}: cannot save the regex index: ${errorMessage(error)}`);
    }
  }

  private candidates(query: Query): Uint32Array | undefined {
    const postings = this.postings!;
    const evaluate = (node: Query): Uint32Array | undefined => {
      switch (node.op) {
        case 'all':
          return undefined;
        case 'literal': {
          if (!indexable(node.text)) return undefined;
          // Rarest lists first: the intersection shrinks fastest and can stop at empty.
          const keys = literalTrigrams(node.text).sort((a, b) => postings.count(a) - postings.count(b));
          let result: Uint32Array | undefined;
          for (const key of keys) {
            result = result ? intersect(result, postings.list(key)) : postings.list(key);
            if (result.length === 0) break;
          }
          return result;
        }
        case 'and': {
          let result: Uint32Array | undefined;
          for (const arg of node.args) {
            const ids = evaluate(arg);
            if (ids === undefined) continue;
            result = result ? intersect(result, ids) : ids;
            if (result.length === 0) break;
          }
          return result;
        }
        case 'or': {
          let result: Uint32Array = new Uint32Array(0);
          for (const arg of node.args) {
            const ids = evaluate(arg);
            if (ids === undefined) return undefined;
            result = union(result, ids);
          }
          return result;
        }
      }
    };
    return evaluate(query);
  }

  /**
   * The files that may hold a match of `query` now, in path order: base candidates whose content
   * is unchanged since the index was built, plus changed files and open buffers that are in the
   * file set (a buffer's text is given; a deleted file never appears). `fromIndex` is false when
   * the query had no usable literal (every file is a candidate).
   */
  async candidateFiles(query: Query, accepts: (relativePath: string) => boolean, signal: CancellationSignal = neverCancelled): Promise<{ files: { path: string; text?: string }[]; fromIndex: boolean }> {
    await this.ensureBuilt(signal);
    // Paths whose current content is not what the base indexed: read fresh (buffers first).
    const bufferPaths = new Map<string, string>();
    for (const absolute of this.buffers.openPaths()) {
      const relative = toRelative(this.source.root, absolute);
      if (relative !== undefined && relative !== '') bufferPaths.set(relative, absolute);
    }
    const fresh = new Set<string>([...this.changed, ...bufferPaths.keys()]);
    const ids = this.candidates(query);
    const fromBase: string[] = [];
    if (ids === undefined) {
      for (const file of this.baseFiles) if (!fresh.has(file)) fromBase.push(file);
    } else {
      for (const id of ids) if (!fresh.has(this.baseFiles[id]!)) fromBase.push(this.baseFiles[id]!);
    }
    // A changed path or a buffer is searched only if it is in the file set now: a deleted file never
    // is, nor a buffer of a secret, ignored or binary file.
    const paths = [...fromBase, ...[...fresh].filter((file) => this.source.hashOf(file) !== undefined)].filter((file) => accepts(file)).sort();
    const files = paths.map((path) => {
      const text = bufferPaths.has(path) ? this.buffers.get(bufferPaths.get(path)!)?.text : undefined;
      return text === undefined ? { path } : { path, text };
    });
    return { files, fromIndex: ids !== undefined };
  }

  /** Runs a query: plan → candidates from the base → fresh files and buffers → verify. */
  async search(request: GrepRequest, signal: CancellationSignal = neverCancelled): Promise<GrepResult> {
    const started = performance.now();
    const matcher = compileMatcher(request);
    const ignoreCase = request.ignoreCase === true;
    const query = request.fixedStrings ? planLiteral(request.pattern, { ignoreCase }) : planRegex(parseRegex(request.pattern), { ignoreCase });
    const literals = lineLiterals(query);
    const limit = request.maxResults ?? 10_000;
    const byGlob = request.globs && request.globs.length > 0 ? globFilter(request.globs) : () => true;
    const byLanguage = request.languages && request.languages.length > 0 ? languageFilter(request.languages) : () => true;
    const accepts = (file: string): boolean => byGlob(file) && byLanguage(file);
    const { files: candidates, fromIndex } = await this.candidateFiles(query, accepts, signal);
    const toSearch = candidates.map((file) => file.path);

    // Verification runs in the grep pool's threads: all cores, and a runaway regex is cut off.
    const found: LineMatch[][] = [];
    let total = 0;
    const { timedOut } = await this.pool.run(
      {
        files: candidates.map((file) => (file.text !== undefined ? { readPath: '', text: file.text } : { readPath: toAbsolute(this.source.root, file.path) })),
        source: matcher.regex.source,
        flags: matcher.regex.flags,
        multiline: matcher.multiline,
        ignoreCase: matcher.ignoreCase,
        lineByLine: matcher.lineByLine,
        literals,
        // One more than wanted per file, so that a single file with too many matches shows as truncated.
        limit: limit + 1,
        beforeContext: request.beforeContext ?? 0,
        afterContext: request.afterContext ?? 0,
      },
      // Every candidate is verified, so that a truncated result is the first matches in path order.
      (index, lines) => {
        found[index] = lines;
        total += lines.length;
      },
      signal,
    );
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
  }
}
