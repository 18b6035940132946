// Benchmark of a team join (issue 34: a second clone with 1% of its files changed answers in words
// from the store, then embeds only its changes), from the shell as a user meets it. A throwaway
// PostgreSQL cluster (test/helpers/postgres.ts) and `fathom team init`; a first daemon (its own
// socket and cache) indexes CORPUS and pushes it. CORPUS is copied to a second clone whose every
// 100th file gets a line appended. Then, each on a fresh daemon with a fresh cache (a teammate's
// machine), `fathom index CLONE` joins (FATHOM_TEAM_URL and FATHOM_TEAM_KEY set: `fathom index`
// joins first), against the cold build: the first clone's own `fathom index` (or, with
// FATHOM_JOIN_COLD_CLONE=1, the clone's on a fresh daemon without the store). From the command's
// start: when the semantic index first answers over the files (`fathom status` polled every 0.5 s:
// the store's files seeded, or a build's 99% of the files the first clone's held; with 1% of the
// files changed and some contents the store lacks, a join's seed alone is just under 99%), and when
// `fathom index` returns (every index ready). Then, as a user would, one `fathom search --mode hybrid` in words, timed: when its
// first answer with hits came, from the command's start. Ratios cold / joined. Prints a table and
// one `BENCH_JSON` line.
//   FATHOM_JOIN_FIRST_CACHE=DIR  the first clone's daemon uses this cache folder (a kernel indexed
//                                before: its `fathom index` is then no cold build, and the cold
//                                column is not measured)
//   FATHOM_JOIN_READY=0          stop after the search: `fathom index` is not waited for (its
//                                other indexes are a cold build's, tens of minutes on the kernel)
//   FATHOM_JOIN_QUESTION=TEXT    the question asked (default: a kernel one)
//   FATHOM_JOIN_LOG=FILE         the joining daemon logs at info, its log copied to FILE
//   FATHOM_JOIN_GRAPH=1          with FATHOM_JOIN_READY=0: also wait until the store's vectors are
//                                in the HNSW graph (search.semantic.staged 0), and time it
//   FATHOM_JOIN_WORDS=1          with FATHOM_JOIN_READY=0: also wait until the semantic index holds
//                                every file (state ready, nothing pending: the files the store
//                                lacked embedded here), and time it
//   FATHOM_JOIN_PROFILE=DIR      the joining daemon writes a CPU profile to DIR when it stops
//                                (bench/cpu-profile-preload.ts)
//
// Usage: node dist/bench/team-join-bench.js CORPUS   (bench/corpora.sh)
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StatusResult } from '../src/protocol/methods.js';
import { startCluster } from '../test/helpers/postgres.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const main = path.resolve(here, '../src/cli/main.js');
const corpus = process.argv[2];
if (!corpus || !fs.existsSync(corpus)) {
  process.stderr.write('usage: node dist/bench/team-join-bench.js CORPUS\n');
  process.exit(2);
}
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-join-bench-'));
const key = path.join(folder, 'team.key');
fs.writeFileSync(key, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
const cluster = startCluster();

/** A daemon's environment: its own socket and cache under the bench's folder. */
const firstCache = process.env.FATHOM_JOIN_FIRST_CACHE || undefined;
const waitReady = process.env.FATHOM_JOIN_READY !== '0';
const question = process.env.FATHOM_JOIN_QUESTION || 'free the pages of a memory mapping when a process exits';
const joinLog = process.env.FATHOM_JOIN_LOG || undefined;
const waitGraph = process.env.FATHOM_JOIN_GRAPH === '1';
const waitWords = process.env.FATHOM_JOIN_WORDS === '1';
const joinProfile = process.env.FATHOM_JOIN_PROFILE || undefined;

function daemonEnv(name: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    FATHOM_SOCKET: path.join(folder, `${name}.sock`),
    FATHOM_CACHE_DIR: name === 'first' && firstCache ? firstCache : path.join(folder, `cache-${name}`),
    FATHOM_LOG: 'warn',
    FATHOM_TEAM_URL: '',
    FATHOM_TEAM_KEY: '',
    ...extra,
  };
}

