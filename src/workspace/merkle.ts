// The Merkle tree of a workspace's file set. A file's hash is the SHA-256 of its content; a folder's
// is the SHA-256 of its children's (kind, name, hash), sorted by name; the root stands for the whole
// set. Folders exist only while they hold a file (like git). Each file also keeps the (size, mtime,
// inode) it was hashed at, so a restart rehashes only files whose stat changed.
//
// Invariants: a folder's `hash` is null exactly when something below it changed since it was last
// computed (every ancestor of a changed node is null); `fileCount`/`byteCount` always match the tree.
import { createHash } from 'node:crypto';

export interface FileEntry {
  size: number;
  mtimeMs: number;
  ino: number;
  hash: string;
}

export interface DirNode {
  kind: 'dir';
  children: Map<string, TreeNode>;
  hash: string | null;
}

export interface FileNode {
  kind: 'file';
  entry: FileEntry;
}

export type TreeNode = DirNode | FileNode;

export interface TreeDiff {
  added: string[];
  changed: string[];
  removed: string[];
}

export type SetOutcome = 'added' | 'changed' | 'unchanged';

function newDir(): DirNode {
  return { kind: 'dir', children: new Map(), hash: null };
}

const emptyHash = createHash('sha256').digest('hex');

export class MerkleTree {
  readonly root: DirNode = newDir();
  private files = 0;
  private bytes = 0;

  get fileCount(): number {
    return this.files;
  }

  get byteCount(): number {
    return this.bytes;
  }

  /**
   * Builds a tree from entries in walk order (as `filesUnder` yields and the cache stores them):
   * consecutive files of one folder reuse the folder found for the first.
   */
  static fromEntries(entries: Iterable<[string, FileEntry]>): MerkleTree {
    const tree = new MerkleTree();
    let lastFolder: string | undefined;
    let lastDir: DirNode = tree.root;
    for (const [file, entry] of entries) {
      const slash = file.lastIndexOf('/');
      const folder = slash < 0 ? '' : file.slice(0, slash);
      if (folder !== lastFolder) {
        tree.set(file, entry);
        lastFolder = folder;
        lastDir = folder === '' ? tree.root : (tree.nodeAt(folder) as DirNode);
        continue;
      }
      const name = file.slice(slash + 1);
      if (lastDir.children.has(name)) {
        tree.set(file, entry);
        continue;
      }
      lastDir.children.set(name, { kind: 'file', entry });
      tree.files += 1;
      tree.bytes += entry.size;
    }
    return tree;
  }

  /** The node at a workspace-relative path ('' is the root), or undefined. */
  nodeAt(relativePath: string): TreeNode | undefined {
    if (relativePath === '') return this.root;
    let node: TreeNode | undefined = this.root;
    for (const part of relativePath.split('/')) {
      if (node?.kind !== 'dir') return undefined;
      node = node.children.get(part);
    }
    return node;
  }

  /**
   * A file's entry. Remembers the last folder looked up, so a scan asking for the files of one
   * folder in turn walks the path once; any mutation forgets it.
   */
  get(relativePath: string): FileEntry | undefined {
    const slash = relativePath.lastIndexOf('/');
    const folder = slash < 0 ? '' : relativePath.slice(0, slash);
    if (folder !== this.cachedFolderPath) {
      this.cachedFolderPath = folder;
      this.cachedFolder = this.nodeAt(folder);
    }
    const node = this.cachedFolder?.kind === 'dir' ? this.cachedFolder.children.get(relativePath.slice(slash + 1)) : undefined;
    return node?.kind === 'file' ? node.entry : undefined;
  }
  private cachedFolderPath: string | undefined;
  private cachedFolder: TreeNode | undefined;

  /**
   * Puts a file (replacing a folder of the same name, if any). Folder hashes above it go stale only
   * when the content hash changes: a stat-only update keeps them.
   */
  set(relativePath: string, entry: FileEntry): SetOutcome {
    this.cachedFolderPath = undefined;
    const parts = relativePath.split('/');
    const trail: DirNode[] = [this.root];
    let dir = this.root;
    for (let index = 0; index < parts.length - 1; index++) {
      let next = dir.children.get(parts[index]!);
      if (next?.kind !== 'dir') {
        if (next) this.account(next, -1);
        next = newDir();
        dir.children.set(parts[index]!, next);
      }
      trail.push(next);
      dir = next;
    }
    const name = parts[parts.length - 1]!;
    const previous = dir.children.get(name);
    let outcome: SetOutcome;
    if (previous?.kind === 'file') {
      outcome = previous.entry.hash === entry.hash ? 'unchanged' : 'changed';
      this.bytes += entry.size - previous.entry.size;
      previous.entry = entry;
    } else {
      if (previous) this.account(previous, -1);
      dir.children.set(name, { kind: 'file', entry });
      this.files += 1;
      this.bytes += entry.size;
      outcome = 'added';
    }
    if (outcome !== 'unchanged') for (const folder of trail) folder.hash = null;
    return outcome;
  }

