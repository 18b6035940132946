// fathom.nvim in the real Neovim (Debian's 0.7.2 in CI) against the real daemon: headless nvim
// runs clients/neovim/tests/minimal_init.lua on a fixture repo, and tests/never_blocks.lua on a
// repository whose first index takes seconds, through `fathom attach`; every check it prints must hold.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { attachTestEnvironment, editorFixture, editorTestEnvironment, largeEditorFixture } from '../helpers/editor-fixture.js';
import { cliMain } from '../helpers/raw-client.js';

const repository = path.resolve(import.meta.dirname, '../../..');

test('neovim: :FathomGrep, unsaved buffers, :CodeSearch, :StructuralSearch, :FathomRefs, :FathomStatus', () => {
  const nvim = spawnSync('nvim', ['--version'], { encoding: 'utf8' });
  assert.equal(nvim.status, 0, "Neovim is installed (.ci/run installs Debian's neovim)");
  const root = editorFixture();
  const run = spawnSync('nvim', ['--headless', '-u', path.join(repository, 'clients/neovim/tests/minimal_init.lua')], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
    env: editorTestEnvironment(root),
  });
  const output = `${run.stdout}${run.stderr}`;
  assert.equal(run.status, 0, output);
  assert.ok(!/FAIL/.test(output), output);
  assert.equal((output.match(/^ok /gm) ?? []).length, 15, output);
});

test('neovim never blocks: keys are taken while a grep waits for a first index of 20,000 files; progress shows; a new query cancels', () => {
  const root = largeEditorFixture(20_000);
  const env = attachTestEnvironment(root);
  try {
    const run = spawnSync('nvim', ['--headless', '-u', path.join(repository, 'clients/neovim/tests/never_blocks.lua')], {
      cwd: root,
      encoding: 'utf8',
      timeout: 150_000,
      env,
    });
    const output = `${run.stdout}${run.stderr}`;
    assert.equal(run.status, 0, output);
    assert.ok(!/FAIL/.test(output), output);
    assert.equal((output.match(/^ok /gm) ?? []).length, 8, output);
  } finally {
    spawnSync(process.execPath, [cliMain, 'stop'], { env, encoding: 'utf8', timeout: 30_000 });
  }
});
