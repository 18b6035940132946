// kill -9 at seeded random points of every build phase of fathom/index (the file-set scan, the regex
// index, the code graph, the chunk ranking, the tree store's parse, the semantic embedding), 20
// kills in all, each on the same cache folder the previous ones left (the first on a whole cache,
// with the killed phase's files removed so that it builds again). After each, a new daemon on
// that cache must answer exactly what a fresh daemon on a fresh cache answers (files, status, the
// Merkle root, symbols, structural, lexical and semantic search) and what ripgrep answers for regex
// searches; nothing may crash. Last: no secret reached an answer or a cache file, and nothing in
// the workspace changed.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { GrepResult } from '../../src/protocol/methods.js';
import { sleep } from '../helpers/fixture.js';
import {
  answerDifferences,
  cacheFiles,
  collectAnswers,
  filesHolding,
  reliabilityCorpus,
  ripgrepInstalled,
  standardProbe,
  withRipgrep,
  type Answers,
  type Corpus,
} from '../helpers/oracle-answers.js';
import { runSeed, SeededRandom } from '../helpers/seeded-random.js';
import { cleanupReliability, idle, scratchDir, startDaemon, type DaemonHandle, type StrictClient, type WireMessage } from '../helpers/strict-client.js';

if (!ripgrepInstalled && process.env.CI) throw new Error('ripgrep is required in CI (apt-get install ripgrep)');

const seed = runSeed(4_242);
const killCount = 20;

interface Phase {
  name: string;
  /** The $/progress title of the phase's build. */
  title: (root: string) => string;
  /** Starts the build (a request that waits for it). */
  trigger: (client: StrictClient, root: string, token: string) => Promise<WireMessage>;
  /** What to remove from the cache so that the next daemon builds this phase again (workspace files, then cache-wide ones). */
  workspaceFiles: RegExp;
  cacheFolders: string[];
}

const index = (client: StrictClient, root: string, token: string): Promise<WireMessage> =>
  client.request('fathom/index', { root, workDoneToken: token }, 300_000);

const phases: Phase[] = [
  { name: 'file-set scan', title: (root) => `Indexing ${root}`, trigger: index, workspaceFiles: /^fileset\.bin$/, cacheFolders: [] },
  { name: 'tree store parse (fathom index)', title: () => 'phase trees', trigger: index, workspaceFiles: /^$/, cacheFolders: ['trees'] },
  { name: 'semantic embedding', title: () => 'phase semantic', trigger: index, workspaceFiles: /^semantic(\.bin|-.*\.usearch)$/, cacheFolders: ['embeddings'] },
  {
    name: 'regex index build',
    title: () => 'phase regex',
    trigger: index,
    workspaceFiles: /^(regex-index\.bin|regex-content-.*\.bin|delta)$/,
    cacheFolders: [],
  },
  { name: 'chunk ranking build', title: () => 'phase ranking', trigger: index, workspaceFiles: /^chunks\.bin$/, cacheFolders: [] },
  { name: 'code graph build', title: () => 'phase graph', trigger: index, workspaceFiles: /^graph\.bin$/, cacheFolders: [] },
];

