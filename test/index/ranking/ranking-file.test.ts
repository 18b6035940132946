// chunks.bin read front to back in pieces (a save, a compaction): every list and block read ahead
// equals the one read on its own, across pieces, for lists larger than a piece, and while a
// question looks terms up meanwhile.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { fieldCount } from '../../../src/index/ranking/chunk-fields.js';
import { RankingFile, type RankingTables, type TermToWrite, writeRankingFile } from '../../../src/index/ranking/chunk-ranking-file.js';
import { tempDir } from '../../helpers/fixture.js';
import { SeededRandom } from '../../helpers/seeded-random.js';

test('chunks.bin read ahead in pieces gives every list and block as a read of its own does', async () => {
  const random = new SeededRandom(3);
  const chunks = 50;
  const tables: RankingTables = {
    root: '/root',
    version: 1,
    budgetBytes: 4000,
    chunkFile: new Uint32Array(chunks),
    chunkLines: new Uint32Array(2 * chunks),
    chunkBytes: new Uint32Array(2 * chunks),
    chunkLengths: new Uint16Array(fieldCount * chunks),
    files: [{ path: 'a.c', hash: 'ab'.repeat(32), first: 0, count: chunks }],
  };
  // 300 terms (five blocks and a part), lists of 0 to 60 postings: some larger than a piece.
  const terms: TermToWrite[] = Array.from({ length: 300 }, (_, at) => {
    const postings = Math.floor(random.next() * 61);
    const list = new Uint32Array(2 * postings);
    for (let posting = 0; posting < postings; posting++) {
      list[2 * posting] = Math.floor(random.next() * chunks);
      list[2 * posting + 1] = Math.floor(random.next() * 1000);
    }
    return { name: `t${String(at).padStart(3, '0')}`, list };
  });
  const file = path.join(tempDir('fathom-ranking-file-'), 'chunks.bin');
  await writeRankingFile(file, tables, terms);
  const opened = RankingFile.open(file);
  assert.equal(opened.status, 'valid');
  const ranking = (opened as { file: RankingFile }).file;
  for (const pieceBytes of [64, 200, 4096]) {
    let at = 0;
    for (const { name, entry } of ranking.all(pieceBytes)) {
      assert.equal(name, terms[at]!.name);
      assert.deepEqual(Array.from(ranking.readList(entry, true)), Array.from(terms[at]!.list), `${name}, pieces of ${pieceBytes}`);
      // A question meanwhile: its own reads, the same answers.
      const other = terms[(at * 7) % terms.length]!;
      assert.deepEqual(Array.from(ranking.readList(ranking.lookup(other.name)!)), Array.from(other.list));
      at += 1;
    }
    assert.equal(at, terms.length);
  }
  ranking.close();
});
