// Decides which paths under a workspace root are excluded by ignore rules, the way git would:
// .gitignore at every level (deeper files override shallower ones), .git/info/exclude, the global
// excludes file, `!` negation, and tracked files shown whatever the rules say. Outside a git
// repository .gitignore files are not applied (like ripgrep: an unpacked tarball may ship one that
// ignores everything). `.fathomignore` files, same syntax, always apply, after git's decision: a path
// is in the set only if git would show it and .fathomignore does not exclude it.
// The full list of tracked files is kept (from `git ls-files`), so a rule added later never hides a
// tracked file. Two rules come before all of these: folders that are never part of a file set
// (Fathom's own cache and settings folders, when they lie below the root) are ignored, and a
// one-file workspace (a file answered on its own) includes its one file and nothing else.
//
// Invariant: rule files are parsed once and cached per folder until `invalidate` is called for it.
import ignore, { type Ignore } from 'ignore';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { isAtOrBelow, joinRelative, parentOf } from '../base/paths.js';
import { findGitContext, readGlobalExcludes, readTextIfExists, readTracked, type GitContext } from './git-context.js';

export const gitignoreName = '.gitignore';
export const fathomignoreName = '.fathomignore';

/** Rules from one kind of file (.gitignore or .fathomignore) found at any folder level. */
class RuleLayer {
  private readonly rules = new Map<string, Ignore | null>();
  private readonly chains = new Map<string, readonly string[]>();

  constructor(
    private readonly base: string,
    private readonly fileName: string,
  ) {}

  private rulesAt(folder: string): Ignore | null {
    let rules = this.rules.get(folder);
    if (rules === undefined) {
      const text = readTextIfExists(path.join(this.base, folder, this.fileName));
      rules = text === undefined ? null : newRules(text);
      this.rules.set(folder, rules);
    }
    return rules;
  }

  /** Folders from the top down to `folder` (inclusive) that hold a rules file. */
  private chain(folder: string): readonly string[] {
    let chain = this.chains.get(folder);
    if (chain === undefined) {
      const above = folder === '' ? [] : this.chain(parentOf(folder));
      chain = this.rulesAt(folder) ? [...above, folder] : above;
      this.chains.set(folder, chain);
    }
    return chain;
  }

  /** true: ignored; false: re-included by a negation; undefined: no rule says. */
  decide(relativePath: string, isDirectory: boolean): boolean | undefined {
    const chain = this.chain(parentOf(relativePath));
    for (let index = chain.length - 1; index >= 0; index--) {
      const folder = chain[index]!;
      const below = folder === '' ? relativePath : relativePath.slice(folder.length + 1);
      const verdict = this.rulesAt(folder)!.test(isDirectory ? `${below}/` : below);
      if (verdict.ignored) return true;
      if (verdict.unignored) return false;
    }
    return undefined;
  }

  /** Records what the scanner saw in a folder's listing: it says whether the rules file exists. */
  noteListing(folder: string, present: boolean): void {
    const cached = this.rules.get(folder);
    if (!present && cached !== null) {
      this.rules.set(folder, null);
      if (cached !== undefined) this.chains.clear();
    } else if (present && cached === null) {
      this.invalidate(folder);
    }
  }

  invalidate(folder: string): void {
    this.rules.delete(folder);
    this.chains.clear();
  }

  /** Forgets every folder at or below `folder` ('' for all): they were deleted or are rescanned. */
  invalidateBelow(folder: string): void {
    for (const cached of [...this.rules.keys()]) if (isAtOrBelow(cached, folder)) this.rules.delete(cached);
    this.chains.clear();
  }
}

/** Git matches case-sensitively (core.ignoreCase is for case-insensitive file systems). */
function newRules(text: string): Ignore {
  return ignore({ allowRelativePaths: true, ignorecase: false }).add(text);
}

/**
 * How a folder's entries are judged. `included`: by the rules. `trackedOnly`: the folder is
 * ignored by git but holds tracked files: git shows those and nothing else below it.
 */
export type FolderMode = 'included' | 'trackedOnly';
export type Inclusion = FolderMode | 'ignored';

export interface RulesOptions {
  /** A one-file workspace: the root's one entry that is included; every other path is ignored and no rules file is read. */
  onlyFile?: string;
  /** Root-relative folders that are always ignored, whatever the rules say (Fathom's cache and settings folders). */
  alwaysIgnored?: readonly string[];
}

export class IgnoreRules {
  private readonly fathomLayer: RuleLayer;
  private readonly gitLayer: RuleLayer | undefined;
  private repositoryRules: Ignore[] = [];
  private repositorySignature = '';
  private tracked = new Set<string>();
  private trackedFolders = new Set<string>();

  private readonly onlyFile: string | undefined;
  private readonly alwaysIgnored: readonly string[];

