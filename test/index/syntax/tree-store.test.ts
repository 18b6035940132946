// Flat trees on disk (index/syntax/tree-store.ts): the payload round-trips every node of the syntax
// fixtures; a damaged, truncated or foreign file is never trusted (it is deleted and the file is
// parsed again); trim keeps the folder under its budget, oldest written first, and clears dead
// writers' temporary files. Through the structural workers: trees parsed whole are written, a
// fresh pool (a daemon restart: nothing in memory) matches on them without parsing and answers the
// same, an edited file or another grammar misses, and a damaged stored tree is parsed again. The
// prebuild (`fathom index`) stores the trees of a workspace's code files only, skips what is
// stored, counts a file that vanished, and stops when cancelled.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { FlatTree } from '../../../src/index/syntax/flat-tree.js';
import { GrammarSet, parseSource, wasmBinding } from '../../../src/index/syntax/grammars.js';
import { ParseCache } from '../../../src/index/syntax/parse-cache.js';
import { SourceText } from '../../../src/index/syntax/source-text.js';
import { decodeFlatTree, encodeFlatTree, treeKey, TreeStore } from '../../../src/index/syntax/tree-store.js';
import { CancellationSource } from '../../../src/base/cancellation.js';
import { StructuralPool } from '../../../src/structural/structural-pool.js';
import { TreePrebuild } from '../../../src/structural/tree-prebuild.js';
import { SyntaxPass, SyntaxPassPool } from '../../../src/engine/syntax-pass.js';
import { type CandidateSource, StructuralSearch } from '../../../src/structural/structural-search.js';
import { tempDir } from '../../helpers/fixture.js';

const grammars = new GrammarSet();
const fixtures = new URL('../../../../test/fixtures/syntax/', import.meta.url);

async function flat(language: string, text: string): Promise<{ source: SourceText; tree: FlatTree; types: readonly string[] }> {
  const state = await grammars.load(language);
  if (state.state !== 'loaded') throw new Error(state.reason);
  const source = new SourceText(Buffer.from(text));
  const tree = parseSource(grammars, state.grammar, source)!;
  try {
    return { source, tree: FlatTree.of(tree, source.text, wasmBinding()), types: state.grammar.language.types };
  } finally {
    tree.delete();
  }
}

function sameTree(a: FlatTree, b: FlatTree, label: string): void {
  for (const field of ['kinds', 'flags', 'starts', 'ends', 'next', 'parents'] as const) assert.deepEqual([...b[field]], [...a[field]], `${label}: ${field}`);
}

