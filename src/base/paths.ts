// Path conventions shared by every layer (imports only base/errors). Inside Fathom a workspace path is relative to the root,
// uses '/' separators and never starts with './' or '/'; '' is the root itself.
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
