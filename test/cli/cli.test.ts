// The `fathom` command as a user or agent runs it: it starts a daemon on first use, --json output
// has the documented shapes, --no-daemon works in-process, bad usage exits 2 and failures exit 1
// with a message.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { test } from 'node:test';
import { gitInit, gitOracle, tempDir, writeFixture } from '../helpers/fixture.js';
import { canConnect, cliMain, socketPathIn } from '../helpers/raw-client.js';

function fathom(args: string[], env: Record<string, string>, cwd?: string) {
  const result = spawnSync(process.execPath, [cliMain, ...args], {
    env: { ...process.env, FATHOM_LOG: 'warn', ...env },
    encoding: 'utf8',
    cwd,
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function repo(): string {
  const root = writeFixture(`
    //- .gitignore
    dist/
    //- src/index.ts
    export {};
    //- src/util/strings.ts
    export const s = '';
    //- dist/index.js
    //- README.md
    # hello
  `);
  gitInit(root);
  return root;
}

test('cli: starts a daemon on first use, answers --json, and stops it', async () => {
  const root = repo();
  const env = { FATHOM_SOCKET: socketPathIn(), FATHOM_CACHE_DIR: tempDir('fathom-cache-') };
  const files = fathom(['files', root, '--json'], env);
  assert.equal(files.code, 0, files.stderr);
  assert.deepEqual(JSON.parse(files.stdout), gitOracle(root));
  assert.ok(await canConnect(env.FATHOM_SOCKET), 'a daemon is listening');

  const status = fathom(['status', '--json'], env, `${root}/src/util`);
  assert.equal(status.code, 0, status.stderr);
  const parsed = JSON.parse(status.stdout);
  assert.equal(parsed.root, root, 'the default PATH is the enclosing git root');
  assert.equal(parsed.state, 'ready');
  assert.equal(parsed.files, 4);

  const globbed = fathom(['files', root, '--glob', 'src/**', '--limit', '1'], env);
  assert.equal(globbed.stdout, 'src/index.ts\n');

  const index = fathom(['index', root], env);
  assert.equal(index.code, 0, index.stderr);
  assert.match(index.stdout, /ready \(git\)/);
  assert.match(index.stdout, /files +4/);

  const merkle = fathom(['merkle', root, '--path', 'src', '--json'], env);
  assert.equal(JSON.parse(merkle.stdout).kind, 'dir');

  const stop = fathom(['stop'], env);
  assert.equal(stop.stdout, 'stopped\n');
  for (let attempt = 0; attempt < 100 && (await canConnect(env.FATHOM_SOCKET)); attempt++) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(await canConnect(env.FATHOM_SOCKET), false);
  assert.equal(fathom(['stop'], env).stdout, 'no daemon running\n');
});

test('cli: --no-daemon indexes in-process and leaves a cache for the daemon', () => {
  const root = repo();
  const env = { FATHOM_SOCKET: socketPathIn(), FATHOM_CACHE_DIR: tempDir('fathom-cache-') };
  const first = fathom(['index', root, '--no-daemon', '--json'], env);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(JSON.parse(first.stdout).lastScan.kind, 'build');
  const second = fathom(['index', root, '--no-daemon', '--json'], env);
  const status = JSON.parse(second.stdout);
  assert.equal(status.lastScan.kind, 'restart');
  assert.equal(status.lastScan.hashed, 0);
  assert.equal(status.cache.loaded, 'valid');
});

const failures: { name: string; args: string[]; code: number; stderr: RegExp }[] = [
  { name: 'an unknown command', args: ['frobnicate'], code: 2, stderr: /unknown command: frobnicate/ },
  { name: 'an unknown option', args: ['files', '--bogus'], code: 2, stderr: /Unknown option '--bogus'[^]*usage: fathom files \[PATH\]/ },
  { name: "another command's option", args: ['files', '--max', '3'], code: 2, stderr: /Unknown option '--max'/ },
  { name: 'an option def does not take', args: ['def', 'main', '--depth', '2'], code: 2, stderr: /def takes no --depth/ },
  { name: 'an argument too many', args: ['status', 'a', 'b'], code: 2, stderr: /unexpected argument: b/ },
  { name: 'no command', args: ['--json'], code: 2, stderr: /no command given[^]*usage: fathom <command>/ },
  { name: 'a bad --limit', args: ['files', '.', '--limit', 'ten', '--no-daemon'], code: 2, stderr: /--limit takes a whole number/ },
  {
    name: 'a root that does not exist',
    args: ['files', '/no/such/root', '--no-daemon'],
    code: 2,
    stderr: /workspace root \/no\/such\/root does not exist \(code -32010\)/,
  },
];
for (const failure of failures) {
  test(`cli: ${failure.name} fails with exit ${failure.code} and a message`, () => {
    const result = fathom(failure.args, { FATHOM_SOCKET: socketPathIn(), FATHOM_CACHE_DIR: tempDir('fathom-cache-') });
    assert.equal(result.code, failure.code, result.stderr);
    assert.match(result.stderr, failure.stderr);
    assert.equal(result.stdout, '');
  });
}

test('cli: --help prints usage and exits 0', () => {
  const result = fathom(['--help'], {});
  assert.equal(result.code, 0);
  assert.match(result.stdout, /usage: fathom <command>/);
});

test("cli: every command's --help prints its own usage and exits 0 (its module loads; the overview lists it)", () => {
  const overview = fathom(['--help'], {}).stdout;
  const names = ['serve', 'attach', 'index', 'status', 'files', 'merkle', 'search', 'debug', 'model', 'trust', 'untrust', 'team', 'export', 'grep'];
  names.push('chunks', 'symbols', 'outline', 'def', 'refs', 'callers', 'callees', 'impact', 'sg', 'diagnostics', 'edit', 'mcp', 'stop');
  for (const name of names) {
    const result = fathom([name, '--help'], {});
    assert.equal(result.code, 0, `${name}: ${result.stderr}`);
    assert.match(result.stdout, /^usage: fathom \S/, name);
    assert.ok(result.stdout.includes(` ${name} `) || result.stdout.includes(` ${name}\n`), `${name}'s usage names it: ${result.stdout.slice(0, 200)}`);
    assert.ok(overview.includes(`  ${name} `) || overview.includes(`| ${name} `), `the overview lists ${name}`);
  }
  assert.equal(fathom(['help', 'grep'], {}).stdout, fathom(['grep', '-h'], {}).stdout, 'help grep is grep -h');
});

test('cli: options before the command are its own (fathom --json files PATH)', () => {
  const root = repo();
  const env = { FATHOM_SOCKET: socketPathIn(), FATHOM_CACHE_DIR: tempDir('fathom-cache-') };
  const before = fathom(['--json', 'files', root, '--no-daemon'], env);
  assert.equal(before.code, 0, before.stderr);
  assert.deepEqual(JSON.parse(before.stdout), JSON.parse(fathom(['files', root, '--no-daemon', '--json'], env).stdout));
});

test('cli: -g means rg -g in every command, and a folder argument narrows grep AND its globs', () => {
  const root = writeFixture(`
    //- drivers/net/e1000.c
    int hit;
    //- drivers/net/e1000.h
    int hit;
    //- drivers/gpu/drm.c
    int hit;
    //- src/deep/a.ts
    const hit = 1;
  `);
  gitInit(root);
  const env = { FATHOM_CACHE_DIR: tempDir('fathom-cache-') };
  const scoped = fathom(['grep', '-g', '*.c', 'hit', `${root}/drivers/net`, '--no-daemon'], env);
  assert.equal(scoped.code, 0, scoped.stderr);
  assert.equal(scoped.stdout, 'drivers/net/e1000.c:1:int hit;\n');
  const files = fathom(['files', root, '-g', '*.ts', '--no-daemon'], env);
  assert.equal(files.code, 0, files.stderr);
  assert.equal(files.stdout, 'src/deep/a.ts\n', 'a glob without a slash matches a name in any folder');
  const excluded = fathom(['files', root, '--glob', '!drivers', '--no-daemon'], env);
  assert.equal(excluded.stdout, 'src/deep/a.ts\n', 'an excluded folder hides what is under it');
});

test('cli: grep prints ripgrep lines with context and separators; -t filters by language; chunks prints headers', () => {
  const root = writeFixture(`
    //- notes.txt
    a
    foo 1
    b
    c
    d
    e
    foo 2
    f
  `);
  fs.writeFileSync(`${root}/app.py`, 'def foo():\n    return 1\n');
  gitInit(root);
  const env = { FATHOM_CACHE_DIR: tempDir('fathom-cache-') };
  const grep = fathom(['grep', 'foo', root, '-C', '1', '--no-daemon'], env);
  assert.equal(grep.code, 0, grep.stderr);
  assert.equal(
    grep.stdout,
    [
      'app.py:1:def foo():',
      'app.py-2-    return 1',
      '--',
      'notes.txt-1-a',
      'notes.txt:2:foo 1',
      'notes.txt-3-b',
      '--',
      'notes.txt-6-e',
      'notes.txt:7:foo 2',
      'notes.txt-8-f',
      '',
    ].join('\n'),
  );
  const typed = fathom(['grep', 'foo', root, '-t', 'py', '--no-daemon'], env);
  assert.equal(typed.stdout, 'app.py:1:def foo():\n');
  const none = fathom(['grep', 'foo', root, '-t', 'rust', '--no-daemon'], env);
  assert.equal(none.code, 1, 'no match: exit 1, as rg');
  const unknown = fathom(['grep', 'foo', root, '-t', 'cobol', '--no-daemon'], env);
  assert.equal(unknown.code, 2, 'an error: exit 2, as rg');
  assert.match(unknown.stderr, /unknown language "cobol"/);
  const sg = fathom(['sg', 'def $F(): $$$', root, '--lang', 'python', '--no-daemon'], env);
  assert.equal(sg.code, 0, sg.stderr);
  assert.equal(sg.stdout, 'app.py:1:1:def foo():\n');
  const sgJson = JSON.parse(fathom(['sg', 'return $A', `${root}/app.py`, '--json', '--no-daemon'], env).stdout);
  assert.deepEqual(
    sgJson.matches.map((match: { text: string; bindings: { A: { text: string } } }) => [match.text, match.bindings.A.text]),
    [['return 1', '1']],
  );
  assert.equal(fathom(['sg', 'def nothing(): $$$', root, '--lang', 'py', '--no-daemon'], env).code, 1, 'no match: exit 1');
  const badPattern = fathom(['sg', 'def (', root, '--lang', 'py', '--no-daemon'], env);
  assert.equal(badPattern.code, 2, 'an unparseable pattern is an error');
  assert.match(badPattern.stderr, /pattern does not parse as Python code/);
  assert.equal(fathom(['sg', 'x', root, '--no-daemon'], env).code, 2, 'a folder needs --lang');
  const chunks = fathom(['chunks', `${root}/app.py`, '--no-daemon'], env);
  assert.equal(chunks.code, 0, chunks.stderr);
  assert.match(chunks.stdout, /^app\.py: Python, 1 chunks/);
  assert.match(chunks.stdout, /│ scope: foo/);
});

test('cli: def, refs, callers, callees and impact take a position, a line or a name; exit 1 when nothing is found', () => {
  const root = tempDir('fathom-cli-graph-');
  fs.cpSync(new URL('../../../test/fixtures/graph/python', import.meta.url), root, { recursive: true });
  gitInit(root);
  const env = { FATHOM_CACHE_DIR: tempDir('fathom-cache-') };
  const refs = fathom(['refs', 'format_name', root, '--no-daemon'], env);
  assert.equal(refs.code, 0, refs.stderr);
  assert.equal(
    refs.stdout,
    [
      'pkg/models.py:16:16: return format_name(self.name)  (call)',
      'pkg/services.py:5:21: from .models import format_name as fmt  (import)',
      'pkg/services.py:15:12: models.format_name(name)  (call)',
      'pkg/services.py:18:12: return fmt(name)  (call)',
      '',
    ].join('\n'),
  );
  const def = fathom(['def', `${root}/app.py:5:5`, '--no-daemon'], env);
  assert.equal(def.stdout, 'pkg/services.py:12:5: function create_user  def create_user(name):\n');
  const line = fathom(['def', `${root}/pkg/services.py:12`, '--no-daemon'], env);
  assert.equal(line.stdout, 'pkg/services.py:12:5: function create_user  def create_user(name):\n', 'FILE:LINE: the definition starting there');
  const callers = fathom(['callers', 'format_name', root, '--depth', '2', '--no-daemon'], env);
  assert.equal(
    callers.stdout,
    [
      'callers of format_name:',
      '1  pkg/services.py:12:5: function create_user  (exact, 2 sites)',
      '1  pkg/models.py:15:9: method User.greet  (exact, 1 site)',
      '2  app.py:4:5: function main  (exact, 1 site, via create_user)',
      '',
    ].join('\n'),
  );
  const callees = JSON.parse(fathom(['callees', `${root}/pkg/services.py:12`, '--json', '--no-daemon'], env).stdout);
  assert.deepEqual(callees.unresolved, [{ name: 'join', count: 1 }]);
  const impact = fathom(['impact', 'Base', root, '--min-confidence', 'exact', '--no-daemon'], env);
  assert.equal(impact.code, 0, impact.stderr);
  assert.match(impact.stdout, /^impact of Base:\n1 {2}pkg\/models\.py:9:7: class User {2}\(exact, 1 site\)\n/);
  assert.match(impact.stdout, /distance 1: 1 symbols in 1 files/);
  assert.equal(fathom(['refs', 'no_such_name', root, '--no-daemon'], env).code, 1, 'nothing found: exit 1');
  const bad = fathom(['callers', 'main', root, '--depth', '0', '--no-daemon'], env);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--depth takes a whole number/);
});

test("cli: attach joins an editor's stdio to the one daemon on the socket (started on first use)", async () => {
  const { RawClient, socketPathIn, spawnCli } = await import('../helpers/raw-client.js');
  const socket = socketPathIn();
  const env = { FATHOM_CACHE_DIR: tempDir('fathom-cache-') };
  const root = repo();
  const first = spawnCli(['attach', '--socket', socket], env);
  const second = spawnCli(['attach', '--socket', socket], env);
  try {
    const pids: number[] = [];
    for (const attached of [first, second]) {
      const client = new RawClient(attached.child.stdout, attached.child.stdin);
      await client.result('initialize', { processId: process.pid, rootUri: `file://${root}`, capabilities: {} });
      const status = await client.result<{ daemon: { pid: number; clients: number } }>('fathom/status', {});
      pids.push(status.daemon.pid);
      assert.ok(status.daemon.pid !== attached.child.pid, 'the daemon is its own process');
    }
    assert.equal(pids[0], pids[1], 'both editors share one daemon');
    const client = new RawClient(second.child.stdout, second.child.stdin);
    client.notify('exit', {});
    assert.equal(await second.exited, 0, "the editor's exit ends only its attach");
  } finally {
    first.child.kill();
    second.child.kill();
    fathom(['stop', '--socket', socket], env);
  }
});
