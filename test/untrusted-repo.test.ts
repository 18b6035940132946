// A repository that means harm, as the daemon meets it: symlinks that lead edits out of the
// workspace (every route a row: the write is refused with pathOutsideWorkspace and nothing appears
// outside, or, a link that stays inside, it lands where the link leads); language servers,
// TypeScript and a debugpy of its own that would run the moment Fathom edits, checks or debugs
// there (each leaves a marker file if it runs: none may, until the user trusts the workspace).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ErrorCodes } from '../src/protocol/errors.js';
import { gitInit, tempDir } from './helpers/fixture.js';
import { spawnCli, spawnStdioDaemon, type RawClient, type Spawned } from './helpers/raw-client.js';
import type { EditFileResult, TrustResult } from '../src/protocol/methods.js';

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

test('writes: a path sent alone writes only inside an open workspace, or where the client says loose', async () => {
  const loose = path.join(outside, 'planted.txt');
  for (const target of [loose, path.join(outside, 'sub', 'x.txt')]) {
    const response = await daemon.client.request('fathom/writeFile', { path: target, text: 'x\n' });
    assert.equal(response.error?.code, ErrorCodes.WorkspaceNotFound, JSON.stringify(response));
    assert.match(response.error!.message, /nothing was written/);
  }
  assert.deepEqual(fs.readdirSync(outside), []);
  const consented = await daemon.client.request('fathom/writeFile', { path: loose, text: 'x\n', loose: true });
  assert.equal(consented.error, undefined, JSON.stringify(consented));
  assert.equal(fs.readFileSync(loose, 'utf8'), 'x\n');
  fs.rmSync(loose);
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

const repository = path.resolve(import.meta.dirname, '..', '..');

/** A repository whose own language servers, TypeScript and debugpy leave `marker` when they run. */
function hostileRepository(marker: string): string {
  const hostile = tempDir('fathom-hostile-');
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
  write('node_modules/typescript/lib/tsserver.js', `require('fs').appendFileSync(${JSON.stringify(marker)}, 'tsserver\\n');\nrequire(${JSON.stringify(path.join(repository, 'node_modules/typescript/lib/tsserver.js'))});\n`);
  write('node_modules/typescript/lib/typescript.js', `module.exports = require(${JSON.stringify(path.join(repository, 'node_modules/typescript/lib/typescript.js'))});\n`);
  // A debugpy of its own, next to the program to debug.
  write('debugpy/__init__.py', `open(${JSON.stringify(marker)}, 'a').write('debugpy\\n')\n`);
  write('debugpy/adapter/__init__.py', '');
  write('debugpy/adapter/__main__.py', `open(${JSON.stringify(marker)}, 'a').write('debugpy.adapter\\n')\n`);
  write('prog.py', 'print("hello")\n');
  return hostile;
}

const readMarker = (marker: string): string => (fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8') : '');
const debugpy = spawnSync('python3', ['-c', 'import debugpy'], { cwd: '/' }).status === 0 || spawnSync('/usr/bin/python3', ['-c', 'import debugpy'], { cwd: '/' }).status === 0;

test('trust: an untrusted repository runs none of its own servers, TypeScript or debugpy; trusted, it does', async () => {
  const marker = path.join(tempDir('fathom-marker-'), 'ran.txt');
  const hostile = hostileRepository(marker);
  const hostileDaemon = spawnStdioDaemon({ FATHOM_CONFIG_DIR: tempDir('fathom-config-') });
  const client = hostileDaemon.client;
  try {
    await client.result('initialize', { processId: null, rootUri: null, capabilities: {} });
    const edit = await client.result<EditFileResult>('fathom/writeFile', { root: hostile, path: path.join(hostile, 'a.ts'), text: 'export const a: number = "x";\n' });
    assert.equal(edit.status, 'ok', JSON.stringify(edit));
    assert.equal(edit.newDiagnostics.length, 1, 'Fathom\'s own TypeScript still checks the edit');
    assert.match(edit.notice ?? '', /is not trusted: not running the repository's node_modules\/\.bin\/typescript-language-server and node_modules\/typescript .*fathom trust/);
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
    const again = await client.result<EditFileResult>('fathom/writeFile', { root: hostile, path: path.join(hostile, 'a.ts'), text: 'export const a: number = 2;\n' });
    assert.equal(again.notice, undefined);
    assert.match(readMarker(marker), /typescript-language-server/, 'trusted: the repository\'s own server ran');
    const untrusted = await client.result<TrustResult>('fathom/trust', { path: hostile, trusted: false });
    assert.equal(untrusted.trusted, false);
    assert.deepEqual(untrusted.folders, []);
  } finally {
    hostileDaemon.child.kill();
  }
});

test('trust: fathom trust is remembered across daemons, and fathom edit prints the notice', async () => {
  const marker = path.join(tempDir('fathom-marker-'), 'ran.txt');
  const hostile = hostileRepository(marker);
  const env = { FATHOM_CONFIG_DIR: tempDir('fathom-config-'), FATHOM_CACHE_DIR: tempDir('fathom-cache-') };
  const run = async (args: string[], input?: string): Promise<{ code: number | null; stderr: string }> => {
    const cli = spawnCli([...args, '--no-daemon'], env);
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
