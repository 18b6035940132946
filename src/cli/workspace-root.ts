// How the `fathom` command picks the workspace a command is about when the user does not name one.
// The implicit root is the nearest git repository's top folder above the current folder (or above a
// FILE), else the folder itself: but never a folder too broad to index without being asked (the
// file system's root, a top-level system folder such as /etc or /usr, the home folder or a folder
// above it), not even when it is a git repository (dotfiles kept in a repository at $HOME), and
// never a folder outside every repository that holds more than FATHOM_IMPLICIT_MAX_FILES files
// (default 20,000: a downloads or data folder) unless Fathom indexed it before (it has a cache
// folder). A PATH the user names is used as given, whatever it is. A FILE outside any repository
// gets no root at all: the daemon answers it on its own (a one-file workspace). Called by main.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultCacheRoot, workspaceCacheDir } from '../base/places.js';

/** Files a folder outside every repository may hold and still become a root unasked. */
function implicitMaxFiles(): number {
  const value = Number(process.env.FATHOM_IMPLICIT_MAX_FILES);
  return Number.isFinite(value) && value > 0 ? value : 20_000;
}

/** Whether `folder` holds more than `limit` files (a walk that stops at the limit; unreadable folders count nothing). */
function holdsMoreThan(folder: string, limit: number): boolean {
  let files = 0;
  const pending = [folder];
  while (pending.length > 0) {
    const current = pending.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(current, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.isDirectory()) pending.push(path.join(current, entry.name));
      else if (++files > limit) return true;
    }
  }
  return false;
}

/** Why a folder is too broad to be a workspace nobody asked for; undefined when it is not. */
export function broadFolderReason(folder: string): string | undefined {
  const resolved = path.resolve(folder);
  const home = path.resolve(os.homedir());
  if (path.dirname(resolved) === resolved) return "the file system's root";
  if (resolved === home) return 'your home folder';
  if (home.startsWith(`${resolved}${path.sep}`)) return 'a folder above your home folder';
  if (path.dirname(resolved) === path.parse(resolved).root) return 'a top-level system folder';
  if (resolved === path.resolve(os.tmpdir())) return 'the temporary folder';
  return undefined;
}

/**
 * The top folder of the nearest git repository at or above `start` (a folder), unless that folder
 * is too broad (then undefined: a repository at $HOME does not make $HOME every command's root).
 */
export function repositoryRoot(start: string): string | undefined {
  for (let folder = path.resolve(start); ; folder = path.dirname(folder)) {
    if (fs.existsSync(path.join(folder, '.git'))) return broadFolderReason(folder) === undefined ? folder : undefined;
    if (path.dirname(folder) === folder) return undefined;
  }
}

/**
 * The workspace a folder command is about when no PATH is given: the repository around `start`,
 * else `start` itself. Throws (saying how to ask for it) when that is too broad.
 */
export function implicitRoot(start: string): string {
  const repository = repositoryRoot(start);
  const root = repository ?? path.resolve(start);
  const reason = broadFolderReason(root);
  if (reason !== undefined) {
    throw new Error(
      `${root} is ${reason}, and no project's git repository holds the current folder: Fathom indexes such a folder only when it is named. Name it as PATH (for example: fathom index ${root}), or run the command inside a project`,
    );
  }
  if (repository === undefined && !fs.existsSync(workspaceCacheDir(defaultCacheRoot(), root))) {
    const limit = implicitMaxFiles();
    if (holdsMoreThan(root, limit)) {
      throw new Error(
        `${root} holds more than ${limit} files and no project's git repository holds it: Fathom indexes such a folder only when it is named (once). Name it as PATH (for example: fathom index ${root}), or run the command inside a project (FATHOM_IMPLICIT_MAX_FILES sets the limit)`,
      );
    }
  }
  return root;
}

/** The folder a command is about: PATH as named (absolute), else the workspace around the current folder. */
export function rootOf(target: string | undefined): string {
  return target === undefined ? implicitRoot(process.cwd()) : path.resolve(target);
}
