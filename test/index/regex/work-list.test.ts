// A search's packed work list (work-list.ts): files built in path order keep their ranges and
// stores, lists merge by path with each file's ranges carried whole, and a chunk sliced from a list
// holds exactly its files (ranges re-based to the slice), with each file's weight.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileWeight, mergeWorkLists, sliceFiles, WorkListBuilder, type PackedFiles, type WorkList } from '../../../src/index/regex/work-list.js';

/** A file as a test states it: ranges in a store, or a file object. */
type Entry = { path: string; store: number; ranges: [number, number, number][] } | { path: string; text: string };

function build(entries: Entry[]): WorkList {
  const builder = new WorkListBuilder();
  for (const entry of entries) {
    if ('text' in entry) builder.file(entry.path, { readPath: '', text: entry.text });
    else {
      builder.ranged(entry.path, entry.store);
      for (const [offset, length, line] of entry.ranges) builder.range(offset, length, line);
    }
  }
  return builder.build();
}

/** A packed list back as entries (paths given). */
function entries(list: PackedFiles, paths: string[]): Entry[] {
  return paths.map((path, index) => {
    const file = list.files[index];
    if (file) return { path, text: file.text! };
    const ranges: [number, number, number][] = [];
    for (let at = list.rangeIndex[index]!; at < list.rangeIndex[index + 1]!; at += 3)
      ranges.push([list.ranges[at]!, list.ranges[at + 1]!, list.ranges[at + 2]!]);
    return { path, store: list.stores[index]!, ranges };
  });
}

const base: Entry[] = [
  { path: 'a.c', store: 0, ranges: [[0, 100, 1]] },
  {
    path: 'c.c',
    store: 0,
    ranges: [
      [500, 20, 3],
      [900, 40, 17],
    ],
  },
  { path: 'e.c', store: 0, ranges: [[2000, 1, 1]] },
];
const delta: Entry[] = [
  {
    path: 'b.c',
    store: 1,
    ranges: [
      [0, 10, 1],
      [64, 8, 5],
    ],
  },
];
const fresh: Entry[] = [
  { path: 'd.c', text: 'typed in a buffer' },
  { path: 'f.c', text: '' },
];

test('a built list holds its files as given', () => {
  for (const list of [base, delta, fresh, []])
    assert.deepEqual(
      entries(
        build(list),
        list.map((entry) => entry.path),
      ),
      list,
    );
  // More files and ranges than the builder's first arrays hold.
  const many: Entry[] = Array.from({ length: 3_000 }, (_, file) => ({
    path: `f${String(file).padStart(5, '0')}`,
    store: file % 2,
    ranges: Array.from({ length: 1 + (file % 3) }, (_, range): [number, number, number] => [file * 100 + range * 10, 5, range + 1]),
  }));
  assert.deepEqual(
    entries(
      build(many),
      many.map((entry) => entry.path),
    ),
    many,
  );
});

test('lists merge by path, each file whole; a single list is itself', () => {
  const merged = mergeWorkLists([build(base), build(delta), build(fresh)]);
  const expected = [...base, ...delta, ...fresh].sort((a, b) => (a.path < b.path ? -1 : 1));
  assert.deepEqual(
    merged.paths,
    expected.map((entry) => entry.path),
  );
  assert.deepEqual(entries(merged, merged.paths), expected);
  const alone = build(base);
  assert.equal(mergeWorkLists([alone, build([]), build([])]), alone);
  assert.deepEqual(mergeWorkLists([build([]), build([])]).paths, []);
});

test("a slice is its files alone, ranges re-based; weights are the range bytes, a text's length, or a guess for a file on disk", () => {
  const list = mergeWorkLists([build(base), build(delta), build(fresh)]);
  for (const [offset, count] of [
    [0, 6],
    [1, 2],
    [3, 1],
    [5, 1],
    [2, 0],
  ] as const) {
    const slice = sliceFiles(list, offset, count);
    assert.equal(slice.rangeIndex[0], 0);
    assert.equal(slice.rangeIndex.length, count + 1);
    assert.equal(slice.ranges.length, slice.rangeIndex[count]);
    assert.deepEqual(entries(slice, list.paths.slice(offset, offset + count)), entries(list, list.paths).slice(offset, offset + count));
  }
  assert.deepEqual(
    list.paths.map((_, index) => fileWeight(list, index)),
    [100, 18, 60, 17, 1, 0],
  );
  const onDisk = new WorkListBuilder();
  onDisk.file('g.c', { readPath: '/abs/g.c' });
  assert.equal(fileWeight(onDisk.build(), 0), 64 * 1024);
});
