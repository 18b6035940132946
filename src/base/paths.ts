// Path conventions shared by every layer (imports only base/errors). Inside Fathom a workspace path is relative to the root,
// uses '/' separators and never starts with './' or '/'; '' is the root itself.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FathomError } from './errors.js';

/** Joins a workspace-relative folder and a name ('' is the root). */
export function joinRelative(folder: string, name: string): string {
  return folder === '' ? name : `${folder}/${name}`;
}

/** The parent folder of a workspace-relative path ('' for top-level entries). */
export function parentOf(relativePath: string): string {
  const slash = relativePath.lastIndexOf('/');
  return slash < 0 ? '' : relativePath.slice(0, slash);
}

export function baseName(relativePath: string): string {
  return relativePath.slice(relativePath.lastIndexOf('/') + 1);
}

/** True when `relativePath` is `folder` or lies below it. */
export function isAtOrBelow(relativePath: string, folder: string): boolean {
  return folder === '' || relativePath === folder || relativePath.startsWith(`${folder}/`);
}

/**
 * Converts an absolute path to a workspace-relative one, or undefined when it lies outside.
 * Both arguments must be absolute and normalised.
 */
export function toRelative(root: string, absolutePath: string): string | undefined {
  const relative = path.relative(root, absolutePath);
  if (relative === '') return '';
  // '..foo' is a name inside the root; only '..' itself or a '../' prefix leaves it.
  if (relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) return undefined;
  return path.sep === '/' ? relative : relative.split(path.sep).join('/');
}

export function toAbsolute(root: string, relativePath: string): string {
  return relativePath === '' ? root : path.join(root, relativePath);
}

/** Accepts a file:// URI or a path and returns an absolute path (relative paths against `base`). */
export function pathFromUriOrPath(value: string, base: string = process.cwd()): string {
  if (!value.startsWith('file:')) return path.resolve(base, value);
  try {
    return fileURLToPath(value);
  } catch (error) {
    throw new FathomError('invalidParams', `${value} is not a local file URI: ${(error as Error).message}`);
  }
}

/**
 * The real path `absolute` names, also for a file that does not exist yet: the deepest part that
 * exists is resolved (symlinks followed, a dangling one's target too) and the rest appended. A
 * new file below a symlinked folder is thus named where a write would put it, which is what
 * decides whether it lies inside a workspace.
 */
export function realPathForWrite(absolute: string): string {
  let rest: string[] = [];
  let current = path.resolve(absolute);
  for (let links = 0; ;) {
    try {
      return path.join(fs.realpathSync(current), ...rest);
    } catch {
      // Not there (or not reachable): a dangling symlink is followed to its target, else one level up.
    }
    let target: string | undefined;
    try {
      if (fs.lstatSync(current).isSymbolicLink()) target = path.resolve(path.dirname(current), fs.readlinkSync(current));
    } catch {
      target = undefined;
    }
    if (target !== undefined && links++ < 40) {
      current = target;
      continue;
    }
    const parent = path.dirname(current);
    if (parent === current) return path.join(current, ...rest);
    rest = [path.basename(current), ...rest];
    current = parent;
  }
}

/**
 * Throws pathOutsideWorkspace unless the folder a write to `absolute` lands in is, really, inside
 * `root` (a real path): checked right before a write, so a folder swapped for a symlink after the
 * request was checked is caught too (up to the moment of the write itself).
 */
export function assertWritableInside(root: string, absolute: string): void {
  const real = realPathForWrite(absolute);
  const relative = toRelative(root, real);
  if (relative === undefined || relative === '')
    throw new FathomError(
      'pathOutsideWorkspace',
      `${absolute} resolves to ${real}, outside the workspace ${root} (through a symbolic link): nothing was written`,
      { path: absolute },
    );
}

/**
 * Paths a client named inside a workspace (files or folders: absolute, file:// or relative to
 * `root`, a real path) as workspace-relative paths ('' for the root itself); one outside is a
 * pathOutsideWorkspace error.
 */
export function pathsWithin(root: string, values: readonly string[]): string[] {
  return values.map((value) => {
    const relative = toRelative(root, realPathForWrite(pathFromUriOrPath(value, root)));
    if (relative === undefined) throw new FathomError('pathOutsideWorkspace', `path ${value} is outside the workspace ${root}`, { path: value });
    return relative;
  });
}