  private constructor(
    readonly root: string,
    readonly git: GitContext | undefined,
    options: RulesOptions,
  ) {
    this.fathomLayer = new RuleLayer(root, fathomignoreName);
    this.gitLayer = git ? new RuleLayer(git.topLevel, gitignoreName) : undefined;
    this.onlyFile = options.onlyFile;
    this.alwaysIgnored = options.alwaysIgnored ?? [];
  }

  static async load(root: string, options: RulesOptions = {}): Promise<IgnoreRules> {
    // A one-file workspace reads no rules: its one file is its file set (git's view does not matter).
    const rules = new IgnoreRules(root, options.onlyFile === undefined ? findGitContext(root) : undefined, options);
    await rules.reloadRepositoryState();
    return rules;
  }

  /**
   * Re-reads info/exclude, the global excludes file and the list of tracked files (git shows a
   * tracked file whatever the rules say). Returns true if any of them changed.
   */
  async reloadRepositoryState(): Promise<boolean> {
    if (!this.git) return false;
    const exclude = readTextIfExists(path.join(this.git.commonDir, 'info', 'exclude')) ?? '';
    const global = (await readGlobalExcludes(this.root)) ?? '';
    const tracked = await readTracked(this.root);
    const signature = createHash('sha256').update(exclude).update('\0').update(global).update('\0').update(tracked.join('\0')).digest('hex');
    if (signature === this.repositorySignature) return false;
    this.repositorySignature = signature;
    // info/exclude outranks the global file: it is consulted first.
    this.repositoryRules = [newRules(exclude), newRules(global)];
    this.tracked = new Set(tracked);
    this.trackedFolders = new Set();
    for (const file of tracked) {
      for (let folder = parentOf(file); folder !== '' && !this.trackedFolders.has(folder); folder = parentOf(folder)) this.trackedFolders.add(folder);
    }
    return true;
  }

  /** Whether a rules file name is one this object reads (a change to it calls for `invalidate`). */
  static isRulesFile(baseName: string): boolean {
    return baseName === gitignoreName || baseName === fathomignoreName;
  }

  /** Called by the scanner with a folder's listing, before it judges the folder's entries. */
  noteListing(folder: string, names: readonly string[]): void {
    this.fathomLayer.noteListing(folder, names.includes(fathomignoreName));
    this.gitLayer?.noteListing(joinRelative(this.git!.prefix, folder), names.includes(gitignoreName));
  }

  /** Forget the parsed rules of one folder (its .gitignore or .fathomignore changed). */
  invalidate(folder: string): void {
    this.fathomLayer.invalidate(folder);
    this.gitLayer?.invalidate(joinRelative(this.git!.prefix, folder));
  }

  /** Forget the rules of a folder and everything below it ('' for all). */
  invalidateBelow(folder: string): void {
    this.fathomLayer.invalidateBelow(folder);
    // Folders above the root (a workspace below the repository's top) keep theirs.
    this.gitLayer?.invalidateBelow(joinRelative(this.git!.prefix, folder));
  }

  private gitIgnores(relativePath: string, isDirectory: boolean): boolean {
    if (!this.gitLayer || !this.git) return false;
    const repoPath = joinRelative(this.git.prefix, relativePath);
    const verdict = this.gitLayer.decide(repoPath, isDirectory);
    if (verdict !== undefined) return verdict;
    for (const rules of this.repositoryRules) {
      const result = rules.test(isDirectory ? `${repoPath}/` : repoPath);
      if (result.ignored) return true;
      if (result.unignored) return false;
    }
    return false;
  }

  /**
   * Judges one path from its own name, given how its parent folder was judged. A git-ignored folder
   * holding tracked files is `trackedOnly`: the scanner descends, and below it only tracked files
   * count (a deeper negation cannot bring untracked files back, as in git).
   */
  judge(relativePath: string, isDirectory: boolean, parentMode: FolderMode): Inclusion {
    if (this.onlyFile !== undefined) return !isDirectory && relativePath === this.onlyFile ? 'included' : 'ignored';
    if (this.alwaysIgnored.length > 0 && this.alwaysIgnored.some((folder) => isAtOrBelow(relativePath, folder))) return 'ignored';
    if (this.fathomLayer.decide(relativePath, isDirectory) === true) return 'ignored';
    if (parentMode === 'included' && !this.gitIgnores(relativePath, isDirectory)) return 'included';
    if (isDirectory) return this.trackedFolders.has(relativePath) ? 'trackedOnly' : 'ignored';
    return this.tracked.has(relativePath) ? 'included' : 'ignored';
  }

  /** Judges a path and every folder above it: for single paths reported by the watcher. */
  judgeWithAncestors(relativePath: string, isDirectory: boolean): Inclusion {
    let mode: FolderMode = 'included';
    if (relativePath === '') return mode;
    const parts = relativePath.split('/');
    let folder = '';
    for (let index = 0; index < parts.length - 1; index++) {
      folder = joinRelative(folder, parts[index]!);
      const verdict = this.judge(folder, true, mode);
      if (verdict === 'ignored') return verdict;
      mode = verdict;
    }
    return this.judge(relativePath, isDirectory, mode);
  }
}
