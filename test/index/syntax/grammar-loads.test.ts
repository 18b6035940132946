// Grammars asked for at once in one thread (a structural worker with two jobs in flight for
// different languages, as `fathom index` sends them) all load: loads run one after another,
// since two wasm grammars loaded at the same time break Emscripten's dynamic linking (each failed
// with "bad export type for 'tree_sitter_<other>_external_scanner_create'" before).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GrammarSet } from '../../../src/index/syntax/grammars.js';

test('grammars requested at once all load, in a fresh thread and again in a second set', async () => {
  for (const round of [1, 2]) {
    const grammars = new GrammarSet();
    const ids = ['typescript', 'javascript', 'python', 'tsx', 'c', 'go'];
    const states = await Promise.all(ids.map((id) => grammars.load(id)));
    assert.deepEqual(
      states.map((state, index) => `${ids[index]}: ${state.state === 'loaded' ? 'loaded' : state.reason}`),
      ids.map((id) => `${id}: loaded`),
      `round ${round}`,
    );
  }
});
