// Another local user trying to stand in for the user's daemon: a socket folder they made first,
// a socket they bound first. The CLI must refuse before it sends a byte, and the daemon must not
// listen there. Under root (as CI runs) the victim (its CLI, its daemon, the socket checks) runs
// as the system user fathom-ci (test/helpers/unprivileged.ts), never as root, whose own folders
// the checks let pass and who may connect to any socket; the other user, the attacker, is uid
// 65534 (nobody). Not root, the victim is the current user and only the cases one user
// can set up run.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { sleep, tempDir } from '../helpers/fixture.js';
import { unprivileged } from '../helpers/unprivileged.js';

const asRoot = process.getuid?.() === 0;
const other = 65534;
const victim = unprivileged();
/** Who the victim is, said in every test's name. */
const who = ` (the victim ${victim.who}; the attacker uid ${other})`;

/**
 * Runs socket-folder.ts's `check` on `socketPath` in a process of the victim's (`{ create: true }`
 * for checkSocketFolder): undefined when it passes, else what it threw.
 */
function checkAsVictim(check: 'checkSocketFolder' | 'checkSocketToConnect', socketPath: string): { unsafe: boolean; message: string } | undefined {
  const module = pathToFileURL(path.join(victim.repository, 'dist', 'src', 'base', 'socket-folder.js')).href;
  const script = `
    const m = await import(${JSON.stringify(module)});
    let thrown = null;
    try {
      m[${JSON.stringify(check)}](${JSON.stringify(socketPath)}, { create: true });
    } catch (error) {
      thrown = { unsafe: error instanceof m.UnsafeSocketError, message: String(error?.message ?? error) };
    }
    process.stdout.write(JSON.stringify({ uid: process.getuid(), thrown }));
  `;
  const run = victim.spawnSync(process.execPath, ['--input-type=module', '-e', script]);
  assert.equal(run.status, 0, `${check} as the victim: ${run.error?.message ?? run.stderr}`);
  const answer = JSON.parse(run.stdout) as { uid: number; thrown: { unsafe: boolean; message: string } | null };
  assert.equal(answer.uid, victim.uid, 'the check ran as the victim');
  return answer.thrown ?? undefined;
}

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

/** The victim's CLI, in an environment of its own only (no XDG_RUNTIME_DIR, no FATHOM_SOCKET: the default socket is $TMPDIR/fathom-$UID). */
function runCli(args: string[], env: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [victim.cliMain, ...args], {
    ...victim.spawnOptions(),
    encoding: 'utf8',
    input: 'secret text\n',
    timeout: 30_000,
    env: { PATH: process.env.PATH ?? '', HOME: victim.tempDir('fathom-home-'), FATHOM_CACHE_DIR: victim.tempDir('fathom-cache-'), FATHOM_LOG: 'warn', ...env },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

test(`socket folder: which folders are refused${who}`, { skip: process.platform !== 'linux' ? 'Linux only' : victim.skip }, () => {
  const cases: { name: string; make: () => string; refused: RegExp | false; needsRoot?: boolean }[] = [
    { name: 'a folder of mine, 0700', make: () => path.join(victim.tempDir(), 'run', 'fathom.sock'), refused: false },
    { name: 'a socket right in a sticky shared folder', make: () => path.join(sharedTemp(), 'fathom.sock'), refused: false },
    {
      name: 'my folder, open to everyone (0777)',
      make: () => {
        const folder = path.join(victim.tempDir(), 'run');
        fs.mkdirSync(folder);
        fs.chmodSync(folder, 0o777);
        victim.own(folder);
        return path.join(folder, 'fathom.sock');
      },
      refused: /can be written by others \(mode 777\)/,
    },
    {
      name: 'a folder another user made first',
      needsRoot: true,
      make: () => {
        const folder = path.join(sharedTemp(), `fathom-${victim.uid}`);
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
    const thrown = checkAsVictim('checkSocketFolder', socketPath);
    if (refused === false) assert.equal(thrown, undefined, `${name}: ${JSON.stringify(thrown)}`);
    else assert.ok(thrown !== undefined && thrown.unsafe && refused.test(thrown.message), `${name}: ${JSON.stringify(thrown)}`);
  }
});

test(
  `socket takeover: the CLI refuses a socket folder another user made, and sends nothing${who}`,
  { skip: !asRoot ? 'needs root, to act as a second user' : victim.skip },
  async () => {
    const tmp = sharedTemp();
    // What the other user does: make the victim's default socket folder first, open to all, and listen in it.
    const folder = path.join(tmp, `fathom-${victim.uid}`);
    spawnSync('mkdir', ['-m', '0777', folder], { uid: other, gid: other });
    const fake = await fakeDaemon(path.join(folder, 'fathom.sock'), other);
    try {
      for (const args of [['status'], ['edit', path.join(victim.tempDir(), 'a.txt')], ['grep', 'x', victim.tempDir()]]) {
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
  },
);

test(
  `socket takeover: a socket another user bound in a shared folder is not the daemon${who}`,
  { skip: !asRoot ? 'needs root, to act as a second user' : victim.skip },
  async () => {
    const socketPath = path.join(sharedTemp(), 'fathom.sock');
    const fake = await fakeDaemon(socketPath, other);
    try {
      const thrown = checkAsVictim('checkSocketToConnect', socketPath);
      assert.match(thrown?.message ?? 'it passed', /the socket belongs to uid 65534/);
      const run = runCli(['status', '--socket', socketPath], {});
      assert.notEqual(run.status, 0);
      assert.match(run.stderr, /it is not your daemon/);
      assert.equal(fake.received(), '');
    } finally {
      fake.child.kill();
    }
  },
);
