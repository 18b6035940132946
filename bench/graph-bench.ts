// Benchmark of the code graph (src/index/graph) on a real corpus, against the tools a user would
// otherwise reach for, in one run:
// - build: tags, references and import bindings of every tagged file on 2 syntax workers; peak RSS;
//   counts (definitions, references, bindings, names, bytes of the packed arrays); for C, cscope's
//   cross-reference build (`cscope -b -q -k`) over the same files;
// - edges: every reference resolved once, counted by confidence (exact, unique, name-only, none);
// - queries (median of 5): references, callers and impact (depth 1–3) of a widely used symbol vs
//   `cscope -d -L -3` (functions calling it; C only) and `rg -w` (every line naming it);
// - freshness: a file change on disk → the graph answers with it (watcher included), and the
//   re-tag-and-replace step alone.
// Prints tables and one `BENCH_JSON` line.
//
// Usage: node dist/bench/graph-bench.js [linux|typescript|django|PATH] [SYMBOL]   (bench/corpora.sh)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CodeGraph } from '../src/index/graph/code-graph.js';
import { GraphQueries, type Place } from '../src/index/graph/graph-queries.js';
import type { Confidence } from '../src/index/graph/resolver.js';
import { ChunkPool } from '../src/index/syntax/chunk-pool.js';
import { LanguageTable } from '../src/index/syntax/languages.js';
import { HashPool } from '../src/workspace/hash-pool.js';
import { Workspace } from '../src/workspace/workspace.js';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timed<T>(work: () => T | Promise<T>, runs = 5): Promise<{ ms: number; value: T }> {
  const times: number[] = [];
  let value: T | undefined;
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    value = await work();
    times.push(performance.now() - started);
  }
  return { ms: median(times), value: value! };
}

const defaultSymbols: Record<string, string> = { linux: 'kmalloc', typescript: 'createProgram', django: 'get_object_or_404' };