/** The $/progress series on `token`: when each title began and ended. */
function watchProgress(
  client: StrictClient,
  token: string,
): { begun: (title: string) => Promise<boolean>; length: (title: string) => number | undefined; dispose: () => void } {
  const began = new Map<string, number>();
  const ended = new Map<string, number>();
  const waiting = new Map<string, (value: boolean) => void>();
  let current: string | undefined;
  const subscription = client.onMessage((message) => {
    if (message.method !== '$/progress') return;
    const params = message.params as { token: unknown; value: { kind: string; title?: string; message?: string } };
    if (params.token !== token) return;
    const begin = (title: string): void => {
      if (!began.has(title)) began.set(title, performance.now());
      waiting.get(title)?.(true);
    };
    const end = (title: string): void => {
      if (!ended.has(title)) ended.set(title, performance.now());
    };
    // fathom/index: one series; the file set runs until the first index phase starts, and each
    // phase is `NAME: starting` … `NAME: ready` in the reports' messages (titled `phase NAME` here).
    const phase = /^(\w+): (starting|ready)$/.exec(params.value.message ?? '');
    if (params.value.kind === 'begin' && params.value.title !== undefined) {
      current = params.value.title;
      begin(current);
    } else if (params.value.kind === 'report' && phase) {
      if (current !== undefined) end(current);
      if (phase[2] === 'starting') begin(`phase ${phase[1]}`);
      else end(`phase ${phase[1]}`);
    } else if (params.value.kind === 'end' && current !== undefined) end(current);
  });
  client.onClose(() => {
    for (const resolve of waiting.values()) resolve(false);
  });
  return {
    begun: (title) =>
      began.has(title) ? Promise.resolve(true) : client.closed ? Promise.resolve(false) : new Promise((resolve) => waiting.set(title, resolve)),
    length: (title) => (began.has(title) && ended.has(title) ? ended.get(title)! - began.get(title)! : undefined),
    dispose: () => subscription.dispose(),
  };
}

function removeArtifacts(cache: string, phase: Phase): string[] {
  const removed: string[] = [];
  const workspaces = path.join(cache, 'workspaces');
  for (const folder of fs.existsSync(workspaces) ? fs.readdirSync(workspaces) : []) {
    for (const name of fs.readdirSync(path.join(workspaces, folder))) {
      if (!phase.workspaceFiles.test(name)) continue;
      fs.rmSync(path.join(workspaces, folder, name), { recursive: true, force: true });
      removed.push(name);
    }
  }
  for (const folder of phase.cacheFolders) {
    if (!fs.existsSync(path.join(cache, folder))) continue;
    fs.rmSync(path.join(cache, folder), { recursive: true, force: true });
    removed.push(`${folder}/`);
  }
  return removed;
}

/** path → sha256 of every file below `root` (.git aside): what the daemon must never change. */
function manifest(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === '.git') continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.set(path.relative(root, full), createHash('sha256').update(fs.readFileSync(full)).digest('hex'));
    }
  };
  walk(root);
  return out;
}

async function stopGracefully(daemon: DaemonHandle): Promise<string | undefined> {
  if (daemon.exit) return `exited early: ${JSON.stringify(daemon.exit)}`;
  await daemon.stdio!.request('fathom/stop', {}, 30_000).catch(() => undefined);
  const exited = await Promise.race([daemon.exited, idle(30_000).then(() => undefined)]);
  if (!exited) {
    await daemon.kill();
    return 'did not exit within 30 s of fathom/stop';
  }
  return exited.code === 0 && exited.signal === null ? undefined : `exited with ${JSON.stringify(exited)} after fathom/stop`;
}

let corpus: Corpus;
let reference: Answers;
let before_: Map<string, string>;
const durations = new Map<string, number>();
const crashCache = scratchDir('fathom-rel-crash-cache-');

before(async () => {
  corpus = reliabilityCorpus();
  before_ = manifest(corpus.root);
});

after(cleanupReliability);

