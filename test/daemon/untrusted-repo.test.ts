// A repository that means harm, as the daemon meets it: symlinks that lead edits out of the
// workspace (every route a row: the write is refused with pathOutsideWorkspace and nothing appears
// outside, or, a link that stays inside, it lands where the link leads); language servers,
// TypeScript and a debugpy of its own that would run the moment Fathom edits, checks or debugs
// there (each leaves a marker file if it runs: none may, until the user trusts the workspace).
// Under root (CI) the daemons and the CLI run as the system user fathom-ci, which owns every
// fixture (the repositories, the folder outside, the marker's folder): the OS would let it write
// each refused path, so only Fathom's own checks refuse it (test/helpers/unprivileged.ts); not
// root, they run as the current user.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ErrorCodes } from '../../src/protocol/errors.js';
import { gitInit, tempDir } from '../helpers/fixture.js';
import { spawnCli, spawnStdioDaemon, type RawClient, type Spawned } from '../helpers/raw-client.js';
import { unprivileged } from '../helpers/unprivileged.js';
import type { EditFileResult, TrustResult } from '../../src/protocol/methods.js';

const user = unprivileged();
const skip = user.skip;
/** Who runs Fathom here, said in every test's name. */
const who = ` (${user.who})`;

let daemon: Spawned & { client: RawClient };
let root: string;
let outside: string;

/** A refusal is Fathom's, not the OS's: no permission error in it. */
function notThePermissions(message: string, name: string): void {
  assert.doesNotMatch(message, /EACCES|EPERM|permission denied/i, `${name}: refused by the OS, not by Fathom`);
}