describe('tree store', () => {
  for (const id of fs.readdirSync(fixtures).filter((id) => !grammars.table.languages.get(id)?.disabled)) {
    test(`the ${id} fixture round-trips`, async () => {
      for (const file of fs.readdirSync(new URL(`${id}/`, fixtures))) {
        const { source, tree, types } = await flat(id, fs.readFileSync(new URL(`${id}/${file}`, fixtures), 'utf8'));
        const decoded = decodeFlatTree(encodeFlatTree(tree), source.text, types);
        assert.ok(decoded, `${id}/${file} decodes`);
        sameTree(tree, decoded, `${id}/${file}`);
      }
    });
  }

  test('a payload that does not fit the text, or is cut short, is refused', async () => {
    const { source, tree, types } = await flat('c', 'int main(void) {\n  return 0; /* ✓ */\n}\n');
    const payload = encodeFlatTree(tree);
    assert.equal(decodeFlatTree(payload, `${source.text} `, types), undefined, 'another text length');
    assert.equal(decodeFlatTree(payload.subarray(0, payload.length - 1), source.text, types), undefined, 'cut short');
    assert.equal(decodeFlatTree(Buffer.concat([payload, Buffer.of(0)]), source.text, types), undefined, 'a byte too many');
    assert.equal(decodeFlatTree(Buffer.alloc(4), source.text, types), undefined, 'no header');
  });

  test('get, put, a damaged file deleted, another key missing', async () => {
    const folder = tempDir('fathom-tree-store-');
    const store = new TreeStore(folder);
    const { source, tree, types } = await flat('python', 'def f(x):\n    return x  # é\n');
    const key = treeKey('python:test', source.bytes);
    assert.equal(store.get(key, source.text, types), undefined, 'nothing stored yet');
    assert.ok(store.put(key, tree) > 0);
    sameTree(tree, store.get(key, source.text, types)!, 'read back');
    assert.equal(store.get(treeKey('python:other grammar', source.bytes), source.text, types), undefined, 'another grammar');
    assert.notEqual(treeKey('python:test', Buffer.from('def g(): pass\n')), key, 'other bytes, another key');
    // A flipped byte fails the container's checksum: the file goes.
    const file = path.join(folder, key.slice(0, 2), `${key.slice(2)}.tree`);
    const bytes = fs.readFileSync(file);
    bytes[bytes.length - 2]! ^= 0x40;
    fs.writeFileSync(file, bytes);
    assert.equal(store.get(key, source.text, types), undefined);
    assert.equal(fs.existsSync(file), false, 'the damaged tree is deleted');
    // A truncated one too.
    store.put(key, tree);
    fs.truncateSync(file, 20);
    assert.equal(store.get(key, source.text, types), undefined);
  });

  test('trim deletes the trees written longest ago, and dead writers’ temporary files', async () => {
    const folder = tempDir('fathom-tree-store-');
    const store = new TreeStore(folder);
    const keys: string[] = [];
    let size = 0;
    for (let index = 0; index < 6; index++) {
      const { source, tree } = await flat('python', `def f${index}(x):\n    return x + ${index}\n`);
      const key = treeKey('python:test', source.bytes);
      size = store.put(key, tree);
      const file = path.join(folder, key.slice(0, 2), `${key.slice(2)}.tree`);
      const when = new Date(Date.now() - (10 - index) * 60_000);
      fs.utimesSync(file, when, when);
      keys.push(file);
    }
    const dead = path.join(path.dirname(keys[0]!), 'x.tree.1.abc.tmp');
    fs.writeFileSync(dead, 'partial');
    const old = new Date(Date.now() - 2 * 60 * 60_000);
    fs.utimesSync(dead, old, old);
    const held = await store.trim(size * 3 + 2);
    assert.ok(held <= size * 3 + 2, `${held} bytes held`);
    assert.deepEqual(
      keys.map((file) => fs.existsSync(file)),
      [false, false, false, true, true, true],
      'the three written first go',
    );
    assert.equal(fs.existsSync(dead), false);
    assert.equal(await new TreeStore(path.join(folder, 'none')).trim(0), 0, 'no folder: nothing held');
  });
});

