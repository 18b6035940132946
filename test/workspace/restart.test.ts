// A workspace across restarts: changes made while Fathom was down are found by (size, mtime, inode)
// and reported as a diff, unchanged files are not read again, and a corrupt or foreign cache file
// is detected and rebuilt, never trusted; a restarted daemon's first symbol search waits for the
// saved code graph to be read back.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import type { FileSetChanges } from '../../src/workspace/workspace.js';
import type { SymbolsResult } from '../../src/protocol/methods.js';
import { gitInit, tempDir, writeFixture } from '../helpers/fixture.js';
import { spawnStdioDaemon } from '../helpers/raw-client.js';
import { assertMatchesFreshScan, openWorkspace, pool, readyWorkspace } from '../helpers/workspace-harness.js';

after(() => pool.close());

const spec = `
  //- src/a.ts
  export const a = 1;
  //- src/b.ts
  export const b = 2;
  //- src/deep/c.ts
  export const c = 3;
  //- docs/readme.md
  # readme
  //- stay.txt
  unchanged
`;

/** Opens the workspace again on its cache, with what it reports changed on the way to ready. */
async function reopen(root: string, cacheDir: string): Promise<{ workspace: ReturnType<typeof openWorkspace>; seen: FileSetChanges[] }> {
  const workspace = openWorkspace(root, { cacheDir });
  const seen: FileSetChanges[] = [];
  workspace.onChanges((changes) => seen.push(changes));
  await workspace.whenReady();
  return { workspace, seen };
}

test('restart: changes made while stopped are detected, unchanged files are reused', async () => {
  const root = writeFixture(spec);
  const cacheDir = path.join(tempDir('fathom-cache-'), 'ws');
  const first = await readyWorkspace(root, { cacheDir });
  assert.equal(first.status().lastScan?.kind, 'build');
  assert.equal(first.status().lastScan?.hashed, 5);
  await first.close();

  // While stopped: change one, delete one, add one, rename one, add a folder.
  fs.writeFileSync(path.join(root, 'src/a.ts'), 'export const a = 100;\n');
  fs.rmSync(path.join(root, 'src/b.ts'));
  fs.writeFileSync(path.join(root, 'src/new.ts'), 'export const n = 1;\n');
  fs.renameSync(path.join(root, 'docs/readme.md'), path.join(root, 'docs/README.md'));
  fs.mkdirSync(path.join(root, 'lib/x'), { recursive: true });
  fs.writeFileSync(path.join(root, 'lib/x/y.ts'), 'y\n');

  const { workspace: second, seen } = await reopen(root, cacheDir);
  try {
    const status = second.status();
    assert.equal(status.cache.loaded, 'valid');
    assert.equal(status.lastScan?.kind, 'restart');
    // The renamed file keeps its inode, so only the edited and the two new files are read.
    assert.equal(status.lastScan?.hashed, 3);
    assert.equal(status.lastScan?.reused, 3);
    assert.equal(seen.length, 1);
    assert.deepEqual(
      { added: [...seen[0]!.added].sort(), changed: seen[0]!.changed, removed: [...seen[0]!.removed].sort() },
      { added: ['docs/README.md', 'lib/x/y.ts', 'src/new.ts'], changed: ['src/a.ts'], removed: ['docs/readme.md', 'src/b.ts'] },
    );
    await assertMatchesFreshScan(second);
  } finally {
    await second.close();
  }
});

test('restart: nothing changed reads no file', async () => {
  const root = writeFixture(spec);
  const cacheDir = path.join(tempDir('fathom-cache-'), 'ws');
  const first = await readyWorkspace(root, { cacheDir });
  const rootHash = first.rootHash();
  await first.close();
  const second = await readyWorkspace(root, { cacheDir });
  try {
    assert.equal(second.status().lastScan?.hashed, 0);
    assert.equal(second.rootHash(), rootHash);
  } finally {
    await second.close();
  }
});