async function main(): Promise<void> {
  const benchDir = process.env.FATHOM_BENCH_DIR ?? '/tmp/fathom-bench';
  const name = process.argv[2] ?? 'typescript';
  const root = fs.realpathSync(['linux', 'typescript', 'django'].includes(name) ? path.join(benchDir, name) : name);
  const symbol = process.argv[3] ?? defaultSymbols[name] ?? 'main';
  // FATHOM_BENCH_CACHE_DIR keeps the file set and the graph between runs (a second run measures a restart).
  const cacheDir = process.env.FATHOM_BENCH_CACHE_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-graph-bench-'));
  fs.mkdirSync(cacheDir, { recursive: true });
  const cacheFile = path.join(cacheDir, 'graph.bin');
  const hashPool = new HashPool();
  const maxFileBytes = Number(process.env.FATHOM_BENCH_MAX_FILE_BYTES ?? 16 * 1024 * 1024);
  const workspace = new Workspace({ root, cacheDir, maxFileBytes, reconcileIntervalMs: 0, pool: hashPool });
  await workspace.whenReady();
  const table = new LanguageTable();
  const pool = new ChunkPool(2);
  let graph = new CodeGraph(workspace, pool, table, cacheFile);

  let started = performance.now();
  await graph.ensureBuilt();
  const buildMs = performance.now() - started;
  const buildRssMb = process.resourceUsage().maxRSS / 1024;
  const fromCache = graph.lastBuild!.loaded > 0;
  // Save, then a restart: a new graph over the same workspace takes every part from the cache.
  await graph.saved(); // the build's own save
  started = performance.now();
  // The longest the event loop is held while saving (what a request arriving then would wait).
  let longestPause = 0;
  let tick = performance.now();
  const probe = setInterval(() => {
    longestPause = Math.max(longestPause, performance.now() - tick);
    tick = performance.now();
  }, 1);
  await graph.save();
  clearInterval(probe);
  const saveMs = performance.now() - started;
  const cacheBytes = fs.statSync(cacheFile).size;
  await graph.dispose();
  graph = new CodeGraph(workspace, pool, table, cacheFile);
  started = performance.now();
  await graph.ensureBuilt();
  const restartMs = performance.now() - started;
  const restart = graph.lastBuild!;
  const queries = new GraphQueries(graph);
  const counts = graph.counts();
  const tagged = workspace.files().filter((file) => graph.file(file) !== undefined);
  const cFiles = tagged.filter((file) => /\.(c|h)$/.test(file));

  // cscope over the C files (the kernel's own `make cscope` does the same).
  let cscopeMs: number | undefined;
  if (cFiles.length > 0 && !process.env.FATHOM_BENCH_NO_BASELINE && spawnSync('cscope', ['-V']).status === 0) {
    fs.writeFileSync(path.join(cacheDir, 'cscope.files'), cFiles.map((file) => path.join(root, file)).join('\n') + '\n');
    started = performance.now();
    const built = spawnSync('cscope', ['-b', '-q', '-k', '-i', 'cscope.files'], { cwd: cacheDir, stdio: ['ignore', 'ignore', 'pipe'] });
    cscopeMs = built.status === 0 ? performance.now() - started : undefined;
  }

  console.log(`\n## ${name}: ${tagged.length} tagged files (of ${workspace.files().length}; files up to ${(maxFileBytes / 1048576).toFixed(0)} MiB)`);
  console.log('| build | ms | ratio (other / fathom) |');
  console.log('|---|---|---|');
  console.log(`| fathom graph (2 workers${fromCache ? ', from the cache of an earlier run' : ''}) | ${buildMs.toFixed(0)} | |`);
  console.log(
    `| fathom graph: restart from graph.bin (${(cacheBytes / 1048576).toFixed(0)} MiB, saved in ${saveMs.toFixed(0)} ms holding the event loop ≤ ${longestPause.toFixed(0)} ms at a time; ${restart.loaded} parts loaded, ${restart.tagged} re-tagged) | ${restartMs.toFixed(0)} | ${(buildMs / restartMs).toFixed(1)} (cold build / restart) |`,
  );
  if (cscopeMs !== undefined)
    console.log(`| cscope -b -q -k (${cFiles.length} C files, 1 thread) | ${cscopeMs.toFixed(0)} | ${(cscopeMs / buildMs).toFixed(2)} |`);
  console.log(
    `definitions ${counts.definitions}, references ${counts.references}, import bindings ${counts.imports}, distinct names ${counts.names}, packed arrays ${(counts.packedBytes / 1048576).toFixed(0)} MiB; peak RSS after the build ${buildRssMb.toFixed(0)} MB`,
  );

  // Every reference resolved once: the graph's edges, by confidence.
  started = performance.now();
  const resolvable = process.env.FATHOM_BENCH_NO_EDGES ? [] : tagged;
  const edges: Record<Confidence | 'none', number> = { exact: 0, unique: 0, 'name-only': 0, none: 0 };
  let referencesResolved = 0;
  for (const file of resolvable) {
    const part = graph.file(file)!;
    for (let at = 0; at < part.referenceNames.length; at++) {
      const targets = queries.resolver.resolve(part, at);
      referencesResolved++;
      if (targets.length === 0) edges.none++;
      for (const target of targets) edges[target.confidence]++;
    }
  }
  const resolveMs = performance.now() - started;
  const edgeTotal = edges.exact + edges.unique + edges['name-only'];
  console.log(
    `\nedges: ${edgeTotal} (exact ${edges.exact}, unique ${edges.unique}, name-only ${edges['name-only']}); ${edges.none} of ${referencesResolved} references resolve to nothing in the workspace; resolving all took ${resolveMs.toFixed(0)} ms`,
  );

  // Queries about one widely used symbol.
  const roots: Place[] = queries.definitionsNamed(symbol);
  const report: Record<string, unknown> = {};
  console.log(`\n| query (${symbol}: ${roots.length} definitions) | fathom ms (median of 5) | results | baseline | baseline ms | ratio |`);
  console.log('|---|---|---|---|---|---|');
  const references = await timed(async () => new Set((await queries.referencesTo(roots)).map((site) => `${site.path}:${site.line}:${site.character}`)));
  const rg = await timed(
    () =>
      spawnSync('rg', ['-w', '-c', '--no-messages', symbol, root], { encoding: 'utf8', maxBuffer: 1 << 28 })
        .stdout.split('\n')
        .filter(Boolean)
        .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(':') + 1)), 0),
    3,
  );
  console.log(
    `| references | ${references.ms.toFixed(1)} | ${references.value.size} | rg -w (lines) | ${rg.ms.toFixed(0)} | ${(rg.ms / references.ms).toFixed(1)} |`,
  );
  report.references = { ms: references.ms, results: references.value.size, rgMs: rg.ms, rgLines: rg.value };
  const callers = await timed(async () => (await queries.callers(roots, 1, 100_000)).symbols);
  let cscopeQuery: { ms: number; value: number } | undefined;
  if (cscopeMs !== undefined || fs.existsSync(path.join(cacheDir, 'cscope.out')))
    cscopeQuery = await timed(
      () =>
        spawnSync('cscope', ['-d', '-L', '-3', symbol], { cwd: cacheDir, encoding: 'utf8', maxBuffer: 1 << 28 })
          .stdout.split('\n')
          .filter(Boolean).length,
      3,
    );
  console.log(
    `| callers (depth 1) | ${callers.ms.toFixed(1)} | ${callers.value.length} | ${cscopeQuery ? 'cscope -L -3 (call lines)' : '-'} | ${cscopeQuery ? cscopeQuery.ms.toFixed(0) : '-'} | ${cscopeQuery ? (cscopeQuery.ms / callers.ms).toFixed(1) : '-'} |`,
  );
  report.callers = { ms: callers.ms, results: callers.value.length, cscopeMs: cscopeQuery?.ms, cscopeLines: cscopeQuery?.value };
  // As `fathom impact SYMBOL` asks by default: depth 3, at most 1,000 symbols (truncated beyond).
  const asked = await timed(() => queries.impact(roots, 3, 1000));
  console.log(
    `| impact as asked by default (depth 3, limit 1,000) | ${asked.ms.toFixed(1)} | ${asked.value.symbols.length} symbols${asked.value.truncated ? ' (truncated)' : ''} | | | |`,
  );
  report.impactDefault = { ms: asked.ms, symbols: asked.value.symbols.length, truncated: asked.value.truncated };
  for (const depth of [1, 2, 3]) {
    const impact = await timed(() => queries.impact(roots, depth, 100_000), depth === 3 ? 3 : 5);
    const files = new Set(impact.value.symbols.map((entry) => entry.path)).size;
    console.log(
      `| impact depth ${depth}, no limit | ${impact.ms.toFixed(1)} | ${impact.value.symbols.length} symbols, ${files} files${impact.value.truncated ? ' (truncated)' : ''} | | | |`,
    );
    report[`impact${depth}`] = { ms: impact.ms, symbols: impact.value.symbols.length, files };
  }

  // A change on disk → the graph answers with it.
  // The largest ordinary source file under 64 KB (a typical edit, not a generated bundle).
  const sized = tagged
    .filter((file) => /\.(c|ts|js|py)$/.test(file) && !file.endsWith('.d.ts'))
    .map((file) => ({ file, size: fs.statSync(path.join(root, file)).size }))
    .filter((entry) => entry.size <= 65_536);
  const target = sized.sort((a, b) => b.size - a.size)[0]?.file ?? tagged[0]!;
  const absolute = path.join(root, target);
  const original = fs.readFileSync(absolute);
  const marker = `fathomBenchMarker${Date.now()}`;
  const addition = target.endsWith('.c')
    ? `\nint ${marker}(void) { return 0; }\n`
    : target.endsWith('.py')
      ? `\ndef ${marker}():\n    return 0\n`
      : `\nexport function ${marker}() {}\n`;
  started = performance.now();
  fs.writeFileSync(absolute, Buffer.concat([original, Buffer.from(addition)]));
  while (queries.definitionsNamed(marker).length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  const updateMs = performance.now() - started;
  const retag = [] as number[];
  for (let run = 0; run < 5; run++) {
    const t = performance.now();
    await graph.refresh(target);
    retag.push(performance.now() - t);
  }
  fs.writeFileSync(absolute, original);
  console.log(
    `\nfile change → graph answers with it: ${updateMs.toFixed(1)} ms, watcher included (${target}, ${original.length} bytes); re-tag and replace alone: ${median(retag).toFixed(1)} ms (median of 5)`,
  );

  await graph.dispose();
  await workspace.close();
  pool.close();
  hashPool.close();
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  console.log(`peak RSS ${peakRssMb.toFixed(0)} MB`);
  console.log(
    `\nBENCH_JSON ${JSON.stringify({ corpus: name, symbol, files: tagged.length, buildMs, fromCache, saveMs, cacheBytes, restartMs, restart, longestSavePauseMs: longestPause, cscopeMs, counts, edges, resolveMs, queries: report, updateMs, retagMs: median(retag), buildRssMb, peakRssMb })}`,
  );
}

await main();
