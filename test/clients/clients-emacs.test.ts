// fathom.el in the real Emacs (Debian's emacs-nox 28.2 in CI) against the real daemon: ERT in
// batch mode on a fixture repo (clients/emacs/fathom-tests.el), on a repository whose first index
// takes seconds through `fathom attach` (fathom-never-blocks-tests.el), and byte-compilation with
// warnings as errors.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { attachTestEnvironment, editorFixture, editorTestEnvironment, largeEditorFixture } from '../helpers/editor-fixture.js';
import { tempDir } from '../helpers/fixture.js';
import { cliMain } from '../helpers/raw-client.js';

const clientFolder = path.resolve(import.meta.dirname, '../../../clients/emacs');

test('emacs: fathom.el byte-compiles without warnings', () => {
  const folder = tempDir('fathom-elisp-');
  fs.copyFileSync(path.join(clientFolder, 'fathom.el'), path.join(folder, 'fathom.el'));
  const run = spawnSync('emacs', ['--batch', '--eval', '(setq byte-compile-error-on-warn t)', '-f', 'batch-byte-compile', path.join(folder, 'fathom.el')], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
  assert.ok(fs.existsSync(path.join(folder, 'fathom.elc')));
});

test('emacs: fathom-grep, unsaved buffers, code and structural search, xref, status (ERT)', () => {
  const root = editorFixture();
  const run = spawnSync('emacs', ['--batch', '-L', clientFolder, '-l', 'ert', '-l', 'fathom', '-l', 'fathom-tests', '-f', 'ert-run-tests-batch-and-exit'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
    env: editorTestEnvironment(root),
  });
  const output = `${run.stdout}${run.stderr}`;
  assert.equal(run.status, 0, output);
  assert.match(output, /Ran 5 tests, 5 results as expected/);
});

test('emacs never blocks: keys run as commands while a grep waits for a first index of 20,000 files; progress shows; a new search cancels (ERT)', () => {
  const root = largeEditorFixture(20_000);
  const env = attachTestEnvironment(root);
  try {
    const run = spawnSync(
      'emacs',
      ['--batch', '-L', clientFolder, '-l', 'ert', '-l', 'fathom', '-l', 'fathom-never-blocks-tests', '-f', 'ert-run-tests-batch-and-exit'],
      { cwd: root, encoding: 'utf8', timeout: 150_000, env },
    );
    const output = `${run.stdout}${run.stderr}`;
    assert.equal(run.status, 0, output);
    assert.match(output, /Ran 2 tests, 2 results as expected/);
  } finally {
    spawnSync(process.execPath, [cliMain, 'stop'], { env, encoding: 'utf8', timeout: 30_000 });
  }
});
