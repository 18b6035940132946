// Which folder a request is about, over the real protocol and the real CLI: a root is named
// (absolute, never empty, never Fathom's own cache or settings folder); a file outside any git
// repository is answered on its own (a one-file workspace: nothing else in its folder is read); the
// CLI never makes /, a top-level folder or the home folder a root the user did not name; and a FILE
// that does not exist is an error with a message (exit 2), for every command that takes one.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { ErrorCodes } from '../../src/protocol/errors.js';
import type { ChunksResult, DefinitionResult, FilesResult, OutlineResult, StatusResult, StructuralSearchResult } from '../../src/protocol/methods.js';
import { gitInit, tempDir, writeFixture } from '../helpers/fixture.js';
import { cliMain, socketPathIn, spawnStdioDaemon } from '../helpers/raw-client.js';

/** A folder that is no repository, holding a Python file beside a crowd of other files (and a secret). */
function looseFolder(): string {
  const folder = writeFixture(`
    //- x.py
    def greet():
        return 1
    //- .env
    TOKEN=1
  `);
  for (let index = 0; index < 40; index++) fs.writeFileSync(path.join(folder, `other-${index}.txt`), `other ${index}\n`);
  fs.mkdirSync(path.join(folder, 'inner'));
  return folder;
}

describe('roots over the protocol', () => {
  const folder = looseFolder();
  const repo = writeFixture(`
    //- a.ts
    export const a = 1;
  `);
  gitInit(repo);
  const cache = tempDir('fathom-cache-');
  const settings = tempDir('fathom-config-');
  fs.mkdirSync(path.join(cache, 'results'));
  const daemon = spawnStdioDaemon({ FATHOM_CACHE_DIR: cache, FATHOM_CONFIG_DIR: settings });
  const client = daemon.client;
  after(() => daemon.child.kill());

  const bad: { name: string; method: string; params: unknown; code: number; message: RegExp }[] = [
    {
      name: 'files with an empty root',
      method: 'fathom/files',
      params: { root: '' },
      code: ErrorCodes.InvalidParams,
      message: /params\.root must be a non-empty string/,
    },
    {
      name: 'chunks with an empty root',
      method: 'fathom/chunks',
      params: { root: '', path: path.join(repo, 'a.ts') },
      code: ErrorCodes.InvalidParams,
      message: /params\.root must be a folder's absolute path or file:\/\/ URI, not empty/,
    },
    {
      name: 'status with an empty root',
      method: 'fathom/status',
      params: { root: '' },
      code: ErrorCodes.InvalidParams,
      message: /params\.root must be a folder's absolute path/,
    },
    {
      name: 'trust with an empty path',
      method: 'fathom/trust',
      params: { path: '' },
      code: ErrorCodes.InvalidParams,
      message: /params\.path must be a non-empty string/,
    },
    {
      name: 'files with a relative root',
      method: 'fathom/files',
      params: { root: '.' },
      code: ErrorCodes.InvalidParams,
      message: /params\.root must be an absolute path or a file:\/\/ URI \(got the relative path "\."/,
    },
    {
      name: 'outline with a relative root',
      method: 'fathom/outline',
      params: { root: 'src', path: 'a.ts' },
      code: ErrorCodes.InvalidParams,
      message: /relative path "src"/,
    },
    {
      name: 'chunks of a relative path without a root',
      method: 'fathom/chunks',
      params: { path: 'a.ts' },
      code: ErrorCodes.InvalidParams,
      message: /params\.path must be an absolute path or a file:\/\/ URI when params\.root is not given/,
    },
    {
      name: 'the cache folder as a root',
      method: 'fathom/files',
      params: { root: cache },
      code: ErrorCodes.InvalidParams,
      message: /inside Fathom's cache folder .*never indexed/,
    },
    {
      name: 'a folder inside the cache folder as a root',
      method: 'fathom/index',
      params: { root: path.join(cache, 'results') },
      code: ErrorCodes.InvalidParams,
      message: /inside Fathom's cache folder/,
    },
    {
      name: 'the settings folder as a root',
      method: 'fathom/files',
      params: { root: settings },
      code: ErrorCodes.InvalidParams,
      message: /inside Fathom's settings folder/,
    },
    {
      name: 'chunks of a loose file that does not exist',
      method: 'fathom/chunks',
      params: { path: path.join(folder, 'missing.py') },
      code: ErrorCodes.InvalidParams,
      message: /missing\.py: no such file/,
    },
    {
      name: 'outline of a folder without a root',
      method: 'fathom/outline',
      params: { path: path.join(folder, 'inner') },
      code: ErrorCodes.InvalidParams,
      message: /inner is a folder, not a file/,
    },
    {
      name: 'chunks of a loose secret',
      method: 'fathom/chunks',
      params: { path: path.join(folder, '.env') },
      code: ErrorCodes.InvalidParams,
      message: /not in the file set .*a secret/,
    },
    {
      name: 'structural search with neither root nor one path',
      method: 'fathom/structuralSearch',
      params: { language: 'py', pattern: 'return $A' },
      code: ErrorCodes.InvalidParams,
      message: /params\.root must be given, unless params\.paths names one file/,
    },
  ];

  test("an initialize with empty roots opens nothing (not the daemon's working folder)", async () => {
    await client.result('initialize', { processId: null, rootUri: '', rootPath: '', capabilities: {} });
    await client.result('initialize', { processId: null, workspaceFolders: [{ uri: '', name: 'empty' }], capabilities: {} });
    const status = await client.result<StatusResult>('fathom/status', {});
    assert.deepEqual(
      status.workspaces.map((workspace) => workspace.root),
      [],
    );
  });

  for (const request of bad) {
    test(`bad root: ${request.name}`, async () => {
      const response = await client.request(request.method, request.params);
      assert.equal(response.error?.code, request.code, JSON.stringify(response));
      assert.match(response.error!.message, request.message);
    });
  }

  test('no bad root opened a workspace', async () => {
    const status = await client.result<StatusResult>('fathom/status', {});
    assert.deepEqual(
      status.workspaces.map((workspace) => workspace.root),
      status.workspaces.filter((workspace) => workspace.file === '.env').map((workspace) => workspace.root),
      'only the loose secret was looked at (on its own)',
    );
  });

  test('a file in no workspace is answered on its own: chunks, outline, definition, structural search', async () => {
    const file = path.join(folder, 'x.py');
    const chunks = await client.result<ChunksResult>('fathom/chunks', { path: file });
    assert.deepEqual([chunks.root, chunks.path, chunks.languageName, chunks.chunks.length], [folder, 'x.py', 'Python', 1]);
    const outline = await client.result<OutlineResult>('fathom/outline', { path: pathToFileURL(file).href });
    assert.deepEqual(
      outline.symbols.map((symbol) => symbol.name),
      ['greet'],
    );
    const definition = await client.result<DefinitionResult>('fathom/definition', { path: file, position: { line: 1, column: 5 } });
    assert.deepEqual(
      definition.definitions.map((symbol) => `${symbol.path}:${symbol.name}`),
      ['x.py:greet'],
    );
    const structural = await client.result<StructuralSearchResult>('fathom/structuralSearch', { language: 'py', pattern: 'return $A', paths: [file] });
    assert.deepEqual(
      structural.matches.map((match) => `${match.path}:${match.range.start.line}`),
      ['x.py:2'],
    );
    const status = await client.result<StatusResult>('fathom/status', {});
    const loose = status.workspaces.find((workspace) => workspace.file === 'x.py');
    assert.ok(loose, JSON.stringify(status.workspaces));
    assert.deepEqual([loose.root, loose.files, loose.state], [folder, 1, 'ready'], 'one file, not the 40 beside it');
    assert.equal(
      status.workspaces.filter((workspace) => workspace.root === folder && workspace.file === undefined).length,
      0,
      'the folder itself was not opened',
    );
  });

  test('a loose file a read opened is still written only with loose: true', async () => {
    const other = writeFixture(`
      //- note.py
      def note():
          return 2
    `);
    const file = path.join(other, 'note.py');
    const before = fs.readFileSync(file, 'utf8');
    await client.result<OutlineResult>('fathom/outline', { path: file });
    const refused = await client.request('fathom/writeFile', { path: file, text: 'overwritten\n', conversation: 'roots-test' });
    assert.equal(refused.error?.code, ErrorCodes.WorkspaceNotFound, JSON.stringify(refused));
    assert.match(refused.error!.message, /loose: true to write a file outside any workspace; nothing was written/);
    assert.equal(fs.readFileSync(file, 'utf8'), before, 'nothing was written');
    const written = await client.request('fathom/writeFile', { path: file, text: 'def note():\n    return 3\n', conversation: 'roots-test', loose: true });
    assert.equal(written.error, undefined, JSON.stringify(written.error));
    assert.equal(fs.readFileSync(file, 'utf8'), 'def note():\n    return 3\n');
  });

  test('an open folder workspace answers for its files; the one-file workspace stays one file', async () => {
    const files = await client.result<FilesResult>('fathom/files', { root: folder });
    assert.equal(files.total, 41, 'asked for explicitly, the folder is indexed');
    const chunks = await client.result<ChunksResult>('fathom/chunks', { path: path.join(folder, 'other-3.txt') });
    assert.equal(chunks.root, folder);
    const status = await client.result<StatusResult>('fathom/status', {});
    assert.equal(
      status.workspaces.find((workspace) => workspace.file === 'other-3.txt'),
      undefined,
      'the open folder workspace answered',
    );
  });
});

test("roots: Fathom's cache and settings folders inside a workspace are never part of its file set", async () => {
  const root = writeFixture(`
    //- src/a.ts
    export const a = 1;
  `);
  gitInit(root);
  const daemon = spawnStdioDaemon({ FATHOM_CACHE_DIR: path.join(root, 'cache-here'), FATHOM_CONFIG_DIR: path.join(root, '.config/fathom') });
  try {
    fs.mkdirSync(path.join(root, '.config/fathom'), { recursive: true });
    fs.writeFileSync(path.join(root, '.config/fathom/trust.json'), '{}\n');
    fs.writeFileSync(path.join(root, '.config/other.txt'), 'mine\n');
    const first = await daemon.client.result<FilesResult>('fathom/files', { root });
    assert.deepEqual(first.files, ['.config/other.txt', 'src/a.ts']);
    // The cache is written while the indexes build: the watcher must not take it in either.
    await daemon.client.result('fathom/grep', { root, pattern: 'const' });
    fs.writeFileSync(path.join(root, 'cache-here/extra.txt'), 'written later\n');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const index = await daemon.client.result<{ files: number }>('fathom/index', { root });
    assert.equal(index.files, 2);
    const again = await daemon.client.result<FilesResult>('fathom/files', { root });
    assert.deepEqual(again.files, ['.config/other.txt', 'src/a.ts']);
  } finally {
    daemon.child.kill();
    await daemon.exited;
  }
});

function fathom(args: string[], options: { cwd: string; env: Record<string, string> }) {
  const result = spawnSync(process.execPath, [cliMain, ...args], {
    cwd: options.cwd,
    env: { ...process.env, FATHOM_LOG: 'warn', ...options.env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('roots from the CLI', () => {
  // A home folder of our own (HOME), holding dotfiles in a git repository, as many do.
  const home = writeFixture(`
    //- notes.txt
    remember
    //- .bashrc
    alias ll='ls -l'
  `);
  gitInit(home);
  const folder = looseFolder();
  const env = { HOME: home, FATHOM_SOCKET: socketPathIn(), FATHOM_CACHE_DIR: tempDir('fathom-cache-'), FATHOM_CONFIG_DIR: tempDir('fathom-config-') };
  after(() => fathom(['stop'], { cwd: home, env }));

  const status = (): StatusResult => {
    const result = fathom(['status', '--all', '--json'], { cwd: home, env });
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as StatusResult;
  };

  test('chunks of a file in no repository indexes that file alone (by absolute and by ../ path)', () => {
    const absolute = fathom(['chunks', path.join(folder, 'x.py'), '--json'], { cwd: home, env });
    assert.equal(absolute.code, 0, absolute.stderr);
    assert.deepEqual([JSON.parse(absolute.stdout).root, JSON.parse(absolute.stdout).path], [folder, 'x.py']);
    const relative = fathom(['outline', '../x.py'], { cwd: path.join(folder, 'inner'), env });
    assert.equal(relative.code, 0, relative.stderr);
    assert.equal(relative.stdout, 'function greet  x.py:1\n');
    const definition = fathom(['def', '../x.py:1:5'], { cwd: path.join(folder, 'inner'), env });
    assert.equal(definition.stdout, 'x.py:1:5: function greet  def greet():\n');
    const workspaces = status().workspaces;
    assert.deepEqual(
      workspaces.map((workspace) => [workspace.root, workspace.file, workspace.files]),
      [[folder, 'x.py', 1]],
    );
  });

  test('a file in a repository at $HOME is answered on its own: $HOME is not indexed unasked', () => {
    const result = fathom(['chunks', 'notes.txt'], { cwd: home, env });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^notes\.txt: no grammar, 1 chunks/);
    assert.deepEqual(
      status()
        .workspaces.filter((workspace) => workspace.root === home)
        .map((workspace) => [workspace.file, workspace.files]),
      [['notes.txt', 1]],
    );
  });

  const broad: { name: string; args: string[]; cwd: () => string; message: RegExp }[] = [
    {
      name: 'files in $HOME',
      args: ['files'],
      cwd: () => home,
      message: /is your home folder, and no project's git repository holds the current folder: .*Name it as PATH \(for example: fathom index /,
    },
    { name: 'grep in $HOME', args: ['grep', 'remember'], cwd: () => home, message: /is your home folder/ },
    { name: 'index in $HOME', args: ['index'], cwd: () => home, message: /is your home folder/ },
    { name: 'symbols by name in $HOME', args: ['refs', 'greet'], cwd: () => home, message: /is your home folder/ },
    { name: 'search in /', args: ['search', 'x'], cwd: () => '/', message: /\/ is the file system's root/ },
    { name: 'files in /etc', args: ['files'], cwd: () => '/etc', message: /\/etc is a top-level system folder/ },
  ];
  for (const entry of broad) {
    test(`an implicit broad root is refused with a way out: ${entry.name}`, () => {
      const result = fathom(entry.args, { cwd: entry.cwd(), env });
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, entry.message);
      assert.equal(result.stdout, '');
    });
  }

  test('a crowded folder outside every repository is refused unasked, indexed once named, then taken', () => {
    // looseFolder() holds 42 files: over a limit of 20.
    const crowded = { ...env, FATHOM_IMPLICIT_MAX_FILES: '20' };
    const refused = fathom(['files'], { cwd: folder, env: crowded });
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /holds more than 20 files and no project's git repository holds it: .*fathom index /);
    assert.equal(refused.stdout, '');
    const named = fathom(['index', folder], { cwd: home, env: crowded });
    assert.equal(named.code, 0, named.stderr);
    const again = fathom(['files'], { cwd: folder, env: crowded });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^other-0\.txt$/m);
  });

  test('named as PATH, the home folder is indexed', () => {
    const result = fathom(['files', home], { cwd: '/', env });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, '.bashrc\nnotes.txt\n');
  });

  test('serve, stop and status --all need no root, wherever they run', () => {
    assert.equal(fathom(['status', '--all', '--json'], { cwd: '/', env }).code, 0);
  });
});

describe('a FILE that does not exist', () => {
  const folder = looseFolder();
  const env = { FATHOM_CACHE_DIR: tempDir('fathom-cache-'), FATHOM_CONFIG_DIR: tempDir('fathom-config-') };
  const table: { args: string[]; message: RegExp }[] = [
    ...['def', 'refs', 'callers', 'callees', 'impact'].flatMap((command) => [
      { args: [command, 'MISSING:1'], message: /^fathom: MISSING: no such file\n$/ },
      { args: [command, 'MISSING:3:7'], message: /^fathom: MISSING: no such file\n$/ },
    ]),
    { args: ['outline', 'MISSING'], message: /^fathom: MISSING: no such file\n$/ },
    { args: ['chunks', 'MISSING'], message: /^fathom: MISSING: no such file\n$/ },
    { args: ['diagnostics', 'MISSING'], message: /^fathom: MISSING: no such file\n$/ },
    { args: ['chunks', 'inner'], message: /^fathom: inner is a folder, not a file\n$/ },
    { args: ['def', 'inner:2'], message: /^fathom: inner is a folder, not a file\n$/ },
  ];
  for (const entry of table) {
    test(`fathom ${entry.args.join(' ')} says so on stderr and exits 2`, () => {
      const result = fathom([...entry.args, '--no-daemon'], { cwd: folder, env });
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, entry.message);
      assert.equal(result.stdout, '');
    });
  }
});
