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
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { globFilter, pathsFilter } from '../../base/path-glob.js';
import { CancellationSource, neverCancelled, raceCancellation, throwIfCancelled, type CancellationSignal } from '../../base/cancellation.js';
import { Generation } from './generation.js';
import { FathomError, errorMessage } from '../../base/errors.js';
import { log } from '../../base/logger.js';
import { toAbsolute, toRelative } from '../../base/paths.js';
import { LanguageTable } from '../syntax/languages.js';
import { sharedGrepPool, type GrepPool } from './grep-pool.js';
import { FileLines, verifyChunk, type MatchSpec } from './verify.js';
import { mergeWorkLists, sliceWorkList, WorkListBuilder, type PackedFiles, type WorkList } from './work-list.js';
import type { AST } from '@eslint-community/regexpp';
import { compileMatcher, type GrepOptions, type PlainLiteral } from './matcher.js';
import { GrepLines, linesAfter, type GrepLineRun, type GrepMatch } from './grep-lines.js';
import type { KeptLines } from './match-batch.js';
import { ContentDamaged, forgetVerified } from './content-check.js';
import { pieceBytes } from './pieces.js';
import { PostingsCorrupt } from './postings.js';
import { loadRegexIndex, prefetchRegexIndex, type LoadedRegexIndex, type RegexPrefetch } from './regex-store.js';
import { all, describeQuery, type Query } from './query.js';
import { lineLiterals, parseRegex, planLiteral, planRegex, requiredRun } from './regex-plan.js';

/** What the index needs from a workspace. */
export interface FileSource {
  readonly root: string;
  files(): string[];
  /** How many files `files()` would list. */
  readonly fileCount: number;
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
  /** ripgrep's -g globs over workspace-relative paths (base/path-glob.ts). */
  globs?: string[];
  /** Only files in these (workspace-relative files or folders; '' the root): a file must be in one AND pass the globs. */
  paths?: string[];
  /** Stop after this many matching lines (default 10,000). */
  maxResults?: number;
  /** Only files of these languages (ids, names or extensions of grammars/manifest.json, matched by file name and extension). */
  languages?: string[];
  /** Context lines before / after each match (ripgrep's -B / -A; -C sets both). */
  beforeContext?: number;
  afterContext?: number;
  /** Resume after this line: a previous answer's `next` (files before `path`, and its lines up to `line`, are left out). */
  after?: GrepCursor;
  /**
   * A page: verification stops once `maxResults` lines are kept (the lines after them are not
   * counted); `total` and `files` count this answer's lines, `truncated` says more may follow.
   */
  paged?: boolean;
}

/** Where an answer cut at its limit ended: its last line, and how many lines of that file were given up to it (in this and earlier pages). */
export interface GrepCursor {
  path: string;
  line: number;
  skip: number;
}

export type { GrepMatch } from './grep-lines.js';

export interface GrepResult {
  /** The lines kept, in path order, as the workers sent them (no object per line). */
  lines: GrepLines;
  /** The same lines as objects (`lines.toArray()`: made when first read). */
  readonly matches: GrepMatch[];
  /** Matching lines in all, also past `maxResults`. */
  total: number;
  /** Files with at least one match. */
  files: number;
  truncated: boolean;
  /** When truncated, for a page (`paged`, or `after` given): where the next page starts (`after`). */
  next?: GrepCursor;
  /** Files given up because the regex ran past the per-file time limit there (a partial result). */
  timedOut: string[];
  stats: { plan: string; candidates: number; searched: number; fromIndex: boolean; elapsedMs: number };
}

export type LexicalState = 'absent' | 'building' | 'ready';

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
  if (unknown.length > 0)
    throw new FathomError(
      'invalidParams',
      `unknown language ${unknown.map((name) => JSON.stringify(name)).join(', ')}; known: ${[...table.languages.keys()].join(', ')}`,
      { field: 'languages' },
    );
  const wanted = new Set(names.map((name) => table.resolve(name)!.id));
  return (relativePath) => {
    const spec = table.detect(relativePath);
    return spec !== undefined && wanted.has(spec.id);
  };
}

/** A filter on workspace-relative paths; `key` names it ('' for one that takes every path). */
type PathFilter = ((relativePath: string) => boolean) & { key: string };

/** Pieces closer than this many apart are verified as one range (one read instead of two). */
const mergeGap = 2;

