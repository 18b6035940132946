// Bad conditions on disk: files that cannot be read, folders that cannot be listed, files that
// vanish or change kind between a listing and a read, and a daemon killed while it writes its
// cache. Nothing may crash, and the cache is always either the old file or the new one.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { decodeFileSet } from '../src/workspace/file-set-store.js';
import { inspectFile } from '../src/workspace/file-content.js';
import { sleep, tempDir, writeFixture } from './helpers/fixture.js';
import { cliMain, connectRaw, socketPathIn, spawnSocketDaemon } from './helpers/raw-client.js';
import { pool, readyWorkspace } from './helpers/workspace-harness.js';

after(() => pool.close());

test('content: what inspecting a file says, with and without what is known', () => {
  const folder = tempDir();
  const write = (name: string, content: string | Buffer): string => {
    fs.writeFileSync(path.join(folder, name), content);
    return path.join(folder, name);
  };
  const text = write('a.txt', 'hello\n');
  const stat = fs.statSync(text);
  spawnSync('mkfifo', [path.join(folder, 'fifo')]);
  fs.symlinkSync(text, path.join(folder, 'link'));
  const cases: { name: string; file: string; known?: [number, number, number]; read?: boolean; expected: string }[] = [
    { name: 'text', file: text, expected: 'text' },
    { name: 'empty', file: write('empty.txt', ''), expected: 'text' },
    { name: 'NUL in the first 8 KiB', file: write('b.bin', Buffer.from([65, 0, 66])), expected: 'binary' },
    { name: 'NUL after 8 KiB', file: write('late.txt', Buffer.concat([Buffer.alloc(8192, 97), Buffer.from([0])])), expected: 'text' },
    { name: 'over the limit', file: write('big.txt', 'x'.repeat(20_000)), expected: 'tooLarge' },
    { name: 'a path that vanished', file: path.join(folder, 'gone.txt'), expected: 'vanished' },
    { name: 'a folder where a file was', file: folder, expected: 'notFile' },
    { name: 'a FIFO (never waited on)', file: path.join(folder, 'fifo'), expected: 'notFile' },
    { name: 'a symbolic link (never followed)', file: path.join(folder, 'link'), expected: 'notFile' },
    { name: 'known and unchanged: not read', file: text, known: [stat.size, stat.mtimeMs, stat.ino], expected: 'same' },
    { name: 'known but changed: read', file: text, known: [stat.size + 1, stat.mtimeMs, stat.ino], expected: 'text' },
    { name: 'unknown, stat only', file: text, read: false, expected: 'stat' },
  ];
  for (const { name, file, known, read, expected } of cases) {
    assert.equal(inspectFile({ path: file, known, read: read ?? true }, 10_000).kind, expected, name);
  }
});

test('permissions: unreadable files and folders are skipped as unreadable, the rest indexed', () => {
  const root = writeFixture(`
    //- ok.ts
    export {};
    //- locked.ts
    secret
    //- closed/inside.ts
    hidden
    //- open/fine.ts
    fine
  `);
  fs.chmodSync(path.join(root, 'locked.ts'), 0o000);
  fs.chmodSync(path.join(root, 'closed'), 0o000);
  // Root reads everything: run the CLI as an unprivileged user when the tests run as root.
  const asRoot = process.getuid?.() === 0;
  const cache = tempDir('fathom-cache-');
  if (asRoot) {
    for (const folder of [root, cache]) {
      fs.chmodSync(folder, 0o755);
      fs.chownSync(folder, 65534, 65534);
    }
    for (const name of ['ok.ts', 'locked.ts', 'open', 'open/fine.ts']) fs.chownSync(path.join(root, name), 65534, 65534);
  }
  const run = (command: string) =>
    spawnSync(process.execPath, [cliMain, command, root, '--no-daemon', '--json'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, FATHOM_CACHE_DIR: cache, FATHOM_SOCKET: socketPathIn(), HOME: cache, FATHOM_LOG: 'warn' },
      ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
    });
  const files = run('files');
  const indexed = run('index');
  // A root that cannot be read at all is refused with a clear error, not indexed as empty.
  fs.chmodSync(path.join(root, 'open'), 0o000);
  const closedRoot = spawnSync(process.execPath, [cliMain, 'files', path.join(root, 'open'), '--no-daemon'], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, FATHOM_CACHE_DIR: cache, HOME: cache, FATHOM_LOG: 'warn' },
    ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
  });
  fs.chmodSync(path.join(root, 'open'), 0o755);
  fs.chmodSync(path.join(root, 'closed'), 0o755);
  assert.equal(closedRoot.status, 2);
  assert.match(closedRoot.stderr, /cannot be read \(code -32010\)/);
  assert.equal(files.status, 0, files.stderr);
  assert.deepEqual(JSON.parse(files.stdout), ['ok.ts', 'open/fine.ts']);
  assert.equal(indexed.status, 0, indexed.stderr);
  assert.deepEqual(JSON.parse(indexed.stdout).skipped, { unreadable: 2 });
});

test('churn: files vanishing and changing kind during scans never break the workspace', async () => {
  const root = tempDir();
  for (let index = 0; index < 300; index++) fs.writeFileSync(path.join(root, `f${index}.txt`), `${index}\n`);
  let stop = false;
  const churn = (async () => {
    for (let round = 0; !stop; round++) {
      const name = path.join(root, `f${round % 300}.txt`);
      fs.rmSync(name, { force: true, recursive: true });
      if (round % 3 === 0) fs.mkdirSync(name);
      else fs.writeFileSync(name, `again ${round}\n`);
      if (round % 5 === 0) await sleep(0);
    }
  })();
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      const workspace = await readyWorkspace(root);
      await workspace.reconcile();
      await workspace.close();
    }
  } finally {
    stop = true;
    await churn;
  }
});

test('a daemon killed at any moment leaves a cache that is whole or absent, never torn', async () => {
  const root = tempDir();
  for (let folder = 0; folder < 20; folder++) {
    fs.mkdirSync(path.join(root, `d${folder}`));
    for (let file = 0; file < 100; file++) fs.writeFileSync(path.join(root, `d${folder}`, `f${file}.txt`), `${folder} ${file}\n`);
  }
  const cache = tempDir('fathom-cache-');
  for (let round = 0; round < 8; round++) {
    const socketPath = socketPathIn();
    const daemon = await spawnSocketDaemon(socketPath, { FATHOM_CACHE_DIR: cache });
    const { client, socket } = await connectRaw(socketPath);
    void client.request('fathom/index', { root });
    // Keep the daemon writing: edits make it save the file set again and again.
    for (let edit = 0; edit < 5; edit++) fs.writeFileSync(path.join(root, 'd0', `f${edit}.txt`), `round ${round} edit ${edit}\n`);
    await sleep(40 + ((round * 37) % 200));
    daemon.child.kill('SIGKILL');
    await daemon.exited;
    socket.destroy();
    const workspaces = path.join(cache, 'workspaces');
    for (const folder of fs.existsSync(workspaces) ? fs.readdirSync(workspaces) : []) {
      const file = path.join(workspaces, folder, 'fileset.bin');
      if (fs.existsSync(file)) assert.equal(decodeFileSet(fs.readFileSync(file)).status, 'valid', `round ${round}`);
    }
  }
});