test('restart of a 5,000-file tree: edits, removals and touched files anywhere are found, nothing else is read', async () => {
  const root = tempDir();
  for (let folder = 0; folder < 50; folder++) {
    fs.mkdirSync(path.join(root, `f${folder}`));
    for (let file = 0; file < 100; file++) fs.writeFileSync(path.join(root, `f${folder}`, `${file}.txt`), `file ${folder}/${file}\n`);
  }
  const cacheDir = path.join(tempDir('fathom-cache-'), 'ws');
  const first = await readyWorkspace(root, { cacheDir });
  assert.equal(first.status().files, 5_000);
  await first.close();

  // In every folder (so in the part the workers stat, whichever order the walk takes): one edited,
  // in every fifth one removed, and one touched with its content the same (read again, not a change).
  const changed: string[] = [];
  const removed: string[] = [];
  const later = new Date(Date.now() + 60_000);
  for (let folder = 0; folder < 50; folder++) {
    fs.writeFileSync(path.join(root, `f${folder}`, '7.txt'), `edited ${folder}\n`);
    changed.push(`f${folder}/7.txt`);
    fs.utimesSync(path.join(root, `f${folder}`, '8.txt'), later, later);
    if (folder % 5 === 0) {
      fs.rmSync(path.join(root, `f${folder}`, '9.txt'));
      removed.push(`f${folder}/9.txt`);
    }
  }
  const { workspace: second, seen } = await reopen(root, cacheDir);
  try {
    const status = second.status();
    assert.equal(status.lastScan?.kind, 'restart');
    assert.equal(status.lastScan?.hashed, 100, 'the 50 edited and the 50 touched are read, nothing else');
    assert.equal(status.lastScan?.reused, 5_000 - 100 - removed.length);
    assert.deepEqual(
      { added: seen[0]!.added, changed: [...seen[0]!.changed].sort(), removed: [...seen[0]!.removed].sort() },
      { added: [], changed: changed.sort(), removed: removed.sort() },
    );
    await assertMatchesFreshScan(second);
  } finally {
    await second.close();
  }
});

const damages: { name: string; damage: (file: string) => void; loaded: string }[] = [
  {
    name: 'a flipped byte',
    damage: (file) => fs.writeFileSync(file, Buffer.from(fs.readFileSync(file).map((byte, index) => (index === 60 ? byte ^ 1 : byte)))),
    loaded: 'rebuilt',
  },
  { name: 'truncation', damage: (file) => fs.truncateSync(file, 30), loaded: 'rebuilt' },
  { name: 'garbage', damage: (file) => fs.writeFileSync(file, 'not a cache'), loaded: 'rebuilt' },
  { name: 'a leftover temp file from a crash', damage: (file) => fs.writeFileSync(`${file}.12345.tmp`, 'half written'), loaded: 'valid' },
];

for (const { name, damage, loaded } of damages) {
  test(`restart: a cache damaged by ${name} is detected and the set rebuilt`, async () => {
    const root = writeFixture(spec);
    const cacheDir = path.join(tempDir('fathom-cache-'), 'ws');
    const first = await readyWorkspace(root, { cacheDir });
    const rootHash = first.rootHash();
    await first.close();
    damage(path.join(cacheDir, 'fileset.bin'));
    fs.writeFileSync(path.join(root, 'stay.txt'), 'changed while down\n');
    const second = await readyWorkspace(root, { cacheDir });
    try {
      assert.equal(second.status().cache.loaded, loaded);
      assert.notEqual(second.rootHash(), rootHash);
      await assertMatchesFreshScan(second);
    } finally {
      await second.close();
    }
    // And the rebuilt cache is valid for the next start.
    const third = await readyWorkspace(root, { cacheDir });
    assert.equal(third.status().cache.loaded, 'valid');
    await third.close();
  });
}

test('restart: a cache written for another root is not trusted', async () => {
  const rootA = writeFixture(spec);
  const rootB = writeFixture(`
    //- other.ts
    other
  `);
  const cacheDir = path.join(tempDir('fathom-cache-'), 'ws');
  await (await readyWorkspace(rootA, { cacheDir })).close();
  const workspace = await readyWorkspace(rootB, { cacheDir });
  try {
    assert.deepEqual(workspace.files(), ['other.ts']);
    assert.equal(workspace.status().cache.loaded, 'none');
  } finally {
    await workspace.close();
  }
});

test("restart: a restarted daemon's first fathom/symbols waits for the saved code graph to be read back, and answers whole", async () => {
  const root = writeFixture(`
    //- src/util.ts
    export function greetUser(name: string): string { return 'hi ' + name; }
    //- src/app.ts
    import { greetUser } from './util';
    export const message = greetUser('you');
  `);
  gitInit(root);
  const env = { FATHOM_CACHE_DIR: tempDir('fathom-cache-') };
  const names = (result: SymbolsResult) => result.symbols.map((symbol) => `${symbol.path}:${symbol.range.start.line} ${symbol.name}`);
  const first = spawnStdioDaemon(env);
  const built = await first.client.result<SymbolsResult>('fathom/symbols', { root, query: 'greetUser' });
  assert.deepEqual(names(built), ['src/util.ts:1 greetUser']);
  await first.client.request('shutdown');
  first.client.notify('exit');
  assert.equal(await first.exited, 0);
  const second = spawnStdioDaemon(env);
  try {
    // No wait granted: past it, a graph being read from disk is waited for (seconds), a build is not.
    const restarted = await second.client.result<SymbolsResult>('fathom/symbols', { root, query: 'greetUser', waitMs: 0 });
    assert.equal(restarted.building, undefined, 'answered from the whole graph');
    assert.deepEqual(names(restarted), names(built));
  } finally {
    second.child.kill();
  }
});