/** A delta is written once this many paths (and a quarter of all changed ones) are unindexed. */
const deltaMinimum = 64;

type Level = 'piece' | 'file';

export class RegexIndex {
  private base: Generation | undefined;
  /** Files changed since the base, as they were when the delta was written. */
  private delta: Generation | undefined;
  private loadedFromCache = false;
  /** Paths whose content may differ from the base's: never answered from the base. */
  private changed = new Set<string>();
  /** Paths whose content may differ from the delta's (a subset of `changed`): searched fresh. */
  private sinceDelta = new Set<string>();
  /** Changes reported while a build or a delta runs: they become `changed` / `sinceDelta` when it is swapped in. */
  private changedDuringBuild: Set<string> | undefined;
  private changedDuringDelta: Set<string> | undefined;
  private building: Promise<void> | undefined;
  private merging: Promise<void> | undefined;
  /** The saved index's meta being read since this index was made (taken by the first `ensureBuilt`). */
  private prefetch: RegexPrefetch | undefined;
  private prefetchLoad: Promise<void> | undefined;
  /** Bumped when a base is installed or dropped: a delta written against an older one is discarded. */
  private epoch = 0;
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
    // The saved index's tables are read from now, off this thread: a restarted daemon's first grep
    // makes this index while the file set is still being checked, and then only compares hashes.
    if (cacheFolder) this.prefetch = prefetchRegexIndex(cacheFolder);
    // Changes recorded from the start, so none made during a build is lost.
    this.subscription = source.onChanges((changes) => {
      for (const file of [...changes.added, ...changes.changed, ...changes.removed]) {
        this.changed.add(file);
        this.sinceDelta.add(file);
        this.changedDuringBuild?.add(file);
        this.changedDuringDelta?.add(file);
      }
      this.foldChanges();
    });
  }

  /**
   * Folds what changed into the index in the background: a delta over the changed files once
   * enough are searched fresh, a new base once a tenth of the workspace has changed.
   */
  private foldChanges(): void {
    if (!this.base || this.building) return;
    if (this.changed.size > Math.max(2_000, this.base.files.length / 10)) {
      this.rebuild().catch(() => undefined);
      return;
    }
    if (!this.merging && this.sinceDelta.size >= Math.max(deltaMinimum, this.changed.size / 4)) {
      this.merging = this.writeDelta()
        .catch((error) => log.warn(`${this.source.root}: cannot write the regex index's delta: ${errorMessage(error)}`))
        .finally(() => {
          this.merging = undefined;
        });
    }
  }

  get state(): LexicalState {
    return this.base ? 'ready' : this.building ? 'building' : 'absent';
  }

  /** Build progress (files read of all), for `$/progress`. */
  onProgress(listener: (done: number, total: number) => void): { dispose(): void } {
    this.progressListeners.add(listener);
    return { dispose: () => this.progressListeners.delete(listener) };
  }

  /**
   * Size facts for status and benchmarks: `indexBytes` the base's index file on disk,
   * `contentBytes` its content store, `memoryBytes` what the loaded generations hold in memory;
   * `deltaFiles` the files the delta covers, `fresh` those searched fresh.
   */
  facts(): {
    files: number;
    pieces: number;
    changed: number;
    deltaFiles: number;
    fresh: number;
    indexBytes: number;
    contentBytes: number;
    memoryBytes: number;
    loadedFromCache: boolean;
  } {
    const base = this.base;
    let indexBytes = 0;
    if (base) indexBytes = fs.statSync(path.join(this.folder(), 'regex-index.bin'), { throwIfNoEntry: false })?.size ?? 0;
    return {
      files: base?.files.length ?? 0,
      pieces: base?.pieceFile.length ?? 0,
      changed: this.changed.size,
      deltaFiles: this.delta?.files.length ?? 0,
      fresh: this.sinceDelta.size,
      indexBytes,
      contentBytes: base?.index.contentBytes ?? 0,
      memoryBytes: (base?.memoryBytes ?? 0) + (this.delta?.memoryBytes ?? 0),
      loadedFromCache: this.loadedFromCache,
    };
  }

  private folder(): string {
    if (this.cacheFolder) return this.cacheFolder;
    this.temporaryFolder ??= fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-regex-'));
    return this.temporaryFolder;
  }

  private deltaFolder(): string {
    return path.join(this.folder(), 'delta');
  }

  /** Resolves when no delta is being written (tests and benchmarks wait for the merge). */
  async settled(): Promise<void> {
    while (this.merging || this.building) await (this.merging ?? this.building)!.catch(() => undefined);
  }

  /**
   * Makes the base index ready: from the cache when it is valid (files whose content hash differs
   * now are then searched fresh), else by a build. Concurrent callers share one build.
   */
  ensureBuilt(signal: CancellationSignal = neverCancelled): Promise<void> {
    if (this.base) return Promise.resolve();
    // The first caller takes the prefetched tables (concurrent ones wait for the same load); what
    // they cannot give is built.
    if (this.prefetch && !this.building)
      return raceCancellation(this.loadPrefetched(), signal).then(() => (this.base ? undefined : raceCancellation(this.rebuild(), signal)));
    if (this.cacheFolder && !this.building && this.loadCache()) return Promise.resolve();
    // The build is shared: one caller giving up stops waiting, not the build others wait for.
    return raceCancellation(this.rebuild(), signal);
  }

  private loadPrefetched(): Promise<void> {
    this.prefetchLoad ??= (async () => {
      const { fd, read } = this.prefetch!;
      const meta = await read;
      this.prefetch = undefined;
      if (this.base || this.building || this.stopped.isCancellationRequested) fs.closeSync(fd);
      else this.loadCache({ fd, read: meta });
    })().finally(() => {
      this.prefetchLoad = undefined;
    });
    return this.prefetchLoad;
  }

  private loadCache(prefetched?: Parameters<typeof loadRegexIndex>[1]): boolean {
    const loaded = loadRegexIndex(this.cacheFolder!, prefetched);
    if (loaded.status === 'corrupt') log.warn(`${this.source.root}: regex index in ${this.cacheFolder} is corrupt (${loaded.reason}); rebuilding`);
    if (loaded.status !== 'valid') return false;
    if (loaded.index.layout.root !== this.source.root) {
      loaded.index.close();
      return false;
    }
    const { files, hashes } = loaded.index.layout;
    // What changed since the index was written: a different hash now, or not indexed at all.
    let same = 0;
    files.forEach((file, index) => {
      if (this.source.hashOf(file) !== hashes[index]) this.changed.add(file);
      else same += 1;
    });
    // Every indexed file still held, and no more held: none is unindexed (a restart with nothing
    // changed lists no file set for it).
    if (same !== files.length || files.length !== this.source.fileCount) {
      const indexed = new Set(files);
      for (const file of this.source.files()) if (!indexed.has(file)) this.changed.add(file);
    }
    this.installBase(new Generation(loaded.index));
    this.sinceDelta = new Set(this.changed);
    // The delta, where it still holds what a changed file is now.
    const delta = loadRegexIndex(this.deltaFolder());
    if (delta.status === 'valid' && delta.index.layout.root === this.source.root) {
      const generation = new Generation(delta.index);
      generation.files.forEach((file, index) => {
        if (this.changed.has(file) && this.source.hashOf(file) === delta.index.layout.hashes[index]) this.sinceDelta.delete(file);
      });
      this.delta = generation;
    } else if (delta.status === 'valid') delta.index.close();
    this.loadedFromCache = true;
    return true;
  }

  /** Makes `generation` the base (closing the one it replaces, and any delta: it was relative to the old one). */
  private installBase(generation: Generation): void {
    const old = this.base;
    this.base = generation;
    this.epoch += 1;
    old?.index.close();
    this.dropDelta();
  }

  private dropDelta(): void {
    this.delta?.index.close();
    this.delta = undefined;
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
    const folder = this.folder();
    // The single-file cache of earlier versions.
    if (this.cacheFolder) fs.rmSync(path.join(folder, 'lexical.bin'), { force: true });
    let generation: Generation;
    try {
      generation = await Generation.write({
        folder,
        root: this.source.root,
        files: this.source.files(),
        pieceTarget: this.pieceTarget,
        read: (file) => fs.readFileSync(toAbsolute(this.source.root, file)),
        vetted: (file, hash) => this.source.hashOf(file) === hash,
        signal,
        onProgress: (done, total) => this.progressListeners.forEach((listener) => listener(done, total)),
        missing: (file) => during.add(file),
      });
    } finally {
      this.changedDuringBuild = undefined;
    }
    // Disposed while the build committed: the index is not installed (its files stay for a restart).
    if (this.stopped.isCancellationRequested) {
      generation.index.close();
      return;
    }
    this.installBase(generation);
    this.changed = during;
    this.sinceDelta = new Set(during);
    this.loadedFromCache = false;
    // The delta belonged to the old base (one being written is dropped when it finishes).
    if (!this.merging) fs.rmSync(this.deltaFolder(), { recursive: true, force: true });
  }

  /** Writes a delta over every changed file that exists now: they are then searched through it. */
  private async writeDelta(): Promise<void> {
    const epoch = this.epoch;
    const during = new Set<string>();
    this.changedDuringDelta = during;
    let generation: Generation;
    try {
      generation = await Generation.write({
        folder: this.deltaFolder(),
        root: this.source.root,
        files: [...this.changed].filter((file) => this.source.hashOf(file) !== undefined),
        pieceTarget: this.pieceTarget,
        read: (file) => fs.readFileSync(toAbsolute(this.source.root, file)),
        vetted: (file, hash) => this.source.hashOf(file) === hash,
        signal: this.stopped,
        missing: (file) => during.add(file),
      });
    } finally {
      this.changedDuringDelta = undefined;
    }
    if (epoch !== this.epoch || !this.base || this.stopped.isCancellationRequested) {
      // Written against a base that is gone (or for a disposed index): not used, not kept.
      generation.index.close();
      if (!this.stopped.isCancellationRequested) fs.rmSync(this.deltaFolder(), { recursive: true, force: true });
      return;
    }
    this.dropDelta();
    this.delta = generation;
    this.sinceDelta = during;
  }

  /** Drops generations whose files failed a check; the next query rebuilds the base. */
  private discardCorrupt(reason: string): void {
    log.warn(`${this.source.root}: regex index is damaged (${reason}); rebuilding`);
    this.base?.index.close();
    this.base = undefined;
    this.epoch += 1;
    this.dropDelta();
    for (const file of this.source.files()) this.changed.add(file);
    fs.rmSync(path.join(this.folder(), 'regex-index.bin'), { force: true });
    fs.rmSync(this.deltaFolder(), { recursive: true, force: true });
  }

  /**
   * Candidates in the base and the delta, dropping generations that fail their checks (and
   * building the base again) on the way.
   */
  private async checkedCandidates(
    query: Query,
    level: Level,
    signal: CancellationSignal,
    hold = false,
  ): Promise<{
    base: Generation;
    delta: Generation | undefined;
    baseIds: Uint32Array | undefined;
    deltaIds: Uint32Array | undefined;
    changed: Set<string>;
    sinceDelta: Set<string>;
  }> {
    for (;;) {
      await this.ensureBuilt(signal);
      throwIfCancelled(this.stopped);
      // Dropped since (a damaged generation found by another query): built again.
      if (!this.base) continue;
      const base = this.base;
      const delta = this.delta;
      try {
        // The change sets that go with these generations (a swap replaces them, never empties them).
        const found = {
          base,
          delta,
          baseIds: base.candidates(query, level),
          deltaIds: delta?.candidates(query, level),
          changed: this.changed,
          sinceDelta: this.sinceDelta,
        };
        // Held in the same turn as they were read: a delta swapped in before the caller resumes
        // would otherwise close the files the caller is about to read.
        if (hold) for (const generation of delta ? [base, delta] : [base]) generation.index.retain();
        return found;
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

  /**
   * Who answers for each path now: the base for paths unchanged since it, the delta for paths
   * changed since the base but not since the delta, the disk or the editor for the rest (`fresh`:
   * changed since the delta, and open buffers; only those in the file set: a deleted file never
   * is, nor a buffer of a secret, ignored or binary file).
   */
  private masks(
    bufferPaths: Map<string, string>,
    changed: Set<string>,
    sinceDelta: Set<string>,
  ): { fromBase: (file: string) => boolean; fromDelta: (file: string) => boolean; fresh: string[] } {
    const fromBase = (file: string): boolean => !changed.has(file) && !bufferPaths.has(file);
    const fromDelta = (file: string): boolean => changed.has(file) && !sinceDelta.has(file) && !bufferPaths.has(file);
    const fresh = [...new Set([...sinceDelta, ...bufferPaths.keys()])].filter((file) => this.source.hashOf(file) !== undefined).sort();
    return { fromBase, fromDelta, fresh };
  }

  /**
   * The files that may hold a match of `query` now, in path order: candidates of the base and the
   * delta for the paths they answer for, plus the fresh paths (a buffer's text is given).
   * `fromIndex` is false when the query had no usable literal (every file is a candidate).
   */
  async candidateFiles(
    query: Query,
    accepts: (relativePath: string) => boolean,
    signal: CancellationSignal = neverCancelled,
  ): Promise<{ files: { path: string; text?: string }[]; fromIndex: boolean }> {
    const { base, delta, baseIds, deltaIds, changed, sinceDelta } = await this.checkedCandidates(query, 'file', signal);
    const bufferPaths = this.bufferPaths();
    const { fromBase, fromDelta, fresh } = this.masks(bufferPaths, changed, sinceDelta);
    const paths: string[] = [];
    const collect = (generation: Generation, ids: Uint32Array | undefined, answers: (file: string) => boolean): void => {
      const files = generation.files;
      if (ids === undefined) {
        for (const file of files) if (answers(file)) paths.push(file);
      } else {
        for (const id of ids) if (answers(files[id]!)) paths.push(files[id]!);
      }
    };
    collect(base, baseIds, fromBase);
    if (delta) collect(delta, deltaIds, fromDelta);
    paths.push(...fresh);
    const files = paths
      .filter((file) => accepts(file))
      .sort()
      .map((file) => {
        const text = bufferPaths.has(file) ? this.buffers.get(bufferPaths.get(file)!)?.text : undefined;
        return text === undefined ? { path: file } : { path: file, text };
      });
    return { files, fromIndex: baseIds !== undefined };
  }

  /**
   * What to verify, in path order: files of the base and the delta as ranges of their content
   * stores (the candidate pieces, or whole files at file level), fresh files from disk, buffers as
   * their text. The generations used are held until `release`.
   */
  private async workList(
    query: Query,
    level: Level,
    accepts: PathFilter,
    signal: CancellationSignal,
  ): Promise<{ work: WorkList; fromIndex: boolean; held: LoadedRegexIndex[]; generations: Generation[]; base: Generation }> {
    // Held (their files stay open) until the search that asked is done with them.
    const { base, delta, baseIds, deltaIds, changed, sinceDelta } = await this.checkedCandidates(query, level, signal, true);
    const generations = delta ? [base, delta] : [base];
    const held = generations.map((generation) => generation.index);
    const bufferPaths = this.bufferPaths();
    const { fromBase, fromDelta, fresh } = this.masks(bufferPaths, changed, sinceDelta);
    const fromDiskPath = (file: string): string => toAbsolute(this.source.root, file);
    const lists = [ranged(base, baseIds, level, 0, fromBase, accepts, fromDiskPath)];
    if (delta) lists.push(ranged(delta, deltaIds, level, 1, fromDelta, accepts, fromDiskPath));
    const fromDisk = new WorkListBuilder();
    for (const file of fresh) {
      if (!accepts(file)) continue;
      const text = bufferPaths.has(file) ? this.buffers.get(bufferPaths.get(file)!)?.text : undefined;
      fromDisk.file(file, text === undefined ? { readPath: toAbsolute(this.source.root, file) } : { readPath: '', text });
    }
    lists.push(fromDisk.build());
    return { work: mergeWorkLists(lists), fromIndex: baseIds !== undefined, held, generations, base };
  }

  /**
   * A content store failed its checksum (content-check.ts): the base is answered from the files
   * on disk until a new one is built (started now, in the background); a damaged delta is dropped
   * (its files are searched fresh).
   */
  private contentDamaged(generation: Generation, reason: string): void {
    if (generation.contentDamaged) return;
    generation.contentDamaged = true;
    log.warn(`${this.source.root}: ${reason}; answering from the files on disk and rebuilding the regex index`);
    if (generation === this.delta) {
      this.dropDelta();
      this.sinceDelta = new Set(this.changed);
      fs.rmSync(this.deltaFolder(), { recursive: true, force: true });
    } else if (generation === this.base) {
      this.rebuild().catch((error: unknown) => log.warn(`${this.source.root}: cannot rebuild the regex index: ${errorMessage(error)}`));
    }
  }

  /** Every block of the content stores is checked again when next read (`fathom index`). */
  recheck(): void {
    for (const generation of [this.base, this.delta]) if (generation) forgetVerified(generation.index.contentCheck);
  }

  /** Runs a query: plan → candidates from the base and the delta → fresh files and buffers → verify. */
  async search(request: GrepRequest, signal: CancellationSignal = neverCancelled): Promise<GrepResult> {
    const started = performance.now();
    const matcher = compileMatcher(request);
    const ignoreCase = request.ignoreCase === true;
    const query = request.fixedStrings ? planLiteral(request.pattern, { ignoreCase }) : planRegex(parseRegex(request.pattern), { ignoreCase });
    const limit = request.maxResults ?? 10_000;
    const byGlob = request.globs && request.globs.length > 0 ? globFilter(request.globs) : () => true;
    const byLanguage = request.languages && request.languages.length > 0 ? languageFilter(request.languages) : () => true;
    const inPaths = pathsFilter(request.paths ?? []);
    const filtered = Boolean(request.globs?.length || request.languages?.length || request.paths?.length);
    const accepts: PathFilter = Object.assign((file: string): boolean => byGlob(file) && byLanguage(file) && inPaths(file), {
      key: filtered ? JSON.stringify([request.globs ?? [], request.languages ?? [], request.paths ?? []]) : '',
    });
    const beforeContext = request.beforeContext ?? 0;
    const afterContext = request.afterContext ?? 0;
    // Pieces answer for matches within a line; a multiline match, or context lines, need whole files.
    const level = matcher.multiline || beforeContext > 0 || afterContext > 0 ? 'file' : 'piece';
    const listed = await this.workList(query, level, accepts, signal);
    const { fromIndex, held, generations, base } = listed;
    // A page after a cursor: the files from the cursor's on (its own lines up to the cursor are dropped below).
    const after = request.after;
    const work = after ? sliceWorkList(listed.work, after.path) : listed.work;
    const toSearch = work.paths;
    const resumed = after !== undefined && toSearch[0] === after.path;
    // Lines to test: those holding a literal of the plan (the rarest by the index, of those every
    // match holds), or where the literals are too short to narrow much (one byte like '='), those
    // holding a run of class bytes the regex demands.
    const literals = lineLiterals(query, (text) => base.literalRarity(text));
    let run = request.fixedStrings || matcher.multiline ? undefined : requiredRun(parseRegex(request.pattern), { ignoreCase });
    if (literals && literals.every((text) => Buffer.byteLength(text) >= 3)) run = undefined;

    const found = new Array<KeptLines>(toSearch.length);
    let total = 0;
    // Every candidate is verified, so that a truncated result is the first matches in path order.
    const onFile = (index: number, lines: KeptLines, count: number): void => {
      found[index] = lines;
      total += count;
    };
    const spec: MatchSpec = {
      contentFds: held.map((index) => index.contentFd),
      contentChecks: held.map((index) => index.contentCheck),
      source: matcher.regex.source,
      flags: matcher.regex.flags,
      multiline: matcher.multiline,
      ignoreCase: matcher.ignoreCase,
      lineByLine: matcher.lineByLine,
      literals,
      run,
      plain: plainNeedle(request),
      // Kept at most, the first in path order (every match is counted); a page after a cursor
      // keeps the lines of its first file up to the cursor too, to drop them.
      limit: resumed ? limit + after.skip : limit,
      beforeContext,
      afterContext,
    };
    let timedOut: number[] = [];
    let stoppedEarly = false;
    let damaged: { store: number; reason: string } | undefined;
    // The work without its paths (a chunk's message carries only its files).
    const packed: PackedFiles = { files: work.files, ranges: work.ranges, rangeIndex: work.rangeIndex, stores: work.stores };
    if (plainLiteral(request) && smallWork(work)) {
      // A few kilobytes of a plain literal (which cannot backtrack): verified here, sparing the
      // round trip to a worker.
      try {
        verifyChunk({ ...spec, ...packed }, new FileLines(onFile));
      } catch (error) {
        if (!(error instanceof ContentDamaged)) throw error;
        damaged = { store: error.store, reason: error.message };
      } finally {
        held.forEach((index) => index.release());
      }
    } else {
      // Verification runs in the grep pool's threads: all cores, and a runaway regex is cut off.
      const verified = await this.pool
        .run({ ...spec, ...packed }, onFile, signal, { stopWhenKept: request.paged === true })
        .finally(() => held.forEach((index) => index.release()));
      timedOut = verified.timedOut;
      stoppedEarly = verified.stoppedEarly;
      if (verified.damaged.length > 0) damaged = { store: verified.damaged[0]!, reason: `the regex content store ${verified.damaged[0]} is damaged` };
    }
    throwIfCancelled(signal);
    if (damaged) {
      // Nothing found in damaged bytes is kept: asked again, the damaged generation answers from the disk.
      this.contentDamaged(generations[damaged.store]!, damaged.reason);
      return this.search(request, signal);
    }
    // The first `limit` lines in path order (a chunk may have kept more: it did not know how many came before it).
    const runs: GrepLineRun[] = [];
    let files = 0;
    let taken = 0;
    for (let index = 0; index < found.length; index++) {
      let lines = found[index];
      if (!lines) continue;
      if (index === 0 && resumed) {
        // The lines up to the cursor were given before: neither taken nor counted again.
        const rest = linesAfter(lines, after.line);
        total -= lines.length - rest.length;
        lines = rest;
        if (lines.length === 0) continue;
      }
      files += 1;
      const take = Math.min(lines.length, limit - taken);
      if (take > 0) runs.push({ path: toSearch[index]!, lines, take });
      taken += take;
    }
    const answer = new GrepLines(runs, taken);
    // A page counts its own lines; an answer that is not a page counts every line after the cursor.
    const truncated = request.paged ? stoppedEarly || total > taken : total > limit;
    if (request.paged) {
      total = taken;
      files = runs.length;
    }
    return {
      lines: answer,
      get matches() {
        return answer.toArray();
      },
      total,
      files,
      truncated,
      // A cursor only for a client that pages (a page, or one after a cursor).
      ...((request.paged || after) && truncated && runs.length > 0 ? { next: cursorAfter(runs.at(-1)!, resumed ? after : undefined) } : {}),
      timedOut: timedOut.map((index) => toSearch[index]!),
      stats: {
        plan: query === all ? '*' : describeQuery(query),
        candidates: toSearch.length,
        searched: toSearch.length,
        fromIndex,
        elapsedMs: Math.round((performance.now() - started) * 100) / 100,
      },
    };
  }

  dispose(): void {
    this.stopped.cancel();
    this.subscription.dispose();
    if (this.prefetch && !this.prefetchLoad) {
      // Never taken: its file is closed once its read is done.
      const { fd, read } = this.prefetch;
      this.prefetch = undefined;
      void read.finally(() => fs.closeSync(fd));
    }
    this.base?.index.close();
    this.base = undefined;
    this.dropDelta();
    if (this.temporaryFolder) {
      const folder = this.temporaryFolder;
      this.temporaryFolder = undefined;
      // After a build that is still stopping has let go of its files.
      void Promise.allSettled([this.building, this.merging]).finally(() => fs.rmSync(folder, { recursive: true, force: true }));
    }
  }
}

/** The cursor after an answer's last run: its last line taken, and the lines of its file given so far. */
function cursorAfter(run: GrepLineRun, after: GrepCursor | undefined): GrepCursor {
  const { lines, take } = run;
  const line = Array.isArray(lines) ? lines[take - 1]!.line : lines.numbers[(lines.first + take - 1) * 2]!;
  return { path: run.path, line, skip: take + (after && after.path === run.path ? after.skip : 0) };
}

/** Bytes of content-store ranges the daemon's thread verifies itself at most (and no file to read). */
const inlineBytes = 256 * 1024;

/** Whether the request matches a plain literal (-F, or a pattern of plain characters) within lines. */
function plainLiteral(request: GrepRequest): boolean {
  if (request.multiline || (request.beforeContext ?? 0) > 0 || (request.afterContext ?? 0) > 0) return false;
  if (request.fixedStrings) return true;
  const pattern = parseRegex(request.pattern);
  return pattern.alternatives.length === 1 && pattern.alternatives[0]!.elements.every((element) => element.type === 'Character');
}

/**
 * The literal a request looks for, when the lines can be found on the bytes alone (matcher.ts
 * `matchPlain`): a plain literal, case-sensitive, not empty, on one line, with no U+FFFD (which
 * the decoded text has where the bytes are not UTF-8) and no lone surrogate.
 */
function plainNeedle(request: GrepRequest): PlainLiteral | undefined {
  if (request.ignoreCase || !plainLiteral(request)) return undefined;
  let text = request.pattern;
  if (!request.fixedStrings) {
    const elements = parseRegex(request.pattern).alternatives[0]!.elements as AST.Character[];
    text = elements.map((element) => String.fromCodePoint(element.value)).join('');
  }
  // A lone surrogate would become U+FFFD's bytes.
  if (text === '' || text.includes('\n') || text.includes('\ufffd') || Buffer.from(text, 'utf8').toString('utf8') !== text) return undefined;
  return { text, word: request.wordRegexp === true };
}

/** Whether the work is only content-store ranges, few bytes of them. */
function smallWork(work: WorkList): boolean {
  let bytes = 0;
  for (let at = 1; at < work.ranges.length && bytes <= inlineBytes; at += 3) bytes += work.ranges[at]!;
  return bytes <= inlineBytes && work.files.every((file) => file === null);
}

/**
 * A generation's candidates as work in path order: whole files (no usable literal, or file level)
 * or runs of candidate pieces merged into ranges of its content store (`store` 0 is the base's, 1
 * the delta's).
 */
function ranged(
  generation: Generation,
  ids: Uint32Array | undefined,
  level: Level,
  store: number,
  answers: (file: string) => boolean,
  accepts: PathFilter,
  diskPath: (file: string) => string,
): WorkList {
  const { files, fileOffsets, pieceStarts, pieceLines } = generation.index.layout;
  const out = new WorkListBuilder();
  if (generation.contentDamaged) {
    // Its content store failed a checksum: the candidate files are read from the disk, whole.
    let last = -1;
    const fromDisk = (file: number): void => {
      if (file === last) return;
      last = file;
      if (answers(files[file]!) && accepts(files[file]!)) out.file(files[file]!, { readPath: diskPath(files[file]!) });
    };
    if (ids === undefined) for (let file = 0; file < files.length; file++) fromDisk(file);
    else if (level === 'file') for (const file of ids) fromDisk(file);
    else for (const piece of ids) fromDisk(generation.pieceFile[piece]!);
    return out.build();
  }
  // Whether this generation answers for a file and the filter takes it (cached per file for this
  // query; the filter's answers for the generation's life).
  const wanted = new Int8Array(files.length);
  const accepted = accepts.key === '' ? undefined : generation.filterAnswers(accepts.key);
  const wants = (file: number): boolean => {
    if (wanted[file] === 0) {
      if (accepted && accepted[file] === 0) accepted[file] = accepts(files[file]!) ? 1 : -1;
      wanted[file] = (accepted ? accepted[file] === 1 : true) && answers(files[file]!) ? 1 : -1;
    }
    return wanted[file] === 1;
  };
  const whole = (file: number): void => {
    const length = fileOffsets[file + 1]! - fileOffsets[file]!;
    if (length <= 0 || !wants(file)) return;
    out.ranged(files[file]!, store);
    out.range(fileOffsets[file]!, length, 1);
  };
  if (ids === undefined) for (let file = 0; file < files.length; file++) whole(file);
  else if (level === 'file') for (const file of ids) whole(file);
  else {
    // The file of each piece by walking the files' first pieces along with the ids (both in
    // order), and the pieces of a file not wanted skipped without a look at their tables: the
    // piece tables are megabytes, and a lookup per candidate missed the cache each time (37,000
    // candidates of `static inline`, 21,000 of them in headers: 2 ms of the daemon's thread).
    const { fileFirstPiece } = generation.index.layout;
    let file = -1;
    let lastPiece = -1;
    for (let at = 0; at < ids.length; at++) {
      const piece = ids[at]!;
      if (file < 0 || piece >= fileFirstPiece[file + 1]!) {
        file += 1;
        while (fileFirstPiece[file + 1]! <= piece) file += 1;
        if (!wants(file)) {
          const next = fileFirstPiece[file + 1]!;
          while (at + 1 < ids.length && ids[at + 1]! < next) at += 1;
          continue;
        }
        out.ranged(files[file]!, store);
        lastPiece = -1;
      }
      const end = pieceStarts[piece + 1]!;
      if (lastPiece >= 0 && piece - lastPiece <= mergeGap) out.extendTo(end);
      else out.range(pieceStarts[piece]!, end - pieceStarts[piece]!, pieceLines[piece]!);
      lastPiece = piece;
    }
  }
  return out.build();
}
