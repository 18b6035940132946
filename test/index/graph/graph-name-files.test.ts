// The code graph's inverted tables (name-files.ts) against the obvious answer: after a bulk
// rebuild from random parts and a random run of replacements, removals and additions (some made
// while the rebuild runs), every name's files are exactly the files whose current part holds it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NameFiles } from '../../../src/index/graph/name-files.js';

interface Part {
  path: string;
  definitionNames: Uint32Array;
  referenceNames: Uint32Array;
}

/** A small deterministic generator (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

for (const seed of [1, 2, 3, 4, 5]) {
  test(`name files: rebuild, then replacements, removals and additions (seed ${seed})`, async () => {
    const next = random(seed);
    const names = 40;
    const ids = (count: number) => Uint32Array.from({ length: count }, () => Math.floor(next() * names));
    const part = (path: string): Part => ({ path, definitionNames: ids(Math.floor(next() * 6)), referenceNames: ids(Math.floor(next() * 12)) });
    const current = new Map<string, Part>();
    for (let file = 0; file < 600; file++) current.set(`f${file}.ts`, part(`f${file}.ts`));
    const tables = { definitionNames: new NameFiles('definitionNames'), referenceNames: new NameFiles('referenceNames') };
    // What code-graph.ts's replace does.
    const replace = (path: string, later: Part | undefined) => {
      const previous = current.get(path);
      for (const table of Object.values(tables)) {
        if (previous) table.remove(path, previous);
        if (later) table.add(path, later);
      }
      if (later) current.set(path, later);
      else current.delete(path);
    };
    const change = () => {
      const path = `f${Math.floor(next() * 640)}.ts`;
      replace(path, next() < 0.25 ? undefined : part(path));
    };
    const parts = [...current.values()];
    // Changes while the rebuild runs: its pause is where other work gets in.
    let paused = 0;
    const pause = async () => {
      paused++;
      change();
    };
    for (const table of Object.values(tables)) await table.rebuild(parts, names, (path) => current.get(path), pause);
    assert.ok(paused >= 4, 'the rebuilds paused (and changes came in meanwhile)');
    for (let step = 0; step < 400; step++) {
      change();
      if (step % 50 !== 49) continue;
      for (const [field, table] of Object.entries(tables) as Array<[keyof typeof tables, NameFiles]>) {
        for (let name = 0; name < names + 2; name++) {
          const expected = [...current.values()]
            .filter((held) => held[field].includes(name))
            .map((held) => held.path)
            .sort();
          const files = [...table.files(name)];
          assert.deepEqual([...files].sort(), expected, `${field} of name ${name} after ${step + 1} changes`);
          assert.equal(new Set(files).size, files.length, 'each file once');
        }
      }
    }
  });
}

test('name files: a part naming an id past the table is refused', async () => {
  const table = new NameFiles('definitionNames');
  await assert.rejects(
    table.rebuild(
      [{ path: 'a.ts', definitionNames: Uint32Array.of(7), referenceNames: new Uint32Array(0) }],
      5,
      () => undefined,
      async () => undefined,
    ),
    /past the name table/,
  );
});
