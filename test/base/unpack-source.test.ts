// A buffer unpacked by msgpackr is let go once `releaseUnpackSource` has run: msgpackr keeps the
// last source it read (a DataView over its whole ArrayBuffer), so a cache file read as one buffer
// stayed in memory after its load. Checked with a WeakRef and a full collection.
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import v8 from 'node:v8';
import vm from 'node:vm';
import { test } from 'node:test';
import { Packr } from 'msgpackr';
import { releaseUnpackSource } from '../../src/base/unpack-source.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Unpacks a record out of a larger buffer (as the cache loaders do), keeping only a weak reference to the buffer. */
function unpackFromFile(packr: Packr): WeakRef<ArrayBuffer> {
  const record = packr.pack({ names: ['a', 'b'], arrays: [Buffer.alloc(64, 1)] });
  const file = Buffer.alloc(1 << 20);
  record.copy(file, 4096);
  const value = packr.unpack(file.subarray(4096, 4096 + record.length)) as { names: string[] };
  assert.deepEqual(value.names, ['a', 'b']);
  return new WeakRef(file.buffer);
}

test('a buffer unpacked from is collected once the source is released', async () => {
  const packr = new Packr({ useRecords: false, mapsAsObjects: true });
  const file = unpackFromFile(packr);
  releaseUnpackSource();
  await nextTurn();
  gc();
  await nextTurn();
  assert.equal(file.deref(), undefined, "msgpackr still holds the file's buffer");
});
