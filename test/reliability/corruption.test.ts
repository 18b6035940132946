// Damaged caches, seeded: every kind of cache file (the file set, the regex index, its content store
// and delta, the chunk ranking, the code graph, the semantic store and its vectors, the embedding
// cache, the tree store, the workspace's root marker) truncated, and with flipped bytes. Each must be
// detected and rebuilt, or answered from disk: a daemon on the damaged cache answers exactly what a
// fresh daemon on a fresh cache answers (files, status counts, the Merkle root, symbols, structural,
// lexical and semantic search), and ripgrep for regex searches; it never crashes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import type { StatusResult } from '../../src/protocol/methods.js';
import { sleep } from '../helpers/fixture.js';
import {
  answerDifferences,
  cacheFiles,
  collectAnswers,
  reliabilityCorpus,
  ripgrepInstalled,
  standardProbe,
  withRipgrep,
  type Answers,
} from '../helpers/oracle-answers.js';
import { runSeed, SeededRandom } from '../helpers/seeded-random.js';
import { cleanupReliability, idle, scratchDir, startDaemon, type DaemonHandle } from '../helpers/strict-client.js';

if (!ripgrepInstalled && process.env.CI) throw new Error('ripgrep is required in CI (apt-get install ripgrep)');

const seed = runSeed(777);
const corpus = reliabilityCorpus('fathom-rel-damage-');
const pristine = scratchDir('fathom-rel-damage-pristine-');
let reference: Answers | undefined;

after(cleanupReliability);

