// graph.bin round trips: parts read back hold the same numbers however they are held (an array of
// one repeated 0 or -1 as a view of a shared one, u16 where every number fits, full width past
// 65,535), and a graph read back and saved again reads back the same (a save writes every array at
// its declared width).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { FileGraph } from '../../../src/index/graph/file-graph.js';
import { loadGraph, saveGraph, type GraphSnapshot } from '../../../src/index/graph/graph-store.js';
import { tempDir } from '../../helpers/fixture.js';

const fields = [
  'definitionNames',
  'definitionKinds',
  'definitionChains',
  'definitionParents',
  'definitionPositions',
  'referenceNames',
  'referenceKinds',
  'referenceReceivers',
  'referenceLines',
  'referenceCharacters',
  'referenceEnclosing',
  'referenceBindings',
] as const;

/** A part of `definitions` and `references`, its lines starting at `firstLine` (past 65,535: not u16). */
function part(file: string, definitions: number, references: number, firstLine: number, bound: boolean): FileGraph {
  return {
    path: file,
    language: 'c',
    definitionNames: Uint32Array.from({ length: definitions }, (_, at) => 1 + (at % 3)),
    definitionKinds: new Uint16Array(definitions).fill(1),
    definitionChains: new Uint32Array(definitions),
    definitionParents: Int32Array.from({ length: definitions }, (_, at) => at - 1),
    definitionPositions: Int32Array.from({ length: definitions * 8 }, (_, at) => firstLine + at),
    referenceNames: Uint32Array.from({ length: references }, (_, at) => 1 + (at % 3)),
    referenceKinds: new Uint16Array(references),
    referenceReceivers: new Uint32Array(references),
    referenceLines: Uint32Array.from({ length: references }, (_, at) => firstLine + at),
    referenceCharacters: Uint32Array.from({ length: references }, (_, at) => at % 80),
    referenceEnclosing: Int32Array.from({ length: references }, (_, at) => (definitions === 0 ? -1 : at % definitions)),
    referenceBindings: new Int32Array(references).fill(bound ? 0 : -1),
    imports: bound ? [{ source: 'linux/slab.h', name: '*', local: '', reexport: false, line: 1 }] : [],
  };
}

async function readBack(file: string): Promise<Array<{ part: FileGraph; hash: string }>> {
  const files: Array<{ part: FileGraph; hash: string }> = [];
  const load = await loadGraph(file, { begin: () => true, file: (part, hash) => files.push({ part, hash }) });
  assert.deepEqual(load, { status: 'valid' });
  return files;
}

test('parts read back hold the same numbers, smaller where they can; saved again, the same again', async () => {
  const folder = tempDir('graph-store');
  const files = [part('a.c', 4, 6, 10, false), part('b.c', 3, 5, 70_000, true), part('c.c', 0, 0, 0, false), part('d.c', 2, 9, 65_530, false)];
  const snapshot: GraphSnapshot = {
    root: folder,
    queries: 'q',
    names: ['', 'one', 'two', 'three'],
    kinds: ['none', 'function'],
    chains: [[]],
    files: files.map((one, at) => ({ part: one, hash: `${at}`.padStart(64, '0') })),
  };
  const first = path.join(folder, 'graph.bin');
  await saveGraph(first, snapshot);
  const back = await readBack(first);
  const numbers = (one: FileGraph) => Object.fromEntries(fields.map((field) => [field, Array.from(one[field])]));
  assert.deepEqual(
    back.map(({ part: one }) => numbers(one)),
    files.map(numbers),
  );
  const [a, b, , d] = back.map(({ part: one }) => one);
  assert.ok(a!.definitionPositions instanceof Uint16Array && a!.referenceLines instanceof Uint16Array, 'small numbers as u16');
  assert.ok(b!.definitionPositions instanceof Int32Array && b!.referenceLines instanceof Uint32Array, 'lines past 65,535 at full width');
  assert.ok(d!.referenceLines instanceof Uint32Array && d!.definitionPositions instanceof Int32Array, 'one number past 65,535 keeps the array wide');
  assert.equal(a!.referenceBindings.buffer, d!.referenceBindings.buffer, 'a repeated -1 shared');
  assert.notEqual(a!.referenceBindings.buffer, b!.referenceBindings.buffer);
  const second = path.join(folder, 'again.bin');
  await saveGraph(second, { ...snapshot, files: back });
  assert.deepEqual(fs.readFileSync(second), fs.readFileSync(first), 'saved again, byte for byte');
  assert.deepEqual(
    (await readBack(second)).map(({ part: one }) => numbers(one)),
    files.map(numbers),
  );
});