function cli(env: NodeJS.ProcessEnv, args: string[]): { ms: number; stdout: string; stderr: string } {
  const started = performance.now();
  const result = spawnSync(process.execPath, [main, ...args], { env, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (result.status !== 0) throw new Error(`fathom ${args.join(' ')}: exit ${result.status}: ${result.stderr.slice(-800)}`);
  return { ms: performance.now() - started, stdout: result.stdout, stderr: result.stderr };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface TimedIndex {
  coveredMs: number;
  /** When a search in words first answered with hits (from the command's start), its own wall time, and the semantic index's staged vectors then. */
  answeredMs: number;
  /** When the store's vectors were all in the HNSW graph (FATHOM_JOIN_GRAPH=1), from the command's start. */
  graphedMs: number;
  /** When the semantic index held every file (FATHOM_JOIN_WORDS=1: ready, nothing pending), from the command's start. */
  wordsMs: number;
  searchMs: number;
  hits: number;
  route: string;
  stagedThen: number;
  readyMs: number;
  stderr: string;
}

/** `fathom index CLONE` on a fresh daemon: when 99% of `files` (the first clone's semantic index's) have vectors, when a search in words answers, when it returns, and its stderr. */
async function timedIndex(env: NodeJS.ProcessEnv, clone: string, files: number): Promise<TimedIndex> {
  const started = performance.now();
  const child = spawn(process.execPath, [main, 'index', clone], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let done = false;
  void exited.then(() => (done = true));
  let coveredMs = Number.NaN;
  let stagedThen = 0;
  // Polled until covered (then only the exit is awaited: each poll is a process of its own).
  while (!done && Number.isNaN(coveredMs)) {
    await sleep(500);
    const status = spawnSync(process.execPath, [main, 'status', clone, '--json'], { env, encoding: 'utf8' });
    const semantic = status.status === 0 ? (JSON.parse(status.stdout) as StatusResult['workspaces'][number]).search?.semantic : undefined;
    // Answerable: the store's files seeded (a join), or 99% of the first clone's files (a build).
    if (Number.isNaN(coveredMs) && semantic && semantic.state !== 'off' && (semantic.seeded !== undefined || semantic.files >= 0.99 * files)) {
      coveredMs = performance.now() - started;
      stagedThen = semantic.staged ?? 0;
    }
  }
  if (Number.isNaN(coveredMs)) coveredMs = performance.now() - started;
  // The user's question, as soon as the index covers the files.
  const searchStarted = performance.now();
  const search = spawnSync(process.execPath, [main, 'search', question, clone, '--mode', 'hybrid', '--max', '10'], {
    env,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  const searchMs = performance.now() - searchStarted;
  const answeredMs = performance.now() - started;
  // stderr: "fathom: hybrid search (…): N hits", and a line naming the indexes still building.
  const said = search.stderr.trim().split('\n');
  const hits = Number(/: (\d+) hits?/.exec(said[0] ?? '')?.[1] ?? 0);
  const route = search.status === 0 ? said.map((line) => line.replace(/^fathom: /, '')).join(' / ') : `exit ${search.status}: ${search.stderr.slice(-300)}`;
  let graphedMs = Number.NaN;
  let wordsMs = Number.NaN;
  if (!waitReady) {
    while (waitWords && !done) {
      const status = spawnSync(process.execPath, [main, 'status', clone, '--json'], { env, encoding: 'utf8' });
      const semantic = status.status === 0 ? (JSON.parse(status.stdout) as StatusResult['workspaces'][number]).search?.semantic : undefined;
      if (!semantic || semantic.state === 'off') break;
      if (semantic.state === 'ready' && semantic.pendingFiles === 0) {
        wordsMs = performance.now() - started;
        break;
      }
      await sleep(1_000);
    }
    while (waitGraph) {
      const status = spawnSync(process.execPath, [main, 'status', clone, '--json'], { env, encoding: 'utf8' });
      const semantic = status.status === 0 ? (JSON.parse(status.stdout) as StatusResult['workspaces'][number]).search?.semantic : undefined;
      if (!semantic || semantic.state === 'off' || semantic.staged === 0) break;
      await sleep(2_000);
    }
    if (waitGraph) graphedMs = performance.now() - started;
    child.kill('SIGINT');
    await exited;
    return { coveredMs, answeredMs, graphedMs, wordsMs, searchMs, hits, route, stagedThen, readyMs: Number.NaN, stderr };
  }
  const code = await exited;
  if (code !== 0) throw new Error(`fathom index ${clone}: exit ${code}: ${stderr.slice(-800)}`);
  return { coveredMs, answeredMs, graphedMs, wordsMs, searchMs, hits, route, stagedThen, readyMs: performance.now() - started, stderr };
}

try {
  await cluster.sql('CREATE ROLE team_owner LOGIN CREATEROLE');
  await cluster.sql('CREATE DATABASE fathom OWNER team_owner');
  await cluster.sql('CREATE ROLE bench_member LOGIN');
  cli(daemonEnv('owner', { FATHOM_TEAM_URL: cluster.conninfo('team_owner', 'fathom') }), ['team', 'init', '--grant', 'bench_member']);
  const member = { FATHOM_TEAM_URL: cluster.conninfo('bench_member', 'fathom'), FATHOM_TEAM_KEY: key };
  const first = daemonEnv('first');
  // The cold build: the first clone's own `fathom index` (the clone differs from it in 1% of its
  // files; its semantic index is complete when it returns); FATHOM_JOIN_COLD_CLONE=1 times the clone's.
  const firstIndex = cli(first, ['index', corpus]);
  const firstRun: Pick<TimedIndex, 'coveredMs' | 'readyMs' | 'answeredMs' | 'graphedMs' | 'wordsMs'> = {
    coveredMs: firstCache ? Number.NaN : firstIndex.ms,
    readyMs: firstCache ? Number.NaN : firstIndex.ms,
    answeredMs: Number.NaN,
    graphedMs: Number.NaN,
    wordsMs: firstCache ? Number.NaN : firstIndex.ms,
  };
  const push = cli({ ...first, ...member }, ['team', 'push', corpus, '--json']);
  const list = cli(first, ['files', corpus]).stdout.split('\n').filter(Boolean);
  const firstSemantic = (JSON.parse(cli(first, ['status', corpus, '--json']).stdout) as StatusResult['workspaces'][number]).search?.semantic;
  if (!firstSemantic || firstSemantic.state === 'off') throw new Error('semantic search is off: nothing to push or join');
  cli(first, ['stop']);
  // The second clone: a copy with every 100th file of the file set changed.
  const clone = path.join(folder, path.basename(corpus));
  fs.cpSync(corpus, clone, { recursive: true });
  const changed = list.filter((_, index) => index % 100 === 0);
  for (const file of changed) fs.appendFileSync(path.join(clone, file), '\n');
  let coldRun = firstRun;
  if (process.env.FATHOM_JOIN_COLD_CLONE === '1') {
    const cold = daemonEnv('cold');
    coldRun = await timedIndex(cold, clone, firstSemantic.files);
    cli(cold, ['stop']);
  }
  const joined = daemonEnv('joined', {
    ...member,
    ...(joinLog ? { FATHOM_LOG: 'info' } : {}),
    // The joining daemon writes a CPU profile there when it stops (cpu-profile-preload.ts).
    ...(joinProfile
      ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${path.join(here, 'cpu-profile-preload.js')}`.trim(), FATHOM_CPU_PROFILE_DIR: joinProfile }
      : {}),
  });
  const joinRun = await timedIndex(joined, clone, firstSemantic.files);
  const status = JSON.parse(cli(joined, ['status', clone, '--json']).stdout) as StatusResult['workspaces'][number];
  cli(joined, ['stop']);
  const semantic = status.search?.semantic;
  const seeded = semantic && semantic.state !== 'off' ? semantic.seeded : undefined;
  const pushResult = JSON.parse(push.stdout) as { uploaded: { vectors: number; files: number } };
  const seconds = (ms: number): string => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : 'not run');
  const ratio = (cold: number, joined: number): string => (Number.isFinite(cold / joined) ? `${(cold / joined).toFixed(1)}x` : '-');
  const rows: Array<[string, string, string, string]> = [
    ['the files answerable in words', seconds(coldRun.coveredMs), seconds(joinRun.coveredMs), ratio(coldRun.coveredMs, joinRun.coveredMs)],
    [
      `a hybrid search answered (${joinRun.hits} hits)`,
      seconds(coldRun.answeredMs),
      seconds(joinRun.answeredMs),
      ratio(coldRun.answeredMs, joinRun.answeredMs),
    ],
    ['every file answerable in words', seconds(coldRun.wordsMs), seconds(joinRun.wordsMs), ratio(coldRun.wordsMs, joinRun.wordsMs)],
    ["the store's vectors all in the HNSW graph", seconds(coldRun.graphedMs), seconds(joinRun.graphedMs), '-'],
    ['fathom index returns (every index ready)', seconds(coldRun.readyMs), seconds(joinRun.readyMs), ratio(coldRun.readyMs, joinRun.readyMs)],
  ];
  process.stdout.write(
    `corpus ${corpus}: ${list.length} files, ${changed.length} changed in the clone; the first clone: index ${seconds(firstRun.readyMs)}, push ${seconds(push.ms)} (${pushResult.uploaded.vectors} vectors, ${pushResult.uploaded.files} files); cold: ${process.env.FATHOM_JOIN_COLD_CLONE === '1' ? 'the clone on a fresh daemon' : "the first clone's index (its semantic index complete when it returns)"}\n`,
  );
  process.stdout.write(
    `join: ${
      joinRun.stderr
        .trim()
        .split('\n')
        .find((line) => line.includes('from ')) ?? '(no join line)'
    }\n`,
  );
  process.stdout.write(
    `the search: ${(joinRun.searchMs / 1000).toFixed(1)} s from the shell, ${joinRun.stagedThen} vectors staged when covered; it said: ${joinRun.route}\n`,
  );
  process.stdout.write(`${'from `fathom index CLONE` start'.padEnd(44)} ${'cold'.padStart(9)} ${'joined'.padStart(9)} ${'ratio'.padStart(7)}\n`);
  for (const [name, a, b, ratio] of rows) process.stdout.write(`${name.padEnd(44)} ${a.padStart(9)} ${b.padStart(9)} ${ratio.padStart(7)}\n`);
  process.stdout.write(
    `BENCH_JSON ${JSON.stringify({ corpus, files: list.length, changed: changed.length, cold: { coveredMs: coldRun.coveredMs, readyMs: coldRun.readyMs }, joined: { coveredMs: joinRun.coveredMs, answeredMs: joinRun.answeredMs, graphedMs: joinRun.graphedMs, wordsMs: joinRun.wordsMs, searchMs: joinRun.searchMs, stagedThen: joinRun.stagedThen, readyMs: joinRun.readyMs }, seeded: seeded ?? null })}\n`,
  );
} finally {
  for (const name of ['first', 'cold', 'joined']) spawnSync(process.execPath, [main, 'stop'], { env: daemonEnv(name), stdio: 'ignore' });
  if (joinLog) fs.copyFileSync(path.join(folder, 'cache-joined', 'daemon.log'), joinLog);
  cluster.destroy();
  fs.rmSync(folder, { recursive: true, force: true });
}
