// Benchmark of the regex index (src/index/lexical) against ripgrep on the same tree, in one run:
// index build time, peak RSS and index size; then each query of the table, median of 5 warm runs
// on both sides, with identical matching-line counts asserted (ripgrep is told to skip exactly
// what Fathom's file set skips); then the time from a buffer change to the change being found.
// Prints a table and one `BENCH_JSON` line; ratios are rg / fathom (above 1: Fathom is faster).
//
// Usage: node dist/bench/grep-bench.js [corpus]   (default $FATHOM_BENCH_DIR/linux; bench/corpora.sh)
//   FATHOM_BENCH_ONLY=text runs only the queries whose label contains it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LexicalIndex, type GrepRequest } from '../src/index/lexical/lexical-index.js';
import { HashPool } from '../src/workspace/hash-pool.js';
import { BufferOverlay } from '../src/workspace/overlay.js';
import { Workspace } from '../src/workspace/workspace.js';

const runs = 5;

interface Query {
  label: string;
  request: GrepRequest;
  rgFlags: string[];
  kind: 'rare' | 'common' | 'selective' | 'no literal';
}

const queries: Query[] = [
  { label: '-F spin_lock_irqsave', request: { pattern: 'spin_lock_irqsave', fixedStrings: true }, rgFlags: ['-F'], kind: 'common' },
  { label: '-F EXPORT_SYMBOL_GPL', request: { pattern: 'EXPORT_SYMBOL_GPL', fixedStrings: true }, rgFlags: ['-F'], kind: 'common' },
  { label: '-F ksys_sync_helper', request: { pattern: 'ksys_sync_helper', fixedStrings: true }, rgFlags: ['-F'], kind: 'rare' },
  { label: '-F kmem_cache_alloc_node_trace', request: { pattern: 'kmem_cache_alloc_node_trace', fixedStrings: true }, rgFlags: ['-F'], kind: 'rare' },
  { label: '-w kfree', request: { pattern: 'kfree', wordRegexp: true }, rgFlags: ['-w'], kind: 'common' },
  { label: 'struct \\w+_ops \\{', request: { pattern: 'struct \\w+_ops \\{' }, rgFlags: [], kind: 'selective' },
  { label: 'mutex_(lock|unlock)\\(', request: { pattern: 'mutex_(lock|unlock)\\(' }, rgFlags: [], kind: 'common' },
  { label: '\\b(kmalloc|kzalloc|kcalloc)\\(', request: { pattern: '\\b(kmalloc|kzalloc|kcalloc)\\(' }, rgFlags: [], kind: 'common' },
  { label: "-i 'copy_from_user'", request: { pattern: 'copy_from_user', ignoreCase: true }, rgFlags: ['-i'], kind: 'common' },
  { label: '\\w+\\s*=\\s*\\d{5,} (no literal)', request: { pattern: '\\w+\\s*=\\s*\\d{5,}' }, rgFlags: [], kind: 'no literal' },
  { label: "-g '*.h' -F 'static inline'", request: { pattern: 'static inline', fixedStrings: true, globs: ['*.h'] }, rgFlags: ['-F', '-g', '*.h'], kind: 'common' },
  { label: "-F 'TODO'", request: { pattern: 'TODO', fixedStrings: true }, rgFlags: ['-F'], kind: 'common' },
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function rgCount(root: string, query: Query, excludes: string[]): { ms: number; lines: number } {
  const args = ['-n', '--no-heading', '--no-config', '--hidden', '--no-ignore', '--no-messages', '-g', '!.git', ...excludes.flatMap((file) => ['-g', `!/${file}`]), ...query.rgFlags, '-e', query.request.pattern, '.'];
  const started = performance.now();
  const result = spawnSync('rg', args, { cwd: root, maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] });
  const ms = performance.now() - started;
  const output = result.stdout.toString('utf8');
  return { ms, lines: output === '' ? 0 : output.split('\n').length - 1 };
}

