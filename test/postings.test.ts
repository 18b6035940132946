// Posting-list set operations on sorted ids: `intersect` (merging, or galloping through a much
// longer list) and `union`, compared with a plain set computation on seeded random lists.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { intersect, union } from '../src/index/lexical/postings.js';
import { rng } from './helpers/region-fuzz.js';

/** `count` distinct sorted ids below `range`. */
function sortedIds(random: () => number, count: number, range: number): Uint32Array {
  const ids = new Set<number>();
  while (ids.size < Math.min(count, range)) ids.add(Math.floor(random() * range));
  return Uint32Array.from([...ids].sort((a, b) => a - b));
}

interface Row {
  name: string;
  /** Sizes of the two lists and the id range they are drawn from. */
  a: number;
  b: number;
  range: number;
}

const rows: Row[] = [
  { name: 'two lists of alike size (merge)', a: 500, b: 700, range: 2_000 },
  { name: 'a short list and one 40 times longer (gallop)', a: 50, b: 2_000, range: 5_000 },
  { name: 'the longer list first (gallop)', a: 3_000, b: 60, range: 4_000 },
  { name: 'dense lists: most ids in both', a: 900, b: 950, range: 1_000 },
  { name: 'disjoint ranges in a large id space', a: 200, b: 300, range: 4_000_000_000 },
  { name: 'an empty list', a: 0, b: 100, range: 1_000 },
];

describe('posting lists', () => {
  for (const row of rows) {
    test(row.name, () => {
      for (let seed = 1; seed <= 20; seed++) {
        const random = rng(seed * 7_919 + row.a).next;
        const a = sortedIds(random, row.a, row.range);
        const b = sortedIds(random, row.b, row.range);
        const inB = new Set(b);
        const expected = [...a].filter((id) => inB.has(id));
        assert.deepEqual([...intersect(a, b)], expected, `seed ${seed}`);
        assert.deepEqual([...intersect(b, a)], expected, `seed ${seed}: the other way round`);
        assert.deepEqual([...union(a, b)], [...new Set([...a, ...b])].sort((x, y) => x - y), `seed ${seed}: union`);
      }
    });
  }
});
