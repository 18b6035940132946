// Benchmark of the team store's push (issue 34's goals: a whole corpus's vectors pushed, then a
// repeated push with nothing new), from the shell as a user meets it: a throwaway PostgreSQL
// cluster on a Unix socket (test/helpers/postgres.ts), `fathom team init` as its owner, then a
// daemon on its own socket and cache: `fathom index CORPUS` (the semantic index built), `fathom
// team push CORPUS` once, then three more times with nothing new (the median reported), and
// `fathom team status CORPUS`, each a CLI's wall time, with what each
// push sent and the store's size on disk after. Prints a table and one `BENCH_JSON` line.
//
// Usage: node dist/bench/team-bench.js CORPUS
//   FATHOM_SOCKET / FATHOM_CACHE_DIR: the daemon's (default: a fresh temp folder each);
//   an index already in that cache is reused (the index step then only checks it).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCluster } from '../test/helpers/postgres.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const main = path.resolve(here, '../src/cli/main.js');

const corpus = process.argv[2];
if (!corpus || !fs.existsSync(corpus)) {
  process.stderr.write('usage: node dist/bench/team-bench.js CORPUS\n');
  process.exit(2);
}
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-team-bench-'));
const key = path.join(folder, 'team.key');
fs.writeFileSync(key, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
const cluster = startCluster();
const env: NodeJS.ProcessEnv = {
  ...process.env,
  FATHOM_SOCKET: process.env.FATHOM_SOCKET ?? path.join(folder, 'fathom.sock'),
  FATHOM_CACHE_DIR: process.env.FATHOM_CACHE_DIR ?? path.join(folder, 'cache'),
  FATHOM_LOG: 'warn',
  FATHOM_TEAM_KEY: key,
};

function cli(args: string[], extra: NodeJS.ProcessEnv = {}): { ms: number; stdout: string } {
  const started = performance.now();
  const result = spawnSync(process.execPath, [main, ...args], { env: { ...env, ...extra }, encoding: 'utf8', maxBuffer: 1 << 28 });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`fathom ${args.join(' ')}: exit ${result.status}: ${result.stderr.slice(-800)}`);
  return { ms, stdout: result.stdout };
}

try {
  await cluster.sql('CREATE ROLE team_owner LOGIN CREATEROLE');
  await cluster.sql('CREATE DATABASE fathom OWNER team_owner');
  await cluster.sql('CREATE ROLE bench_member LOGIN');
  const init = cli(['team', 'init', '--grant', 'bench_member'], { FATHOM_TEAM_URL: cluster.conninfo('team_owner', 'fathom') });
  const member = { FATHOM_TEAM_URL: cluster.conninfo('bench_member', 'fathom') };
  const index = cli(['index', corpus]);
  const first = cli(['team', 'push', corpus, '--json'], member);
  const firstResult = JSON.parse(first.stdout) as { files: number; uploaded: { vectors: number; files: number }; bytesSent: number; ms: number };
  // The push with nothing new, three times: the median's CLI wall (each its own process).
  const repeats = [0, 1, 2].map(() => cli(['team', 'push', corpus, '--json'], member)).sort((a, b) => a.ms - b.ms);
  const second = repeats[1]!;
  const secondResult = JSON.parse(second.stdout) as { uploaded: { vectors: number; files: number }; upToDate?: boolean; ms: number };
  const status = cli(['team', 'status', corpus, '--json'], member);
  const statusResult = JSON.parse(status.stdout) as { held: { files: number; distinctFiles: number }; nearest: Array<{ distance: number; sameTree: boolean }> };
  const size = await cluster.sql("SELECT pg_database_size('fathom')::bigint AS bytes", []);
  const rows: Array<[string, string]> = [
    ['team init', `${Math.round(init.ms)} ms`],
    ['fathom index (semantic index built)', `${(index.ms / 1000).toFixed(1)} s`],
    [
      'first push, CLI wall',
      `${(first.ms / 1000).toFixed(2)} s (push itself ${(firstResult.ms / 1000).toFixed(2)} s): ${firstResult.uploaded.vectors} vectors, ${firstResult.uploaded.files} files' records, ${(firstResult.bytesSent / 1048576).toFixed(1)} MiB`,
    ],
    [
      'push with nothing new, CLI wall (median of 3)',
      `${(second.ms / 1000).toFixed(2)} s (${repeats.map((run) => (run.ms / 1000).toFixed(2)).join(', ')}; push itself ${(secondResult.ms / 1000).toFixed(2)} s): ${secondResult.uploaded.vectors} vectors, ${secondResult.uploaded.files} files${secondResult.upToDate ? ', up to date' : ''}`,
    ],
    [
      'team status, CLI wall',
      `${(status.ms / 1000).toFixed(2)} s: held ${statusResult.held.files}/${statusResult.held.distinctFiles}, nearest ${statusResult.nearest[0]?.distance} bits${statusResult.nearest[0]?.sameTree ? ' (same tree)' : ''}`,
    ],
    ['store on disk', `${(Number(size.rows[0].bytes) / 1048576).toFixed(1)} MiB`],
  ];
  for (const [name, value] of rows) process.stdout.write(`${name.padEnd(46)} ${value}\n`);
  process.stdout.write(
    `BENCH_JSON ${JSON.stringify({ corpus, initMs: Math.round(init.ms), indexMs: Math.round(index.ms), firstPushMs: Math.round(first.ms), firstPush: firstResult, secondPushMs: Math.round(second.ms), secondPush: secondResult, statusMs: Math.round(status.ms), storeBytes: Number(size.rows[0].bytes) })}\n`,
  );
} finally {
  spawnSync(process.execPath, [main, 'stop'], { env, stdio: 'ignore' });
  cluster.destroy();
  fs.rmSync(folder, { recursive: true, force: true });
}
