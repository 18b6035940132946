// A daemon whose engines cannot load (a broken install, or a module Node's loader handed exports
// that were not there yet): every request gets an error that says so (status is answered while
// it loads), and the daemon then stops, so that the next command starts one that loads afresh
// (a module that failed to evaluate stays failed in its process).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isLive } from '../../src/base/socket-folder.js';
import { sleep, tempDir, writeFixture } from '../helpers/fixture.js';
import { socketPathIn } from '../helpers/raw-client.js';

const repository = fileURLToPath(new URL('../../../', import.meta.url));

/** This build's `dist/src`, copied beside a link to the repository's packages, with `broken` made to throw as it loads. */
function brokenInstall(broken: string): string {
  const install = tempDir('fathom-broken-');
  fs.cpSync(path.join(repository, 'dist', 'src'), path.join(install, 'dist', 'src'), { recursive: true });
  fs.copyFileSync(path.join(repository, 'package.json'), path.join(install, 'package.json'));
  fs.symlinkSync(path.join(repository, 'node_modules'), path.join(install, 'node_modules'));
  fs.appendFileSync(path.join(install, 'dist', 'src', broken), "\nthrow new Error('a broken install');\n");
  return path.join(install, 'dist', 'src', 'cli', 'main.js');
}

test('a daemon that cannot load its engines says why it fails each request, and stops', async () => {
  const main = brokenInstall(path.join('daemon', 'workspaces.js'));
  const root = writeFixture(`
    //- a.txt
    hello
  `);
  spawnSync('git', ['init', '-q'], { cwd: root });
  const socket = socketPathIn();
  const env = { PATH: process.env.PATH, HOME: tempDir(), FATHOM_SOCKET: socket, FATHOM_CACHE_DIR: tempDir(), FATHOM_LOG: 'warn' };
  const run = (...args: string[]) => spawnSync(process.execPath, [main, ...args], { cwd: root, env, encoding: 'utf8', timeout: 30_000 });

  const grep = run('grep', '-F', 'hello');
  assert.notEqual(grep.status, 0, grep.stdout);
  assert.match(grep.stderr, /the daemon could not load its engines \(a broken install\); it stops, and the next command starts a fresh one/);

  // It stops by itself (before this change it stayed up, failing every request until killed).
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && (await isLive(socket))) await sleep(50);
  assert.equal(await isLive(socket), false, 'the daemon is still serving after its engines failed to load');

  // The next command starts a fresh daemon (which fails the same way here: the install is broken).
  const again = run('grep', '-F', 'hello');
  assert.match(again.stderr, /could not load its engines/);
  run('stop');
});
