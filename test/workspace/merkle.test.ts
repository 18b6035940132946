// The Merkle tree: diff cases (add, change, delete, rename, nested folders, kind changes), hashes
// that depend only on content (any order of operations gives the same root), and the persisted
// file-set format (round trip, corruption and old versions detected).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { decodeFileSet, encodeFileSet, fileSetFormatVersion, type FileSetSnapshot } from '../../src/workspace/file-set-store.js';
import { MerkleTree, type TreeDiff } from '../../src/workspace/merkle.js';

function tree(files: Record<string, string>): MerkleTree {
  const result = new MerkleTree();
  for (const [file, content] of Object.entries(files)) {
    result.set(file, { size: content.length, mtimeMs: 1, ino: 1, hash: createHash('sha256').update(content).digest('hex') });
  }
  return result;
}

function sorted(diff: TreeDiff): TreeDiff {
  return { added: [...diff.added].sort(), changed: [...diff.changed].sort(), removed: [...diff.removed].sort() };
}

const diffCases: { name: string; before: Record<string, string>; after: Record<string, string>; expected: TreeDiff }[] = [
  {
    name: 'nothing changed',
    before: { 'a.ts': '1', 'src/b.ts': '2' },
    after: { 'a.ts': '1', 'src/b.ts': '2' },
    expected: { added: [], changed: [], removed: [] },
  },
  { name: 'add', before: { 'a.ts': '1' }, after: { 'a.ts': '1', 'src/new.ts': 'n' }, expected: { added: ['src/new.ts'], changed: [], removed: [] } },
  {
    name: 'change',
    before: { 'a.ts': '1', 'src/b.ts': '2' },
    after: { 'a.ts': '1', 'src/b.ts': '3' },
    expected: { added: [], changed: ['src/b.ts'], removed: [] },
  },
  { name: 'delete', before: { 'a.ts': '1', 'src/b.ts': '2' }, after: { 'a.ts': '1' }, expected: { added: [], changed: [], removed: ['src/b.ts'] } },
  {
    name: 'rename',
    before: { 'src/old.ts': 'x', 'y.ts': 'y' },
    after: { 'src/new.ts': 'x', 'y.ts': 'y' },
    expected: { added: ['src/new.ts'], changed: [], removed: ['src/old.ts'] },
  },
  {
    name: 'nested folders: only the changed branch',
    before: { 'a/b/c/d.ts': '1', 'a/b/c/e.ts': '2', 'a/x/y.ts': '3', 'z.ts': '4' },
    after: { 'a/b/c/d.ts': '1', 'a/b/c/e.ts': 'changed', 'a/x/y.ts': '3', 'a/b/new/f.ts': '5', 'z.ts': '4' },
    expected: { added: ['a/b/new/f.ts'], changed: ['a/b/c/e.ts'], removed: [] },
  },
  {
    name: 'folder deleted whole',
    before: { 'lib/a.ts': '1', 'lib/sub/b.ts': '2', 'c.ts': '3' },
    after: { 'c.ts': '3' },
    expected: { added: [], changed: [], removed: ['lib/a.ts', 'lib/sub/b.ts'] },
  },
  {
    name: 'file replaced by a folder',
    before: { thing: 'file' },
    after: { 'thing/inner.ts': 'i' },
    expected: { added: ['thing/inner.ts'], changed: [], removed: ['thing'] },
  },
  {
    name: 'folder replaced by a file',
    before: { 'thing/inner.ts': 'i' },
    after: { thing: 'file' },
    expected: { added: ['thing'], changed: [], removed: ['thing/inner.ts'] },
  },
  { name: 'from empty', before: {}, after: { 'a.ts': '1' }, expected: { added: ['a.ts'], changed: [], removed: [] } },
];

