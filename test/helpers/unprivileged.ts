// Who the security tests run Fathom as: an ordinary user, so that a refusal they expect is
// Fathom's own check and not a side effect of root's powers (root writes through any mode,
// connects to any socket, and owns the folders socket-folder.ts lets pass). Under root (CI runs
// `.ci/run` as root) that is the system user `fathom-ci`, made here when missing (`useradd
// --system`), with a private HOME (0700, its own) in a temp folder; its children are spawned with
// its uid and gid (Node drops the supplementary groups), HOME, its own FATHOM_CACHE_DIR,
// FATHOM_SOCKET, FATHOM_CONFIG_DIR and TMPDIR in that HOME, and no XDG_* folder of root's. Not root (a
// developer's machine), the tests already run unprivileged: as the current user, as before.
// fathom-ci must read the Fathom it runs (node, dist/, node_modules/, grammars/): where a folder
// above the repository cannot be entered by others (a clone in /root, 0700), the package is
// mirrored with hard links (`cp -al`, no copy of its bytes) into a temp folder it can enter; when
// even that fails the tests skip and say why, and under CI=true they fail instead.
import { execFileSync, spawnSync, type SpawnOptions, type SpawnSyncOptions, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './fixture.js';

export const userName = 'fathom-ci';

/** The Fathom repository these tests were built in (dist/test/helpers/ is three folders below it). */
const repository = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/$/, '');

/** What the package needs at run time, relative to its root. */
const packageEntries = ['package.json', 'bin', 'dist', 'node_modules', 'grammars', 'models', 'model'];

/** Files the user must be able to read for Fathom to run as it (the reachability probe). */
const probeFiles = [
  'package.json',
  'dist/src/cli/main.js',
  'node_modules/typescript/lib/tsserver.js',
  'node_modules/typescript-language-server/package.json',
  'grammars/manifest.json',
];

/** Environment a switched child must not inherit from root: each names a folder of root's. */
const rootsFolders = [
  'HOME',
  'USER',
  'LOGNAME',
  'XDG_RUNTIME_DIR',
  'XDG_CACHE_HOME',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_STATE_HOME',
  'FATHOM_SOCKET',
  'FATHOM_CACHE_DIR',
  'FATHOM_CONFIG_DIR',
];

export interface RunAs {
  /** True under root: children run as fathom-ci. False: as the current user (already unprivileged). */
  switched: boolean;
  uid: number;
  gid: number;
  name: string;
  /** Its private HOME (switched), else the current HOME. */
  home: string;
  /** Said in test names: who the tests run Fathom as. */
  who: string;
  /** Why the tests cannot run as this user (for `test(…, { skip })`), or false. */
  skip: string | false;
  /** The Fathom package as this user reaches it: the repository, or its hard-linked mirror. */
  repository: string;
  /** `dist/src/cli/main.js` in that package. */
  cliMain: string;
  /** Makes `folder` (and all below it, symlinks themselves not followed) the user's; answers it. */
  own(folder: string): string;
  /** A fresh temp folder (0700) of the user's. */
  tempDir(prefix?: string): string;
  /** Options to spawn a child as the user: uid, gid, cwd and its environment, with `env` on top. */
  spawnOptions(env?: Record<string, string>): SpawnOptions & SpawnSyncOptions;
  /** Runs `command` as the user (utf8 output). */
  spawnSync(command: string, args: string[], options?: SpawnSyncOptions & { env?: Record<string, string> }): SpawnSyncReturns<string>;
}

