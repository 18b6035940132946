// A request's workspace root, checked: an absolute path or file:// URI of a readable folder, its
// real path, never inside Fathom's own cache or settings folder. Light (no engine), so that the
// daemon checks a root the same way before its engines are loaded (loading.ts) and after
// (workspaces.ts).
import fs from 'node:fs';
import path from 'node:path';
import { FathomError } from '../base/errors.js';
import { pathFromUriOrPath, realPathForWrite, toRelative } from '../base/paths.js';

/** A folder of Fathom's own, by what it is called in errors. */
export interface OwnFolder {
  name: string;
  folder: string;
}

/** Fathom's cache and settings folders (real paths): never part of any file set. */
export function ownFoldersOf(cacheRoot: string, configDir: string): OwnFolder[] {
  return [
    { name: 'cache folder', folder: realPathForWrite(cacheRoot) },
    { name: 'settings folder', folder: realPathForWrite(configDir) },
  ];
}

/** Refuses a path inside one of Fathom's own folders (`field`: the param that named it). */
export function refuseOwnFolder(absolute: string, field: string, ownFolders: readonly OwnFolder[]): void {
  for (const { name, folder } of ownFolders) {
    if (toRelative(folder, absolute) !== undefined)
      throw new FathomError('invalidParams', `${absolute} is inside Fathom's ${name} ${folder}, which is never indexed`, { field });
  }
}

/** The real path of the folder a root param names, or a FathomError saying what is wrong with it. */
export function resolveRootParam(value: string, field: string, ownFolders: readonly OwnFolder[]): string {
  if (value === '') throw new FathomError('invalidParams', `params.${field} must be a folder's absolute path or file:// URI, not empty`, { field });
  if (!value.startsWith('file:') && !path.isAbsolute(value))
    throw new FathomError(
      'invalidParams',
      `params.${field} must be an absolute path or a file:// URI (got the relative path ${JSON.stringify(value)}; it would be read against the daemon's working folder)`,
      { field },
    );
  const absolute = pathFromUriOrPath(value);
  let real: string;
  try {
    real = fs.realpathSync(absolute);
  } catch {
    throw new FathomError('workspaceNotFound', `workspace root ${absolute} does not exist`, { root: value });
  }
  if (!fs.statSync(real).isDirectory()) throw new FathomError('workspaceNotFound', `workspace root ${real} is not a folder`, { root: value });
  try {
    fs.accessSync(real, fs.constants.R_OK | fs.constants.X_OK);
  } catch {
    throw new FathomError('workspaceNotFound', `workspace root ${real} cannot be read`, { root: value });
  }
  refuseOwnFolder(real, field, ownFolders);
  return real;
}
