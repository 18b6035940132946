// Benchmark of the workspace symbol index (src/index/graph/symbol-index.ts) against universal-ctags
// on the same files, in one run: build time (tags.scm on 2 syntax workers vs `ctags -L files`),
// definitions found, peak RSS; query latency (median of 5) for exact, prefix, initials and
// substring queries vs `readtags` (exact and prefix lookups in ctags' sorted file, process start
// included); the time from a file change on disk to its new definition being found.
// Prints a table and one `BENCH_JSON` line.
//
// Usage: node dist/bench/symbols-bench.js [linux|typescript|PATH]   (default typescript; bench/corpora.sh)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CodeGraph } from '../src/index/graph/code-graph.js';
import { ChunkPool } from '../src/index/syntax/chunk-pool.js';
import { LanguageTable } from '../src/index/syntax/languages.js';
import { HashPool } from '../src/workspace/hash-pool.js';
import { Workspace } from '../src/workspace/workspace.js';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Lines of a tags file that are tags (not `!_` headers), read in pieces (the kernel's is over 512 MB). */
function countTagLines(file: string): number {
  const descriptor = fs.openSync(file, 'r');
  const buffer = Buffer.alloc(1 << 20);
  let count = 0;
  let atLineStart = true;
  let header = false;
  try {
    for (let read = fs.readSync(descriptor, buffer); read > 0; read = fs.readSync(descriptor, buffer)) {
      for (let index = 0; index < read; index++) {
        const byte = buffer[index]!;
        if (atLineStart) header = byte === 0x21; // '!'
        atLineStart = byte === 0x0a;
        if (atLineStart && !header) count += 1;
      }
    }
  } finally {
    fs.closeSync(descriptor);
  }
  return count;
}

async function main(): Promise<void> {
  const benchDir = process.env.FATHOM_BENCH_DIR ?? '/tmp/fathom-bench';
  const name = process.argv[2] ?? 'typescript';
  const root = fs.realpathSync(['linux', 'typescript', 'django'].includes(name) ? path.join(benchDir, name) : name);
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-symbols-bench-'));
  const hashPool = new HashPool();
  const workspace = new Workspace({ root, cacheDir, maxFileBytes: 4 * 1024 * 1024, reconcileIntervalMs: 0, pool: hashPool });
  await workspace.whenReady();
  const table = new LanguageTable();
  const pool = new ChunkPool(2);
  const index = new CodeGraph(workspace, pool, table);

  let started = performance.now();
  await index.ensureBuilt();
  const buildMs = performance.now() - started;
  const definitions = index.definitionCount();
  const tagged = workspace.files().filter((file) => {
    const spec = table.detect(file);
    return spec !== undefined && spec.disabled === undefined && spec.tagsQueryPath !== undefined;
  });

  // universal-ctags over exactly the same files.
  const listFile = path.join(cacheDir, 'files.txt');
  const tagsFile = path.join(cacheDir, 'tags');
  fs.writeFileSync(listFile, tagged.join('\n') + '\n');
  started = performance.now();
  const ctags = spawnSync('ctags', ['-L', listFile, '-f', tagsFile, '--sort=yes'], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  const ctagsMs = performance.now() - started;
  const ctagsCount = ctags.status === 0 ? countTagLines(tagsFile) : 0;

  console.log(`\n## ${name}: ${tagged.length} files with tag queries (of ${workspace.files().length})`);
  console.log('| build | ms | definitions | ratio (ctags / fathom) |');
  console.log('|---|---|---|---|');
  console.log(`| fathom symbols (2 workers) | ${buildMs.toFixed(0)} | ${definitions} | ${(ctagsMs / buildMs).toFixed(2)} |`);
  console.log(`| universal-ctags -L (1 thread) | ${ctagsMs.toFixed(0)} | ${ctagsCount} | |`);
  console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);

  const queries: Array<{ label: string; query: string; readtags?: string[] }> =
    name === 'linux'
      ? [
          { label: 'exact kmalloc', query: 'kmalloc', readtags: ['-t', tagsFile, 'kmalloc'] },
          { label: 'prefix spin_lock', query: 'spin_lock', readtags: ['-t', tagsFile, '-p', 'spin_lock'] },
          { label: 'initials ksh', query: 'ksh' },
          { label: 'substring alloc_pages', query: 'alloc_pages' },
        ]
      : [
          { label: 'exact createProgram', query: 'createProgram', readtags: ['-t', tagsFile, 'createProgram'] },
          { label: 'prefix getEffective', query: 'getEffective', readtags: ['-t', tagsFile, '-p', 'getEffective'] },
          { label: 'initials gDN', query: 'gDN' },
          { label: 'substring TypeChecker', query: 'TypeChecker' },
        ];
  console.log('\n| query | fathom ms (median of 5) | results | readtags ms | ratio |');
  console.log('|---|---|---|---|---|');
  const queryReport: Record<string, unknown> = {};
  for (const query of queries) {
    const times: number[] = [];
    let results = 0;
    for (let run = 0; run < 5; run++) {
      const t = performance.now();
      results = index.search({ query: query.query, limit: 100 }).matches.length;
      times.push(performance.now() - t);
    }
    let readtagsMs: number | undefined;
    if (query.readtags) {
      const readTimes: number[] = [];
      for (let run = 0; run < 5; run++) {
        const t = performance.now();
        spawnSync('readtags', query.readtags, { stdio: ['ignore', 'ignore', 'ignore'] });
        readTimes.push(performance.now() - t);
      }
      readtagsMs = median(readTimes);
    }
    const ms = median(times);
    console.log(
      `| ${query.label} | ${ms.toFixed(1)} | ${results} | ${readtagsMs === undefined ? '-' : readtagsMs.toFixed(1)} | ${readtagsMs === undefined ? '-' : (readtagsMs / ms).toFixed(2)} |`,
    );
    queryReport[query.label] = { ms, results, readtagsMs };
  }

  // A change on disk → its new definition is found.
  const target = tagged.find((file) => file.endsWith('.c') || file.endsWith('.ts')) ?? tagged[0]!;
  const absolute = path.join(root, target);
  const original = fs.readFileSync(absolute);
  const marker = `fathomBenchMarker${Date.now()}`;
  started = performance.now();
  fs.writeFileSync(
    absolute,
    Buffer.concat([original, Buffer.from(target.endsWith('.c') ? `\nint ${marker}(void) { return 0; }\n` : `\nexport function ${marker}() {}\n`)]),
  );
  while (index.search({ query: marker, limit: 1 }).matches.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  const updateMs = performance.now() - started;
  fs.writeFileSync(absolute, original);
  console.log(`\nfile change → new definition found: ${updateMs.toFixed(1)} ms (${target})`);

  await index.dispose();
  await workspace.close();
  pool.close();
  hashPool.close();
  console.log(
    `\nBENCH_JSON ${JSON.stringify({ corpus: name, files: tagged.length, buildMs, definitions, ctagsMs, ctagsCount, queries: queryReport, updateMs, peakRssMb: process.resourceUsage().maxRSS / 1024 })}`,
  );
}

await main();
