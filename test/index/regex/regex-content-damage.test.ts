// The regex index's content store damaged on disk: flipped bytes (one, or many, seeded), a byte
// in the short last block, a truncated store, and a byte flipped under a running index after its
// blocks were checked (then `fathom index`'s recheck). Every answer equals ripgrep's over the
// files on disk, and the damage is found and the index rebuilt.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { RegexIndex } from '../../../src/index/regex/regex-index.js';
import { BufferOverlay } from '../../../src/workspace/overlay.js';
import type { Workspace } from '../../../src/workspace/workspace.js';
import { tempDir } from '../../helpers/fixture.js';
import { SeededRandom } from '../../helpers/seeded-random.js';
import { pool, readyWorkspace } from '../../helpers/workspace-harness.js';

const ripgrep = spawnSync('rg', ['--version']).status === 0;
if (!ripgrep && process.env.CI) throw new Error('ripgrep is required in CI (apt-get install ripgrep)');

after(() => pool.close());

const queries = ['alpha', 'value_\\d+ = 7', '\\w+\\s*=\\s*\\d{4,}', 'needle'];

/** 40 files, a few of them several blocks long, every line different. */
function corpus(): string {
  const root = tempDir('fathom-damage-');
  for (let file = 0; file < 40; file++) {
    const lines = file % 10 === 0 ? 2_000 : 20;
    const text = Array.from(
      { length: lines },
      (_, line) => `let value_${file}_${line} = ${(file * 7919 + line * 104729) % 100_000}; // ${line % 97 === 0 ? 'needle' : 'alpha'}`,
    ).join('\n');
    fs.writeFileSync(path.join(root, `f${String(file).padStart(2, '0')}.ts`), `${text}\n`);
  }
  return root;
}

function rg(root: string, files: string[], pattern: string): string[] {
  const result = spawnSync('rg', ['-n', '--no-heading', '--no-config', '--with-filename', '--color', 'never', '-e', pattern, '--', ...files], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  return result.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(':').slice(0, 2).join(':'))
    .sort();
}

async function answers(index: RegexIndex, pattern: string): Promise<string[]> {
  return (await index.search({ pattern, maxResults: 1_000_000 })).matches.map((match) => `${match.path}:${match.line}`).sort();
}

function contentFile(cacheFolder: string): string {
  return path.join(
    cacheFolder,
    fs.readdirSync(cacheFolder).find((name) => /^regex-content-.*\.bin$/.test(name))!,
  );
}

function flip(file: string, offsets: number[]): void {
  const fd = fs.openSync(file, 'r+');
  try {
    for (const offset of offsets) {
      const byte = Buffer.alloc(1);
      fs.readSync(fd, byte, 0, 1, offset);
      byte[0] = byte[0]! ^ 0x5a;
      fs.writeSync(fd, byte, 0, 1, offset);
    }
  } finally {
    fs.closeSync(fd);
  }
}

function seeded(seed: number): (n: number) => number {
  const random = new SeededRandom(seed);
  return (n) => random.int(n);
}

const damages: { name: string; damage: (file: string) => void }[] = [
  { name: 'one flipped byte (seed 1)', damage: (file) => flip(file, [seeded(1)(fs.statSync(file).size)]) },
  { name: 'one flipped byte (seed 2)', damage: (file) => flip(file, [seeded(2)(fs.statSync(file).size)]) },
  {
    name: '64 flipped bytes',
    damage: (file) => {
      const random = seeded(3);
      flip(
        file,
        Array.from({ length: 64 }, () => random(fs.statSync(file).size)),
      );
    },
  },
  { name: 'the last byte (a short last block)', damage: (file) => flip(file, [fs.statSync(file).size - 2]) },
  { name: 'truncated', damage: (file) => fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2)) },
];

async function withWorkspace(work: (workspace: Workspace, cacheFolder: string, overlay: BufferOverlay) => Promise<void>): Promise<void> {
  const root = corpus();
  const workspace = await readyWorkspace(root);
  try {
    await work(workspace, tempDir('fathom-regex-cache-'), new BufferOverlay());
  } finally {
    await workspace.close();
  }
}

test('a damaged content store never answers wrong, and is rebuilt', { skip: !ripgrep }, async () => {
  for (const { name, damage } of damages) {
    await withWorkspace(async (workspace, cacheFolder, overlay) => {
      const first = new RegexIndex(workspace, overlay, cacheFolder);
      await first.ensureBuilt();
      first.dispose();
      damage(contentFile(cacheFolder));
      const second = new RegexIndex(workspace, overlay, cacheFolder);
      try {
        for (const pattern of queries) assert.deepEqual(await answers(second, pattern), rg(workspace.root, workspace.files(), pattern), `${name}: ${pattern}`);
        await second.settled();
        assert.equal(second.facts().loadedFromCache, false, `${name}: the index was rebuilt`);
        for (const pattern of queries)
          assert.deepEqual(await answers(second, pattern), rg(workspace.root, workspace.files(), pattern), `${name}, rebuilt: ${pattern}`);
      } finally {
        second.dispose();
      }
    });
  }
});

test('a byte flipped under a running index is caught after a recheck', { skip: !ripgrep }, async () => {
  await withWorkspace(async (workspace, cacheFolder, overlay) => {
    const index = new RegexIndex(workspace, overlay, cacheFolder);
    try {
      await index.ensureBuilt();
      // Every block read and checked once.
      for (const pattern of queries) assert.deepEqual(await answers(index, pattern), rg(workspace.root, workspace.files(), pattern));
      const file = contentFile(cacheFolder);
      const text = fs.readFileSync(file, 'latin1');
      // Turn one 'alpha' into 'alphb' in the store: the file on disk still says alpha.
      flip(file, [text.indexOf('alpha', 50_000) + 4]);
      index.recheck();
      assert.deepEqual(await answers(index, 'alpha'), rg(workspace.root, workspace.files(), 'alpha'));
      assert.deepEqual(await answers(index, 'alphb'), []);
    } finally {
      index.dispose();
    }
  });
});
