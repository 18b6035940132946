// Walks a workspace folder and decides, for every entry, whether it belongs to the file set. The
// main thread lists folders and applies the rules (the listing's entry types spare it an lstat per
// file); the hash pool's workers stat each regular file (a known file past the first 2,048 in a
// compact stat job answered a byte a file), reuse what is known when (size, mtime, inode) match,
// and read and hash the rest, so a scan uses every core. Also classifies single paths
// for the watcher's incremental updates with the same rules, so a scan and a series of updates agree.
//
// The walk is synchronous in slices of ~12 ms and yields to the event loop between them, so the
// daemon keeps answering other requests; cancellation is checked at every yield.
// `onFolder` is called before a folder is listed (watch, then list: nothing created in between is
// lost).
import fs from 'node:fs';
import path from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { throwIfCancelled, type CancellationSignal } from '../base/cancellation.js';
import { isNameTooLong, isPermissionDenied } from '../base/errors.js';
import { joinRelative, toAbsolute } from '../base/paths.js';
import { inspectFile, statSame, type FileCheck, type FileOutcome, type StatTuple } from './file-content.js';
import type { HashPool } from './hash-pool.js';
import type { FolderMode, IgnoreRules, Inclusion } from './ignore-rules.js';
import type { FileEntry } from './merkle.js';
import type { SecretMatcher } from './secrets.js';
import type { SkipReason } from './skip-reason.js';

export interface StatKey {
  size: number;
  mtimeMs: number;
  ino: number;
}

export interface SkipEntry extends StatKey {
  reason: SkipReason;
}

/** What the file set already knows about a path, for reuse when its stat has not changed. */
export type Known = { kind: 'file'; entry: FileEntry } | { kind: 'skip'; entry: SkipEntry };

export interface Classifier {
  root: string;
  rules: IgnoreRules;
  maxFileBytes: number;
  isSecret: SecretMatcher;
}

export interface ScanOptions extends Classifier {
  /** The folder to scan, workspace-relative ('' for the whole root); its ancestors must be included. */
  folder: string;
  /** How the folder itself was judged (default `included`). */
  folderMode?: FolderMode;
  known: (relativePath: string) => Known | undefined;
  /** The file entry alone, for the hot path (no wrapper object per file). */
  knownFile: (relativePath: string) => FileEntry | undefined;
  /** What is known under another path with this inode: a file renamed or moved is not read again. */
  knownInode?: (ino: number) => Known | undefined;
  /**
   * Consult `knownInode` only after this many files unknown by path (default 0): indexing the tree
   * by inode is worth it for a moved folder, not for the few files of a folder just created.
   */
  inodeLookupAfter?: number;
  pool: HashPool;
  signal: CancellationSignal;
  onFolder?: (relativePath: string) => void;
  onProgress?: (progress: ScanProgress) => void;
}

export interface ScanProgress {
  folders: number;
  /** Regular files found so far. */
  found: number;
  /** Of those, checked against what is known (and read where needed). */
  checked: number;
  walking: boolean;
}

export interface ScanResult {
  files: Map<string, FileEntry>;
  skipped: Map<string, SkipEntry>;
  /** Entries (files or whole folders) excluded by ignore rules. */
  ignoredEntries: number;
  nestedRepositories: string[];
  folders: string[];
  /** Paths whose entry is not the one `known` gave for that path (read again, or found by inode). */
  updated: string[];
  hashed: number;
  reused: number;
}

/** The verdict on one path from its name, the rules and its stat (content not yet read). */
export type EntryVerdict =
  | { kind: 'folder'; mode: FolderMode }
  | { kind: 'ignored' }
  | { kind: 'gone' }
  | { kind: 'skip'; entry: SkipEntry }
  | { kind: 'candidate'; stat: StatKey; readPath: string };

const noStat: StatKey = { size: 0, mtimeMs: 0, ino: 0 };

function statKey(stat: StatKey): StatKey {
  return { size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino };
}

