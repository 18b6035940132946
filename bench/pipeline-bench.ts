// Benchmark of the pipeline as a user meets it (issue 31's goals), for this build and, in the same
// run, for another one (the baseline: a checkout of an older commit, built, with a node_modules
// link beside it), each on a fresh cache and its own socket, from the shell:
//   1. cold: `fathom index CORPUS` wall, then the first lexical search, the first `fathom symbols`
//      and the first hybrid search (what `fathom index` left unbuilt is built then: "every index"
//      is the sum), the daemon's RSS with every index loaded, and what status says the syntax
//      pass cost (this build: files read, parses, time in the parser and on the workers);
//   2. restart, nothing changed (`fathom stop`, then): `fathom status` (starts the daemon), the
//      first grep, the first lexical search, the first hybrid search, each a CLI's wall time;
//   3. one file changed (a new function appended to a file of the corpus, over the daemon's
//      socket as an editor would ask, polled every 10 ms): until grep finds it, until the chunk
//      ranking ranks it, until the code graph knows its name, until semantic search's store holds
//      its chunk (given up after `FATHOM_BENCH_CHANGE_S`, default 20 s); the file is restored after;
//      then the daemon's RSS again after a minute idle (the build's workers gone).
// Also one bare parse of every programming file of the corpus on the chunk workers (the syntax
// CPU the pass is measured against). Prints a table with ratios and one `BENCH_JSON` line.
//
// Usage: node dist/bench/pipeline-bench.js CORPUS [BASELINE_CLI_MAIN] [--probe FILE] [--query Q] [--symbol NAME] [--cache DIR]
//   CORPUS: a folder (bench/corpora.sh makes /tmp/fathom-bench/{linux,django,...});
//   --probe FILE: the corpus file the change step appends to (default: the first .py, .c or .ts
//   file under the corpus, by name); --query: the words searched (default "parse the header");
//   --symbol: the name looked up (default "main");
//   --cache DIR: this build uses DIR, a cache where its `fathom index CORPUS` ran already (the
//   kernel's cold index takes a quarter of an hour): step 1 then times a `fathom index` with
//   everything cached (a restarted daemon's), not a cold one, and says so.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ChunkPool } from '../src/index/syntax/chunk-pool.js';
import { LanguageTable } from '../src/index/syntax/languages.js';
import { connect, timeChange } from './change-probe.js';
import { type CliBuild, runCli, thisMain } from './cli-build.js';

interface Build extends CliBuild {
  socket: string;
}

function makeBuild(label: string, main: string, cache?: string): Build {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), `fathom-pipeline-${label}-`));
  const socket = path.join(folder, 'fathom.sock');
  return { label, main, socket, env: { ...process.env, FATHOM_SOCKET: socket, FATHOM_CACHE_DIR: cache ?? path.join(folder, 'cache'), FATHOM_LOG: 'warn' } };
}

function daemonPid(build: Build): number | undefined {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes('serve') && cmdline.includes(build.main)) {
        const environ = fs.readFileSync(`/proc/${entry}/environ`, 'utf8');
        if (environ.includes(`FATHOM_SOCKET=${build.socket}`) || cmdline.includes(build.socket)) return Number(entry);
      }
    } catch {
      // gone meanwhile, or not ours
    }
  }
  return undefined;
}

function rssMiB(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return Math.round(kb / 1024);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function firstProbe(root: string): string {
  const found: string[] = [];
  const walk = (folder: string, depth: number): void => {
    if (found.length > 0 || depth > 4) return;
    const entries = fs.readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries)
      if (entry.isFile() && /\.(py|c|ts)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) return void found.push(path.join(folder, entry.name));
    for (const entry of entries) if (entry.isDirectory() && !entry.name.startsWith('.')) walk(path.join(folder, entry.name), depth + 1);
  };
  walk(root, 0);
  if (!found[0]) throw new Error(`no .py, .c or .ts file under ${root}: give --probe FILE`);
  return found[0];
}

/** A function named `name` in the probe file's language. */
interface Row {
  label: string;
  cold: Record<string, number | undefined>;
  restart: Record<string, number | undefined>;
  change: Record<string, number | undefined>;
  rssMiB: number | undefined;
  /** After a minute idle (the build's workers stopped). */
  steadyRssMiB?: number | undefined;
  syntax?: unknown;
  indexes?: unknown;
}

