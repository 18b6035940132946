// base/sha256.ts against node:crypto: the names of workspaces' cache folders must not change when
// the CLI hashes them without node:crypto. Known vectors, every length around the padding's block
// boundaries, non-ASCII text, and random strings.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { sha256Hex } from '../../src/base/sha256.js';

const reference = (text: string): string => createHash('sha256').update(text).digest('hex');

const cases: Array<[string, string]> = [
  ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
  ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
  ['abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq', '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1'],
];

test('sha256: known vectors', () => {
  for (const [text, digest] of cases) assert.equal(sha256Hex(text), digest, JSON.stringify(text));
});

test('sha256: every length up to three blocks, non-ASCII and random texts, as node:crypto', () => {
  for (let length = 0; length <= 200; length++) {
    const text = 'x'.repeat(length);
    assert.equal(sha256Hex(text), reference(text), `length ${length}`);
  }
  for (const text of ['/home/me/проект', '/tmp/日本語/src\0file.ts', '/a/😀/b', '\u00e9'.repeat(40)]) assert.equal(sha256Hex(text), reference(text), text);
  let seed = 7;
  const random = (): number => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  for (let round = 0; round < 500; round++) {
    const text = Array.from({ length: Math.floor(random() * 300) }, () => String.fromCodePoint(32 + Math.floor(random() * 0x2000))).join('');
    assert.equal(sha256Hex(text), reference(text), JSON.stringify(text));
  }
});
