// Posting-list set operations on sorted ids: `intersect` (merging, or galloping through a much
// longer list), `union`, and reading a list back (`list`, and `listWithin`, which decodes it as it
// merges), compared with a plain set computation on seeded random lists; a damaged list is refused.
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { describe, test } from 'node:test';
import { intersect, Postings, PostingsCorrupt, union } from '../../../src/index/regex/postings.js';
import { rng } from '../../helpers/region-fuzz.js';

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
  { name: 'ids of every varint width, up to 2^32 - 1', a: 400, b: 400, range: 2 ** 32 },
];

/** The list's bytes as the writer lays them out: deltas from -1, as varints. */
function encode(ids: Uint32Array): Buffer {
  const bytes: number[] = [];
  let previous = -1;
  for (const id of ids) {
    let value = id - previous - 1;
    previous = id;
    while (value >= 0x80) {
      bytes.push((value % 0x80) | 0x80);
      value = Math.floor(value / 0x80);
    }
    bytes.push(value);
  }
  return Buffer.from(bytes);
}

/** Postings over lists held in memory (key i is list i), read through a scratch buffer as on disk. */
function postingsOf(lists: Uint32Array[]): { postings: Postings; region: Buffer } {
  const parts = lists.map(encode);
  const region = Buffer.concat(parts);
  const offsets = new Float64Array(lists.length);
  for (let index = 1; index < lists.length; index++) offsets[index] = offsets[index - 1]! + parts[index - 1]!.length;
  const table = {
    keys: Uint32Array.from(lists.keys()),
    counts: Uint32Array.from(lists, (list) => list.length),
    offsets,
    lengths: Uint32Array.from(parts, (part) => part.length),
    crcs: Uint32Array.from(parts, (part) => zlib.crc32(part) >>> 0),
  };
  const postings = new Postings(table, (offset, length, scratch) => {
    const target = length <= scratch.length ? scratch : Buffer.allocUnsafe(length);
    region.copy(target, 0, offset, offset + length);
    return target.subarray(0, length);
  });
  return { postings, region };
}

describe('posting lists', () => {
  for (const row of rows) {
    test(row.name, () => {
      for (let seed = 1; seed <= 20; seed++) {
        const generator = rng(seed * 7_919 + row.a);
        const random = (): number => generator.next();
        const a = sortedIds(random, row.a, row.range);
        const b = sortedIds(random, row.b, row.range);
        const inB = new Set(b);
        const expected = [...a].filter((id) => inB.has(id));
        assert.deepEqual([...intersect(a, b)], expected, `seed ${seed}`);
        assert.deepEqual([...intersect(b, a)], expected, `seed ${seed}: the other way round`);
        assert.deepEqual(
          [...union(a, b)],
          [...new Set([...a, ...b])].sort((x, y) => x - y),
          `seed ${seed}: union`,
        );
        const { postings } = postingsOf([a, b]);
        assert.deepEqual([...postings.list(0)], [...a], `seed ${seed}: a read back`);
        assert.deepEqual([...postings.listWithin(1, a)], expected, `seed ${seed}: b decoded within a`);
        assert.deepEqual([...postings.listWithin(0, b)], expected, `seed ${seed}: a decoded within b`);
        // The scratch buffer kept from a longer read does not leak into a shorter one.
        assert.deepEqual([...postings.list(1)], [...b], `seed ${seed}: b read back after a`);
      }
    });
  }

  test('a list whose bytes fail their checksum is refused, by list and by listWithin', () => {
    const ids = Uint32Array.from({ length: 300 }, (_, index) => index * 3);
    const { postings, region } = postingsOf([ids]);
    region[17]! ^= 0x01;
    assert.throws(() => postings.list(0), PostingsCorrupt);
    assert.throws(() => postings.listWithin(0, Uint32Array.of(3, 6, 9)), PostingsCorrupt);
  });

  test('a key with no list reads as empty', () => {
    const { postings } = postingsOf([Uint32Array.of(1, 2)]);
    assert.equal(postings.list(7).length, 0);
    assert.equal(postings.listWithin(7, Uint32Array.of(1, 2)).length, 0);
  });
});
