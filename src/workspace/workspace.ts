// One workspace: its file set, kept as a Merkle tree, fresh against the disk. Owns the first build
// (from the cache when it is valid, rehashing only files whose stat changed), the live watcher and
// the incremental updates it drives, the periodic reconciliation that repairs anything missed, and
// persistence of the file set. Later indexes subscribe to `onChanges`. A one-file workspace
// (`onlyFile`) holds one entry of its root folder and nothing else: a file answered on its own.
//
// Invariants: every mutation of the tree runs in `queue`, one at a time, in arrival order; a full
// scan patches the tree in place (files gone first, then every file whose entry changed), and
// updates patch it per path.
import fs from 'node:fs';
import path from 'node:path';
import { CancellationSource, raceCancellation, type CancellationSignal } from '../base/cancellation.js';
import { FathomError, errorMessage } from '../base/errors.js';
import { log } from '../base/logger.js';
import { baseName, isAtOrBelow, parentOf, toAbsolute, toRelative } from '../base/paths.js';
import { fileSetFile } from '../base/places.js';
import { globFilter } from '../base/path-glob.js';
import { loadFileSet, saveFileSet, type FileSetSnapshot } from './file-set-store.js';
import type { HashPool } from './hash-pool.js';
import { IgnoreRules, type FolderMode } from './ignore-rules.js';
import { MerkleTree, type FileEntry, type TreeDiff } from './merkle.js';
import { classifyEntry, inspectCandidate, reusable, scanFolder, skipReasonOf, type Known, type ScanProgress, type ScanResult, type SkipEntry } from './scan.js';
import { secretMatcher, type SecretMatcher } from './secrets.js';
import type { SkipCounts } from './skip-reason.js';
import { TreeWatcher } from './tree-watcher.js';

export interface WorkspaceOptions {
  /** The root, absolute and already resolved (realpath). */
  root: string;
  /** The folder for this workspace's cache files. */
  cacheDir: string;
  maxFileBytes: number;
  /** How often to reconcile against the disk (0: never). */
  reconcileIntervalMs: number;
  pool: HashPool;
  secretPatterns?: readonly string[];
  /** How long after the last change the file set is saved. */
  saveDelayMs?: number;
  /**
   * A one-file workspace (a file answered on its own, outside every folder workspace): the name of
   * the root's one entry that is its file set. Nothing else in the folder is read or listed.
   */
  onlyFile?: string;
  /** Absolute folders that are never part of the file set where they lie below the root (Fathom's cache and settings folders). */
  excludedFolders?: readonly string[];
}

export type WorkspaceState = 'scanning' | 'ready' | 'failed';
export type FileSetChanges = TreeDiff;

export interface ScanSummary {
  kind: 'build' | 'restart' | 'reconcile';
  at: string;
  durationMs: number;
  hashed: number;
  reused: number;
  /** Changes a reconcile found that the watcher had not reported (0 for builds). */
  repaired: number;
}

export interface WorkspaceStatusInfo {
  root: string;
  state: WorkspaceState;
  git: boolean;
  files: number;
  bytes: number;
  skipped: SkipCounts;
  merkleRoot: string | null;
  watcher: { state: 'watching' | 'degraded' | 'off'; folders: number; problem?: string };
  lag: { pendingChanges: number; oldestPendingMs: number; lastChangeAppliedAt: string | null };
  lastScan: ScanSummary | null;
  cache: { path: string; loaded: 'none' | 'valid' | 'rebuilt' };
  /** A one-file workspace: its one file (root-relative). */
  file?: string;
  error?: string;
}

export interface MerkleView {
  path: string;
  kind: 'dir' | 'file' | 'absent';
  hash: string | null;
  children?: { name: string; kind: 'dir' | 'file'; hash: string }[];
}

export interface ProgressReport {
  message: string;
  percentage?: number;
}

type Listener<T> = (value: T) => void;

