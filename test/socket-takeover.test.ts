// Another local user trying to stand in for the user's daemon: a socket folder they made first,
// a socket they bound first. The CLI must refuse before it sends a byte, and the daemon must not
// listen there. The other user is uid 65534 (nobody) when the tests run as root (as CI does);
// otherwise only the cases one user can set up run.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { checkSocketFolder, checkSocketToConnect, UnsafeSocketError } from '../src/base/socket-folder.js';
import { sleep, tempDir } from './helpers/fixture.js';
import { cliMain } from './helpers/raw-client.js';

const asRoot = process.getuid?.() === 0;
const other = 65534;

/** A folder anyone may write to, sticky like /tmp: where the other user plants things. */
function sharedTemp(): string {
  const folder = tempDir('fathom-shared-');
  fs.chmodSync(folder, 0o1777);
  return folder;
}

/** A listener bound by uid `as` at `socketPath` that records every byte it is sent. */
async function fakeDaemon(socketPath: string, as: number | undefined): Promise<{ child: ChildProcess; received: () => string }> {
  const record = path.join(path.dirname(socketPath), 'received.bin');
  const script = `
    const fs = require('fs'); const net = require('net');
    fs.writeFileSync(${JSON.stringify(record)}, '');
    net.createServer((socket) => socket.on('data', (data) => fs.appendFileSync(${JSON.stringify(record)}, data))).listen(${JSON.stringify(socketPath)}, () => fs.chmodSync(${JSON.stringify(socketPath)}, 0o777));
  `;
  const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore', ...(as === undefined ? {} : { uid: as, gid: as }) });
  for (let attempt = 0; attempt < 200 && !fs.existsSync(socketPath); attempt++) await sleep(20);
  assert.ok(fs.existsSync(socketPath), 'the fake daemon listens');
  return { child, received: () => fs.readFileSync(record, 'utf8') };
}

function runCli(args: string[], env: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [cliMain, ...args], { encoding: 'utf8', input: 'secret text\n', timeout: 30_000, env: { PATH: process.env.PATH ?? '', HOME: tempDir('fathom-home-'), FATHOM_CACHE_DIR: tempDir('fathom-cache-'), FATHOM_LOG: 'warn', ...env } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('socket folder: which folders are refused', { skip: process.platform !== 'linux' }, () => {
  const cases: { name: string; make: () => string; refused: RegExp | false; needsRoot?: boolean }[] = [
    { name: 'a folder of mine, 0700', make: () => path.join(tempDir(), 'run', 'fathom.sock'), refused: false },
    { name: 'a socket right in a sticky shared folder', make: () => path.join(sharedTemp(), 'fathom.sock'), refused: false },
    {
      name: 'my folder, open to everyone (0777)',
      make: () => {
        const folder = path.join(tempDir(), 'run');
        fs.mkdirSync(folder);
        fs.chmodSync(folder, 0o777);
        return path.join(folder, 'fathom.sock');
      },
      refused: /can be written by others \(mode 777\)/,
    },
    {
      name: 'a folder another user made first',
      needsRoot: true,
      make: () => {
        const folder = path.join(sharedTemp(), `fathom-${process.getuid!()}`);
        fs.mkdirSync(folder);
        fs.chmodSync(folder, 0o700);
        fs.chownSync(folder, other, other);
        return path.join(folder, 'fathom.sock');
      },
      refused: /belongs to uid 65534/,
    },
    {
      name: 'a symlink another user planted, to a folder of theirs',
      needsRoot: true,
      make: () => {
        const shared = sharedTemp();
        const theirs = path.join(shared, 'theirs');
        fs.mkdirSync(theirs);
        fs.chownSync(theirs, other, other);
        fs.symlinkSync(theirs, path.join(shared, 'fathom-link'));
        return path.join(shared, 'fathom-link', 'fathom.sock');
      },
      refused: /belongs to uid 65534/,
    },
  ];
  for (const { name, make, refused, needsRoot } of cases) {
    if (needsRoot && !asRoot) continue;
    const socketPath = make();
    if (refused === false) assert.doesNotThrow(() => checkSocketFolder(socketPath, { create: true }), name);
    else assert.throws(() => checkSocketFolder(socketPath, { create: true }), (error: unknown) => error instanceof UnsafeSocketError && refused.test(error.message), name);
  }
});

test('socket takeover: the CLI refuses a socket folder another user made, and sends nothing', { skip: !asRoot ? 'needs root, to act as a second user' : false }, async () => {
  const tmp = sharedTemp();
  // What the other user does: make the victim's default socket folder first, open to all, and listen in it.
  const folder = path.join(tmp, `fathom-${process.getuid!()}`);
  spawnSync('mkdir', ['-m', '0777', folder], { uid: other, gid: other });
  const fake = await fakeDaemon(path.join(folder, 'fathom.sock'), other);
  try {
    for (const args of [['status'], ['edit', path.join(tempDir(), 'a.txt')], ['grep', 'x', tempDir()]]) {
      const run = runCli(args, { TMPDIR: tmp });
      assert.notEqual(run.status, 0, `${args[0]}: ${run.stdout}`);
      assert.match(run.stderr, /refusing the socket .*belongs to uid 65534/, args[0]);
      assert.equal(run.stdout, '');
    }
    assert.equal(fake.received(), '', 'not a byte reached the other user');
    // Nor does a daemon of the victim's start there.
    const serve = runCli(['serve', '--socket', path.join(folder, 'mine.sock')], {});
    assert.notEqual(serve.status, 0);
    assert.match(serve.stderr, /refusing the socket/);
  } finally {
    fake.child.kill();
  }
});

test('socket takeover: a socket another user bound in a shared folder is not the daemon', { skip: !asRoot ? 'needs root, to act as a second user' : false }, async () => {
  const socketPath = path.join(sharedTemp(), 'fathom.sock');
  const fake = await fakeDaemon(socketPath, other);
  try {
    assert.throws(() => checkSocketToConnect(socketPath), /the socket belongs to uid 65534/);
    const run = runCli(['status', '--socket', socketPath], {});
    assert.notEqual(run.status, 0);
    assert.match(run.stderr, /it is not your daemon/);
    assert.equal(fake.received(), '');
  } finally {
    fake.child.kill();
  }
});
