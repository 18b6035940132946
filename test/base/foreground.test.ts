// base/foreground.ts: a request in flight holds background slices back until it ends, or until it
// has been in flight longer than the patience (a request waiting on a build must not stop them).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { beginForeground, foregroundBusy, foregroundQuiet } from '../../src/base/foreground.js';

test('foreground: busy while a young request is in flight; quiet once it ends or outlives the patience', async () => {
  assert.equal(foregroundBusy(), false);
  const end = beginForeground();
  assert.equal(foregroundBusy(), true);
  let quiet = false;
  const waiting = foregroundQuiet().then(() => (quiet = true));
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal(quiet, false, 'slices wait while the request is answered');
  end();
  await waiting;
  assert.equal(foregroundBusy(), false);
  end();
  const long = beginForeground();
  const started = performance.now();
  await foregroundQuiet(50);
  assert.ok(performance.now() - started >= 45, 'waited for the patience');
  assert.equal(foregroundBusy(50), false, 'a request older than the patience holds nothing back');
  assert.equal(foregroundBusy(), true);
  long();
});
