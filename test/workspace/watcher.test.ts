// The live file set under a real watcher: changes applied in order, ignore-rule edits honoured, and
// a stress run of the cases @parcel/watcher is known to lose (folders created and filled at once,
// writes into them a moment later, renames, atomic saves, mass deletes). Afterwards the tree must
// equal a fresh scan, every time. Reconciliation is off here: the watcher alone must be right.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import type { FileSetChanges } from '../../src/workspace/workspace.js';
import { git, gitInit, gitOracle, sleep, writeFixture } from '../helpers/fixture.js';
import { assertMatchesFreshScan, fileHashes, pool, quiesce, readyWorkspace } from '../helpers/workspace-harness.js';

after(() => pool.close());

test('watcher: edits in quick succession end at the last content', async () => {
  const root = writeFixture(`
    //- a.txt
    v0
  `);
  const workspace = await readyWorkspace(root);
  const changes: FileSetChanges[] = [];
  workspace.onChanges((change) => changes.push(change));
  try {
    const file = path.join(root, 'a.txt');
    for (let version = 1; version <= 20; version++) fs.writeFileSync(file, `v${version}\n`);
    fs.rmSync(file);
    fs.writeFileSync(file, 'final\n');
    await quiesce(workspace);
    await assertMatchesFreshScan(workspace);
    assert.ok(changes.length > 0, 'changes were published');
    const removedLast = changes.findLastIndex((change) => change.removed.includes('a.txt'));
    const presentLast = changes.findLastIndex((change) => change.added.includes('a.txt') || change.changed.includes('a.txt'));
    assert.ok(presentLast > removedLast, 'the last event about a.txt says it exists');
  } finally {
    await workspace.close();
  }
});

test('watcher: a .gitignore edit adds and removes files live', async () => {
  const root = writeFixture(`
    //- keep.ts
    //- out/a.js
    //- out/b.js
    //- notes.tmp
  `);
  // .gitignore applies inside a git repository only.
  gitInit(root);
  const workspace = await readyWorkspace(root);
  try {
    assert.deepEqual(workspace.files(), ['keep.ts', 'notes.tmp', 'out/a.js', 'out/b.js']);
    fs.writeFileSync(path.join(root, '.gitignore'), 'out/\n*.tmp\n');
    await quiesce(workspace);
    assert.deepEqual(workspace.files(), ['.gitignore', 'keep.ts']);
    fs.writeFileSync(path.join(root, 'out/c.js'), 'ignored');
    await quiesce(workspace);
    assert.deepEqual(workspace.files(), ['.gitignore', 'keep.ts']);
    fs.writeFileSync(path.join(root, '.gitignore'), '*.tmp\n');
    await quiesce(workspace);
    assert.deepEqual(workspace.files(), ['.gitignore', 'keep.ts', 'out/a.js', 'out/b.js', 'out/c.js']);
    await assertMatchesFreshScan(workspace);
  } finally {
    await workspace.close();
  }
});

test('watcher: files turning binary, secret-named or too large leave the set', async () => {
  const root = writeFixture(`
    //- a.txt
    text
    //- b.txt
    text
  `);
  const workspace = await readyWorkspace(root, { maxFileBytes: 1000 });
  try {
    fs.writeFileSync(path.join(root, 'a.txt'), Buffer.from([1, 0, 2]));
    fs.writeFileSync(path.join(root, 'b.txt'), 'x'.repeat(2000));
    fs.writeFileSync(path.join(root, '.env'), 'TOKEN=1');
    await quiesce(workspace);
    assert.deepEqual(workspace.files(), []);
    assert.deepEqual(workspace.status().skipped, { binary: 1, tooLarge: 1, secret: 1 });
    fs.writeFileSync(path.join(root, 'a.txt'), 'text again');
    await quiesce(workspace);
    assert.deepEqual(workspace.files(), ['a.txt']);
  } finally {
    await workspace.close();
  }
});

test('watcher stress: 200 rounds of new nested folders, late writes, renames, atomic saves, mass deletes', async () => {
  const root = writeFixture(`
    //- seed.txt
    seed
  `);
  const workspace = await readyWorkspace(root);
  try {
    const lateWrites: Promise<void>[] = [];
    for (let round = 0; round < 200; round++) {
      const folder = path.join(root, 'a', `b${round}`, 'c');
      fs.mkdirSync(folder, { recursive: true });
      fs.writeFileSync(path.join(folder, 'f'), `round ${round}\n`);
      // Writes inside the new folder a moment later: the case that is lost when the new folder is
      // not watched.
      lateWrites.push(
        sleep(1 + (round % 5)).then(() => {
          fs.writeFileSync(path.join(folder, 'g'), `late ${round}\n`);
          fs.mkdirSync(path.join(folder, 'd'), { recursive: true });
          fs.writeFileSync(path.join(folder, 'd', 'h'), `deeper ${round}\n`);
        }),
      );
      if (round % 10 === 9) {
        // A rename of a whole folder, an atomic save (temp file renamed over the target).
        await lateWrites[round - 5];
        fs.renameSync(path.join(root, 'a', `b${round - 5}`), path.join(root, 'a', `renamed${round}`));
        const target = path.join(root, 'seed.txt');
        fs.writeFileSync(`${target}.tmp~`, `saved at ${round}\n`);
        fs.renameSync(`${target}.tmp~`, target);
      }
      if (round % 50 === 49) {
        await Promise.all(lateWrites);
        for (let gone = round - 49; gone < round - 25; gone++) fs.rmSync(path.join(root, 'a', `b${gone}`), { recursive: true, force: true });
      }
      if (round % 20 === 0) await sleep(0);
    }
    await Promise.all(lateWrites);
    await quiesce(workspace);
    await assertMatchesFreshScan(workspace, 'after the stress run');
    const onDisk = fs.readdirSync(root, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).length;
    assert.equal(fileHashes(workspace).size, onDisk);
    assert.ok(onDisk > 300, 'the run leaves hundreds of files');
  } finally {
    await workspace.close();
  }
});

