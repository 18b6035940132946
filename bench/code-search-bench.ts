// The chunk ranking on a real corpus: build (every file chunked and tokenised on 2 workers), size,
// save and restart from chunks.bin, query latency p50/p95 over questions in words against ripgrep
// searching the same words (what a user would otherwise run: `rg -i -F -c -e w1 -e w2 …`), and a
// changed file: from the write to its new chunks answering (through the watcher and the file
// set), and the re-chunking alone. Prints a table and one `BENCH_JSON` line.
//
// Usage: node dist/bench/code-search-bench.js [django|linux|typescript|PATH]
//   (corpora from bench/corpora.sh; FATHOM_BENCH_CACHE_DIR keeps chunks.bin between runs)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ChunkRanking } from '../src/index/ranking/chunk-ranking.js';
import { ChunkTermsPool } from '../src/index/ranking/chunk-terms-pool.js';
import { isStopWord, queryTerms } from '../src/index/ranking/code-tokens.js';
import { HashPool } from '../src/workspace/hash-pool.js';
import { Workspace } from '../src/workspace/workspace.js';

const questions: Record<string, string[]> = {
  django: [
    'where is the password hashed before it is stored',
    'how are database migrations applied in order',
    'what checks the csrf token of a form post',
    'how is a template variable escaped for html',
    'where are session cookies signed',
    'how does the paginator count pages',
    'what sends an email with attachments',
    'where is the cache key made from a url',
    'how are uploaded files written to a temporary folder',
    'what decides which url pattern matches a request path',
    'how is a queryset filtered by a related field',
    'where are translations loaded for the active language',
    'how does the admin build the change list',
    'what validates an email address field',
    'how are static files collected into one folder',
    'where is the time zone of a datetime converted',
    'how does a signal call its receivers',
    'what middleware adds security headers to responses',
    'how is a slug made from a title',
    'where are json responses serialized',
  ],
  linux: [
    'how is memory allocated for a new process',
    'where is a tcp connection closed after a timeout',
    'what handles a page fault in user space',
    'how does the scheduler pick the next task to run',
    'where are usb devices enumerated when plugged in',
    'how is a file opened by path name',
    'what copies data from user memory safely',
    'how are interrupts routed to a cpu',
    'where is the ext4 journal committed',
    'how does the watchdog reset a hung machine',
    'what frees slab objects back to the allocator',
    'how are network packets checksummed in hardware',
    'where is the random number pool mixed',
    'how does a mutex wait for its owner to release it',
    'what parses the kernel command line',
    'how is a block device request queued',
    'where is cpu frequency scaled down when idle',
    'how are signals delivered to a thread',
    'what maps pci memory bars',
    'how does the oom killer choose a victim',
  ],
  typescript: [
    'how are overloads of a function checked against a call',
    'where is a union type narrowed by a type guard',
    'what reports an unused variable',
    'how are declaration files emitted',
    'where is the module resolution of a relative import',
    'how does the scanner read a template literal',
    'what infers the type of an array literal',
    'how are decorators transformed for older targets',
    'where is the tsconfig file parsed',
    'how does the checker compare two object types',
  ],
};

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
}

