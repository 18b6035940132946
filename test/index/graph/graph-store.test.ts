// graph.bin round trips: parts read back where they lie hold the same numbers however they are held
// (an array of one repeated 0 or -1 as a view of a shared one, u16 where every number fits, full
// width past 65,535); the tables read back as saved; a graph saved again from parts decoded, and
// from parts left where they lay (their records copied), is the same file byte for byte.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { FileGraph } from '../../../src/index/graph/file-graph.js';
import { openGraph, saveGraph, type GraphSnapshot, type SavedGraph } from '../../../src/index/graph/graph-store.js';
import { NameFiles } from '../../../src/index/graph/name-files.js';
import { NameTable } from '../../../src/index/graph/name-table.js';
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

async function open(file: string): Promise<SavedGraph> {
  const opened = await openGraph(file);
  assert.equal(opened.status, 'valid');
  return (opened as { graph: SavedGraph }).graph;
}

test('parts read back where they lie hold the same numbers, smaller where they can; saved again, the same file', async () => {
  const folder = tempDir('graph-store');
  const files = [part('a.c', 4, 6, 10, false), part('b.c', 3, 5, 70_000, true), part('c.c', 0, 0, 0, false), part('d.c', 2, 9, 65_530, false)];
  const hashes = files.map((_, at) => `${at}`.padStart(64, '0'));
  const names = await NameTable.adopt(['', 'one', 'two', 'three']).encode();
  const numberOf = new Map(files.map((one, at) => [one.path, at]));
  const tables = (field: 'definitionNames' | 'referenceNames') => {
    const table = new NameFiles(field);
    for (const one of files) table.add(one.path, one);
    return table.snapshot(numberOf, names.count);
  };
  const snapshot: GraphSnapshot = {
    root: folder,
    queries: 'q',
    kinds: ['none', 'function'],
    chains: [[]],
    names,
    files: files.map((one, at) => ({ path: one.path, hash: hashes[at]!, part: one })),
    definers: tables('definitionNames'),
    referrers: tables('referenceNames'),
  };
  const first = path.join(folder, 'graph.bin');
  (await saveGraph(first, snapshot)).close();
  const saved = await open(first);
  assert.deepEqual([saved.root, saved.queries, saved.paths, saved.hashes], [folder, 'q', ['a.c', 'b.c', 'c.c', 'd.c'], hashes]);
  assert.deepEqual(Array.from(saved.definers.offsets), [0, 0, 3, 6, 8], 'one and two are defined in a, b and d, three in a and b');
  const back = files.map((_, at) => saved.file.part(at).part);
  const numbers = (one: FileGraph) => Object.fromEntries(fields.map((field) => [field, Array.from(one[field])]));
  assert.deepEqual(back.map(numbers), files.map(numbers));
  assert.deepEqual(
    files.map((_, at) => saved.file.countsOf(at).slice(0, 3)),
    files.map((one) => [one.definitionNames.length, one.referenceNames.length, one.imports.length]),
  );
  const [a, b, , d] = back;
  assert.ok(a!.definitionPositions instanceof Uint16Array && a!.referenceLines instanceof Uint16Array, 'small numbers as u16');
  assert.ok(b!.definitionPositions instanceof Int32Array && b!.referenceLines instanceof Uint32Array, 'lines past 65,535 at full width');
  assert.ok(d!.referenceLines instanceof Uint32Array && d!.definitionPositions instanceof Int32Array, 'one number past 65,535 keeps the array wide');
  assert.equal(a!.referenceBindings.buffer, d!.referenceBindings.buffer, 'a repeated -1 shared');
  assert.notEqual(a!.referenceBindings.buffer, b!.referenceBindings.buffer);
  const stored = NameTable.fromStored(saved.names);
  assert.deepEqual([stored.find('two'), stored.name(3), stored.find('four')], [2, 'three', undefined]);
  const again = { ...snapshot, names: await stored.encode() };
  const decoded = path.join(folder, 'decoded.bin');
  (await saveGraph(decoded, { ...again, files: back.map((one, at) => ({ path: one.path, hash: hashes[at]!, part: one })) })).close();
  assert.deepEqual(fs.readFileSync(decoded), fs.readFileSync(first), 'saved again from decoded parts, byte for byte');
  const copied = path.join(folder, 'copied.bin');
  (
    await saveGraph(copied, { ...again, files: back.map((one, at) => ({ path: one.path, hash: hashes[at]!, part: { file: saved.file, number: at } })) })
  ).close();
  assert.deepEqual(fs.readFileSync(copied), fs.readFileSync(first), 'saved again from records left where they lay, byte for byte');
  saved.file.close();
  const bytes = fs.readFileSync(first);
  bytes[60] = bytes[60]! ^ 0x40;
  fs.writeFileSync(first, bytes);
  assert.deepEqual(await openGraph(first), { status: 'corrupt', reason: 'checksum mismatch' });
});