/** Cache files of one kind: by a name pattern inside the workspace's folder, or below a folder. */
const inWorkspace = (name: RegExp) => (file: string) => /^workspaces\/[^/]+\//.test(file) && name.test(file.replace(/^workspaces\/[^/]+\//, ''));
const kinds: { name: string; holds: (file: string) => boolean }[] = [
  { name: 'file set (fileset.bin)', holds: inWorkspace(/^fileset\.bin$/) },
  { name: 'regex index (regex-index.bin)', holds: inWorkspace(/^regex-index\.bin$/) },
  { name: 'regex content store (regex-content-*.bin)', holds: inWorkspace(/^regex-content-[^/]*\.bin$/) },
  { name: 'regex delta (delta/)', holds: inWorkspace(/^delta\//) },
  { name: 'chunk ranking (chunks.bin)', holds: inWorkspace(/^chunks\.bin$/) },
  { name: 'code graph (graph.bin)', holds: inWorkspace(/^graph\.bin$/) },
  { name: 'semantic store (semantic.bin)', holds: inWorkspace(/^semantic\.bin$/) },
  { name: 'semantic vectors (semantic-*.usearch)', holds: inWorkspace(/^semantic-[^/]*\.usearch$/) },
  { name: 'embedding cache (embeddings/*.vec)', holds: (file) => file.startsWith('embeddings/') },
  { name: 'tree store (trees/)', holds: (file) => file.startsWith('trees/') },
  { name: 'workspace root marker (root)', holds: inWorkspace(/^root$/) },
];

const damages: { name: string; damage: (file: string, random: SeededRandom) => void }[] = [
  { name: 'truncated', damage: (file, random) => fs.truncateSync(file, random.int(fs.statSync(file).size)) },
  {
    name: 'flipped bytes',
    damage: (file, random) => {
      const size = fs.statSync(file).size;
      if (size === 0) return;
      const fd = fs.openSync(file, 'r+');
      try {
        for (let flip = random.between(1, 8); flip > 0; flip--) {
          const offset = random.int(size);
          const byte = Buffer.alloc(1);
          fs.readSync(fd, byte, 0, 1, offset);
          byte[0] = byte[0]! ^ random.between(1, 255);
          fs.writeSync(fd, byte, 0, 1, offset);
        }
      } finally {
        fs.closeSync(fd);
      }
    },
  },
];

async function stopGracefully(daemon: DaemonHandle): Promise<string | undefined> {
  if (daemon.exit) return `had exited: ${JSON.stringify(daemon.exit)} ${daemon.stderrTail()}`;
  await daemon.stdio!.request('fathom/stop', {}, 30_000).catch(() => undefined);
  const exited = await Promise.race([daemon.exited, idle(30_000).then(() => undefined)]);
  if (!exited) {
    await daemon.kill();
    return 'did not exit within 30 s of fathom/stop';
  }
  return exited.code === 0 && exited.signal === null ? undefined : `exited with ${JSON.stringify(exited)} after fathom/stop: ${daemon.stderrTail()}`;
}

/** 70 new files after the first build: more than the 64 changes that make the regex index write a delta. */
function addFilesForADelta(root: string): void {
  fs.mkdirSync(path.join(root, 'generated'));
  for (let index = 0; index < 70; index++) {
    fs.writeFileSync(
      path.join(root, 'generated', `part${index}.ts`),
      `// TODO generated part ${index}\nexport function generatedPart${index}(value: number): number {\n  const scale${index} = ${index * 7};\n  return value * scale${index};\n}\n\nexport class Part${index} extends Array<number> {}\n`,
    );
  }
}

test(
  "the cache to damage: every index built and saved, the regex index with a delta; a fresh daemon's answers as the reference",
  { skip: !ripgrepInstalled, timeout: 600_000 },
  async (t) => {
    const builder = await startDaemon({ transport: 'stdio', label: 'cache builder', cacheDir: pristine });
    const client = builder.stdio!;
    await collectAnswers(client, corpus.root, standardProbe);
    assert.equal((await client.request('fathom/index', { root: corpus.root }, 300_000)).error, undefined);
    addFilesForADelta(corpus.root);
    let deltaFiles = 0;
    for (let attempt = 0; attempt < 150 && deltaFiles < 64; attempt++) {
      await client.request('fathom/grep', { root: corpus.root, pattern: 'generatedPart\\d+' }, 60_000);
      const status = await client.result<StatusResult>('fathom/status', { root: corpus.root });
      deltaFiles = status.workspaces[0]!.search?.regex.deltaFiles ?? 0;
      await sleep(100);
    }
    assert.ok(deltaFiles >= 64, `the regex index wrote no delta (deltaFiles ${deltaFiles})`);
    // fathom/index syncs the semantic index with the new files; the questions bring every other index up to date.
    assert.equal((await client.request('fathom/index', { root: corpus.root }, 300_000)).error, undefined);
    await collectAnswers(client, corpus.root, standardProbe);
    assert.equal(await stopGracefully(builder), undefined);
    const files = cacheFiles(pristine);
    t.diagnostic(`the cache to damage: ${files.length} files; ${kinds.map((kind) => `${kind.name}: ${files.filter(kind.holds).length}`).join(', ')}`);
    assert.deepEqual(
      kinds.filter((kind) => !files.some(kind.holds)).map((kind) => kind.name),
      [],
      'every kind of cache file is there to damage',
    );
    assert.deepEqual(
      files.filter((file) => !kinds.some((kind) => kind.holds(file))),
      [],
      'every cache file belongs to a kind this harness damages (add new kinds to it)',
    );
    const fresh = await startDaemon({ transport: 'stdio', label: 'reference daemon' });
    const answers = await collectAnswers(fresh.stdio!, corpus.root, standardProbe);
    assert.equal(await stopGracefully(fresh), undefined);
    reference = withRipgrep(corpus.root, answers, standardProbe.grep);
    assert.deepEqual(answerDifferences(answers, reference), [], "the reference daemon's grep equals ripgrep's");
  },
);

/** A copy of the pristine cache, `damage` applied to the files of `kind`: the files damaged. */
function damagedCopy(
  kind: (typeof kinds)[number] | undefined,
  damage: (typeof damages)[number] | undefined,
  random: SeededRandom,
): { cache: string; damaged: string[] } {
  const cache = scratchDir('fathom-rel-damaged-');
  fs.cpSync(pristine, cache, { recursive: true });
  const damaged = kind ? cacheFiles(cache).filter(kind.holds) : [];
  for (const file of damaged) damage!.damage(path.join(cache, file), random);
  return { cache, damaged };
}

async function answersOn(cache: string, label: string): Promise<string[]> {
  const daemon = await startDaemon({ transport: 'stdio', label, cacheDir: cache });
  const answers = await collectAnswers(daemon.stdio!, corpus.root, standardProbe).catch((error: Error) => error);
  const differences = answers instanceof Error ? [`no answers: ${answers.message}`] : answerDifferences(answers, reference!);
  await Promise.race([daemon.exited, idle(200)]);
  const stopped = daemon.exit
    ? `died while answering: ${JSON.stringify(daemon.exit)}: ${daemon.stderrTail().trim().slice(-300)}`
    : await stopGracefully(daemon);
  if (stopped) differences.push(`the daemon ${stopped}`);
  differences.push(...daemon.stdio!.violations);
  // What the daemon logged, to tell why (a build that left a file out says so at warn).
  if (differences.length > 0) differences.push(`its log ends: ${daemon.stderrTail().trim().slice(-600) || '(nothing)'}`);
  fs.rmSync(cache, { recursive: true, force: true });
  return differences;
}

test('an undamaged cache answers as a fresh daemon does (the control)', { skip: !ripgrepInstalled, timeout: 300_000 }, async () => {
  assert.ok(reference, 'the reference ran');
  const { cache } = damagedCopy(undefined, undefined, new SeededRandom(seed));
  assert.deepEqual(await answersOn(cache, 'control'), []);
});

const results: { kind: string; damage: string; files: number; differences: string[] }[] = [];

for (const kind of kinds) {
  test(
    `damaged ${kind.name}: truncated, and with flipped bytes, it is never answered wrong and never crashes`,
    { skip: !ripgrepInstalled, timeout: 300_000 },
    async (t) => {
      assert.ok(reference, 'the reference ran');
      const failures: string[] = [];
      for (const [turn, damage] of damages.entries()) {
        const random = new SeededRandom(seed * 1_000 + kinds.indexOf(kind) * 10 + turn);
        const { cache, damaged } = damagedCopy(kind, damage, random);
        const differences = await answersOn(cache, `${kind.name}, ${damage.name}`);
        results.push({ kind: kind.name, damage: damage.name, files: damaged.length, differences });
        t.diagnostic(
          `${damage.name}: ${damaged.length} files damaged (seed ${random.seed}); ${differences.length === 0 ? 'answers as a fresh daemon' : `${differences.length} differences`}`,
        );
        for (const difference of differences) failures.push(`${damage.name} (seed ${random.seed}): ${difference}`);
      }
      assert.deepEqual(failures.slice(0, 12), [], `${failures.length} differences`);
    },
  );
}

test('damage summary', (t) => {
  const damaged = results.reduce((sum, result) => sum + result.files, 0);
  t.diagnostic(
    `seed ${seed}: ${results.length} damaged caches, ${damaged} files damaged; answered wrong: ${JSON.stringify(results.filter((result) => result.differences.length > 0).map((result) => `${result.kind} ${result.damage}`))}`,
  );
  assert.equal(results.length, kinds.length * damages.length, 'every kind was damaged both ways');
});
