// Fixture repositories for tests: a tree from one string with `//- path` markers (rust-analyzer's
// fixture style), written into a fresh temp folder, optionally made a git repository.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Every folder tempDir made in this test process: removed when it exits (a suite left ~1,000 behind in /tmp). */
const made: string[] = [];
process.once('exit', () => {
  for (const folder of made) {
    try {
      fs.rmSync(folder, { recursive: true, force: true });
    } catch {
      // A folder made unreadable by its test, or still written by a daemon that outlived it: left.
    }
  }
});

export function tempDir(prefix = 'fathom-test-'): string {
  const folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  made.push(folder);
  return folder;
}

/**
 * Writes files from a spec like
 *   //- src/a.ts
 *   export const a = 1;
 *   //- .gitignore
 *   *.log
 * into `root` (created if needed). Returns root. Each file's lines lose the indentation they all
 * share (their common leading whitespace, blank lines aside), so nested Python or YAML keeps its
 * shape while the spec stays indented with the test around it; whitespace-only lines become empty.
 */
export function writeFixture(spec: string, root: string = tempDir()): string {
  let current: string | undefined;
  let lines: string[] = [];
  const flush = (): void => {
    if (current === undefined) return;
    const file = path.join(root, current);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const text = dedent(lines);
    fs.writeFileSync(file, text.length > 0 ? `${text.join('\n')}\n` : '');
  };
  for (const line of spec.replace(/^\n/, '').split('\n')) {
    const marker = /^\s*\/\/- (.+?)\s*$/.exec(line);
    if (marker) {
      flush();
      current = marker[1]!;
      lines = [];
    } else if (current !== undefined) {
      lines.push(line);
    }
  }
  flush();
  return root;
}

/** Lines without the leading whitespace every non-blank one shares; blank lines become empty. */
export function dedent(lines: readonly string[]): string[] {
  let common: string | undefined;
  for (const line of lines) {
    if (line.trim() === '') continue;
    const indent = /^[ \t]*/.exec(line)![0];
    if (common === undefined || !indent.startsWith(common)) {
      let shared = 0;
      const base = common ?? indent;
      while (shared < base.length && shared < indent.length && base[shared] === indent[shared]) shared += 1;
      common = common === undefined ? indent : base.slice(0, shared);
    }
  }
  const strip = common?.length ?? 0;
  return lines.map((line) => (line.trim() === '' ? '' : line.slice(strip)));
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: cwd, XDG_CONFIG_HOME: path.join(cwd, '.no-xdg') },
  });
}

export function gitInit(root: string): void {
  git(root, 'init', '-q');
  git(root, 'config', 'user.email', 'test@example.invalid');
  git(root, 'config', 'user.name', 'test');
  git(root, 'config', 'gc.auto', '0');
}

/** What git shows: `git ls-files --cached --others --exclude-standard`, sorted, folders dropped. */
export function gitOracle(root: string): string[] {
  return git(root, 'ls-files', '-z', '--cached', '--others', '--exclude-standard')
    .split('\0')
    .filter((name) => name !== '' && !name.endsWith('/'))
    .sort();
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
