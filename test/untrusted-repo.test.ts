// A repository that means harm, as the daemon meets it: symlinks that lead edits out of the
// workspace. Every route is a row: the write is refused with pathOutsideWorkspace and nothing
// appears outside, or (a link that stays inside) it lands where the link leads.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ErrorCodes } from '../src/protocol/errors.js';
import { gitInit, tempDir } from './helpers/fixture.js';
import { spawnCli, spawnStdioDaemon, type RawClient, type Spawned } from './helpers/raw-client.js';

let daemon: Spawned & { client: RawClient };
let root: string;
let outside: string;

before(async () => {
  root = tempDir('fathom-hostile-');
  outside = tempDir('fathom-victim-');
  gitInit(root);
  fs.writeFileSync(path.join(root, 'a.txt'), 'a\n');
  fs.mkdirSync(path.join(root, 'inner'));
  fs.symlinkSync(outside, path.join(root, 'docs'));
  fs.symlinkSync(path.join(outside, 'planted.txt'), path.join(root, 'dangling.txt'));
  fs.symlinkSync(path.join(root, 'inner'), path.join(root, 'alias'));
  fs.symlinkSync(path.join(root, 'docs'), path.join(root, 'chain'));
  daemon = spawnStdioDaemon();
  await daemon.client.result('initialize', { processId: null, rootUri: null, capabilities: {} });
});

after(() => {
  daemon?.child.kill();
});

const escapes: { name: string; path: () => string }[] = [
  { name: 'a new file below a symlinked folder', path: () => path.join(root, 'docs', 'authorized_keys') },
  { name: 'a new file in a new folder below a symlinked folder', path: () => path.join(root, 'docs', 'ssh', 'authorized_keys') },
  { name: 'a dangling symlink whose target is outside', path: () => path.join(root, 'dangling.txt') },
  { name: 'a symlink to a symlinked folder', path: () => path.join(root, 'chain', 'x.txt') },
  { name: 'a relative path climbing out', path: () => '../victim.txt' },
];

test('writes: no route through a symlink or .. leaves the workspace', async () => {
  for (const { name, path: target } of escapes) {
    const response = await daemon.client.request('fathom/writeFile', { root, path: target(), text: 'key\n' });
    assert.equal(response.error?.code, ErrorCodes.PathOutsideWorkspace, `${name}: ${JSON.stringify(response)}`);
    assert.match(response.error!.message, /outside the workspace/, name);
    assert.deepEqual(fs.readdirSync(outside), [], `${name}: nothing was written outside`);
  }
  assert.equal(fs.existsSync(path.join(path.dirname(root), 'victim.txt')), false);
});

test('writes: a symlink that stays inside the workspace is written through', async () => {
  const response = await daemon.client.request('fathom/writeFile', { root, path: path.join(root, 'alias', 'new.txt'), text: 'fine\n' });
  assert.equal(response.error, undefined, JSON.stringify(response));
  assert.equal(fs.readFileSync(path.join(root, 'inner', 'new.txt'), 'utf8'), 'fine\n');
});

test('writes: fathom edit from the shell refuses the symlinked folder and says why', async () => {
  const cli = spawnCli(['edit', path.join(root, 'docs', 'authorized_keys'), '--no-daemon'], { FATHOM_CACHE_DIR: tempDir('fathom-cache-') });
  cli.child.stdin.end('key\n');
  const code = await cli.exited;
  assert.notEqual(code, 0);
  assert.match(cli.stderr(), /outside the workspace/);
  assert.deepEqual(fs.readdirSync(outside), []);
});
