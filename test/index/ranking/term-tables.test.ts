// The chunk ranking's in-memory terms and lists (term-table.ts, posting-lists.ts) against the
// obvious structures they replace, a Map of strings and one array per term: the same answers
// through table growth, colliding hashes, long and non-ASCII terms, lists that outgrow their
// blocks, freed blocks taken again, lists put whole, and a compaction's truncation.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PostingLists } from '../../../src/index/ranking/posting-lists.js';
import { packTerms, type PackedTerms, TermTable, termHash } from '../../../src/index/ranking/term-table.js';
import { SeededRandom } from '../../helpers/seeded-random.js';

/** Term `index` of a packed list, by the rule PackedTerms states (the ranking walks the ends in order instead). */
function packedTerm(terms: PackedTerms, index: number): string {
  return terms.text.slice(index === 0 ? 0 : terms.ends[index - 1]!, terms.ends[index]!);
}

test('packed terms give back each term, and each hash is termHash of the term', () => {
  const terms = ['', 'a', 'mutex', 'überlauf', '字段', 'x'.repeat(70_000)];
  const packed = packTerms(terms);
  terms.forEach((term, index) => {
    assert.equal(packedTerm(packed, index), term);
    assert.equal(packed.hashes[index], termHash(term));
  });
});

test('the term table finds what a Map finds, through growth, shared hashes and terms within a larger text', () => {
  const random = new SeededRandom(11);
  const table = new TermTable();
  const oracle = new Map<string, number>();
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789_éß字';
  const word = (): string => Array.from({ length: 1 + random.int(12) }, () => alphabet[random.int(alphabet.length)]).join('');
  for (let round = 0; round < 20_000; round++) {
    const term = random.next() < 0.01 ? word().repeat(3000) : word();
    // Looked up inside a larger text, as a packed file's terms are.
    const prefix = word();
    const text = `${prefix}${term}${word()}`;
    const at = prefix.length;
    const hash = termHash(text, at, at + term.length);
    assert.equal(hash, termHash(term));
    const found = table.find(text, at, at + term.length, hash);
    assert.equal(found, oracle.get(term) ?? -1, term);
    if (found < 0) {
      const entry = table.insert(text, at, at + term.length, hash, round);
      assert.equal(entry, oracle.size);
      oracle.set(term, round);
    }
  }
  // Terms under one hash (a forced collision) stay apart.
  const colliding = new TermTable();
  ['alpha', 'beta', 'gamma', 'delta'].forEach((term, value) => colliding.insert(term, 0, term.length, 7, value));
  ['alpha', 'beta', 'gamma', 'delta'].forEach((term, value) => assert.equal(colliding.find(term, 0, term.length, 7), value));
  assert.equal(colliding.find('epsilon', 0, 7, 7), -1);
  assert.equal(colliding.find('alph', 0, 4, 7), -1);
  // Entries are numbered in insertion order and name their terms.
  [...oracle.keys()].forEach((term, entry) => assert.equal(table.name(entry), term));
  assert.equal(table.size, oracle.size);
});

test('posting lists hold what one array per term holds, through growth, reuse, puts and truncation', () => {
  const random = new SeededRandom(5);
  const lists = new PostingLists();
  const oracle: number[][] = [];
  const check = (): void => {
    for (let term = 0; term < oracle.length; term++) {
      if (oracle[term] === undefined) {
        assert.equal(lists.has(term), false);
        continue;
      }
      assert.deepEqual([...lists.view(term)], oracle[term], `term ${term}`);
      const page = lists.page(term);
      const start = lists.start(term);
      assert.deepEqual([...page.subarray(start, start + lists.length(term))], oracle[term]);
    }
  };
  for (let step = 0; step < 60_000; step++) {
    const roll = random.next();
    if (roll < 0.02 || oracle.length === 0) {
      const term = oracle.length;
      lists.create(term);
      oracle[term] = [];
    } else if (roll < 0.025) {
      // A list read whole (from disk), sometimes over a term that had one, sometimes a large one.
      const term = random.int(oracle.length + 3);
      const words = Array.from({ length: 2 * random.int(random.next() < 0.1 ? 200_000 : 40) }, () => random.int(1e9));
      lists.put(term, Uint32Array.from(words));
      oracle[term] = words;
    } else if (roll < 0.03) {
      const term = random.int(oracle.length);
      if (oracle[term] === undefined) continue;
      const kept = 2 * random.int(oracle[term].length / 2 + 1);
      lists.truncate(term, kept);
      oracle[term] = oracle[term].slice(0, kept);
    } else {
      // Skewed: a few terms get most postings, as common words do.
      const term = Math.min(oracle.length - 1, Math.floor(oracle.length * random.next() ** 3));
      if (oracle[term] === undefined) continue;
      const first = random.int(1e9);
      const second = random.int(1e9);
      lists.push(term, first, second);
      oracle[term].push(first, second);
    }
    if (step % 10_000 === 0) check();
  }
  check();
  assert.equal(lists.termCount, oracle.length);
  // A term made known without a list has none until one is made.
  lists.ensureTerms(oracle.length + 5);
  assert.equal(lists.has(oracle.length + 4), false);
});