export class Workspace {
  readonly root: string;
  /** This workspace's cache folder: the file set's cache and every index's live here. */
  readonly cacheDir: string;
  readonly cacheFile: string;
  /** A one-file workspace's one file (root-relative); undefined for a folder workspace. */
  readonly onlyFile: string | undefined;
  private readonly options: WorkspaceOptions;
  private readonly isSecretName: SecretMatcher;
  private rules: IgnoreRules | undefined;
  private tree = new MerkleTree();
  private skipped = new Map<string, SkipEntry>();
  private ignoredEntries = 0;
  private nested = new Set<string>();
  private readonly watcher: TreeWatcher;
  private watcherProblem: string | undefined;
  private stateValue: WorkspaceState = 'scanning';
  private error: string | undefined;
  private readonly built: Promise<void>;
  private readonly buildCancel = new CancellationSource();
  private queue: Promise<void> = Promise.resolve();
  private readonly pendingPaths = new Set<string>();
  private pendingSince = 0;
  private flushScheduled = false;
  private lastChangeAppliedAt: number | null = null;
  private lastScan: ScanSummary | null = null;
  private cacheLoaded: 'none' | 'valid' | 'rebuilt' = 'none';
  private dirty = false;
  private saveTimer: NodeJS.Timeout | undefined;
  private reconcileTimer: NodeJS.Timeout | undefined;
  private gitTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private waiters = 0;
  private readonly changeListeners = new Set<Listener<FileSetChanges>>();
  private readonly progressListeners = new Set<Listener<ProgressReport>>();

  constructor(options: WorkspaceOptions) {
    this.options = options;
    this.root = options.root;
    this.cacheDir = options.cacheDir;
    this.onlyFile = options.onlyFile;
    this.cacheFile = fileSetFile(options.cacheDir);
    this.isSecretName = secretMatcher(options.secretPatterns);
    this.watcher = new TreeWatcher(this.root, {
      onPath: (relativePath) => this.onWatchedPath(relativePath),
      onProblem: (message) => {
        this.watcherProblem = message;
        log.warn(`${this.root}: ${message}`);
      },
    });
    this.built = this.enqueue(() => this.build());
    // The build's failure is recorded in `state`; waiters see it through `whenReady`.
    this.built.catch(() => undefined);
  }

  get state(): WorkspaceState {
    return this.stateValue;
  }

  /** Resolves once the first build is done; rejects if it failed or `signal` is cancelled. */
  async whenReady(signal?: CancellationSignal): Promise<void> {
    if (this.stateValue === 'ready') return;
    this.waiters += 1;
    try {
      await raceCancellation(this.built, signal);
    } finally {
      this.waiters -= 1;
    }
    if (this.stateValue === 'failed') throw new FathomError('io', `indexing ${this.root} failed: ${this.error}`);
  }

  /** Waiters still interested in the first build (the daemon cancels it when the last one leaves). */
  get waiterCount(): number {
    return this.waiters;
  }

  cancelBuild(): void {
    this.buildCancel.cancel();
  }

  onChanges(listener: Listener<FileSetChanges>): { dispose(): void } {
    this.changeListeners.add(listener);
    return { dispose: () => this.changeListeners.delete(listener) };
  }

  onProgress(listener: Listener<ProgressReport>): { dispose(): void } {
    this.progressListeners.add(listener);
    return { dispose: () => this.progressListeners.delete(listener) };
  }

  /** Waits until every change reported so far has been applied (for tests and `fathom/index` refreshes). */
  async settle(): Promise<void> {
    while (this.pendingPaths.size > 0 || this.flushScheduled) {
      await new Promise((resolve) => setImmediate(resolve));
      await this.queue;
    }
    await this.queue;
  }