describe('stored trees through the structural workers', () => {
  const root = tempDir('fathom-tree-store-root-');
  const storeFolder = tempDir('fathom-tree-store-');
  const write = (name: string, text: string): void => fs.writeFileSync(path.join(root, name), text);
  write('a.py', 'def a(x):\n    return x\n\n\ndef b(y):\n    return y\n');
  write('b.py', 'class C:\n    def m(self):\n        return 1\n');
  const source: CandidateSource = {
    root,
    candidateFiles: async (_query, accepts) => ({
      files: fs
        .readdirSync(root)
        .filter(accepts)
        .sort()
        .map((file) => ({ path: file })),
      fromIndex: false,
    }),
  };
  const pools: StructuralPool[] = [];
  after(() => pools.forEach((pool) => pool.close()));
  /** A fresh pool: workers with nothing in memory (no tree cache), as after a restart. */
  const fresh = (): ((pattern: string) => ReturnType<StructuralSearch['search']>) => {
    const pool = new StructuralPool({ size: 1, treeCacheBytes: 0, treeStore: { folder: storeFolder, maxBytes: 1 << 30 } });
    pools.push(pool);
    const structural = new StructuralSearch(grammars, new ParseCache(grammars), pool);
    return (pattern) => structural.search(source, { language: 'python', rule: { pattern } });
  };
  const names = (result: Awaited<ReturnType<StructuralSearch['search']>>): string[] => result.matches.map((match) => `${match.path}:${match.bindings.F?.text}`);

  test('a restarted pool matches on the stored trees; an edited or damaged one is parsed again', async () => {
    const first = await fresh()('def $F($$$A): $$$B');
    assert.deepEqual(names(first), ['a.py:a', 'a.py:b', 'b.py:m']);
    assert.deepEqual([first.stats.parsed, first.stats.reused], [2, 0]);
    const stored = fs.readdirSync(storeFolder, { recursive: true }).filter((name) => String(name).endsWith('.tree'));
    assert.equal(stored.length, 2, 'both trees written');

    const second = await fresh()('def $F($$$A): $$$B');
    assert.deepEqual(second.matches, first.matches, 'the same answer from the stored trees');
    assert.deepEqual([second.stats.parsed, second.stats.reused], [0, 2]);

    write('b.py', 'class C:\n    def m(self):\n        return 1\n\n    def n(self):\n        return 2\n');
    const edited = await fresh()('def $F($$$A): $$$B');
    assert.deepEqual(names(edited), ['a.py:a', 'a.py:b', 'b.py:m', 'b.py:n']);
    assert.deepEqual([edited.stats.parsed, edited.stats.reused], [1, 1], 'the edited file is parsed (and stored) again');

    // Damage every stored tree: each is deleted, parsed again and rewritten.
    for (const name of fs.readdirSync(storeFolder, { recursive: true })) {
      const file = path.join(storeFolder, String(name));
      if (!file.endsWith('.tree')) continue;
      const bytes = fs.readFileSync(file);
      bytes[bytes.length - 1]! ^= 0x01;
      fs.writeFileSync(file, bytes);
    }
    const damaged = await fresh()('def $F($$$A): $$$B');
    assert.deepEqual(damaged.matches, edited.matches);
    assert.deepEqual([damaged.stats.parsed, damaged.stats.reused], [2, 0]);
    const again = await fresh()('return $X');
    assert.equal(again.matches.length, 4);
    assert.deepEqual([again.stats.parsed, again.stats.reused], [0, 2], 'rewritten after the damage');
  });
});