before(async () => {
  if (skip) return;
  // Made here and then given to the user (git, run as root here, refuses a repository of another user's).
  root = tempDir('fathom-hostile-');
  outside = user.tempDir('fathom-victim-');
  gitInit(root);
  fs.writeFileSync(path.join(root, 'a.txt'), 'a\n');
  fs.mkdirSync(path.join(root, 'inner'));
  fs.symlinkSync(outside, path.join(root, 'docs'));
  fs.symlinkSync(path.join(outside, 'planted.txt'), path.join(root, 'dangling.txt'));
  fs.symlinkSync(path.join(root, 'inner'), path.join(root, 'alias'));
  fs.symlinkSync(path.join(root, 'docs'), path.join(root, 'chain'));
  user.own(root);
  // The user itself may write outside (and in the folder above the workspace): only Fathom stands in the way.
  for (const folder of [outside, path.dirname(root)]) {
    const probe = user.spawnSync('sh', ['-c', 'echo x > "$1/.fathom-probe" && rm "$1/.fathom-probe"', 'sh', folder]);
    assert.equal(probe.status, 0, `${user.name} can write in ${folder}: ${probe.stderr}`);
  }
  daemon = spawnStdioDaemon({}, user);
  await daemon.client.result('initialize', { processId: null, rootUri: null, capabilities: {} });
  if (user.switched)
    assert.match(
      fs.readFileSync(`/proc/${daemon.child.pid}/status`, 'utf8'),
      new RegExp(`^Uid:\\s+${user.uid}\\s+${user.uid}\\s`, 'm'),
      `the daemon runs as ${user.name}`,
    );
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

test(`writes: no route through a symlink or .. leaves the workspace${who}`, { skip }, async () => {
  for (const { name, path: target } of escapes) {
    const response = await daemon.client.request('fathom/writeFile', { root, path: target(), text: 'key\n' });
    assert.equal(response.error?.code, ErrorCodes.PathOutsideWorkspace, `${name}: ${JSON.stringify(response)}`);
    assert.match(response.error!.message, /outside the workspace/, name);
    notThePermissions(response.error!.message, name);
    assert.deepEqual(fs.readdirSync(outside), [], `${name}: nothing was written outside`);
  }
  assert.equal(fs.existsSync(path.join(path.dirname(root), 'victim.txt')), false);
});

test(`writes: a path sent alone writes only inside an open workspace, or where the client says loose${who}`, { skip }, async () => {
  const loose = path.join(outside, 'planted.txt');
  for (const target of [loose, path.join(outside, 'sub', 'x.txt')]) {
    const response = await daemon.client.request('fathom/writeFile', { path: target, text: 'x\n' });
    assert.equal(response.error?.code, ErrorCodes.WorkspaceNotFound, JSON.stringify(response));
    assert.match(response.error!.message, /nothing was written/);
    notThePermissions(response.error!.message, target);
  }
  assert.deepEqual(fs.readdirSync(outside), []);
  const consented = await daemon.client.request('fathom/writeFile', { path: loose, text: 'x\n', loose: true });
  assert.equal(consented.error, undefined, JSON.stringify(consented));
  assert.equal(fs.readFileSync(loose, 'utf8'), 'x\n');
  fs.rmSync(loose);
});

test(`writes: a symlink that stays inside the workspace is written through${who}`, { skip }, async () => {
  const response = await daemon.client.request('fathom/writeFile', { root, path: path.join(root, 'alias', 'new.txt'), text: 'fine\n' });
  assert.equal(response.error, undefined, JSON.stringify(response));
  assert.equal(fs.readFileSync(path.join(root, 'inner', 'new.txt'), 'utf8'), 'fine\n');
});

test(`writes: fathom edit from the shell refuses the symlinked folder and says why${who}`, { skip }, async () => {
  const cli = spawnCli(['edit', path.join(root, 'docs', 'authorized_keys'), '--no-daemon'], { FATHOM_CACHE_DIR: user.tempDir('fathom-cache-') }, user);
  cli.child.stdin.end('key\n');
  const code = await cli.exited;
  assert.notEqual(code, 0);
  assert.match(cli.stderr(), /outside the workspace/);
  notThePermissions(cli.stderr(), 'fathom edit');
  assert.deepEqual(fs.readdirSync(outside), []);
});

/** The Fathom package as the user reaches it (the repository, or its mirror: test/helpers/unprivileged.ts). */
const repository = user.repository;

/** A repository whose own language servers, TypeScript and debugpy leave `marker` when they run. */
function hostileRepository(marker: string): string {
  const hostile = tempDir('fathom-hostile-');
  // Made by the test, then the user's (below): as the user's own clone would be.
  gitInit(hostile);
  const write = (name: string, text: string, mode = 0o644): void => {
    fs.mkdirSync(path.dirname(path.join(hostile, name)), { recursive: true });
    fs.writeFileSync(path.join(hostile, name), text, { mode });
  };
  const payload = (name: string): string => `#!/bin/sh\necho ${name} >> ${marker}\nexit 1\n`;
  write('package.json', '{ "name": "hostile" }\n');
  write('tsconfig.json', '{ "compilerOptions": { "strict": true } }\n');
  write('a.ts', 'export const a: number = 1;\n');
  write('node_modules/.bin/typescript-language-server', payload('typescript-language-server'), 0o755);
  write('pyproject.toml', '[project]\nname = "hostile"\n');
  write('b.py', 'x: int = 1\n');
  write('node_modules/.bin/pyright-langserver', payload('pyright-langserver'), 0o755);
  // A TypeScript of its own: runs the real one after leaving the marker (so only the marker tells).
  write('node_modules/typescript/package.json', '{ "name": "typescript", "version": "5.9.3" }\n');
  write(
    'node_modules/typescript/lib/tsserver.js',
    `require('fs').appendFileSync(${JSON.stringify(marker)}, 'tsserver\\n');\nrequire(${JSON.stringify(path.join(repository, 'node_modules/typescript/lib/tsserver.js'))});\n`,
  );
  write(
    'node_modules/typescript/lib/typescript.js',
    `module.exports = require(${JSON.stringify(path.join(repository, 'node_modules/typescript/lib/typescript.js'))});\n`,
  );
  // A debugpy of its own, next to the program to debug.
  write('debugpy/__init__.py', `open(${JSON.stringify(marker)}, 'a').write('debugpy\\n')\n`);
  write('debugpy/adapter/__init__.py', '');
  write('debugpy/adapter/__main__.py', `open(${JSON.stringify(marker)}, 'a').write('debugpy.adapter\\n')\n`);
  write('prog.py', 'print("hello")\n');
  return user.own(hostile);
}

const readMarker = (marker: string): string => (fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8') : '');
/** Whether the user (whose daemon launches it) can import debugpy; a debugpy only root can import would drop the debug half unsaid: an error. */
const debugpy = ['python3', '/usr/bin/python3'].some((python) => user.spawnSync(python, ['-c', 'import debugpy'], { cwd: '/' }).status === 0);
if (!debugpy && !skip && ['python3', '/usr/bin/python3'].some((python) => spawnSync(python, ['-c', 'import debugpy'], { cwd: '/' }).status === 0)) {
  throw new Error(`root can import debugpy and ${user.name} cannot: install it system-wide (python3-debugpy)`);
}

test(`trust: an untrusted repository runs none of its own servers, TypeScript or debugpy; trusted, it does${who}`, { skip }, async () => {
  // The marker's folder is the user's: a payload that ran could write it (the trusted half proves it).
  const marker = path.join(user.tempDir('fathom-marker-'), 'ran.txt');
  const hostile = hostileRepository(marker);
  const hostileDaemon = spawnStdioDaemon({ FATHOM_CONFIG_DIR: user.tempDir('fathom-config-') }, user);
  const client = hostileDaemon.client;
  try {
    await client.result('initialize', { processId: null, rootUri: null, capabilities: {} });
    const edit = await client.result<EditFileResult>('fathom/writeFile', {
      root: hostile,
      path: path.join(hostile, 'a.ts'),
      text: 'export const a: number = "x";\n',
    });
    assert.equal(edit.status, 'ok', JSON.stringify(edit));
    assert.equal(edit.newDiagnostics.length, 1, "Fathom's own TypeScript still checks the edit");
    assert.match(
      edit.notice ?? '',
      /is not trusted: not running the repository's node_modules\/\.bin\/typescript-language-server and node_modules\/typescript .*fathom trust/,
    );
    const python = await client.result<EditFileResult>('fathom/newDiagnostics', { root: hostile, path: path.join(hostile, 'b.py') });
    assert.equal(python.status, 'ok', JSON.stringify(python));
    assert.match(python.notice ?? '', /node_modules\/\.bin\/pyright-langserver/);
    if (debugpy) {
      const launched = await client.request('fathom/debugLaunch', { root: hostile, program: path.join(hostile, 'prog.py'), stopOnEntry: true });
      assert.equal(launched.error, undefined, JSON.stringify(launched));
      await client.request('fathom/debugTerminate', { root: hostile });
    }
    assert.equal(readMarker(marker), '', 'nothing of the repository ran');

    // Trusted: its own server runs (and fails, being a payload: the answer says so).
    const trusted = await client.result<TrustResult>('fathom/trust', { path: hostile, trusted: true });
    assert.equal(trusted.trusted, true);
    assert.deepEqual(trusted.folders, [hostile]);
    const again = await client.result<EditFileResult>('fathom/writeFile', {
      root: hostile,
      path: path.join(hostile, 'a.ts'),
      text: 'export const a: number = 2;\n',
    });
    assert.equal(again.notice, undefined);
    assert.match(readMarker(marker), /typescript-language-server/, "trusted: the repository's own server ran");
    const untrusted = await client.result<TrustResult>('fathom/trust', { path: hostile, trusted: false });
    assert.equal(untrusted.trusted, false);
    assert.deepEqual(untrusted.folders, []);
  } finally {
    hostileDaemon.child.kill();
  }
});

test(`trust: fathom trust is remembered across daemons, and fathom edit prints the notice${who}`, { skip }, async () => {
  const marker = path.join(user.tempDir('fathom-marker-'), 'ran.txt');
  const hostile = hostileRepository(marker);
  const env = { FATHOM_CONFIG_DIR: user.tempDir('fathom-config-'), FATHOM_CACHE_DIR: user.tempDir('fathom-cache-') };
  const run = async (args: string[], input?: string): Promise<{ code: number | null; stderr: string }> => {
    const cli = spawnCli([...args, '--no-daemon'], env, user);
    cli.child.stdin.end(input ?? '');
    const code = await cli.exited;
    return { code, stderr: cli.stderr() };
  };
  const edited = await run(['edit', path.join(hostile, 'a.ts')], 'export const a: number = 3;\n');
  assert.equal(edited.code, 0, edited.stderr);
  assert.match(edited.stderr, /is not trusted: not running the repository's/);
  assert.equal(readMarker(marker), '');
  assert.equal((await run(['trust', hostile])).code, 0);
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(env.FATHOM_CONFIG_DIR, 'trusted.json'), 'utf8')).folders, [hostile]);
  await run(['edit', path.join(hostile, 'a.ts')], 'export const a: number = 4;\n');
  assert.match(readMarker(marker), /typescript-language-server/, 'a later daemon remembers the trust');
});
