// Benchmark of a restarted daemon as a user meets it (issue 31: "a restarted daemon answers at
// once"), on a cache `fathom index` already built, for this build and, in the same run, another
// (a baseline's dist/src/cli/main.js), in turns, so both meet the same machine:
//   each round, per build: `fathom stop`, then from the shell `fathom status` (which starts the
//   daemon), the first `fathom grep -F SYMBOL`, `fathom status ROOT` (the workspace now open),
//   the first lexical search, the first search in words (auto: hybrid when the semantic index
//   is on), the first `fathom symbols SYMBOL` (the code graph read back) and a second one; each a
//   CLI's wall time, and for symbols how many definitions it printed (an answer made from part of
//   the graph prints fewer). `rg -F SYMBOL` over the corpus is timed in the same rounds
//   (the peer a user would otherwise run). Before each round both builds' cache files and the
//   corpus are read once (this machine evicts idle file pages within seconds).
// Prints medians with ratios (baseline / this: above 1 this build is faster) and one BENCH_JSON line.
//
// Usage: node dist/bench/restart-bench.js CORPUS CACHE_DIR [BASELINE_CLI_MAIN] [--rounds N] [--symbol S] [--query Q]
//   CACHE_DIR: a FATHOM_CACHE_DIR where `fathom index CORPUS` ran (both builds use it in turn: the
//   on-disk formats must be the same); each build gets its own socket.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type CliBuild, runCli, thisMain } from './cli-build.js';

const steps = ['status', 'grep', 'statusRoot', 'lexical', 'words', 'symbols', 'symbolsAgain'] as const;
type Step = (typeof steps)[number];

/** A command's wall time; `stop` may find no daemon (not a failure). */
function cli(build: CliBuild, args: string[]): number {
  return runCli(build, args, { reportFailure: args[0] !== 'stop' }).ms;
}

/** `fathom symbols`'s wall time and how many symbols it printed (a partial answer exits 1 with fewer). */
function symbols(build: CliBuild, symbol: string, root: string): { ms: number; found: number } {
  const run = runCli(build, ['symbols', symbol, root], { reportFailure: false });
  return { ms: run.ms, found: run.stdout.split('\n').filter((line) => line.trim() !== '').length };
}

/** Reads every file under `folder` once (page cache), without keeping it. */
function warm(folder: string): void {
  spawnSync('sh', ['-c', `find "${folder}" -type f -print0 | xargs -0 cat > /dev/null 2>&1`]);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      rounds: { type: 'string', default: '5' },
      symbol: { type: 'string', default: 'kmem_cache_free' },
      query: { type: 'string', default: 'free a slab object back to its cache' },
    },
  });
  const [corpusArgument, cacheArgument, baselineMain] = positionals;
  if (!corpusArgument || !cacheArgument) throw new Error('usage: restart-bench.js CORPUS CACHE_DIR [BASELINE_CLI_MAIN] [--rounds N] [--symbol S] [--query Q]');
  const root = fs.realpathSync(corpusArgument);
  const cacheDir = path.resolve(cacheArgument);
  const rounds = Number(values.rounds);
  const sockets = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-restart-bench-'));
  const build = (label: string, main: string): CliBuild => ({
    label,
    main,
    env: { ...process.env, FATHOM_SOCKET: path.join(sockets, `${label}.sock`), FATHOM_CACHE_DIR: cacheDir, FATHOM_LOG: 'warn' },
  });
  const builds = [build('this', thisMain), ...(baselineMain ? [build('baseline', path.resolve(baselineMain))] : [])];
  const times = new Map<string, Record<Step, number[]>>(
    builds.map((entry) => [entry.label, { status: [], grep: [], statusRoot: [], lexical: [], words: [], symbols: [], symbolsAgain: [] }]),
  );
  const found = new Map<string, number[]>(builds.map((entry) => [entry.label, []]));
  const rg: number[] = [];
  for (const entry of builds) cli(entry, ['stop']);
  for (let round = 0; round < rounds; round++) {
    // Alternate which build goes first.
    const order = round % 2 === 0 ? builds : [...builds].reverse();
    for (const entry of order) {
      warm(cacheDir);
      warm(root);
      const rgStarted = performance.now();
      spawnSync('rg', ['-F', values.symbol!, root], { stdio: 'ignore' });
      rg.push(performance.now() - rgStarted);
      const row = times.get(entry.label)!;
      row.status.push(cli(entry, ['status']));
      row.grep.push(cli(entry, ['grep', '-F', values.symbol!, root, '--max', '1']));
      row.statusRoot.push(cli(entry, ['status', root]));
      row.lexical.push(cli(entry, ['search', values.query!, root, '--mode', 'lexical', '--max', '5']));
      row.words.push(cli(entry, ['search', values.query!, root, '--max', '5']));
      const first = symbols(entry, values.symbol!, root);
      row.symbols.push(first.ms);
      found.get(entry.label)!.push(first.found);
      row.symbolsAgain.push(symbols(entry, values.symbol!, root).ms);
      cli(entry, ['stop']);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      process.stderr.write(`[round ${round + 1}/${rounds}] ${entry.label}: ${steps.map((step) => `${step} ${Math.round(row[step].at(-1)!)}`).join(', ')} ms\n`);
    }
  }
  const labels: Record<Step, string> = {
    status: '`fathom status` (starts the daemon)',
    grep: 'then first `fathom grep -F`',
    statusRoot: 'then `fathom status ROOT`',
    lexical: 'then first lexical search',
    words: 'then first search in words',
    symbols: 'then first `fathom symbols`',
    symbolsAgain: 'then a second `fathom symbols`',
  };
  const mine = times.get('this')!;
  const base = times.get('baseline');
  console.log(`restart, nothing changed: ${root} (${rounds} rounds, medians, ms; rg -F ${values.symbol}: ${median(rg).toFixed(0)} ms)`);
  console.log(`| step | ${base ? 'baseline | ' : ''}this | ${base ? 'ratio | ' : ''}runs (this) |`);
  console.log(`|---|${base ? '---|' : ''}---|${base ? '---|' : ''}---|`);
  for (const step of steps) {
    const ours = median(mine[step]);
    const theirs = base ? median(base[step]) : undefined;
    console.log(
      `| ${labels[step]} | ${theirs === undefined ? '' : `${theirs.toFixed(0)} | `}${ours.toFixed(0)} | ${theirs === undefined ? '' : `${(theirs / ours).toFixed(2)}x | `}${mine[step].map((value) => value.toFixed(0)).join(' / ')} |`,
    );
  }
  console.log(`| \`rg -F ${values.symbol}\` (peer) | | ${median(rg).toFixed(0)} | | ${rg.map((value) => value.toFixed(0)).join(' / ')} |`);
  for (const [label, counts] of found) console.log(`symbols printed by the first \`fathom symbols\` (${label}): ${counts.join(' / ')}`);
  console.log(
    `BENCH_JSON ${JSON.stringify({ bench: 'restart', root, rounds, rgMs: median(rg), firstSymbolsFound: Object.fromEntries(found), builds: Object.fromEntries([...times].map(([label, row]) => [label, Object.fromEntries(steps.map((step) => [step, median(row[step])]))])) })}`,
  );
  fs.rmSync(sockets, { recursive: true, force: true });
}

await main();