async function main(): Promise<void> {
  const benchDir = process.env.FATHOM_BENCH_DIR ?? '/tmp/fathom-bench';
  const root = fs.realpathSync(process.argv[2] ?? path.join(benchDir, 'linux'));
  const pool = new HashPool();
  const overlay = new BufferOverlay();
  const workspace = new Workspace({ root, cacheDir: fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-grep-bench-')), maxFileBytes: 1 << 20, reconcileIntervalMs: 0, pool });
  await workspace.whenReady();
  const status = workspace.status();
  const cacheFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-grep-bench-'));
  const built = new LexicalIndex(workspace, overlay, cacheFolder);
  const rssBefore = process.memoryUsage().rss;
  const buildStarted = performance.now();
  await built.ensureBuilt();
  const buildMs = performance.now() - buildStarted;
  built.dispose();
  // A restart: the index loaded from its cache, checked against the file set's hashes.
  const index = new LexicalIndex(workspace, overlay, cacheFolder);
  const loadStarted = performance.now();
  await index.ensureBuilt();
  const loadMs = performance.now() - loadStarted;
  (globalThis as { gc?: () => void }).gc?.();
  const facts = index.facts();
  const rssAfter = process.memoryUsage().rss;
  console.log(`corpus ${root}: ${status.files} files, ${Math.round(status.bytes / 2 ** 20)} MiB; ${os.availableParallelism()} CPUs, Node ${process.version}`);
  const mib = (bytes: number): number => Math.round(bytes / 2 ** 20);
  console.log(`index load from cache ${Math.round(loadMs)} ms (loaded: ${facts.loadedFromCache}); ${facts.files} files in ${facts.pieces} pieces`);
  console.log(`on disk: index ${mib(facts.indexBytes)} MiB (${(facts.indexBytes / status.bytes).toFixed(2)}× corpus), content store ${mib(facts.contentBytes)} MiB (${(facts.contentBytes / status.bytes).toFixed(2)}×); in memory ${mib(facts.memoryBytes)} MiB`);
  console.log(`index build ${Math.round(buildMs)} ms; this process's RSS ${mib(rssBefore)} → ${mib(rssAfter)} MiB, peak ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`);

  // ripgrep skips exactly what the file set skips (secrets, binaries, large files, links…).
  const excludes: string[] = [];
  const all = new Set(workspace.files());
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() && !entry.isSymbolicLink()) continue;
    const relative = path.relative(root, path.join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name));
    if (!all.has(relative) && !relative.startsWith('.git/')) excludes.push(relative);
  }

  const rows: { label: string; kind: string; fathomMs: number; rgMs: number; lines: number; rgLines: number; candidates: number }[] = [];
  const only = process.env.FATHOM_BENCH_ONLY;
  for (const query of queries.filter((candidate) => !only || candidate.label.includes(only))) {
    const ours: number[] = [];
    let lines = 0;
    let candidates = 0;
    for (let run = 0; run < runs; run++) {
      const result = await index.search({ ...query.request, maxResults: 10_000_000 });
      ours.push(result.stats.elapsedMs);
      lines = result.matches.length;
      candidates = result.stats.candidates;
    }
    const theirs: number[] = [];
    let rgLines = 0;
    for (let run = 0; run < runs; run++) {
      const rg = rgCount(root, query, excludes);
      theirs.push(rg.ms);
      rgLines = rg.lines;
    }
    rows.push({ label: query.label, kind: query.kind, fathomMs: median(ours), rgMs: median(theirs), lines, rgLines, candidates });
  }
  console.log(`\n${'query'.padEnd(36)} ${'kind'.padEnd(11)} ${'fathom ms'.padStart(10)} ${'rg ms'.padStart(8)} ${'rg/fathom'.padStart(10)} ${'lines'.padStart(7)} ${'rg lines'.padStart(8)} ${'candidates'.padStart(10)}`);
  for (const row of rows) {
    const same = row.lines === row.rgLines ? '' : '  MISMATCH';
    console.log(`${row.label.padEnd(36)} ${row.kind.padEnd(11)} ${row.fathomMs.toFixed(1).padStart(10)} ${row.rgMs.toFixed(0).padStart(8)} ${(row.rgMs / row.fathomMs).toFixed(1).padStart(10)} ${String(row.lines).padStart(7)} ${String(row.rgLines).padStart(8)} ${String(row.candidates).padStart(10)}${same}`);
  }

  // A buffer change, searchable how soon.
  const file = workspace.files().find((candidate) => candidate.endsWith('.c')) ?? workspace.files()[0]!;
  const absolute = path.join(root, file);
  overlay.open({ path: absolute, languageId: 'c', version: 1, text: fs.readFileSync(absolute, 'utf8') });
  const latencies: number[] = [];
  for (let round = 0; round < 10; round++) {
    const token = `fathom_bench_token_${round}_${process.pid}`;
    const started = performance.now();
    overlay.change(absolute, round + 2, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: `${token}\n` }]);
    const result = await index.search({ pattern: token, fixedStrings: true });
    if (result.matches.length !== 1) throw new Error('the buffer change was not found');
    latencies.push(performance.now() - started);
  }
  console.log(`\nbuffer change → found: median ${median(latencies).toFixed(2)} ms, max ${Math.max(...latencies).toFixed(2)} ms`);
  console.log(`BENCH_JSON ${JSON.stringify({ corpus: root, files: status.files, bytes: status.bytes, buildMs: Math.round(buildMs), loadMs: Math.round(loadMs), indexBytes: facts.indexBytes, contentBytes: facts.contentBytes, memoryBytes: facts.memoryBytes, pieces: facts.pieces, rssMB: Math.round(rssAfter / 2 ** 20), peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024), queries: rows, bufferChangeMs: median(latencies) })}`);
  index.dispose();
  await workspace.close();
  pool.close();
}

await main();