function isInside(root: string, target: string): boolean {
  return target === root || target.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

const folderVerdict: EntryVerdict = { kind: 'folder', mode: 'included' };
const trackedOnlyFolderVerdict: EntryVerdict = { kind: 'folder', mode: 'trackedOnly' };
const ignoredVerdict: EntryVerdict = { kind: 'ignored' };
const goneVerdict: EntryVerdict = { kind: 'gone' };

function folderVerdictFor(inclusion: Inclusion): EntryVerdict {
  return inclusion === 'ignored' ? ignoredVerdict : inclusion === 'trackedOnly' ? trackedOnlyFolderVerdict : folderVerdict;
}

/**
 * The skip reason for a path the system refused to stat, list or open, when it is one to report:
 * permission denied (unreadable) or a path longer than the system can name (pathTooLong).
 * Undefined for a path that vanished.
 */
export function skipReasonOf(error: unknown): SkipReason | undefined {
  if (isPermissionDenied(error)) return 'unreadable';
  if (isNameTooLong(error)) return 'pathTooLong';
  return undefined;
}

/** A path's lstat; undefined when it is gone or cannot be stat'ed (it is then looked at again as unknown). */
function lstatOrUndefined(absolutePath: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(absolutePath, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** Why a symbolic link is skipped: links are never followed (as ripgrep does not); the reason says where it points. */
function symlinkReason(root: string, absolutePath: string): SkipReason {
  try {
    const real = fs.realpathSync(absolutePath);
    if (!isInside(root, real)) return 'symlinkOutside';
    return fs.statSync(real).isDirectory() ? 'symlinkDir' : 'symlink';
  } catch (error) {
    return isPermissionDenied(error) ? 'unreadable' : 'brokenSymlink';
  }
}

/**
 * Classifies one path given its lstat (undefined: it is gone) and how its parent folder was judged.
 * Ignore rules apply to the path itself; the caller has judged its ancestors.
 */
export function classifyEntry(
  classifier: Classifier,
  relativePath: string,
  stat: fs.Stats | undefined,
  parentMode: FolderMode,
  absolutePath = toAbsolute(classifier.root, relativePath),
): EntryVerdict {
  if (!stat) return goneVerdict;
  const { root, rules } = classifier;
  if (stat.isDirectory()) return folderVerdictFor(rules.judge(relativePath, true, parentMode));
  if (rules.judge(relativePath, false, parentMode) === 'ignored') return ignoredVerdict;
  if (classifier.isSecret(relativePath)) return { kind: 'skip', entry: { reason: 'secret', ...statKey(stat) } };
  if (stat.isSymbolicLink()) return { kind: 'skip', entry: { reason: symlinkReason(root, absolutePath), ...statKey(stat) } };
  if (!stat.isFile()) return { kind: 'skip', entry: { reason: 'special', ...statKey(stat) } };
  if (stat.size > classifier.maxFileBytes) return { kind: 'skip', entry: { reason: 'tooLarge', ...statKey(stat) } };
  // The Stats object itself serves as the stat key here; entries copy the three fields they keep.
  return { kind: 'candidate', stat, readPath: absolutePath };
}

/** Whether what is known about a path can stand for it without reading it again. */
export function reusable(known: Known | undefined, stat: StatKey): Known | undefined {
  if (!known) return undefined;
  const entry = known.entry;
  if (entry.size !== stat.size || entry.mtimeMs !== stat.mtimeMs || entry.ino !== stat.ino) return undefined;
  // Only content verdicts are worth reusing; an unreadable file is retried (chmod keeps mtime),
  // and so is a secret found by its content (few files, judged by the rules of this version).
  if (known.kind === 'skip' && known.entry.reason !== 'binary') return undefined;
  return known;
}

function keyOf(stat: StatTuple): StatKey {
  return { size: stat[0], mtimeMs: stat[1], ino: stat[2] };
}

/** What a read told about a file (undefined: it is gone, or no longer a regular file). */
export function knownFromOutcome(outcome: FileOutcome): Known | undefined {
  switch (outcome.kind) {
    case 'text':
      return { kind: 'file', entry: { ...keyOf(outcome.stat), hash: outcome.hash } };
    case 'binary':
      return { kind: 'skip', entry: { reason: 'binary', ...keyOf(outcome.stat) } };
    case 'secret':
      return { kind: 'skip', entry: { reason: 'secret', ...keyOf(outcome.stat) } };
    case 'tooLarge':
      return { kind: 'skip', entry: { reason: 'tooLarge', ...keyOf(outcome.stat) } };
    case 'unreadable':
      return { kind: 'skip', entry: { reason: 'unreadable', ...noStat } };
    case 'pathTooLong':
      return { kind: 'skip', entry: { reason: 'pathTooLong', ...noStat } };
    default:
      return undefined;
  }
}

/** Reads and judges one candidate on the main thread (for single paths the watcher reports). */
export function inspectCandidate(classifier: Classifier, verdict: Extract<EntryVerdict, { kind: 'candidate' }>): Known | undefined {
  return knownFromOutcome(inspectFile({ path: verdict.readPath, read: true }, classifier.maxFileBytes));
}

const sliceMs = 12;
const batchFiles = 64;
/**
 * Known files (a restart's, a reconcile's) stat'ed here before any goes to a worker: a small scan
 * pays no round trip. Past them, the workers stat them, `statBatchFiles` a job, and this thread
 * only lists folders (Node's lstat costs ~6 µs of this thread a file: 0.5 s of the kernel's).
 */
const inlineStats = 2_048;
const statBatchFiles = 1_024;
/** A final batch this small is inspected here: a worker round trip (or start) would cost more. */
const inlineBatchFiles = 8;

interface PendingCheck {
  relativePath: string;
  readPath: string;
  mode: FolderMode;
  /** What is known for this path (a file, or a binary skip), if anything. */
  known: Known | undefined;
  read: boolean;
}

export async function scanFolder(options: ScanOptions): Promise<ScanResult> {
  const result: ScanResult = {
    files: new Map(),
    skipped: new Map(),
    ignoredEntries: 0,
    nestedRepositories: [],
    folders: [],
    updated: [],
    hashed: 0,
    reused: 0,
  };
  const progress: ScanProgress = { folders: 0, found: 0, checked: 0, walking: true };
  const gitWorkspace = options.rules.git !== undefined;
  const maxFileBytes = options.maxFileBytes;
  const inFlight = new Set<Promise<void>>();
  let batch: PendingCheck[] = [];
  let statBatch: Array<{ relativePath: string; readPath: string; mode: FolderMode; file: FileEntry }> = [];
  let statsHere = 0;
  let unknownByPath = 0;
  let sliceStart = performance.now();
  const stack: [string, FolderMode][] = [[options.folder, options.folderMode ?? 'included']];

  const enqueue = (check: PendingCheck): void => {
    batch.push(check);
    if (batch.length >= batchFiles) flush();
  };

  /**
   * A regular file. Known by path (a restart, a reconcile): stat it (here for the first
   * `inlineStats`, then on a worker in stat jobs) and reuse what is known when (size, mtime, inode)
   * match. Otherwise, or when it changed, a worker stats and reads it.
   */
  const candidate = (relativePath: string, readPath: string, mode: FolderMode): void => {
    progress.found += 1;
    const file = options.knownFile(relativePath);
    if (file !== undefined && statsHere >= inlineStats) {
      statBatch.push({ relativePath, readPath, mode, file });
      if (statBatch.length >= statBatchFiles) flushStats();
      return;
    }
    if (file !== undefined) {
      statsHere += 1;
      const stat = lstatOrUndefined(readPath);
      if (stat !== undefined && stat.isFile() && file.size === stat.size && file.mtimeMs === stat.mtimeMs && file.ino === stat.ino) {
        result.files.set(relativePath, file);
        result.reused += 1;
        progress.checked += 1;
        return;
      }
      enqueue({ relativePath, readPath, mode, known: undefined, read: true });
      return;
    }
    const other = options.known(relativePath);
    const known = other?.kind === 'skip' && other.entry.reason === 'binary' ? other : undefined;
    // A path unknown by any name may be a file moved here: first ask only for its stat, to look up
    // its inode. A path skipped before (too large, a secret) is no moved file: it is judged afresh
    // (the inode map, ~0.1 s of a kernel's restart, is then not built for those alone).
    const read = other !== undefined || options.knownInode === undefined || ++unknownByPath <= (options.inodeLookupAfter ?? 0);
    enqueue({ relativePath, readPath, mode, known, read });
  };

  const settle = (job: PendingCheck, outcome: FileOutcome): void => {
    if (outcome.kind !== 'stat') progress.checked += 1;
    switch (outcome.kind) {
      case 'same': {
        const known = job.known!;
        if (known.kind === 'file') result.files.set(job.relativePath, known.entry);
        else result.skipped.set(job.relativePath, known.entry);
        result.reused += 1;
        return;
      }
      case 'stat': {
        const moved = reusable(options.knownInode?.(outcome.stat[2]), keyOf(outcome.stat));
        if (moved?.kind === 'file') {
          result.files.set(job.relativePath, moved.entry);
          result.updated.push(job.relativePath);
          result.reused += 1;
          progress.checked += 1;
        } else if (moved?.kind === 'skip') {
          result.skipped.set(job.relativePath, moved.entry);
          result.reused += 1;
          progress.checked += 1;
        } else {
          enqueue({ ...job, read: true });
        }
        return;
      }
      case 'notFile': {
        // It stopped being a regular file after the listing: judge it as it is now. A folder is
        // left to the watcher, which reports it (its parent was watched before it was listed).
        let stat: fs.Stats | undefined;
        try {
          stat = fs.lstatSync(job.readPath, { throwIfNoEntry: false });
        } catch (error) {
          const reason = skipReasonOf(error);
          if (reason) result.skipped.set(job.relativePath, { reason, ...noStat });
          return;
        }
        const verdict = classifyEntry(options, job.relativePath, stat, job.mode, job.readPath);
        if (verdict.kind === 'skip') result.skipped.set(job.relativePath, verdict.entry);
        return;
      }
      default: {
        if (outcome.kind === 'text' || outcome.kind === 'binary' || outcome.kind === 'secret') result.hashed += 1;
        const known = knownFromOutcome(outcome);
        if (known?.kind === 'file') {
          result.files.set(job.relativePath, known.entry);
          result.updated.push(job.relativePath);
        } else if (known?.kind === 'skip') {
          result.skipped.set(job.relativePath, known.entry);
        }
      }
    }
  };

  /** Sends the known files gathered to a worker to stat; one that changed is then inspected whole. */
  const flushStats = (): void => {
    if (statBatch.length === 0) return;
    const jobs = statBatch;
    statBatch = [];
    const known = new Float64Array(3 * jobs.length);
    jobs.forEach((job, index) => {
      known[3 * index] = job.file.size;
      known[3 * index + 1] = job.file.mtimeMs;
      known[3 * index + 2] = job.file.ino;
    });
    const paths = jobs.map((job) => job.readPath).join('\0');
    // A worker that dies must not lose the batch: stat it here instead.
    const settled = options.pool
      .statSame(paths, known)
      .catch(() => statSame(paths, known))
      .then((same) => {
        jobs.forEach((job, index) => {
          if (same[index] === 1) {
            result.files.set(job.relativePath, job.file);
            result.reused += 1;
            progress.checked += 1;
          } else enqueue({ relativePath: job.relativePath, readPath: job.readPath, mode: job.mode, known: undefined, read: true });
        });
        options.onProgress?.(progress);
      });
    inFlight.add(settled);
    void settled.finally(() => inFlight.delete(settled));
  };

  const flush = (): void => {
    if (batch.length === 0) return;
    const jobs = batch;
    batch = [];
    const checks: FileCheck[] = jobs.map((job) => ({
      path: job.readPath,
      known: job.known ? [job.known.entry.size, job.known.entry.mtimeMs, job.known.entry.ino] : undefined,
      read: job.read,
    }));
    const here = (): FileOutcome[] => checks.map((check) => inspectFile(check, maxFileBytes));
    // A worker that dies (out of memory, a crash) must not lose the batch: inspect it here instead.
    const outcomes = jobs.length <= inlineBatchFiles && stack.length === 0 ? Promise.resolve(here()) : options.pool.inspect(checks, maxFileBytes).catch(here);
    const settled = outcomes.then((list) => {
      list.forEach((outcome, index) => settle(jobs[index]!, outcome));
      options.onProgress?.(progress);
    });
    inFlight.add(settled);
    void settled.finally(() => inFlight.delete(settled));
  };

  while (stack.length > 0) {
    const [folder, mode] = stack.pop()!;
    if (performance.now() - sliceStart > sliceMs) {
      options.onProgress?.(progress);
      await yieldToEventLoop();
      throwIfCancelled(options.signal);
      sliceStart = performance.now();
    }
    const absoluteFolder = toAbsolute(options.root, folder);
    // Plain concatenation: the folder is normalised and a name holds no separator.
    const prefix = absoluteFolder.endsWith(path.sep) ? absoluteFolder : absoluteFolder + path.sep;
    options.onFolder?.(folder);
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(absoluteFolder, { withFileTypes: true });
    } catch (error) {
      // A name that is not valid UTF-8 comes back with U+FFFD in it and can then not be opened.
      const reason = skipReasonOf(error) ?? (folder.includes('\uFFFD') ? 'unreadable' : undefined);
      if (reason) result.skipped.set(folder, { reason, ...noStat });
      continue;
    }
    const names = entries.map((entry) => entry.name);
    if (gitWorkspace && folder !== '' && names.includes('.git')) {
      result.nestedRepositories.push(folder);
      result.skipped.set(folder, { reason: 'nestedRepository', ...noStat });
      continue;
    }
    options.rules.noteListing(folder, names);
    result.folders.push(folder);
    progress.folders += 1;
    for (const entry of entries) {
      const name = entry.name;
      if (name === '.git') continue;
      const relativePath = joinRelative(folder, name);
      const absolutePath = prefix + name;
      if (entry.isDirectory()) {
        // The listing says what each entry is: folders and regular files need no lstat here.
        const inclusion = options.rules.judge(relativePath, true, mode);
        if (inclusion === 'ignored') result.ignoredEntries += 1;
        else stack.push([relativePath, inclusion]);
        continue;
      }
      if (entry.isFile()) {
        if (options.rules.judge(relativePath, false, mode) === 'ignored') result.ignoredEntries += 1;
        else if (options.isSecret(relativePath)) result.skipped.set(relativePath, { reason: 'secret', ...noStat });
        else if (name.includes('\uFFFD') && !fs.existsSync(absolutePath)) result.skipped.set(relativePath, { reason: 'unreadable', ...noStat });
        else candidate(relativePath, absolutePath, mode);
        continue;
      }
      // Links, special files, and entries whose type the file system does not report.
      let stat: fs.Stats | undefined;
      try {
        stat = fs.lstatSync(absolutePath, { throwIfNoEntry: false });
      } catch (error) {
        const reason = skipReasonOf(error);
        if (reason) result.skipped.set(relativePath, { reason, ...noStat });
        continue;
      }
      const verdict = classifyEntry(options, relativePath, stat, mode, absolutePath);
      switch (verdict.kind) {
        case 'folder':
          stack.push([relativePath, verdict.mode]);
          break;
        case 'ignored':
          result.ignoredEntries += 1;
          break;
        case 'skip':
          result.skipped.set(relativePath, verdict.entry);
          break;
        case 'candidate':
          candidate(relativePath, absolutePath, mode);
          break;
        case 'gone':
          break;
      }
    }
  }
  progress.walking = false;
  // Outcomes may queue more work (a file unknown by path and by inode is then read): drain it all.
  flushStats();
  while (batch.length > 0 || inFlight.size > 0) {
    flush();
    await Promise.all([...inFlight]);
  }
  options.onProgress?.(progress);
  throwIfCancelled(options.signal);
  return result;
}