  /** Runs a full reconciliation now (what the periodic timer does) and returns what it repaired. */
  reconcile(): Promise<FileSetChanges> {
    return this.enqueue(() => this.fullScan('reconcile', this.buildCancel));
  }

  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work);
    this.queue = next.then(
      () => undefined,
      (error) => {
        if (!(error instanceof FathomError && error.kind === 'cancelled')) log.error(`${this.root}: ${errorMessage(error)}`);
      },
    );
    return next;
  }

  private async build(): Promise<void> {
    try {
      const started = performance.now();
      // git answers in a subprocess while this thread loads the cache.
      const rules = this.loadRules();
      rules.catch(() => undefined);
      const loaded = loadFileSet(this.cacheFile);
      if (loaded.status === 'valid' && loaded.snapshot.root === this.root) {
        this.restore(loaded.snapshot);
        this.cacheLoaded = 'valid';
        log.debug(`${this.root}: cache of ${loaded.snapshot.files.length} files loaded in ${Math.round(performance.now() - started)} ms`);
      } else if (loaded.status === 'corrupt') {
        log.warn(`${this.root}: cache ${this.cacheFile} is corrupt (${loaded.reason}); rebuilding`);
        this.cacheLoaded = 'rebuilt';
      }
      this.rules = await rules;
      this.watchRepositoryState();
      // Without a cache every file is read, and with a large one most are stat'ed on the workers:
      // start the hash workers while the walk begins.
      if (this.cacheLoaded !== 'valid' || this.tree.fileCount > 2_048) this.options.pool.warm();
      await this.fullScan(this.cacheLoaded === 'valid' ? 'restart' : 'build', this.buildCancel);
      this.stateValue = 'ready';
      this.startReconcileTimer();
    } catch (error) {
      if (error instanceof FathomError && error.kind === 'cancelled') {
        this.error = 'cancelled';
      } else {
        this.error = errorMessage(error);
      }
      this.stateValue = 'failed';
      this.watcher.close();
      throw error;
    }
  }

  /** The ignore rules, with the folders that never belong to a file set and (one-file) the one file. */
  private loadRules(): Promise<IgnoreRules> {
    const alwaysIgnored = (this.options.excludedFolders ?? []).flatMap((folder) => {
      const relative = toRelative(this.root, folder);
      return relative === undefined || relative === '' ? [] : [relative];
    });
    return IgnoreRules.load(this.root, { alwaysIgnored, ...(this.onlyFile === undefined ? {} : { onlyFile: this.onlyFile }) });
  }

  private restore(snapshot: FileSetSnapshot): void {
    this.tree = MerkleTree.fromEntries(
      (function* () {
        for (const [file, size, mtimeMs, ino, hash] of snapshot.files) yield [file, { size, mtimeMs, ino, hash }] as [string, FileEntry];
      })(),
    );
    this.skipped = new Map(snapshot.skipped.map(([file, reason, size, mtimeMs, ino]) => [file, { reason, size, mtimeMs, ino }]));
    this.ignoredEntries = snapshot.ignoredEntries;
  }

  private known = (relativePath: string): Known | undefined => {
    const entry = this.tree.get(relativePath);
    if (entry) return { kind: 'file', entry };
    const skip = this.skipped.get(relativePath);
    return skip ? { kind: 'skip', entry: skip } : undefined;
  };

  /** A lookup by inode over the current tree, built on first use by one scan. */
  private inodeLookup(): (ino: number) => Known | undefined {
    let byInode: Map<number, Known> | undefined;
    return (ino) => {
      if (!byInode) {
        byInode = new Map();
        for (const [, entry] of this.tree.filesUnder('')) byInode.set(entry.ino, { kind: 'file', entry });
      }
      return byInode.get(ino);
    };
  }

  private scan(folder: string, signal: CancellationSignal, report: boolean, folderMode: FolderMode = 'included'): Promise<ScanResult> {
    return scanFolder({
      folderMode,
      root: this.root,
      rules: this.rules!,
      maxFileBytes: this.options.maxFileBytes,
      isSecret: this.isSecretName,
      folder,
      known: this.known,
      knownFile: (relativePath) => this.tree.get(relativePath),
      // With nothing known yet (a first build) there is no inode to find a moved file by.
      knownInode: this.tree.fileCount > 0 ? this.inodeLookup() : undefined,
      inodeLookupAfter: folder === '' ? 0 : 64,
      pool: this.options.pool,
      signal,
      onFolder: (relativePath) => this.watcher.watch(relativePath),
      onProgress: report ? (progress) => this.reportProgress(progress) : undefined,
    });
  }

  private reportProgress(progress: ScanProgress): void {
    if (this.progressListeners.size === 0) return;
    const percentage = progress.walking ? undefined : progress.found === 0 ? 100 : Math.floor((100 * progress.checked) / progress.found);
    const message = progress.walking
      ? `${progress.found} files in ${progress.folders} folders, ${progress.checked} checked`
      : `${progress.checked}/${progress.found} files checked`;
    for (const listener of this.progressListeners) listener({ message, percentage });
  }

  /**
   * Scans the whole root and patches the tree to match: files gone first (so a file replaced by a
   * folder, or the reverse, is reported as removed and added), then every file found. A file whose
   * hash is unchanged leaves its folders' hashes as they were.
   */
  private async fullScan(kind: ScanSummary['kind'], signal: CancellationSignal, options: { publish: boolean } = { publish: true }): Promise<FileSetChanges> {
    const started = performance.now();
    if (kind === 'reconcile') {
      // A reconcile trusts nothing cached: rules files and git's state are read again.
      await this.rules!.reloadRepositoryState();
      this.rules!.invalidateBelow('');
    }
    const result = await this.scan('', signal, kind !== 'reconcile');
    const changes: FileSetChanges = { added: [], changed: [], removed: [] };
    const gone: string[] = [];
    // Every file found and not in `updated` was reused for its own path, so it is in the tree: with
    // nothing updated and as many files found as the tree holds, none is gone (a restart with
    // nothing changed walks no 78k-file tree for it).
    const noneGone = result.updated.length === 0 && result.files.size === this.tree.fileCount;
    if (!noneGone) for (const [file] of this.tree.filesUnder('')) if (!result.files.has(file)) gone.push(file);
    for (const file of gone) changes.removed.push(...this.tree.delete(file));
    // Entries reused for their own path are the tree's own objects: only the others need setting.
    for (const file of result.updated) {
      const outcome = this.tree.set(file, result.files.get(file)!);
      if (outcome === 'added') changes.added.push(file);
      else if (outcome === 'changed') changes.changed.push(file);
    }
    this.skipped = result.skipped;
    this.ignoredEntries = result.ignoredEntries;
    this.nested = new Set(result.nestedRepositories);
    const folders = new Set(result.folders);
    for (const folder of [...this.nested]) folders.add(folder);
    this.unwatchAllBut(folders);
    const total = changes.added.length + changes.changed.length + changes.removed.length;
    this.lastScan = {
      kind,
      at: new Date().toISOString(),
      durationMs: Math.round(performance.now() - started),
      hashed: result.hashed,
      reused: result.reused,
      repaired: kind === 'reconcile' ? total : 0,
    };
    if (kind === 'reconcile' && total > 0) log.warn(`${this.root}: reconcile repaired ${total} changes the watcher had not applied`);
    // Anything read again (new, edited, touched or binary files) changes what the cache must hold.
    if (kind === 'build' || result.hashed > 0 || total > 0) this.markDirty();
    if (kind !== 'reconcile') this.save();
    if (options.publish) this.publish(changes);
    return changes;
  }

  private unwatchAllBut(folders: Set<string>): void {
    // Folders that vanished or became ignored since they were watched.
    const stale: string[] = [];
    for (const folder of this.watcher.watchedFolders()) if (!folders.has(folder)) stale.push(folder);
    for (const folder of stale) this.watcher.unwatchAt(folder);
    for (const folder of this.nested) this.watcher.unwatchAt(folder);
  }

  private watchRepositoryState(): void {
    this.watcher.closeExternal();
    const git = this.rules?.git;
    if (!git) return;
    const onName = (name: string): void => {
      if (name !== 'index' && name !== 'exclude' && name !== '') return;
      clearTimeout(this.gitTimer);
      this.gitTimer = setTimeout(() => {
        void this.enqueue(async () => {
          if (this.closed || this.stateValue !== 'ready') return;
          if (await this.rules!.reloadRepositoryState()) await this.fullScan('reconcile', this.buildCancel);
        });
      }, 300);
      this.gitTimer.unref();
    };
    this.watcher.watchExternal(git.gitDir, onName);
    this.watcher.watchExternal(path.join(git.commonDir, 'info'), onName);
  }

  private startReconcileTimer(): void {
    if (this.options.reconcileIntervalMs <= 0) return;
    const interval = this.watcher.degraded ? Math.min(this.options.reconcileIntervalMs, 30_000) : this.options.reconcileIntervalMs;
    this.reconcileTimer = setTimeout(() => {
      void this.reconcile()
        .catch(() => undefined)
        .finally(() => !this.closed && this.startReconcileTimer());
    }, interval);
    this.reconcileTimer.unref();
  }

  // ---- incremental updates ----

  private onWatchedPath(relativePath: string): void {
    if (this.closed) return;
    if (this.pendingPaths.size === 0) this.pendingSince = Date.now();
    this.pendingPaths.add(relativePath);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    // setImmediate runs after the current batch of file-system events: a burst becomes one update.
    setImmediate(() => {
      this.flushScheduled = false;
      void this.enqueue(() => this.applyPending());
    });
  }

  private async applyPending(): Promise<void> {
    if (this.closed || this.stateValue !== 'ready' || this.pendingPaths.size === 0) return;
    const paths = [...this.pendingPaths].sort();
    this.pendingPaths.clear();
    const changes: FileSetChanges = { added: [], changed: [], removed: [] };
    const rescanned: string[] = [];
    for (const relativePath of paths) {
      if (rescanned.some((folder) => isAtOrBelow(relativePath, folder))) continue;
      try {
        await this.applyPath(relativePath, changes, rescanned);
      } catch (error) {
        log.warn(`${this.root}: update of ${relativePath} failed: ${errorMessage(error)}`);
      }
    }
    this.lastChangeAppliedAt = Date.now();
    if (changes.added.length + changes.changed.length + changes.removed.length > 0) {
      this.markDirty();
      this.publish(changes);
    }
  }

  private async applyPath(relativePath: string, changes: FileSetChanges, rescanned: string[]): Promise<void> {
    // Inside a nested repository: not ours (its own folder's name is, when it is deleted).
    if ([...this.nested].some((folder) => relativePath.startsWith(`${folder}/`))) return;
    const name = baseName(relativePath);
    if (relativePath === '.git') {
      // The root became a git repository, or stopped being one: every rule may have changed.
      this.rules = await this.loadRules();
      this.watchRepositoryState();
      const full = await this.fullScan('reconcile', this.buildCancel, { publish: false });
      changes.added.push(...full.added);
      changes.changed.push(...full.changed);
      changes.removed.push(...full.removed);
      rescanned.push('');
      return;
    }
    if (relativePath === '' || name === '.git' || IgnoreRules.isRulesFile(name)) {
      // The root listing changed with no name, a folder became (or stopped being) a nested
      // repository, or a rules file changed what is included: rescan the folder.
      const folder = relativePath === '' ? '' : parentOf(relativePath);
      await this.rescanFolder(folder, changes);
      rescanned.push(folder);
      return;
    }
    const parentMode = this.rules!.judgeWithAncestors(parentOf(relativePath), true);
    if (parentMode === 'ignored') {
      this.removeAt(relativePath, changes);
      return;
    }
    let stat: fs.Stats | undefined;
    try {
      stat = fs.lstatSync(toAbsolute(this.root, relativePath), { throwIfNoEntry: false });
    } catch (error) {
      const reason = skipReasonOf(error);
      if (!reason) throw error;
      this.removeAt(relativePath, changes);
      this.skipped.set(relativePath, { reason, size: 0, mtimeMs: 0, ino: 0 });
      return;
    }
    const verdict = classifyEntry(this.classifier(), relativePath, stat, parentMode);
    switch (verdict.kind) {
      case 'gone':
      case 'ignored':
        this.removeAt(relativePath, changes);
        return;
      case 'folder':
        if (this.tree.nodeAt(relativePath)?.kind === 'file') this.removeAt(relativePath, changes);
        this.skipped.delete(relativePath);
        await this.rescanFolder(relativePath, changes);
        rescanned.push(relativePath);
        return;
      case 'skip':
        this.removeAt(relativePath, changes);
        this.skipped.set(relativePath, verdict.entry);
        return;
      case 'candidate': {
        const current = this.known(relativePath);
        if (reusable(current, verdict.stat)) return;
        const judged = inspectCandidate(this.classifier(), verdict);
        if (!judged) {
          this.removeAt(relativePath, changes);
        } else if (judged.kind === 'skip') {
          this.removeAt(relativePath, changes);
          this.skipped.set(relativePath, judged.entry);
        } else {
          if (this.tree.nodeAt(relativePath)?.kind === 'dir') this.removeAt(relativePath, changes);
          this.skipped.delete(relativePath);
          const outcome = this.tree.set(relativePath, judged.entry);
          if (outcome === 'added') changes.added.push(relativePath);
          else if (outcome === 'changed') changes.changed.push(relativePath);
        }
      }
    }
  }

  private classifier() {
    return { root: this.root, rules: this.rules!, maxFileBytes: this.options.maxFileBytes, isSecret: this.isSecretName };
  }

  /** Forgets everything at or below a path: files, skips, nested repositories, watches, rules. */
  private removeAt(relativePath: string, changes: FileSetChanges): void {
    changes.removed.push(...this.tree.delete(relativePath));
    for (const skipped of [...this.skipped.keys()]) if (isAtOrBelow(skipped, relativePath)) this.skipped.delete(skipped);
    for (const folder of [...this.nested]) if (isAtOrBelow(folder, relativePath)) this.nested.delete(folder);
    this.watcher.unwatchAt(relativePath);
    this.rules!.invalidateBelow(relativePath);
  }

  /** Brings one folder's subtree in line with the disk (a new folder, a rules change, a lost name). */
  private async rescanFolder(folder: string, changes: FileSetChanges): Promise<void> {
    const mode = this.rules!.judgeWithAncestors(folder, true);
    if (mode === 'ignored') {
      this.removeAt(folder, changes);
      return;
    }
    // The listing is the truth for rules files below: what was cached there may be stale.
    this.rules!.invalidateBelow(folder);
    const result = await this.scan(folder, this.buildCancel, false, mode);
    for (const [file] of [...this.tree.filesUnder(folder)]) {
      if (!result.files.has(file)) changes.removed.push(...this.tree.delete(file));
    }
    for (const [file, entry] of result.files) {
      const outcome = this.tree.set(file, entry);
      if (outcome === 'added') changes.added.push(file);
      else if (outcome === 'changed') changes.changed.push(file);
    }
    for (const skipped of [...this.skipped.keys()]) if (isAtOrBelow(skipped, folder)) this.skipped.delete(skipped);
    for (const [file, entry] of result.skipped) this.skipped.set(file, entry);
    for (const nested of [...this.nested]) if (isAtOrBelow(nested, folder)) this.nested.delete(nested);
    for (const nested of result.nestedRepositories) this.nested.add(nested);
    // Folders below that vanished, became ignored or became nested repositories lose their watch.
    const kept = new Set(result.folders);
    for (const watched of this.watcher.watchedFolders()) if (isAtOrBelow(watched, folder) && !kept.has(watched)) this.watcher.unwatchAt(watched);
  }

  private publish(changes: FileSetChanges): void {
    if (changes.added.length + changes.changed.length + changes.removed.length === 0) return;
    for (const listener of this.changeListeners) {
      try {
        listener(changes);
      } catch (error) {
        log.error(`${this.root}: change listener failed: ${errorMessage(error)}`);
      }
    }
  }

  // ---- persistence ----

  private markDirty(): void {
    this.dirty = true;
    if (this.saveTimer || this.closed) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      this.save();
    }, this.options.saveDelayMs ?? 2_000);
    this.saveTimer.unref();
  }

  /** Writes the file set to the cache (atomically); failures are logged, never thrown. */
  save(): void {
    if (!this.dirty || this.stateValue === 'failed') return;
    const snapshot: FileSetSnapshot = {
      root: this.root,
      savedAt: Date.now(),
      files: [...this.tree.filesUnder('')].map(([file, entry]) => [file, entry.size, entry.mtimeMs, entry.ino, entry.hash]),
      skipped: [...this.skipped].map(([file, entry]) => [file, entry.reason, entry.size, entry.mtimeMs, entry.ino]),
      ignoredEntries: this.ignoredEntries,
    };
    try {
      saveFileSet(this.cacheFile, snapshot);
      this.dirty = false;
    } catch (error) {
      log.error(`${this.root}: cannot save ${this.cacheFile}: ${errorMessage(error)}`);
    }
  }

  // ---- queries ----

  /** Whether a full scan (a build, a restart's, a reconcile) ended less than `ms` ago. */
  scannedWithin(ms: number): boolean {
    return this.lastScan !== null && Date.now() - Date.parse(this.lastScan.at) < ms;
  }

  /** Files in the file set now. */
  get fileCount(): number {
    return this.tree.fileCount;
  }

  status(): WorkspaceStatusInfo {
    const skipped: SkipCounts = {};
    // A one-file workspace leaves out the rest of its folder by design, not by ignore rules.
    if (this.ignoredEntries > 0 && this.onlyFile === undefined) skipped.ignored = this.ignoredEntries;
    for (const entry of this.skipped.values()) skipped[entry.reason] = (skipped[entry.reason] ?? 0) + 1;
    const watcherState = this.stateValue === 'failed' || this.closed ? 'off' : this.watcher.degraded ? 'degraded' : 'watching';
    return {
      root: this.root,
      state: this.stateValue,
      git: this.rules?.git !== undefined,
      files: this.tree.fileCount,
      bytes: this.tree.byteCount,
      skipped,
      merkleRoot: this.stateValue === 'ready' ? this.tree.rootHash() : null,
      watcher: { state: watcherState, folders: this.watcher.folderCount, ...(this.watcherProblem ? { problem: this.watcherProblem } : {}) },
      lag: {
        pendingChanges: this.pendingPaths.size,
        oldestPendingMs: this.pendingPaths.size > 0 ? Date.now() - this.pendingSince : 0,
        lastChangeAppliedAt: this.lastChangeAppliedAt === null ? null : new Date(this.lastChangeAppliedAt).toISOString(),
      },
      lastScan: this.lastScan,
      cache: { path: this.cacheFile, loaded: this.cacheLoaded },
      ...(this.onlyFile === undefined ? {} : { file: this.onlyFile }),
      ...(this.error ? { error: this.error } : {}),
    };
  }

  /**
   * The file set's paths, sorted; filtered by globs when given, with ripgrep's -g rules
   * (base/path-glob.ts: `*.ts` matches in every folder). A glob past the limits or that picomatch
   * refuses is an invalidParams error.
   */
  files(globs: readonly string[] = []): string[] {
    const matches = globs.length > 0 ? globFilter(globs) : undefined;
    const files = [...this.tree.filesUnder('')].map(([file]) => file);
    return (matches ? files.filter((file) => matches(file)) : files).sort();
  }

  /** The tree's hash at a workspace-relative path, with its children's for a folder. */
  merkleAt(relativePath: string): MerkleView {
    const node = this.tree.nodeAt(relativePath);
    if (!node) return { path: relativePath, kind: 'absent', hash: null };
    if (node.kind === 'file') return { path: relativePath, kind: 'file', hash: node.entry.hash };
    const children = [...node.children.keys()].sort().map((name) => {
      const child = node.children.get(name)!;
      return { name, kind: child.kind, hash: this.tree.hashOf(child) };
    });
    return { path: relativePath, kind: 'dir', hash: this.tree.hashOf(node), children };
  }

  rootHash(): string {
    return this.tree.rootHash();
  }

  /** A file's content hash, if it is in the set. */
  hashOf(relativePath: string): string | undefined {
    return this.tree.get(relativePath)?.hash;
  }

  /** Stops watching and timers, saves what changed; the cache stays valid for the next start. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.buildCancel.cancel();
    clearTimeout(this.saveTimer);
    clearTimeout(this.reconcileTimer);
    clearTimeout(this.gitTimer);
    this.watcher.close();
    await this.queue;
    this.save();
  }
}