describe('tree prebuild', () => {
  const root = tempDir('fathom-tree-prebuild-root-');
  const storeFolder = tempDir('fathom-tree-prebuild-');
  const files: Record<string, string> = {
    'a.py': 'def a(x):\n    return x\n',
    'b.ts': 'export function b(y: number): number {\n  return y;\n}\n',
    'c.go': 'package c\n\nfunc C() int { return 1 }\n',
    'data.json': '{"not": "code"}\n',
    'notes.md': '# Notes\n',
  };
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(root, name), text);
  const pools: StructuralPool[] = [];
  after(() => pools.forEach((pool) => pool.close()));
  const pool = (): StructuralPool => {
    const made = new StructuralPool({ size: 1, treeCacheBytes: 0, treeStore: { folder: storeFolder, maxBytes: 1 << 30 } });
    pools.push(made);
    return made;
  };

  test('stores the code files, then nothing more; a search matches on what it stored', async () => {
    const structuralPool = pool();
    const listing = [...Object.keys(files), 'gone.py'];
    const prebuild = new TreePrebuild(structuralPool, grammars.table, root, () => listing);
    const progress: number[] = [];
    prebuild.onProgress((done) => progress.push(done));
    await prebuild.ensureBuilt();
    assert.deepEqual(
      prebuild.result,
      { files: 4, parsed: 3, storedBytes: prebuild.result!.storedBytes, failed: 1 },
      'three code files parsed, the vanished one counted',
    );
    assert.ok(prebuild.result!.storedBytes > 0);
    assert.deepEqual(progress, [1, 2, 3, 4]);
    await prebuild.ensureBuilt();
    assert.equal(prebuild.result!.parsed, 0, 'a second build finds every tree stored');
    const source: CandidateSource = {
      root,
      candidateFiles: async (_query, accepts) => ({
        files: Object.keys(files)
          .filter(accepts)
          .map((file) => ({ path: file })),
        fromIndex: false,
      }),
    };
    const result = await new StructuralSearch(grammars, new ParseCache(grammars), pool()).search(source, {
      language: 'python',
      rule: { pattern: 'return $X' },
    });
    assert.equal(result.matches.length, 1);
    assert.deepEqual([result.stats.parsed, result.stats.reused], [0, 1], 'matched on the stored tree');
  });

  test("with the file set's content hashes, a second build reads no file: a stat each", async () => {
    const folder = tempDir('fathom-tree-prebuild-hashed-');
    const syntaxPool = new SyntaxPassPool({ size: 1, treeStoreFolder: folder, onStored: () => undefined });
    try {
      const hashes = new Map(
        Object.keys(files).map((name) => [
          name,
          createHash('sha256')
            .update(fs.readFileSync(path.join(root, name)))
            .digest('hex'),
        ]),
      );
      const pass = new SyntaxPass(syntaxPool, (file) => hashes.get(file));
      const asked: string[] = [];
      const sink = {
        size: pass.size,
        storing: pass.storing,
        hasTree: pass.hasTree.bind(pass),
        storeTree: (request: { language: string; path: string; absolutePath: string }) => (asked.push(request.path), pass.storeTree(request)),
      };
      const first = new TreePrebuild(sink, grammars.table, root, () => Object.keys(files));
      await first.ensureBuilt();
      assert.deepEqual([first.result!.parsed, asked.sort()], [3, ['a.py', 'b.ts', 'c.go']]);
      // A restarted daemon's build: every tree is known stored from its hash, no file is read.
      asked.length = 0;
      const progress: number[] = [];
      const second = new TreePrebuild(sink, grammars.table, root, () => Object.keys(files));
      second.onProgress((done) => progress.push(done));
      await second.ensureBuilt();
      assert.deepEqual([second.result!.parsed, asked, progress], [0, [], [1, 2, 3]]);
      // A changed file (a new hash) is stored again, the others still not read.
      fs.writeFileSync(path.join(root, 'a.py'), 'def a(x):\n    return x + 1\n');
      hashes.set(
        'a.py',
        createHash('sha256')
          .update(fs.readFileSync(path.join(root, 'a.py')))
          .digest('hex'),
      );
      await new TreePrebuild(sink, grammars.table, root, () => Object.keys(files)).ensureBuilt();
      assert.deepEqual(asked, ['a.py']);
    } finally {
      fs.writeFileSync(path.join(root, 'a.py'), files['a.py']!);
      syntaxPool.close();
    }
  });

  test('a cancelled build stops and keeps what it stored', async () => {
    const many = tempDir('fathom-tree-prebuild-many-');
    const names = Array.from({ length: 40 }, (_, index) => `m${index}.py`);
    for (const [index, name] of names.entries()) fs.writeFileSync(path.join(many, name), `def m${index}():\n    return ${index}\n`);
    const prebuild = new TreePrebuild(pool(), grammars.table, many, () => names);
    const cancel = new CancellationSource();
    prebuild.onProgress((done) => {
      if (done === 5) cancel.cancel();
    });
    await assert.rejects(prebuild.ensureBuilt(cancel), /cancelled/);
    const stored = fs.readdirSync(storeFolder, { recursive: true }).filter((name) => String(name).endsWith('.tree')).length;
    assert.ok(stored >= 3 + 5 && stored < 3 + 40, `${stored} trees stored`);
  });

  test('without a store it does nothing', async () => {
    const plain = new StructuralPool({ size: 1 });
    pools.push(plain);
    const prebuild = new TreePrebuild(plain, grammars.table, root, () => Object.keys(files));
    await prebuild.ensureBuilt();
    assert.equal(prebuild.result, undefined);
  });
});