  /** Removes a file or a whole folder; returns the removed file paths. Empty folders are pruned. */
  delete(relativePath: string): string[] {
    this.cachedFolderPath = undefined;
    if (relativePath === '') {
      const removed = [...this.filesUnder('')].map(([file]) => file);
      this.root.children.clear();
      this.root.hash = null;
      this.files = 0;
      this.bytes = 0;
      return removed;
    }
    const parts = relativePath.split('/');
    const trail: DirNode[] = [this.root];
    let dir = this.root;
    for (let index = 0; index < parts.length - 1; index++) {
      const next = dir.children.get(parts[index]!);
      if (next?.kind !== 'dir') return [];
      trail.push(next);
      dir = next;
    }
    const name = parts[parts.length - 1]!;
    const node = dir.children.get(name);
    if (!node) return [];
    const removed = node.kind === 'file' ? [relativePath] : [...this.walkFiles(node, relativePath)].map(([file]) => file);
    this.account(node, -1);
    dir.children.delete(name);
    for (let index = trail.length - 1; index >= 0; index--) {
      trail[index]!.hash = null;
      if (index > 0 && trail[index]!.children.size === 0) trail[index - 1]!.children.delete(parts[index - 1]!);
    }
    return removed;
  }

  private account(node: TreeNode, sign: 1 | -1): void {
    for (const [, entry] of this.walkFiles(node, '')) {
      this.files += sign;
      this.bytes += sign * entry.size;
    }
  }

  /** Every file below a path ('' for all; a file path yields that file), depth first. */
  *filesUnder(relativePath: string): Generator<[string, FileEntry]> {
    const node = this.nodeAt(relativePath);
    if (node) yield* this.walkFiles(node, relativePath);
  }

  private *walkFiles(start: TreeNode, at: string): Generator<[string, FileEntry]> {
    if (start.kind === 'file') {
      yield [at, start.entry];
      return;
    }
    // An explicit stack (nested generators would cost O(depth) per file); a folder's files are
    // yielded together, which `fromEntries` relies on for speed.
    const stack: [DirNode, string][] = [[start, at]];
    while (stack.length > 0) {
      const [dir, path] = stack.pop()!;
      for (const [name, child] of dir.children) {
        const childPath = path === '' ? name : `${path}/${name}`;
        if (child.kind === 'file') yield [childPath, child.entry];
        else stack.push([child, childPath]);
      }
    }
  }

  /** The hash of a node, computing any stale folder hashes below it. */
  hashOf(node: TreeNode): string {
    if (node.kind === 'file') return node.entry.hash;
    if (node.hash !== null) return node.hash;
    if (node.children.size === 0) return (node.hash = emptyHash);
    const digest = createHash('sha256');
    const names = [...node.children.keys()].sort();
    for (const name of names) {
      const child = node.children.get(name)!;
      digest.update(`${child.kind === 'dir' ? 'd' : 'f'} ${name}\0${this.hashOf(child)}\n`);
    }
    return (node.hash = digest.digest('hex'));
  }

  rootHash(): string {
    return this.hashOf(this.root);
  }

  /**
   * What changed from `before` to `after`: walks only the branches whose hashes differ, so the cost
   * follows the size of the change, not the size of the tree.
   */
  static diff(before: MerkleTree, after: MerkleTree): TreeDiff {
    const result: TreeDiff = { added: [], changed: [], removed: [] };
    diffDirs(before, before.root, after, after.root, '', result);
    return result;
  }
}

function diffDirs(beforeTree: MerkleTree, before: DirNode, afterTree: MerkleTree, after: DirNode, at: string, out: TreeDiff): void {
  if (beforeTree.hashOf(before) === afterTree.hashOf(after)) return;
  for (const [name, oldChild] of before.children) {
    const path = at === '' ? name : `${at}/${name}`;
    const newChild = after.children.get(name);
    if (!newChild) {
      for (const [file] of beforeTree.filesUnder(path)) out.removed.push(file);
    } else if (oldChild.kind === 'dir' && newChild.kind === 'dir') {
      diffDirs(beforeTree, oldChild, afterTree, newChild, path, out);
    } else if (oldChild.kind === 'file' && newChild.kind === 'file') {
      if (oldChild.entry.hash !== newChild.entry.hash) out.changed.push(path);
    } else {
      for (const [file] of beforeTree.filesUnder(path)) out.removed.push(file);
      for (const [file] of afterTree.filesUnder(path)) out.added.push(file);
    }
  }
  for (const name of after.children.keys()) {
    if (before.children.has(name)) continue;
    const path = at === '' ? name : `${at}/${name}`;
    for (const [file] of afterTree.filesUnder(path)) out.added.push(file);
  }
}
