// The trees structural workers keep between searches (index/syntax/tree-cache.ts): exact by the
// file's bytes, bounded by an estimate, least recently used out first but never a tree the same
// search used (a pass over more files than fit keeps the first ones); and through the worker pool:
// a second search matches on the kept trees (stats.reused) with the same answer, a file changed on
// disk is parsed again, a file whose regions worth parsing cover little of it is parsed in part
// (and not kept), and a budget of 0 keeps nothing.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { FlatTree } from '../../../src/index/syntax/flat-tree.js';
import { GrammarSet, parseSource, wasmBinding } from '../../../src/index/syntax/grammars.js';
import { ParseCache } from '../../../src/index/syntax/parse-cache.js';
import { SourceText } from '../../../src/index/syntax/source-text.js';
import { flatCost, TreeCache, treeCost } from '../../../src/index/syntax/tree-cache.js';
import { StructuralPool } from '../../../src/structural/structural-pool.js';
import { type CandidateSource, StructuralSearch } from '../../../src/structural/structural-search.js';
import { tempDir } from '../../helpers/fixture.js';

const grammars = new GrammarSet();

/** A file parsed and flattened, as a worker keeps it. */
async function parsed(text: string): Promise<{ source: SourceText; tree: FlatTree }> {
  const state = await grammars.load('python');
  if (state.state !== 'loaded') throw new Error(state.reason);
  const source = new SourceText(Buffer.from(text));
  const tree = parseSource(grammars, state.grammar, source)!;
  try {
    return { source, tree: FlatTree.of(tree, source.text, wasmBinding()) };
  } finally {
    tree.delete();
  }
}

/** Five files of the same size (the same cost each). */
const texts = ['a', 'b', 'c', 'd', 'e'].map((name) => `def ${name}(x):\n    return x + 1\n`);

describe('TreeCache', () => {
  test('a tree answers only for the same bytes; a stale one is dropped', async () => {
    const cache = new TreeCache(1 << 20);
    const { source, tree } = await parsed(texts[0]!);
    assert.equal(cache.offer('python\0a.py', source, tree, 1), true);
    assert.equal(cache.get('python\0a.py', Buffer.from(texts[0]!), 2)?.tree, tree);
    assert.equal(cache.get('python\0b.py', Buffer.from(texts[0]!), 2), undefined, 'another key');
    assert.equal(cache.get('python\0a.py', Buffer.from(texts[1]!), 2), undefined, 'other bytes');
    assert.equal(cache.size, 0);
    assert.equal(cache.bytes, 0);
  });

  test('a pass over more files than fit keeps the first ones; a later search may push them out', async () => {
    const files = await Promise.all(texts.map(parsed));
    const cost = flatCost(files[0]!.source, files[0]!.tree);
    // Room for four trees (each a quarter of it: none too large to keep).
    const cache = new TreeCache(4 * cost + 4);
    const offer = (index: number, search: number): boolean => {
      const { source, tree } = files[index]!;
      const would = cache.wouldKeep(source, search, flatCost(source, tree));
      const kept = cache.offer(`python\0${index}.py`, source, tree, search);
      assert.equal(would, kept, `wouldKeep agrees with offer (file ${index}, search ${search})`);
      return kept;
    };
    assert.deepEqual(
      [0, 1, 2, 3, 4].map((index) => offer(index, 1)),
      [true, true, true, true, false],
      'search 1: the first four kept, the fifth refused (no tree search 1 used is pushed out)',
    );
    // Search 2 goes over the same files: the first four are there, the fifth still does not fit.
    assert.deepEqual(
      [0, 1, 2, 3].map((index) => cache.get(`python\0${index}.py`, files[index]!.source.bytes, 2)?.tree === files[index]!.tree),
      [true, true, true, true],
    );
    assert.equal(offer(4, 2), false);
    // Search 3 uses another file: the least recently used of search 2's goes.
    assert.equal(offer(4, 3), true);
    assert.equal(cache.get('python\x000.py', files[0]!.source.bytes, 3), undefined, 'file 0 was the least recently used');
    assert.notEqual(cache.get('python\x003.py', files[3]!.source.bytes, 3), undefined);
    assert.equal(cache.size, 4);
    cache.clear();
    assert.equal(cache.size, 0);
    assert.equal(cache.bytes, 0);
  });

  test('a tree found moves to the end of the line: the least recently used goes first', async () => {
    const files = await Promise.all(texts.map(parsed));
    const cache = new TreeCache(4 * flatCost(files[0]!.source, files[0]!.tree) + 4);
    files.slice(0, 4).forEach(({ source, tree }, index) => assert.ok(cache.offer(`k${index}`, source, tree, 1)));
    // Search 2 finds file 0; search 3 offers file 4: file 1, not file 0, is pushed out.
    assert.ok(cache.get('k0', files[0]!.source.bytes, 2));
    assert.equal(cache.wouldKeep(files[4]!.source, 3, flatCost(files[4]!.source, files[4]!.tree)), true);
    assert.equal(cache.offer('k4', files[4]!.source, files[4]!.tree, 3), true);
    assert.equal(cache.get('k1', files[1]!.source.bytes, 3), undefined, 'file 1 was the least recently used');
    assert.ok(cache.get('k0', files[0]!.source.bytes, 3));
    assert.equal(cache.size, 4);
    cache.clear();
  });

  test('a tree over half of the budget is not kept', async () => {
    const { source, tree } = await parsed(texts[0]!);
    const cache = new TreeCache(flatCost(source, tree) * 2 - 1);
    assert.equal(cache.wouldKeep(source, 1, flatCost(source, tree)), false);
    assert.equal(cache.offer('python\0a.py', source, tree, 1), false);
    // Before the parse, by the estimate.
    assert.equal(new TreeCache(treeCost(source) * 2 - 1).wouldKeep(source, 1), false);
  });

  test('the estimate before a parse is near what a flat tree holds', async () => {
    const { source, tree } = await parsed(fs.readFileSync(new URL('../../../../test/fixtures/syntax/python/sample.py', import.meta.url), 'utf8'));
    const ratio = flatCost(source, tree) / treeCost(source);
    assert.ok(ratio > 0.3 && ratio < 3, `flat ${flatCost(source, tree)} bytes, estimated ${treeCost(source)}`);
  });
});

