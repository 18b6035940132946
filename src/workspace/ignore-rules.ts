// Decides which paths under a workspace root are excluded by ignore rules, the way git would:
// .gitignore at every level (deeper files override shallower ones), .git/info/exclude, the global
// excludes file, `!` negation, and tracked files shown whatever the rules say. Outside a git
// repository .gitignore files are not applied (like ripgrep: an unpacked tarball may ship one that
// ignores everything). `.fathomignore` files, same syntax, always apply, after git's decision: a path
// is in the set only if git would show it and .fathomignore does not exclude it.
//
// Invariant: rule files are parsed once and cached per folder until `invalidate` is called for it.
import ignore, { type Ignore } from 'ignore';
import path from 'node:path';
import { joinRelative, parentOf } from '../base/paths.js';
import { findGitContext, readGlobalExcludes, readTextIfExists, readTrackedIgnored, type GitContext } from './git-context.js';

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

  /** Records that a folder holds no rules file (the scanner saw its listing), sparing a failed read. */
  noteAbsent(folder: string): void {
    if (!this.rules.has(folder)) this.rules.set(folder, null);
  }

  invalidate(folder: string): void {
    this.rules.delete(folder);
    this.chains.clear();
  }
}

/** Git matches case-sensitively (core.ignoreCase is for case-insensitive file systems). */
function newRules(text: string): Ignore {
  return ignore({ allowRelativePaths: true, ignorecase: false }).add(text);
}

export class IgnoreRules {
  private readonly fathomLayer: RuleLayer;
  private readonly gitLayer: RuleLayer | undefined;
  private repositoryRules: Ignore[] = [];
  private tracked = new Set<string>();
  private trackedFolders = new Set<string>();

  private constructor(
    readonly root: string,
    readonly git: GitContext | undefined,
  ) {
    this.fathomLayer = new RuleLayer(root, fathomignoreName);
    this.gitLayer = git ? new RuleLayer(git.topLevel, gitignoreName) : undefined;
  }

  static async load(root: string): Promise<IgnoreRules> {
    const rules = new IgnoreRules(root, findGitContext(root));
    await rules.reloadRepositoryState();
    return rules;
  }

  /** Re-reads info/exclude, the global excludes and the tracked-but-ignored list. Returns true if any changed. */
  async reloadRepositoryState(): Promise<boolean> {
    if (!this.git) return false;
    const before = [...this.tracked].sort().join('\0') + this.repositoryRulesText;
    const exclude = readTextIfExists(path.join(this.git.gitDir, 'info', 'exclude')) ?? '';
    const global = (await readGlobalExcludes(this.root)) ?? '';
    this.repositoryRulesText = `${exclude}\0${global}`;
    // info/exclude outranks the global file: it is consulted first.
    this.repositoryRules = [newRules(exclude), newRules(global)];
    this.tracked = new Set(await readTrackedIgnored(this.root));
    this.trackedFolders = new Set();
    for (const file of this.tracked) {
      for (let folder = parentOf(file); folder !== ''; folder = parentOf(folder)) this.trackedFolders.add(folder);
    }
    return before !== [...this.tracked].sort().join('\0') + this.repositoryRulesText;
  }
  private repositoryRulesText = '';

  /** Whether a rules file name is one this object reads (a change to it calls for `invalidate`). */
  static isRulesFile(baseName: string): boolean {
    return baseName === gitignoreName || baseName === fathomignoreName;
  }

  /** Called by the scanner with a folder's listing, before it classifies the folder's entries. */
  noteListing(folder: string, names: readonly string[]): void {
    if (!names.includes(fathomignoreName)) this.fathomLayer.noteAbsent(folder);
    if (this.gitLayer && !names.includes(gitignoreName)) this.gitLayer.noteAbsent(joinRelative(this.git!.prefix, folder));
  }

  /** Forget the parsed rules of one folder (its .gitignore or .fathomignore changed). */
  invalidate(folder: string): void {
    this.fathomLayer.invalidate(folder);
    this.gitLayer?.invalidate(joinRelative(this.git!.prefix, folder));
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
   * Whether a path is excluded, judging the path alone: its ancestors are assumed to be included
   * (the scanner only descends into included folders). A git-ignored folder holding tracked files is
   * not excluded, so the scanner descends and finds them.
   */
  isIgnored(relativePath: string, isDirectory: boolean): boolean {
    if (this.fathomLayer.decide(relativePath, isDirectory) === true) return true;
    if (!this.gitIgnores(relativePath, isDirectory)) return false;
    return isDirectory ? !this.trackedFolders.has(relativePath) : !this.tracked.has(relativePath);
  }

  /** Whether a path or any folder above it is excluded: for single paths reported by the watcher. */
  isIgnoredWithAncestors(relativePath: string, isDirectory: boolean): boolean {
    const parts = relativePath.split('/');
    let folder = '';
    for (let index = 0; index < parts.length - 1; index++) {
      folder = joinRelative(folder, parts[index]!);
      if (this.isIgnored(folder, true)) return true;
    }
    return this.isIgnored(relativePath, isDirectory);
  }
}
