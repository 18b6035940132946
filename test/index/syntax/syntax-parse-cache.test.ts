// The parse cache: a changed buffer is re-parsed incrementally from its previous tree, and the
// result is the same tree (and the same chunks) as a parse from scratch, over a run of random
// edits of a real fixture; eviction and forget() free trees.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import type { Tree } from 'web-tree-sitter';
import { chunkFile } from '../../../src/index/syntax/chunk-file.js';
import { GrammarSet, parseSource } from '../../../src/index/syntax/grammars.js';
import { ParseCache, changedSpan } from '../../../src/index/syntax/parse-cache.js';
import { SourceText } from '../../../src/index/syntax/source-text.js';

const grammars = new GrammarSet();

test('changedSpan: the one span where two texts differ', () => {
  const cases: Array<[string, string, [number, number, number]]> = [
    ['abc', 'abc', [3, 3, 3]],
    ['abc', 'abXc', [2, 2, 3]],
    ['abc', 'ac', [1, 2, 1]],
    ['aaa', 'aaaa', [3, 3, 4]],
    ['x😀y', 'x😁y', [1, 3, 3]],
    ['', 'new', [0, 0, 3]],
  ];
  for (const [before, after, [start, oldEnd, newEnd]] of cases) {
    assert.deepEqual(changedSpan(before, after), { start, oldEnd, newEnd }, `${before} → ${after}`);
  }
});

/** A small deterministic random generator (the edits are reproducible). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

test('parse cache: incremental re-parses equal full parses over random edits', async () => {
  const cache = new ParseCache(grammars);
  const state = await grammars.load('typescript');
  assert.equal(state.state, 'loaded');
  if (state.state !== 'loaded') return;
  let text = fs.readFileSync(new URL('../../../../test/fixtures/syntax/typescript/sample.ts', import.meta.url), 'utf8');
  const next = random(7);
  const snippets = ['x', '\n', '{', '}', ' const y = 2;', '// note\n', 'é', '😀', '(', 'function z() { return 1; }\n'];
  const reuses = new Set<string>();
  for (let round = 0; round < 60; round++) {
    const at = Math.floor(next() * text.length);
    if (next() < 0.5) text = text.slice(0, at) + snippets[Math.floor(next() * snippets.length)] + text.slice(at);
    else text = text.slice(0, at) + text.slice(Math.min(text.length, at + Math.floor(next() * 12)));
    // Never leave half a surrogate pair behind.
    text = text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '');
    const bytes = Buffer.from(text, 'utf8');
    const cached = await cache.tree('sample.ts', 'typescript', bytes);
    assert.ok(cached);
    reuses.add(cached.reuse);
    const fresh: Tree = parseSource(grammars, state.grammar, new SourceText(bytes))!;
    assert.equal(cached.tree.rootNode.toString(), fresh.rootNode.toString(), `round ${round}: same tree`);
    const fromCache = await chunkFile(grammars, { path: 'sample.ts', bytes, tree: cached.tree, language: 'typescript' }, { budgetBytes: 400 });
    const fromScratch = await chunkFile(grammars, { path: 'sample.ts', bytes }, { budgetBytes: 400 });
    assert.deepEqual(fromCache, fromScratch, `round ${round}: same chunks`);
    fresh.delete();
  }
  assert.ok(reuses.has('incremental'), 'trees were reused');
  const again = await cache.tree('sample.ts', 'typescript', Buffer.from(text, 'utf8'));
  assert.equal(again?.reuse, 'cached');
  cache.clear();
  assert.equal(cache.size, 0);
});

test('parse cache: least recently used trees are evicted; forget frees one', async () => {
  const cache = new ParseCache(grammars, 2);
  for (const name of ['a.py', 'b.py', 'c.py']) await cache.tree(name, 'python', Buffer.from(`def ${name[0]}():\n    return 1\n`));
  assert.equal(cache.size, 2);
  assert.equal((await cache.tree('a.py', 'python', Buffer.from('def a():\n    return 1\n')))?.reuse, 'full', 'a.py was evicted');
  cache.forget('a.py');
  assert.equal(cache.size, 1);
  assert.equal(await cache.tree('x.cob', 'cobol', Buffer.from('')), undefined, 'no grammar, no tree');
});
