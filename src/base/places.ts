// Where a user's Fathom keeps things, and which Fathom this is: the daemon's socket, the cache and
// settings folders (XDG base directories; FATHOM_SOCKET, FATHOM_CACHE_DIR, FATHOM_CONFIG_DIR
// override them), each workspace's folder in the cache, and the package's version. One definition for the daemon (daemon/config.ts
// builds its settings on these) and the CLI's client path, which finds the socket and the daemon's
// log without loading the daemon (nor node:crypto: the cache folder's name is hashed by sha256.ts).
// Imports only sha256.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sha256Hex } from './sha256.js';

export function defaultCacheRoot(): string {
  if (process.env.FATHOM_CACHE_DIR) return path.resolve(process.env.FATHOM_CACHE_DIR);
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'fathom');
}

export function defaultConfigDir(): string {
  if (process.env.FATHOM_CONFIG_DIR) return path.resolve(process.env.FATHOM_CONFIG_DIR);
  return path.join(process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'fathom');
}

/**
 * The cache folder of one workspace: named by a hash of its root (and, for a one-file workspace,
 * its file: never the folder workspace's), with the root written inside.
 */
export function workspaceCacheDir(cacheRoot: string, root: string, onlyFile?: string): string {
  const key = sha256Hex(onlyFile === undefined ? root : `${root}\0${onlyFile}`).slice(0, 16);
  return path.join(cacheRoot, 'workspaces', key);
}

/** A workspace's saved file set in its cache folder (workspace/file-set-store.ts writes it). */
export function fileSetFile(cacheDir: string): string {
  return path.join(cacheDir, 'fileset.bin');
}

/** The socket a user's daemon listens on: $FATHOM_SOCKET, else in $XDG_RUNTIME_DIR, else a per-user temp folder. */
export function defaultSocketPath(): string {
  if (process.env.FATHOM_SOCKET) return path.resolve(process.env.FATHOM_SOCKET);
  const runtime = process.env.XDG_RUNTIME_DIR;
  if (runtime && fs.existsSync(runtime)) return path.join(runtime, 'fathom', 'fathom.sock');
  const uid = typeof process.getuid === 'function' ? process.getuid() : os.userInfo().username;
  return path.join(os.tmpdir(), `fathom-${uid}`, 'fathom.sock');
}

/** The version in the package.json Fathom runs from (dist/src/base/ is three folders below it). */
export function readPackageVersion(): string {
  try {
    const file = new URL('../../../package.json', import.meta.url);
    return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}