describe('kept trees through the structural workers', () => {
  const root = tempDir('fathom-tree-cache-');
  const write = (name: string, text: string): void => fs.writeFileSync(path.join(root, name), text);
  write('a.py', 'def a(x):\n    return x\n\n\ndef b(y):\n    return y\n');
  write('b.py', 'class C:\n    def m(self):\n        return 1\n');
  // One def among many statements: its regions worth parsing are a small share of the file.
  write(
    'big.py',
    `${Array.from({ length: 200 }, (_, index) => `value_${index} = compute(${index}, "padding to make the statement longer")`).join('\n')}\n\ndef lonely():\n    return 0\n`,
  );
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
  const searchWith = (treeCacheBytes: number): ((pattern: string) => ReturnType<StructuralSearch['search']>) => {
    const pool = new StructuralPool({ size: 1, treeCacheBytes });
    pools.push(pool);
    const structural = new StructuralSearch(grammars, new ParseCache(grammars), pool);
    return (pattern) => structural.search(source, { language: 'python', rule: { pattern } });
  };
  const names = (result: Awaited<ReturnType<StructuralSearch['search']>>): string[] => result.matches.map((match) => `${match.path}:${match.bindings.F?.text}`);

  test('a second search matches on the kept trees; a changed file is parsed again', async () => {
    const search = searchWith(64 << 20);
    const first = await search('def $F($$$A): $$$B');
    assert.deepEqual(names(first), ['a.py:a', 'a.py:b', 'b.py:m', 'big.py:lonely']);
    assert.deepEqual([first.stats.parsed, first.stats.reused], [3, 0]);
    const second = await search('def $F($$$A): $$$B');
    assert.deepEqual(second.matches, first.matches);
    assert.deepEqual([second.stats.parsed, second.stats.reused], [1, 2], 'big.py is parsed in part (and not kept) each time');
    // Another pattern uses the same trees.
    const returns = await search('return $X');
    assert.equal(returns.matches.length, 4);
    assert.equal(returns.stats.reused, 2);
    write('b.py', 'class C:\n    def m(self):\n        return 1\n\n    def n(self):\n        return 2\n');
    const third = await search('def $F($$$A): $$$B');
    assert.deepEqual(names(third), ['a.py:a', 'a.py:b', 'b.py:m', 'b.py:n', 'big.py:lonely']);
    assert.deepEqual([third.stats.parsed, third.stats.reused], [2, 1], 'the changed file is parsed again');
  });

  test('a budget of 0 keeps no tree', async () => {
    const search = searchWith(0);
    await search('def $F($$$A): $$$B');
    const again = await search('def $F($$$A): $$$B');
    assert.deepEqual([again.stats.parsed, again.stats.reused], [3, 0]);
  });
});