test(
  "a fresh daemon on a fresh cache: the reference answers, the phases' lengths, and agreement with ripgrep",
  { skip: !ripgrepInstalled, timeout: 600_000 },
  async (t) => {
    const referenceCache = scratchDir('fathom-rel-crash-reference-');
    const daemon = await startDaemon({ transport: 'stdio', label: 'reference daemon', cacheDir: referenceCache });
    const client = daemon.stdio!;
    // fathom/index runs the scan, the parse and the embedding under one token: each phase's length is its title's.
    const watches = [];
    for (const [turn, phase] of phases.entries()) {
      const token = `ref-${turn}`;
      const watch = watchProgress(client, token);
      watches.push(watch);
      const answer = await phase.trigger(client, corpus.root, token);
      assert.equal(answer.error, undefined, `${phase.name}: ${JSON.stringify(answer.error)}`);
    }
    for (const phase of phases) {
      const length = watches.map((watch) => watch.length(phase.title(corpus.root))).find((value) => value !== undefined);
      assert.ok(length !== undefined, `${phase.name}: no begin/end progress titled "${phase.title(corpus.root)}"`);
      durations.set(phase.name, length);
    }
    for (const watch of watches) watch.dispose();
    const answers = await collectAnswers(client, corpus.root, standardProbe);
    reference = withRipgrep(corpus.root, answers, standardProbe.grep);
    t.diagnostic(
      `phase lengths (ms): ${JSON.stringify(Object.fromEntries([...durations].map(([name, ms]) => [name, Math.round(ms)])))}; ${answers.files.length} files`,
    );
    assert.equal(await stopGracefully(daemon), undefined);
    // The kills start from the reference's whole cache: each one then rebuilds only what it kills.
    fs.cpSync(referenceCache, crashCache, { recursive: true });
    assert.deepEqual(client.violations, []);
    assert.deepEqual(answerDifferences(answers, reference), [], "the reference daemon's grep equals ripgrep's");
    for (const [kind, answered] of Object.entries({ ...reference.symbols, ...reference.structural, ...reference.lexical, ...reference.semantic }))
      assert.ok(answered.length > 0 && !answered[0]!.startsWith('error'), `${kind}: ${answered[0]}`);
  },
);

interface KillRecord {
  kill: number;
  phase: string;
  delayMs: number;
  during: string;
  differences: string[];
  /** Seconds: the victim's run up to the kill, the restarted daemon's answers, its stop. */
  seconds: [number, number, number];
}

const kills: KillRecord[] = [];

test(
  `${killCount} kills (-9) at random points of every build phase; after each restart the answers equal a fresh daemon's and ripgrep's`,
  { skip: !ripgrepInstalled, timeout: 900_000 },
  async (t) => {
    assert.ok(reference, 'the reference ran');
    const random = new SeededRandom(seed);
    const failures: string[] = [];
    for (let kill = 0; kill < killCount; kill++) {
      const phase = phases[kill % phases.length]!;
      const removed = removeArtifacts(crashCache, phase);
      const cycleStart = performance.now();
      const victim = await startDaemon({ transport: 'stdio', label: `victim ${kill} (${phase.name})`, cacheDir: crashCache });
      const token = `kill-${kill}`;
      const watch = watchProgress(victim.stdio!, token);
      const answered = phase.trigger(victim.stdio!, corpus.root, token).catch((error: Error) => error);
      const begun = await Promise.race([watch.begun(phase.title(corpus.root)), idle(120_000).then(() => false)]);
      const delayMs = random.next() * 1.5 * (durations.get(phase.name) ?? 1_000);
      let during: string;
      if (!begun) {
        const answer = await Promise.race([answered, idle(1).then(() => 'pending')]);
        during = `the phase never began (removed ${JSON.stringify(removed)}; answer ${JSON.stringify(answer instanceof Error ? answer.message : answer)})`;
        failures.push(`kill ${kill} (${phase.name}): ${during}`);
      } else {
        await sleep(delayMs);
        during = watch.length(phase.title(corpus.root)) === undefined ? 'during the phase' : 'after the phase ended (its save, or the next phase)';
      }
      await victim.kill('SIGKILL');
      watch.dispose();
      if (victim.exit?.signal !== 'SIGKILL')
        failures.push(`kill ${kill} (${phase.name}): the daemon had already exited: ${JSON.stringify(victim.exit)} ${victim.stderrTail()}`);

      const killedAt = performance.now();
      const survivor = await startDaemon({ transport: 'stdio', label: `restart ${kill} (after ${phase.name})`, cacheDir: crashCache });
      const answers = await collectAnswers(survivor.stdio!, corpus.root, standardProbe).catch((error: Error) => error);
      const differences = answers instanceof Error ? [`no answers: ${answers.message}`] : answerDifferences(answers, reference);
      const answeredAt = performance.now();
      const stopped = await stopGracefully(survivor);
      const seconds: [number, number, number] = [(killedAt - cycleStart) / 1000, (answeredAt - killedAt) / 1000, (performance.now() - answeredAt) / 1000].map(
        (value) => Math.round(value * 10) / 10,
      ) as [number, number, number];
      if (stopped) differences.push(`the restarted daemon ${stopped}: ${survivor.stderrTail()}`);
      differences.push(...victim.stdio!.violations, ...survivor.stdio!.violations);
      kills.push({ kill, phase: phase.name, delayMs: Math.round(delayMs), during, differences, seconds });
      for (const difference of differences) failures.push(`kill ${kill} (${phase.name}, ${Math.round(delayMs)} ms after its start, ${during}): ${difference}`);
    }
    const byPhase = Object.fromEntries(
      phases.map((phase) => [
        phase.name,
        kills.filter((record) => record.phase === phase.name).map((record) => `${record.delayMs}ms${record.during === 'during the phase' ? '' : '+'}`),
      ]),
    );
    t.diagnostic(
      `seed ${seed}: ${kills.length} kills; kill points by phase (ms after the phase began; + = after it ended) ${JSON.stringify(byPhase)}; ${kills.filter((record) => record.differences.length > 0).length} restarts answered differently`,
    );
    t.diagnostic(`seconds per kill (victim, restart's answers, its stop): ${kills.map((record) => record.seconds.join('/')).join(' ')}`);
    const leftovers = cacheFiles(crashCache).filter((file) => file.endsWith('.tmp'));
    t.diagnostic(
      `cache after the kills: ${cacheFiles(crashCache).filter((file) => !file.startsWith('trees/')).length} files outside trees/; temporary files left by killed saves: ${leftovers.length} ${JSON.stringify(leftovers.slice(0, 5))}`,
    );
    assert.equal(kills.length, killCount);
    assert.deepEqual(failures.slice(0, 25), [], `seed ${seed}: ${failures.length} problems`);
  },
);

