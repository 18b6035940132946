// Which workspaces a `fathom grep`, `search` or `symbols` asks: the PATHs given, each inside its
// workspace (the git repository around it), or `--all` (every workspace the daemon holds). PATHs
// inside one workspace make one question narrowed to them; PATHs in several workspaces make a
// question across roots, its results labelled by root (printed as the root's path, relative to
// the current folder when under it, then the file's path in the root). Part of the thin client
// path: no daemon code.
import path from 'node:path';
import { repositoryRoot } from './workspace-root.js';
import { UsageError } from './usage-error.js';

export type Scope = { kind: 'one'; root: string; paths: string[] } | { kind: 'across'; roots: string[] } | { kind: 'all' };

/** The scope of `targets` (PATH arguments, maybe none: then `implicit()`, the current workspace). */
export function scopeOf(targets: string[], all: boolean, implicit: () => string): Scope {
  if (all) {
    if (targets.length > 0) throw new UsageError('--all asks every workspace the daemon holds: give no PATH with it');
    return { kind: 'all' };
  }
  if (targets.length === 0) return { kind: 'one', root: implicit(), paths: [] };
  const places = targets.map((target) => {
    const absolute = path.resolve(target);
    const root = repositoryRoot(absolute) ?? absolute;
    return { target, root, within: path.relative(root, absolute).split(path.sep).join('/') };
  });
  const roots = [...new Set(places.map((place) => place.root))];
  if (roots.length === 1) return { kind: 'one', root: roots[0]!, paths: places.map((place) => place.within).filter((within) => within !== '') };
  const narrowed = places.find((place) => place.within !== '');
  if (narrowed)
    throw new UsageError(
      `${narrowed.target} is inside the workspace ${narrowed.root}: a question across workspaces takes whole workspaces (name ${narrowed.root}), a folder narrows a question of one`,
    );
  return { kind: 'across', roots };
}

/** How a root is shown before its files' paths: relative to `cwd` when under it ('' for cwd itself), else absolute. */
export function rootLabel(root: string, cwd: string = process.cwd()): string {
  const relative = path.relative(cwd, root);
  if (relative === '') return '';
  return relative.startsWith('..') || path.isAbsolute(relative) ? root : relative;
}

/** A file's path as printed in an answer across roots. */
export function labelled(label: string, file: string): string {
  return label === '' ? file : `${label}/${file}`;
}