async function main(): Promise<void> {
  const benchDir = process.env.FATHOM_BENCH_DIR ?? '/tmp/fathom-bench';
  const name = process.argv[2] ?? 'django';
  const root = fs.realpathSync(questions[name] ? path.join(benchDir, name) : name);
  const asked = questions[name] ?? questions.django!;
  const cacheDir = process.env.FATHOM_BENCH_CACHE_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-search-bench-'));
  fs.mkdirSync(cacheDir, { recursive: true });
  const hashPool = new HashPool();
  const workspace = new Workspace({ root, cacheDir: path.join(cacheDir, 'ws'), maxFileBytes: 1 << 20, reconcileIntervalMs: 0, pool: hashPool });
  await workspace.whenReady();
  const pool = new ChunkTermsPool(2);
  const cacheFile = path.join(cacheDir, 'chunks.bin');
  const fresh = !fs.existsSync(cacheFile);

  // Build (or load, when a cache is kept).
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 200);
  const started = performance.now();
  const ranking = new ChunkRanking(workspace, pool, cacheFile);
  await ranking.ensureBuilt();
  const buildMs = performance.now() - started;
  clearInterval(sampler);
  const counts = ranking.counts();
  const heldRss = process.memoryUsage().rss;
  console.log(
    `${name}: ${counts.files} files, ${counts.chunks} chunks, ${counts.terms} terms, ${counts.postings} postings (${mib(ranking.memoryBytes())} of arrays); ${fresh ? 'build' : 'load'} ${(buildMs / 1000).toFixed(1)} s (${ranking.lastBuild?.loaded} from the cache, ${ranking.lastBuild?.chunked} chunked), peak RSS ${mib(peak)}, held ${mib(heldRss)}`,
  );
  const saveStarted = performance.now();
  await ranking.save();
  const saveMs = performance.now() - saveStarted;
  const cacheBytes = fs.statSync(cacheFile).size;
  await ranking.dispose();

  // Restart: a new ranking from chunks.bin.
  const restartStarted = performance.now();
  const restarted = new ChunkRanking(workspace, pool, cacheFile);
  await restarted.ensureBuilt();
  const restartMs = performance.now() - restartStarted;
  console.log(
    `save ${(saveMs / 1000).toFixed(1)} s (${mib(cacheBytes)}), restart ${(restartMs / 1000).toFixed(2)} s (${restarted.lastBuild?.loaded} files from the cache, ${restarted.lastBuild?.chunked} chunked)`,
  );

  // Queries: the ranking vs ripgrep for the same words (warm page cache for both: one untimed round first).
  const ours: number[] = [];
  const theirs: number[] = [];
  for (let round = 0; round < 2; round++) {
    for (const question of asked) {
      const t0 = performance.now();
      restarted.search({ terms: queryTerms(question), limit: 20 });
      const t1 = performance.now();
      const words = [...new Set(question.toLowerCase().match(/[a-z0-9_]+/g) ?? [])].filter((word) => word.length >= 2 && !isStopWord(word));
      try {
        execFileSync('rg', ['-i', '-F', '-c', ...words.flatMap((word) => ['-e', word]), '.'], {
          cwd: root,
          maxBuffer: 1 << 28,
          stdio: ['ignore', 'pipe', 'ignore'],
        });
      } catch {
        // exit 1: no match
      }
      const t2 = performance.now();
      if (round === 1) {
        ours.push(t1 - t0);
        theirs.push(t2 - t1);
      }
    }
  }
  ours.sort((a, b) => a - b);
  theirs.sort((a, b) => a - b);
  const query = { p50: percentile(ours, 50), p95: percentile(ours, 95), rgP50: percentile(theirs, 50), rgP95: percentile(theirs, 95) };

  // One file changed: from the write to its new chunks answering, and the re-chunking alone.
  const target =
    workspace
      .files()
      .filter((file) => /\.(py|c|ts)$/.test(file))
      .sort((a, b) => fs.statSync(path.join(root, b)).size - fs.statSync(path.join(root, a)).size)[200] ?? workspace.files()[0]!;
  const absolute = path.join(root, target);
  const original = fs.readFileSync(absolute);
  const marker = `zyxwvutsrq${Date.now().toString(36)}`;
  const changes: number[] = [];
  const refreshes: number[] = [];
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      const word = `${marker}${attempt}`;
      const writeStarted = performance.now();
      fs.writeFileSync(absolute, Buffer.concat([original, Buffer.from(`\n// ${word} appended\n`)]));
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        await restarted.settle();
        if (restarted.search({ terms: [word], limit: 1 }).length > 0) break;
        if (performance.now() - writeStarted > 30_000) throw new Error('the change never arrived');
      }
      changes.push(performance.now() - writeStarted);
      const refreshStarted = performance.now();
      await restarted.refresh(target);
      refreshes.push(performance.now() - refreshStarted);
    }
  } finally {
    fs.writeFileSync(absolute, original);
  }
  changes.sort((a, b) => a - b);
  refreshes.sort((a, b) => a - b);
  console.log(
    `| corpus | files | chunks | build | restart | query p50 / p95 | rg same words p50 / p95 | ratio (p50) | change → searchable (median) | re-chunk one file |`,
  );
  console.log(`|---|---|---|---|---|---|---|---|---|---|`);
  console.log(
    `| ${name} | ${counts.files} | ${counts.chunks} | ${(buildMs / 1000).toFixed(1)} s | ${(restartMs / 1000).toFixed(2)} s | ${query.p50.toFixed(1)} / ${query.p95.toFixed(1)} ms | ${query.rgP50.toFixed(0)} / ${query.rgP95.toFixed(0)} ms | ${(query.rgP50 / Math.max(query.p50, 0.001)).toFixed(0)}× | ${percentile(changes, 50).toFixed(0)} ms (${target}, ${original.length} B) | ${percentile(refreshes, 50).toFixed(0)} ms |`,
  );
  console.log(
    `BENCH_JSON ${JSON.stringify({ bench: 'code-search', corpus: name, counts, buildMs, fresh, peakRss: peak, heldRss, saveMs, cacheBytes, restartMs, query, changeMs: changes, refreshMs: refreshes, target })}`,
  );
  await restarted.dispose();
  pool.close();
  await workspace.close();
  hashPool.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