/** The secrets' text in answers: each searched for literally. */
async function secretsAnswered(secrets: readonly string[]): Promise<string[]> {
  const daemon = await startDaemon({ transport: 'stdio', label: 'secret probe', cacheDir: crashCache });
  const found: string[] = [];
  for (const secret of secrets) {
    const answer = await daemon.stdio!.request('fathom/grep', { root: corpus.root, pattern: secret, fixedStrings: true }, 120_000);
    const matches = (answer.result as GrepResult | undefined)?.matches ?? [];
    for (const match of matches) found.push(`fathom/grep found ${secret.slice(0, 12)}… in ${match.path}:${match.line}`);
    const words = await daemon.stdio!.request('fathom/codeSearch', { root: corpus.root, query: secret, mode: 'literal' }, 120_000);
    for (const hit of (words.result as { hits?: { path: string; start: number }[] } | undefined)?.hits ?? [])
      found.push(`fathom/codeSearch found ${secret.slice(0, 12)}… in ${hit.path}:${hit.start}`);
  }
  await stopGracefully(daemon);
  return found;
}

test('secrets a name rule excludes (.env, a private key file) reach no answer and no cache file', { skip: !ripgrepInstalled, timeout: 300_000 }, async () => {
  assert.ok(kills.length > 0, 'the kills ran');
  assert.deepEqual([...(await secretsAnswered(corpus.secretsByName)), ...filesHolding(crashCache, corpus.secretsByName)], []);
});

test(
  'secrets only their content shows (a private key block in notes/handover.txt, an AWS key in app/settings.ini) reach no answer and no cache file',
  { skip: !ripgrepInstalled, timeout: 300_000 },
  async () => {
    assert.ok(kills.length > 0, 'the kills ran');
    assert.deepEqual([...(await secretsAnswered(corpus.secretsByContent)), ...filesHolding(crashCache, corpus.secretsByContent)], []);
  },
);

test('the kills and restarts changed nothing in the workspace', () => {
  const now = manifest(corpus.root);
  const changed = [...new Set([...before_.keys(), ...now.keys()])].filter((file) => before_.get(file) !== now.get(file));
  assert.deepEqual(changed, []);
  assert.deepEqual(fs.readdirSync(path.dirname(corpus.root)), ['repo'], 'nothing was written beside the workspace');
});