async function measure(build: Build, root: string, options: { query: string; symbol: string; probe: string; changeLimitMs: number }): Promise<Row> {
  const row: Row = { label: build.label, cold: {}, restart: {}, change: {}, rssMiB: undefined };
  process.stderr.write(`[${build.label}] cold index of ${root}\n`);
  row.cold.index = runCli(build, ['index', root]).ms;
  row.cold.lexical = runCli(build, ['search', options.query, root, '--mode', 'lexical', '--max', '5']).ms;
  row.cold.symbols = runCli(build, ['symbols', options.symbol, root, '--limit', '5']).ms;
  row.cold.hybrid = runCli(build, ['search', options.query, root, '--max', '5']).ms;
  row.cold.everyIndex = row.cold.index + row.cold.lexical + row.cold.symbols + row.cold.hybrid;
  runCli(build, ['grep', '-F', options.symbol, root, '--max', '1']);
  row.rssMiB = rssMiB(daemonPid(build));
  const status = runCli(build, ['status', root, '--json']);
  try {
    const parsed = JSON.parse(status.stdout) as { syntaxPass?: unknown; indexFacts?: unknown; indexes?: unknown };
    row.syntax = parsed.syntaxPass;
    row.indexes = parsed.indexFacts ?? parsed.indexes;
  } catch {
    // an older build's status may not be JSON: left out
  }
  process.stderr.write(`[${build.label}] restart\n`);
  runCli(build, ['stop']);
  await sleep(500);
  row.restart.status = runCli(build, ['status', root]).ms;
  row.restart.grep = runCli(build, ['grep', '-F', options.symbol, root, '--max', '1']).ms;
  row.restart.lexical = runCli(build, ['search', options.query, root, '--mode', 'lexical', '--max', '5']).ms;
  row.restart.hybrid = runCli(build, ['search', options.query, root, '--max', '5']).ms;
  process.stderr.write(`[${build.label}] one file changed: ${options.probe}\n`);
  const connection = await connect(build.socket);
  const name = `zeppelin_probe_${build.label.replace(/\W/g, '_')}_${Date.now() % 100000}`;
  try {
    ({
      regex: row.change.regex,
      ranking: row.change.ranking,
      graph: row.change.graph,
      vectors: row.change.vectors,
    } = await timeChange(connection, root, options.probe, name, options.changeLimitMs));
  } finally {
    connection.dispose();
  }
  // Steady state: the workers of the build stop after a minute idle.
  await sleep(65_000);
  row.steadyRssMiB = rssMiB(daemonPid(build));
  runCli(build, ['stop']);
  return row;
}

/** One bare parse of every programming file (worker time, summed). */
async function bareParse(root: string): Promise<{ files: number; ms: number }> {
  const table = new LanguageTable();
  const files: string[] = [];
  const walk = (folder: string): void => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory() && entry.name !== '.git') walk(full);
      else if (entry.isFile()) {
        const spec = table.detect(full);
        if (spec && !spec.disabled && table.queryText(spec.id, 'chunks') !== undefined) files.push(full);
      }
    }
  };
  walk(root);
  const pool = new ChunkPool();
  let ms = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: pool.size * 2 }, async () => {
      while (next < files.length) {
        const file = files[next++]!;
        try {
          // Awaited first: `ms += await …` would read `ms` before the wait and lose the other lanes' sums.
          const parsed = await pool.parse({ path: file, absolutePath: file });
          ms += parsed.elapsedMs;
        } catch {
          // unreadable: not counted
        }
      }
    }),
  );
  pool.close();
  return { files: files.length, ms };
}

function ratio(base: number | undefined, ours: number | undefined): string {
  if (base === undefined || ours === undefined || ours === 0) return '';
  return `${(base / ours).toFixed(2)}x`;
}

