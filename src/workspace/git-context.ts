// Finds the git repository a workspace root belongs to and reads the repository-wide facts the file
// set needs: the git dir (and a worktree's common dir), core.excludesFile and the tracked files
// (git shows tracked files whatever .gitignore says). Used by ignore-rules.ts.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { log } from '../base/logger.js';

const run = promisify(execFile);

export interface GitContext {
  /** The work tree's top-level folder (absolute). */
  topLevel: string;
  /** The repository's git dir (absolute): `.git`, or where a `.git` file points. */
  gitDir: string;
  /** Where info/exclude lives: the git dir, or for a linked worktree the main repository's. */
  commonDir: string;
  /** The workspace root relative to topLevel, '/'-separated ('' when the root is the top level). */
  prefix: string;
}

/** Walks up from `root` to the nearest folder holding `.git`; undefined outside any repository. */
export function findGitContext(root: string): GitContext | undefined {
  let folder = root;
  for (;;) {
    const dotGit = path.join(folder, '.git');
    const stat = fs.statSync(dotGit, { throwIfNoEntry: false });
    if (stat?.isDirectory()) return context(folder, dotGit, root);
    if (stat?.isFile()) {
      const pointer = /^gitdir:\s*(.+)\s*$/m.exec(fs.readFileSync(dotGit, 'utf8'));
      if (pointer) return context(folder, path.resolve(folder, pointer[1]!), root);
    }
    const parent = path.dirname(folder);
    if (parent === folder) return undefined;
    folder = parent;
  }
}

function context(topLevel: string, gitDir: string, root: string): GitContext {
  const prefix = path.relative(topLevel, root).split(path.sep).join('/');
  const common = readTextIfExists(path.join(gitDir, 'commondir'))?.trim();
  return { topLevel, gitDir, commonDir: common ? path.resolve(gitDir, common) : gitDir, prefix };
}

export function readTextIfExists(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

async function gitOutput(cwd: string, args: string[]): Promise<string | undefined> {
  try {
    const { stdout } = await run('git', args, { cwd, maxBuffer: 256 * 1024 * 1024, timeout: 60_000 });
    return stdout;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    // Exit status 1 from `git config --get` means "not set"; ENOENT means git is not installed.
    if (code !== 1 && code !== 'ENOENT') log.debug(`git ${args.join(' ')} in ${cwd}: ${(error as Error).message}`);
    return undefined;
  }
}

/** The global excludes file's text: core.excludesFile, else git's default location. */
export async function readGlobalExcludes(root: string): Promise<string | undefined> {
  const configured = (await gitOutput(root, ['config', '--path', '--get', 'core.excludesFile']))?.trim();
  const home = os.homedir();
  const xdg = process.env.XDG_CONFIG_HOME || path.join(home, '.config');
  const file = configured ? configured.replace(/^~(?=$|\/)/, home) : path.join(xdg, 'git', 'ignore');
  return readTextIfExists(path.resolve(root, file));
}

/**
 * The files under `root` that git tracks, root-relative. Empty when git is not installed (then
 * ignore rules alone decide).
 */
export async function readTracked(root: string): Promise<string[]> {
  const output = await gitOutput(root, ['ls-files', '-z', '--cached', '--full-name']);
  if (!output) return [];
  const prefix = (await gitOutput(root, ['rev-parse', '--show-prefix']))?.trim() ?? '';
  return output
    .split('\0')
    .filter((name) => name !== '' && name.startsWith(prefix))
    .map((name) => name.slice(prefix.length));
}
