// Every language in grammars/manifest.json loads in web-tree-sitter and parses a small sample
// without errors; its queries compile; detection by extension, file name and `#!` line.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Query } from 'web-tree-sitter';
import fs from 'node:fs';
import { GrammarSet, parseSource } from '../../../src/index/syntax/grammars.js';
import { SourceText } from '../../../src/index/syntax/source-text.js';

const grammars = new GrammarSet();

/** Samples for the languages without a chunk fixture (data and markup). */
const samples: Record<string, string> = {
  json: '{ "name": "fathom", "tags": ["a", "b"], "nested": { "ok": true } }\n',
  css: '.user-list > li:hover { color: #333; margin: 0 auto; }\n@media (max-width: 600px) { .email { display: none; } }\n',
  html: '<!doctype html>\n<html><head><title>Users</title></head><body><ul><li class="a">One</li></ul></body></html>\n',
  toml: '[package]\nname = "fathom"\nversion = "0.1.0"\n\n[dependencies]\nserde = { version = "1", features = ["derive"] }\n',
};

test('grammars: every language in the manifest loads, parses and compiles its queries', async () => {
  const fixtures = new URL('../../../../test/fixtures/syntax/', import.meta.url);
  const ids = [...grammars.table.languages.keys()];
  assert.ok(ids.length >= 21, `${ids.length} languages`);
  for (const id of ids) {
    if (grammars.table.languages.get(id)!.disabled) continue; // checked below
    const state = await grammars.load(id);
    assert.equal(state.state, 'loaded', `${id}: ${state.state === 'failed' ? state.reason : ''}`);
    if (state.state !== 'loaded') continue;
    let text = samples[id];
    if (text === undefined) {
      const folder = new URL(`${id}/`, fixtures);
      const [name] = fs.readdirSync(folder);
      text = fs.readFileSync(new URL(name!, folder), 'utf8');
    }
    const tree = parseSource(grammars, state.grammar, SourceText.fromString(text));
    assert.ok(tree, `${id} parsed`);
    assert.equal(tree.rootNode.hasError, false, `${id}: the sample parses without errors`);
    tree.delete();
    const tags = grammars.table.queryText(id, 'tags');
    if (tags !== undefined) assert.doesNotThrow(() => new Query(state.grammar.language, tags).delete(), `${id}: tags.scm compiles`);
  }
});

test('grammars: programming languages have chunks.scm and tags.scm', () => {
  for (const id of [
    'typescript',
    'tsx',
    'javascript',
    'python',
    'go',
    'rust',
    'java',
    'c',
    'cpp',
    'c_sharp',
    'ruby',
    'php',
    'bash',
    'lua',
    'kotlin',
    'scala',
    'swift',
  ]) {
    const spec = grammars.table.languages.get(id);
    assert.ok(spec, `${id} is in the manifest`);
    assert.ok(spec.chunksQueryPath, `${id} has chunks.scm`);
    assert.ok(spec.tagsQueryPath, `${id} has tags.scm`);
  }
});

test('grammars: queries inherit with `; inherits:`', () => {
  const tsx = grammars.table.queryText('tsx', 'tags')!;
  assert.match(tsx, /abstract_class_declaration/, "TypeScript's own patterns");
  assert.match(tsx, /jsx_opening_element/, 'its own JSX patterns');
  assert.match(grammars.table.queryText('javascript', 'tags')!, /Definitions and references shared by JavaScript/, 'the shared ecma part');
  assert.equal(grammars.table.queryText('json', 'tags'), undefined);
});

test('grammars: a disabled grammar still misbehaves (else re-enable it in the manifest)', async () => {
  const unrestricted = new GrammarSet(undefined, true);
  for (const [id, spec] of grammars.table.languages) {
    if (!spec.disabled) continue;
    assert.equal((await grammars.load(id)).state, 'failed', `${id} is not loaded by default`);
    assert.equal(id, 'lua', 'only Lua is disabled; a new entry needs its own check here');
    const state = await unrestricted.load(id);
    assert.equal(state.state, 'loaded');
    if (state.state !== 'loaded') continue;
    const trees = [0, 1].map(() => parseSource(unrestricted, state.grammar, SourceText.fromString('x = 1\n'))!);
    assert.equal(
      trees[0]!.rootNode.hasError || trees[1]!.rootNode.hasError,
      true,
      'Lua parses `x = 1` twice without error now: remove "disabled" from grammars/manifest.json',
    );
    for (const tree of trees) tree.delete();
  }
});

test('grammars: a failed language is reported, not thrown', async () => {
  const state = await grammars.load('cobol');
  assert.equal(state.state, 'failed');
});

const detections: Array<[string, string | undefined, string?]> = [
  ['src/app.ts', 'typescript'],
  ['src/App.tsx', 'tsx'],
  ['lib/index.mjs', 'javascript'],
  ['pkg/main.go', 'go'],
  ['include/linux/slab.h', 'c'],
  ['src/engine.hpp', 'cpp'],
  ['Program.cs', 'c_sharp'],
  ['Rakefile', 'ruby'],
  ['scripts/build.sh', 'bash'],
  ['init.lua', 'lua'],
  ['build.gradle.kts', 'kotlin'],
  ['README.md', undefined],
  ['Makefile', undefined],
  ['bin/tool', 'python', '#!/usr/bin/env python3\nprint(1)\n'],
  ['bin/run', 'bash', '#!/bin/sh -e\necho hi\n'],
  ['bin/serve', 'javascript', '#!/usr/bin/env -S node --enable-source-maps\n'],
  ['bin/plain', undefined, 'just text\n'],
  ['SRC/MAIN.PY', 'python'],
];

for (const [file, expected, firstLine] of detections) {
  test(`grammars: ${file}${firstLine ? ` (${JSON.stringify(firstLine.split('\n')[0])})` : ''} is ${expected ?? 'no language'}`, () => {
    const detected = grammars.table.detect(file, firstLine === undefined ? undefined : Buffer.from(firstLine));
    assert.equal(detected?.id, expected);
  });
}