function show(value: number | undefined, limitMs: number): string {
  if (value === undefined) return `> ${(limitMs / 1000).toFixed(0)} s`;
  return value >= 10_000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value)} ms`;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const option = (name: string): string | undefined => {
    const at = args.indexOf(name);
    if (at < 0) return undefined;
    const value = args[at + 1];
    args.splice(at, 2);
    return value;
  };
  const probeOption = option('--probe');
  const cache = option('--cache');
  const query = option('--query') ?? 'parse the header';
  const symbol = option('--symbol') ?? 'main';
  const [corpus, baselineMain] = args;
  if (!corpus) throw new Error('usage: pipeline-bench CORPUS [BASELINE_CLI_MAIN] [--probe FILE] [--query Q] [--symbol NAME]');
  const root = fs.realpathSync(corpus);
  const probe = probeOption ? path.resolve(probeOption) : firstProbe(root);
  const changeLimitMs = Number(process.env.FATHOM_BENCH_CHANGE_S ?? 20) * 1000;
  if (process.env.FATHOM_BENCH_PARSE_ONLY) {
    console.log(JSON.stringify(await bareParse(root)));
    return;
  }
  const builds = [
    ...(baselineMain ? [makeBuild('baseline', path.resolve(baselineMain))] : []),
    makeBuild('this', thisMain, cache === undefined ? undefined : path.resolve(cache)),
  ];
  const rows: Row[] = [];
  for (const build of builds) rows.push(await measure(build, root, { query, symbol, probe, changeLimitMs }));
  const parse = await bareParse(root);
  const [base, ours] = rows.length === 2 ? rows : [undefined, rows[0]!];
  const line = (section: 'cold' | 'restart' | 'change', key: string, label: string): string => {
    const theirs = base?.[section][key];
    const mine = ours![section][key];
    return `${label.padEnd(34)}${(base ? show(theirs, changeLimitMs) : '').padStart(12)}${show(mine, changeLimitMs).padStart(12)}${ratio(theirs, mine).padStart(10)}`;
  };
  console.log(
    `\n${root}: pipeline as a user meets it (${os.availableParallelism()} cores)${cache === undefined ? '' : `; this build on ${cache}, indexed before: its "cold" rows are a restarted daemon's \`fathom index\` with everything cached`}`,
  );
  console.log(`${'step'.padEnd(34)}${(base ? 'baseline' : '').padStart(12)}${'this'.padStart(12)}${(base ? 'ratio' : '').padStart(10)}`);
  const table: Array<['cold' | 'restart' | 'change', string, string]> = [
    ['cold', 'index', 'cold `fathom index`'],
    ['cold', 'lexical', '  then first lexical search'],
    ['cold', 'symbols', '  then first `fathom symbols`'],
    ['cold', 'hybrid', '  then first hybrid search'],
    ['cold', 'everyIndex', 'every index, cold (sum)'],
    ['restart', 'status', 'restart: `fathom status`'],
    ['restart', 'grep', '  then first grep'],
    ['restart', 'lexical', '  then first lexical search'],
    ['restart', 'hybrid', '  then first hybrid search'],
    ['change', 'regex', 'one file changed: grep finds it'],
    ['change', 'ranking', '  the ranking ranks it'],
    ['change', 'graph', '  the graph knows its name'],
    ['change', 'vectors', '  semantic search finds it'],
  ];
  for (const [section, key, label] of table) console.log(line(section, key, label));
  console.log(`${'RSS, every index loaded (MiB)'.padEnd(34)}${String(base?.rssMiB ?? '').padStart(12)}${String(ours!.rssMiB ?? '').padStart(12)}`);
  console.log(`${'  after a minute idle (MiB)'.padEnd(34)}${String(base?.steadyRssMiB ?? '').padStart(12)}${String(ours!.steadyRssMiB ?? '').padStart(12)}`);
  const syntax = ours!.syntax as { files: number; parses: number; parseMs: number; workerMs: number } | undefined;
  if (syntax) {
    console.log(
      `syntax pass: ${syntax.files} files read, ${syntax.parses} parses, ${(syntax.parseMs / 1000).toFixed(1)} s parsing, ${(syntax.workerMs / 1000).toFixed(1)} s on workers`,
    );
    console.log(
      `one bare parse of every programming file: ${parse.files} files, ${(parse.ms / 1000).toFixed(1)} s on workers; parse time ${(syntax.parseMs / parse.ms).toFixed(2)}x, all syntax work ${(syntax.workerMs / parse.ms).toFixed(2)}x of it`,
    );
  }
  console.log(`BENCH_JSON ${JSON.stringify({ corpus: root, probe, rows, bareParse: parse })}`);
}

await main();
process.exit(0);