test('watcher: a folder deleted and recreated under the same name is watched again', async () => {
  const root = writeFixture(`
    //- pkg/index.ts
    export {};
  `);
  const workspace = await readyWorkspace(root);
  try {
    for (let round = 0; round < 20; round++) {
      fs.rmSync(path.join(root, 'pkg'), { recursive: true });
      fs.mkdirSync(path.join(root, 'pkg/sub'), { recursive: true });
      fs.writeFileSync(path.join(root, 'pkg/sub/file.ts'), `${round}`);
      await sleep(2);
      fs.writeFileSync(path.join(root, 'pkg/index.ts'), `export const round = ${round};`);
    }
    await quiesce(workspace);
    fs.writeFileSync(path.join(root, 'pkg/sub/after.ts'), 'after');
    await quiesce(workspace);
    await assertMatchesFreshScan(workspace);
    assert.ok(workspace.files().includes('pkg/sub/after.ts'));
  } finally {
    await workspace.close();
  }
});

test('watcher: a rule added later never hides files git tracks', async () => {
  const root = writeFixture(`
    //- keep.log
    //- conf/settings.xml
    //- a.txt
  `);
  gitInit(root);
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'base');
  const workspace = await readyWorkspace(root);
  try {
    fs.writeFileSync(path.join(root, '.gitignore'), '*.log\nconf/\n');
    fs.writeFileSync(path.join(root, 'new.log'), 'untracked, ignored');
    await quiesce(workspace);
    assert.deepEqual(workspace.files(), gitOracle(root));
    assert.ok(workspace.files().includes('keep.log'));
    await workspace.reconcile();
    assert.deepEqual(workspace.files(), gitOracle(root));
  } finally {
    await workspace.close();
  }
});

test('watcher: a folder replaced by one with its own .gitignore follows the new rules', async () => {
  const root = writeFixture(`
    //- d/a.log
    //- d/b.txt
  `);
  gitInit(root);
  const workspace = await readyWorkspace(root);
  try {
    fs.rmSync(path.join(root, 'd'), { recursive: true });
    fs.mkdirSync(path.join(root, 'd'));
    fs.writeFileSync(path.join(root, 'd/.gitignore'), '*.log\n');
    fs.writeFileSync(path.join(root, 'd/a.log'), 'ignored now');
    await quiesce(workspace);
    assert.deepEqual(workspace.files(), gitOracle(root));
    // And by moving in a folder that brings a .gitignore along.
    const elsewhere = writeFixture(`
      //- .gitignore
      *.tmp
      //- x.tmp
      //- y.txt
    `);
    fs.renameSync(elsewhere, path.join(root, 'moved'));
    await quiesce(workspace);
    assert.deepEqual(workspace.files(), gitOracle(root));
  } finally {
    await workspace.close();
  }
});

test('watcher: a deleted nested repository frees its name', async () => {
  const root = writeFixture(`
    //- top.txt
    //- sub/y.txt
  `);
  gitInit(root);
  gitInit(path.join(root, 'sub'));
  const workspace = await readyWorkspace(root);
  try {
    assert.deepEqual(workspace.files(), ['top.txt']);
    fs.rmSync(path.join(root, 'sub'), { recursive: true });
    await quiesce(workspace);
    fs.mkdirSync(path.join(root, 'sub'));
    fs.writeFileSync(path.join(root, 'sub/y.txt'), 'now ours');
    await quiesce(workspace);
    assert.deepEqual(workspace.files(), gitOracle(root));
    assert.deepEqual(workspace.files(), ['sub/y.txt', 'top.txt']);
  } finally {
    await workspace.close();
  }
});

test('watcher: folders that become ignored stop being watched', async () => {
  const root = writeFixture(`
    //- src/a.ts
    //- node_modules/p1/index.js
    //- node_modules/p2/lib/x.js
    //- node_modules/p3/index.js
  `);
  gitInit(root);
  const workspace = await readyWorkspace(root);
  try {
    assert.equal(workspace.status().watcher.folders, 7);
    fs.writeFileSync(path.join(root, '.gitignore'), 'node_modules/\n');
    await quiesce(workspace);
    assert.deepEqual(workspace.files(), ['.gitignore', 'src/a.ts']);
    assert.equal(workspace.status().watcher.folders, 2);
  } finally {
    await workspace.close();
  }
});
