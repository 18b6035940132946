// The chunk workers: results equal in-process chunking; a file over 2 MB retires its worker and
// the next file still gets an answer; a file that vanished is a clean error with its code.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { ChunkFileError, ChunkPool } from '../../../src/index/syntax/chunk-pool.js';
import { chunkFile } from '../../../src/index/syntax/chunk-file.js';
import { GrammarSet } from '../../../src/index/syntax/grammars.js';
import { tempDir } from '../../helpers/fixture.js';

const pool = new ChunkPool(2);
after(() => pool.close());

test('chunk pool: same chunks as in-process, across a worker that retires', async () => {
  const root = tempDir();
  const big = path.join(root, 'big.js');
  const small = path.join(root, 'small.py');
  fs.writeFileSync(big, Array.from({ length: 40_000 }, (_, index) => `function f${index}(a) { return a * ${index} + g(${index}); }\n`).join(''));
  fs.writeFileSync(small, 'def first():\n    return 1\n\n\ndef second():\n    return 2\n');
  assert.ok(fs.statSync(big).size > 2_000_000);
  const [bigChunks, smallChunks] = await Promise.all([
    pool.chunk({ path: 'big.js', absolutePath: big }),
    pool.chunk({ path: 'small.py', absolutePath: small }),
  ]);
  const grammars = new GrammarSet();
  assert.deepEqual(bigChunks, await chunkFile(grammars, { path: 'big.js', bytes: fs.readFileSync(big) }));
  assert.deepEqual(smallChunks, await chunkFile(grammars, { path: 'small.py', bytes: fs.readFileSync(small) }));
  // The worker that took big.js retired; more work still gets answers.
  const again = await Promise.all([1, 2, 3].map(() => pool.chunk({ path: 'small.py', absolutePath: small })));
  for (const result of again) assert.deepEqual(result, smallChunks);
  const counted = await pool.count({ path: 'big.js', absolutePath: big });
  assert.equal(counted.chunks, bigChunks.chunks.length);
});

test('chunk pool: a file that vanished is an error with its code, and the pool goes on', async () => {
  const missing = path.join(tempDir(), 'gone.ts');
  await assert.rejects(pool.chunk({ path: 'gone.ts', absolutePath: missing }), (error: unknown) => error instanceof ChunkFileError && error.code === 'ENOENT');
  const fine = await pool.chunk({ path: 'inline.ts', bytes: Buffer.from('export const x = 1;\n') });
  assert.equal(fine.chunks.length, 1);
});