for (const { name, before, after, expected } of diffCases) {
  test(`merkle diff: ${name}`, () => {
    assert.deepEqual(sorted(MerkleTree.diff(tree(before), tree(after))), expected);
    const reverse = MerkleTree.diff(tree(after), tree(before));
    assert.deepEqual(sorted(reverse), sorted({ added: expected.removed, changed: expected.changed, removed: expected.added }));
  });
}

test('merkle: the root hash depends on content only, not on the order of operations', () => {
  const files: Record<string, string> = {};
  for (let index = 0; index < 200; index++) files[`d${index % 7}/e${index % 3}/f${index}.ts`] = `content ${index}`;
  const forward = tree(files);
  const backward = tree(Object.fromEntries(Object.entries(files).reverse()));
  assert.equal(forward.rootHash(), backward.rootHash());
  // Mutate, read the hash (caching folder hashes), then undo: the root must come back exactly.
  const original = forward.rootHash();
  forward.set('d1/e1/f1.ts', { size: 1, mtimeMs: 2, ino: 3, hash: 'f'.repeat(64) });
  forward.set('brand/new.ts', { size: 1, mtimeMs: 2, ino: 3, hash: 'e'.repeat(64) });
  assert.notEqual(forward.rootHash(), original);
  forward.set('d1/e1/f1.ts', backward.get('d1/e1/f1.ts')!);
  assert.deepEqual(forward.delete('brand/new.ts'), ['brand/new.ts']);
  assert.equal(forward.rootHash(), original);
  assert.equal(forward.nodeAt('brand'), undefined, 'an emptied folder is pruned');
  assert.equal(forward.fileCount, 200);
  assert.equal(
    forward.byteCount,
    Object.values(files).reduce((sum, content) => sum + content.length, 0),
  );
});

test('merkle: a folder hash covers exactly its subtree', () => {
  const base = tree({ 'src/a.ts': '1', 'src/b.ts': '2', 'docs/x.md': '3' });
  const changed = tree({ 'src/a.ts': '1', 'src/b.ts': '2', 'docs/x.md': 'changed' });
  assert.equal(base.hashOf(base.nodeAt('src')!), changed.hashOf(changed.nodeAt('src')!));
  assert.notEqual(base.hashOf(base.nodeAt('docs')!), changed.hashOf(changed.nodeAt('docs')!));
  assert.notEqual(base.rootHash(), changed.rootHash());
});

const snapshot: FileSetSnapshot = {
  root: '/tmp/x',
  savedAt: 1,
  files: [['a.ts', 10, 1000.5, 42, 'a'.repeat(64)]],
  skipped: [['b.png', 'binary', 20, 2000, 43]],
  ignoredEntries: 3,
};

test('file-set store: round trip', () => {
  const decoded = decodeFileSet(encodeFileSet(snapshot));
  assert.equal(decoded.status, 'valid');
  assert.deepEqual(decoded.status === 'valid' && decoded.snapshot, snapshot);
});

const corruptions: { name: string; corrupt: (bytes: Buffer) => Buffer; reason: RegExp }[] = [
  { name: 'a flipped payload byte', corrupt: (bytes) => ((bytes[bytes.length - 3]! ^= 0xff), bytes), reason: /checksum/ },
  { name: 'truncated', corrupt: (bytes) => bytes.subarray(0, bytes.length - 5), reason: /checksum/ },
  { name: 'empty', corrupt: () => Buffer.alloc(0), reason: /not a Fathom/ },
  { name: 'another file', corrupt: () => Buffer.from('{"json": true}'), reason: /not a Fathom/ },
  { name: 'an older format version', corrupt: (bytes) => (bytes.writeUInt32LE(fileSetFormatVersion - 1, 8), bytes), reason: /format version/ },
];

for (const { name, corrupt, reason } of corruptions) {
  test(`file-set store: detects ${name}`, () => {
    const decoded = decodeFileSet(corrupt(encodeFileSet(snapshot)));
    assert.equal(decoded.status, 'corrupt');
    assert.match(decoded.status === 'corrupt' ? decoded.reason : '', reason);
  });
}
