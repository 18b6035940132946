// Makes folders in Fathom's cache, setting aside whatever is in the way. The cache is Fathom's own
// and can always be rebuilt: a file, a dangling link or anything else that is not a folder where a
// cache folder belongs (the cache root itself, `workspaces`, a workspace's folder) is renamed to
// `<name>.broken-<time>`, with a warning in the log, and the folder made anew, so that requests go
// on working instead of failing with EEXIST or ENOTDIR forever. Nothing is deleted. Called by the
// daemon's workspace manager (the cache root at start, a workspace's folder when it opens), the
// result files, and the CLI before it starts a daemon that logs into the cache root.
import fs from 'node:fs';
import path from 'node:path';
import { errorMessage } from './errors.js';
import { log } from './logger.js';

/** Whether a path is a folder, following a symbolic link (a link to a folder serves as one). */
function isFolder(absolute: string): boolean {
  try {
    return fs.statSync(absolute).isDirectory();
  } catch {
    return false;
  }
}

/** Renames what is at `absolute` to `<absolute>.broken-<time>` (a free name); answers the new name. */
function setAside(absolute: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  for (let attempt = 0; ; attempt++) {
    const target = `${absolute}.broken-${stamp}${attempt === 0 ? '' : `-${attempt}`}`;
    if (fs.existsSync(target)) continue;
    fs.renameSync(absolute, target);
    return target;
  }
}

/**
 * Makes `folder` a folder (mode 0700), and every folder from `within` down to it. Anything that is
 * not a folder at `within` or below it, on the way to `folder`, is set aside first. Folders above
 * `within` are not Fathom's: a file there is an error, thrown as it is.
 */
export function makeCacheFolder(folder: string, within: string = folder): void {
  try {
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // EEXIST, ENOTDIR: a file in the way; ENOENT: a dangling symbolic link in the way.
    if (code !== 'EEXIST' && code !== 'ENOTDIR' && code !== 'ENOENT') throw error;
  }
  const top = path.resolve(within);
  const relative = path.relative(top, path.resolve(folder));
  if (relative.startsWith('..') || path.isAbsolute(relative)) throw new Error(`${folder} is not inside ${within}`);
  let current = top;
  for (const part of ['', ...relative.split(path.sep).filter((name) => name !== '')]) {
    current = part === '' ? current : path.join(current, part);
    let stat: fs.Stats | undefined;
    try {
      stat = fs.lstatSync(current, { throwIfNoEntry: false });
    } catch (error) {
      throw new Error(`cannot make the cache folder ${folder}: ${errorMessage(error)}`, { cause: error });
    }
    if (stat === undefined) break;
    if (stat.isDirectory() || isFolder(current)) continue;
    const target = setAside(current);
    log.warn(
      `the cache folder ${current} was not a folder (${stat.isSymbolicLink() ? 'a broken symbolic link' : stat.isFile() ? 'a file' : 'not a folder'}): set aside as ${target}; rebuilding the cache there`,
    );
    break;
  }
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
}
