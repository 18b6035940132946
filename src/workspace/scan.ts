// Walks a workspace folder and decides, for every entry, whether it belongs to the file set, and
// hashes what belongs (in the hash pool). Also classifies single paths for the watcher's incremental
// updates with the same rules, so a scan and a sequence of updates always agree.
//
// The walk is synchronous in slices of ~12 ms and yields to the event loop between them, so the
// daemon keeps answering other requests; cancellation is checked at every yield.
// `onFolder` is called before a folder is listed (watch, then list: nothing created in between is
// lost).
import fs from 'node:fs';
import path from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { throwIfCancelled, type CancellationSignal } from '../base/cancellation.js';
import { isPermissionDenied } from '../base/errors.js';
import { baseName, joinRelative, toAbsolute } from '../base/paths.js';
import { readAndJudge, type ContentVerdict } from './file-content.js';
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
  found: number;
  toHash: number;
  hashed: number;
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
  if (classifier.isSecret(baseName(relativePath))) return { kind: 'skip', entry: { reason: 'secret', ...statKey(stat) } };
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
  // Only content verdicts are worth reusing; an unreadable file is retried (chmod keeps mtime).
  if (known.kind === 'skip' && known.entry.reason !== 'binary') return undefined;
  return known;
}

/** Turns a content verdict into a file entry or skip entry (undefined: the file is gone). */
export function entryFromVerdict(verdict: ContentVerdict, statOrKey: StatKey): Known | undefined {
  const stat: StatKey = { size: statOrKey.size, mtimeMs: statOrKey.mtimeMs, ino: statOrKey.ino };
  switch (verdict.kind) {
    case 'text':
      return { kind: 'file', entry: { ...stat, size: verdict.size, hash: verdict.hash } };
    case 'binary':
      return { kind: 'skip', entry: { reason: 'binary', ...stat } };
    case 'tooLarge':
      return { kind: 'skip', entry: { reason: 'tooLarge', ...stat, size: verdict.size } };
    case 'unreadable':
      return { kind: 'skip', entry: { reason: 'unreadable', ...stat } };
    case 'vanished':
      return undefined;
  }
}

/** Reads and judges one candidate on the main thread (for single-path updates). */
export async function judgeCandidate(classifier: Classifier, verdict: Extract<EntryVerdict, { kind: 'candidate' }>): Promise<Known | undefined> {
  return entryFromVerdict(await readAndJudge(verdict.readPath, classifier.maxFileBytes), verdict.stat);
}

const sliceMs = 12;
const batchFiles = 128;
const batchBytes = 4 * 1024 * 1024;
/** A final batch this small is judged here: a worker round trip (or start) would cost more. */
const inlineBatchFiles = 8;

export async function scanFolder(options: ScanOptions): Promise<ScanResult> {
  const result: ScanResult = { files: new Map(), skipped: new Map(), ignoredEntries: 0, nestedRepositories: [], folders: [], updated: [], hashed: 0, reused: 0 };
  let unknownCandidates = 0;
  const byInode = (stat: StatKey): Known | undefined =>
    ++unknownCandidates > (options.inodeLookupAfter ?? 0) ? reusable(options.knownInode?.(stat.ino), stat) : undefined;
  const progress: ScanProgress = { folders: 0, found: 0, toHash: 0, hashed: 0, walking: true };
  const gitWorkspace = options.rules.git !== undefined;
  const pending: Promise<void>[] = [];
  let batch: { relativePath: string; stat: StatKey; readPath: string }[] = [];
  let batchSize = 0;
  let sliceStart = performance.now();

  const flush = (): void => {
    if (batch.length === 0) return;
    const jobs = batch;
    batch = [];
    batchSize = 0;
    const readPaths = jobs.map((job) => job.readPath);
    const judgeHere = (): Promise<ContentVerdict[]> => Promise.all(readPaths.map((readPath) => readAndJudge(readPath, options.maxFileBytes)));
    // A worker that dies (out of memory, a crash) must not lose the batch: judge it here instead.
    const judged = jobs.length <= inlineBatchFiles && stack.length === 0 ? judgeHere() : options.pool.judge(readPaths, options.maxFileBytes).catch(judgeHere);
    pending.push(
      judged.then((verdicts) => {
        verdicts.forEach((verdict, index) => {
          const job = jobs[index]!;
          const known = entryFromVerdict(verdict, job.stat);
          if (known?.kind === 'file') {
            result.files.set(job.relativePath, known.entry);
            result.updated.push(job.relativePath);
          }
          else if (known?.kind === 'skip') result.skipped.set(job.relativePath, known.entry);
        });
        result.hashed += jobs.length;
        progress.hashed += jobs.length;
        options.onProgress?.(progress);
      }),
    );
  };

  const stack: [string, FolderMode][] = [[options.folder, options.folderMode ?? 'included']];
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
      if (isPermissionDenied(error) || folder.includes('\uFFFD')) result.skipped.set(folder, { reason: 'unreadable', ...noStat });
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
      let verdict: EntryVerdict;
      if (entry.isDirectory()) {
        // The listing already says it is a folder: no lstat needed.
        verdict = folderVerdictFor(options.rules.judge(relativePath, true, mode));
      } else {
        const absolutePath = prefix + name;
        let stat: fs.Stats | undefined;
        try {
          stat = fs.lstatSync(absolutePath, { throwIfNoEntry: false });
        } catch (error) {
          if (isPermissionDenied(error)) result.skipped.set(relativePath, { reason: 'unreadable', ...noStat });
          continue;
        }
        if (!stat && name.includes('\uFFFD')) {
          result.skipped.set(relativePath, { reason: 'unreadable', ...noStat });
          continue;
        }
        verdict = classifyEntry(options, relativePath, stat, mode, absolutePath);
      }
      switch (verdict.kind) {
        case 'folder':
          stack.push([relativePath, verdict.mode]);
          break;
        case 'ignored':
          result.ignoredEntries += 1;
          break;
        case 'gone':
          break;
        case 'skip':
          result.skipped.set(relativePath, verdict.entry);
          break;
        case 'candidate': {
          progress.found += 1;
          const file = options.knownFile(relativePath);
          if (file !== undefined && file.size === verdict.stat.size && file.mtimeMs === verdict.stat.mtimeMs && file.ino === verdict.stat.ino) {
            // The common case of a restart: unchanged, and no allocation for it.
            result.files.set(relativePath, file);
            result.reused += 1;
            break;
          }
          const byPath = reusable(options.known(relativePath), verdict.stat);
          const known = byPath ?? byInode(verdict.stat);
          if (known?.kind === 'file') {
            result.files.set(relativePath, known.entry);
            if (!byPath) result.updated.push(relativePath);
            result.reused += 1;
          } else if (known?.kind === 'skip') {
            result.skipped.set(relativePath, known.entry);
            result.reused += 1;
          } else {
            batch.push({ relativePath, stat: statKey(verdict.stat), readPath: verdict.readPath });
            batchSize += verdict.stat.size;
            progress.toHash += 1;
            if (batch.length >= batchFiles || batchSize >= batchBytes) flush();
          }
        }
      }
    }
  }
  flush();
  progress.walking = false;
  options.onProgress?.(progress);
  await Promise.all(pending);
  throwIfCancelled(options.signal);
  return result;
}
