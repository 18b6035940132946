// The code graph's interned names against a Map as the oracle: ids by name after adopting a saved
// array (a name twice keeps its first id, '' is id 0), after interning new names past every
// growth of the table, read in slices or all at once, with names that differ in one unit, that
// hash alike in the low bits, and that are not ASCII.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { NameTable } from '../../../src/index/graph/name-table.js';

/** Names that stress the table: near-duplicates, shared prefixes, non-ASCII, one-unit strings. */
function names(count: number): string[] {
  const out = [''];
  for (let at = 0; at < count; at++) {
    out.push(`name_${at}`, `Name_${at}`, `x${String.fromCharCode(0x4e00 + (at % 2000))}${at}`);
    if (at < 200) out.push(String.fromCharCode(33 + at), `name_${at}`); // a duplicate: the first id stays
  }
  return out;
}

function oracle(list: readonly string[]): Map<string, number> {
  const ids = new Map<string, number>();
  list.forEach((name, id) => {
    if (!ids.has(name)) ids.set(name, id);
  });
  return ids;
}

describe('name table', () => {
  for (const [label, read] of [
    ['indexed in slices', async (table: NameTable) => table.index(async () => undefined)],
    ['indexed on first find', async () => undefined],
  ] as const)
    test(`adopted names found by their first id, ${label}; new names interned past every growth`, async () => {
      const list = names(30_000);
      const expected = oracle(list);
      const table = NameTable.adopt([...list]);
      await read(table);
      for (const [name, id] of expected) assert.equal(table.find(name), id, name);
      assert.equal(table.find(''), 0);
      assert.equal(table.intern(''), 0);
      assert.equal(table.find('never seen'), undefined);
      const size = table.size;
      for (let at = 0; at < 50_000; at++) {
        const name = `new ${at}`;
        assert.equal(table.intern(name), size + at);
        assert.equal(table.intern(name), size + at, 'the same id again');
      }
      for (const [name, id] of expected) assert.equal(table.find(name), id, `${name} after growth`);
      for (let at = 0; at < 50_000; at += 997) assert.equal(table.name(table.find(`new ${at}`)!), `new ${at}`);
    });

  test('an empty table interns from id 1', () => {
    const table = NameTable.empty();
    assert.equal(table.intern('a'), 1);
    assert.equal(table.intern('b'), 2);
    assert.equal(table.intern('a'), 1);
    assert.equal(table.find('c'), undefined);
    assert.equal(table.size, 3);
  });
});