/** The user's uid and gid, adding the system user when it is missing (another test process may add it at the same time). */
function ensureUser(): { uid: number; gid: number } {
  const lookUp = (): { uid: number; gid: number } | undefined => {
    const uid = spawnSync('id', ['-u', userName], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', userName], { encoding: 'utf8' });
    if (uid.status !== 0 || gid.status !== 0) return undefined;
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  };
  const found = lookUp();
  if (found) return found;
  const added = spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', userName], { encoding: 'utf8' });
  // Exit 9: it exists (a race with another test process); anything else is told below, unless the user is there now.
  const after = lookUp();
  if (after) return after;
  throw new Error(`could not add the system user ${userName} (useradd ${added.status ?? added.error?.message}): ${added.stderr}`);
}

/** Why `uid` cannot run the package at `root` (with `home` its HOME), or undefined when it can. */
function unreachable(root: string, uid: number, gid: number, home: string): string | undefined {
  const files = probeFiles.map((file) => path.join(root, file)).filter((file) => fs.existsSync(file));
  const script = `const fs = require('fs');
    for (const file of ${JSON.stringify(files)}) fs.accessSync(file, fs.constants.R_OK);
    fs.accessSync(${JSON.stringify(home)}, fs.constants.R_OK | fs.constants.W_OK | fs.constants.X_OK);`;
  const probe = spawnSync(process.execPath, ['-e', script], { uid, gid, cwd: '/', encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  if (probe.error) return `${userName} cannot run ${process.execPath}: ${probe.error.message}`;
  if (probe.status !== 0) return `${userName} cannot read the package at ${root}: ${(/Error: .*/.exec(probe.stderr)?.[0] ?? probe.stderr).trim()}`;
  return undefined;
}

/** The package hard-linked into a temp folder anyone may enter; answers its root, or why it could not. */
function mirrorPackage(): { root: string } | { problem: string } {
  const mirror = tempDir('fathom-ci-package-');
  fs.chmodSync(mirror, 0o755);
  for (const entry of packageEntries) {
    if (!fs.existsSync(path.join(repository, entry))) continue;
    const copied = spawnSync('cp', ['-al', path.join(repository, entry), mirror], { encoding: 'utf8' });
    if (copied.status !== 0) return { problem: `cp -al ${entry} into ${mirror} failed: ${copied.stderr.trim()}` };
  }
  return { root: mirror };
}

function switchedUser(): RunAs {
  const { uid, gid } = ensureUser();
  const home = tempDir('fathom-ci-home-');
  fs.mkdirSync(path.join(home, 'tmp'));
  for (const folder of [home, path.join(home, 'tmp')]) {
    fs.chownSync(folder, uid, gid);
    fs.chmodSync(folder, 0o700);
  }
  const own = (folder: string): string => {
    execFileSync('chown', ['-R', '-h', `${uid}:${gid}`, folder]);
    return folder;
  };
  let root = repository;
  let skip: string | false = false;
  const direct = unreachable(repository, uid, gid, home);
  if (direct) {
    const mirrored = mirrorPackage();
    const problem = 'problem' in mirrored ? mirrored.problem : unreachable(mirrored.root, uid, gid, home);
    if (problem !== undefined) skip = `${direct}; and the hard-linked mirror failed: ${problem}`;
    else if ('root' in mirrored) root = mirrored.root;
  }
  const environment = (env: Record<string, string> = {}): NodeJS.ProcessEnv => {
    const base: NodeJS.ProcessEnv = { ...process.env };
    for (const name of rootsFolders) delete base[name];
    return {
      ...base,
      HOME: home,
      USER: userName,
      LOGNAME: userName,
      FATHOM_CACHE_DIR: path.join(home, 'cache'),
      FATHOM_CONFIG_DIR: path.join(home, 'config'),
      FATHOM_SOCKET: path.join(home, 'run', 'fathom.sock'),
      // What its language servers leave in a temp folder is removed with the HOME.
      TMPDIR: path.join(home, 'tmp'),
      ...env,
    };
  };
  const spawnOptions = (env: Record<string, string> = {}): SpawnOptions & SpawnSyncOptions => ({ uid, gid, cwd: home, env: environment(env) });
  return {
    switched: true,
    uid,
    gid,
    name: userName,
    home,
    who: `as ${userName} (uid ${uid}), not root`,
    skip,
    repository: root,
    cliMain: path.join(root, 'dist', 'src', 'cli', 'main.js'),
    own,
    tempDir: (prefix) => own(tempDir(prefix)),
    spawnOptions,
    spawnSync: (command, args, { env, ...options } = {}) => spawnSync(command, args, { ...spawnOptions(env), ...options, encoding: 'utf8' }),
  };
}

function currentUser(): RunAs {
  const uid = process.getuid?.() ?? -1;
  const spawnOptions = (env: Record<string, string> = {}): SpawnOptions & SpawnSyncOptions => ({ env: { ...process.env, ...env } });
  return {
    switched: false,
    uid,
    gid: process.getgid?.() ?? -1,
    name: process.env.USER ?? String(uid),
    home: process.env.HOME ?? '',
    who: `as the current user (uid ${uid}): not root, so already unprivileged`,
    skip: false,
    repository,
    cliMain: path.join(repository, 'dist', 'src', 'cli', 'main.js'),
    own: (folder) => folder,
    tempDir: (prefix) => tempDir(prefix),
    spawnOptions,
    spawnSync: (command, args, { env, ...options } = {}) => spawnSync(command, args, { ...spawnOptions(env), ...options, encoding: 'utf8' }),
  };
}

let chosen: RunAs | undefined;

/**
 * The user the security tests run Fathom as (one per test process). Under CI=true a user that
 * cannot run Fathom is an error, not a skip.
 */
export function unprivileged(): RunAs {
  if (chosen) return chosen;
  chosen = process.getuid?.() === 0 ? switchedUser() : currentUser();
  if (chosen.skip && process.env.CI) throw new Error(`CI=true: the security tests must run as ${userName}, and cannot: ${chosen.skip}`);
  return chosen;
}
