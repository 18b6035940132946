// Benchmark of the chunk ranking's own work on the daemon's thread during a cold build: interning
// a kernel's worth of terms and appending their postings (ChunkRanking's add), then saving
// chunks.bin. The terms are synthetic, shaped like the Linux kernel's (78k files, ~320k chunks of
// ~136 distinct terms each, ~4 M distinct terms of which most occur once, ~43 M postings): a worker
// makes each file's FileTerms and posts them, so they arrive structured-cloned as the syntax pass's
// do. Measured in a fresh process per run: the daemon thread's CPU (from /proc), the process's CPU
// (V8's helper threads included), GC pauses on the thread, wall, peak RSS. Given another build's
// dist folder, runs it and this build alternately.
//
// Usage: node dist/bench/ranking-add-bench.js [ROUNDS] [OTHER_DIST]   (ROUNDS default 2)
//        FATHOM_RANKING_BENCH_FILES=N scales the corpus (default 78,000 files).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

const fileCount = Number(process.env.FATHOM_RANKING_BENCH_FILES ?? 78_000);
const commonVocabulary = 200_000;
const commonPerChunk = 165;
const rarePerChunk = 12;

interface Request {
  id: number;
  file: number;
}

function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
}

/** The generating worker: one file's FileTerms per request, the same for a file in every run; packed (term-table.ts) when the build packs them. */
async function generate(dist: string): Promise<void> {
  const packer = path.join(dist, 'src/index/ranking/term-table.js');
  const pack = fs.existsSync(packer) ? ((await import(packer)) as typeof import('../src/index/ranking/term-table.js')).packTerms : (terms: string[]) => terms;
  const cdf = new Float64Array(commonVocabulary);
  let sum = 0;
  for (let rank = 0; rank < commonVocabulary; rank++) cdf[rank] = sum += 1 / Math.pow(rank + 1, 1.05);
  const zipf = (next: () => number): number => {
    const target = next() * sum;
    let low = 0;
    let high = commonVocabulary - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (cdf[middle]! < target) low = middle + 1;
      else high = middle;
    }
    return low;
  };
  parentPort!.on('message', ({ id, file }: Request) => {
    const next = random(file * 2654435761 + 1);
    const terms: string[] = [];
    const index = new Map<string, number>();
    const indexOf = (term: string): number => {
      let at = index.get(term);
      if (at === undefined) index.set(term, (at = terms.push(term) - 1));
      return at;
    };
    const chunkCount = 1 + Math.floor(next() * 7.2);
    const chunks = [];
    let line = 0;
    for (let chunk = 0; chunk < chunkCount; chunk++) {
      const counts = new Map<number, number>();
      for (let draw = 0; draw < commonPerChunk; draw++) {
        const term = indexOf(`w${zipf(next).toString(36)}`);
        counts.set(term, (counts.get(term) ?? 0) + 1 + (next() < 0.2 ? 64 : 0));
      }
      for (let rare = 0; rare < rarePerChunk; rare++) counts.set(indexOf(`r${(file * 64 + chunk * rarePerChunk + rare).toString(36)}q${rare}`), 1);
      const ids = Uint32Array.from(counts.keys());
      chunks.push({
        startLine: line,
        endLine: (line += 40),
        startByte: line * 40,
        endByte: line * 40 + 1600,
        terms: ids,
        counts: Uint32Array.from(ids, (term) => counts.get(term)!),
        lengths: [6, 4, 20, 12, 150],
      });
    }
    parentPort!.postMessage({ id, file: { language: 'c', byteLength: 12_000, terms: pack(terms), chunks } });
  });
}

function threadCpuSeconds(): number {
  const fields = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function peakRssMb(): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

/** One run, in this process: the build and the save of the ranking in `dist`. */
async function run(dist: string): Promise<void> {
  const { ChunkRanking } = (await import(path.join(dist, 'src/index/ranking/chunk-ranking.js'))) as typeof import('../src/index/ranking/chunk-ranking.js');
  const worker = new Worker(fileURLToPath(import.meta.url), { workerData: { generate: dist } });
  const waiting = new Map<number, (terms: unknown) => void>();
  worker.on('message', ({ id, file }: { id: number; file: unknown }) => {
    waiting.get(id)!(file);
    waiting.delete(id);
  });
  let nextId = 0;
  const files = Array.from({ length: fileCount }, (_, file) => `d${file % 300}/f${file}.c`);
  const fileIndex = new Map(files.map((file, index) => [file, index]));
  const source = {
    root: '/bench',
    files: () => files,
    hashOf: (file: string) => (fileIndex.has(file) ? '00'.repeat(32) : undefined),
    onChanges: () => ({ dispose() {} }),
  };
  const pool = {
    terms: ({ path: file }: { path: string }) =>
      new Promise<never>((resolve) => {
        const id = nextId++;
        waiting.set(id, resolve as (terms: unknown) => void);
        worker.postMessage({ id, file: fileIndex.get(file)! } satisfies Request);
      }),
  };
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-rank-add-'));
  let gcMs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMs += entry.duration;
  });
  observer.observe({ entryTypes: ['gc'] });
  const ranking = new ChunkRanking(source, pool as never, path.join(folder, 'chunks.bin'), 3_600_000);
  const cpu0 = process.cpuUsage();
  const thread0 = threadCpuSeconds();
  const started = performance.now();
  await ranking.ensureBuilt();
  const buildMs = performance.now() - started;
  const buildThread = threadCpuSeconds() - thread0;
  const buildGcMs = gcMs;
  const saveStarted = performance.now();
  const saveThread0 = threadCpuSeconds();
  await ranking.save();
  const saveMs = performance.now() - saveStarted;
  const saveThread = threadCpuSeconds() - saveThread0;
  const cpu = process.cpuUsage(cpu0);
  const counts = ranking.counts();
  const hits = ranking.search({ terms: ['w0', 'w1f', 'r1q1'], limit: 5 }).length;
  observer.disconnect();
  await ranking.dispose();
  await worker.terminate();
  fs.rmSync(folder, { recursive: true, force: true });
  process.stdout.write(
    `${JSON.stringify({ ...counts, hits, buildMs, buildThreadS: buildThread, buildGcMs, saveMs, saveThreadS: saveThread, processCpuS: (cpu.user + cpu.system) / 1e6, peakRssMb: peakRssMb() })}\n`,
  );
}

if (!isMainThread) await generate((workerData as { generate: string }).generate);
else if (process.argv[2] === '--one') await run(path.resolve(process.argv[3]!));
else {
  const rounds = Number(process.argv[2] ?? 2);
  const other = process.argv[3];
  const own = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
  const builds = other ? { this: own, other: path.resolve(other) } : { this: own };
  const results: Record<string, unknown[]> = {};
  for (let round = 0; round < rounds; round++)
    for (const [name, dist] of Object.entries(builds)) {
      const line = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--one', dist], { encoding: 'utf8', maxBuffer: 1 << 24 })
        .trim()
        .split('\n')
        .at(-1)!;
      (results[name] ??= []).push(JSON.parse(line));
      process.stdout.write(`round ${round + 1} ${name}: ${line}\n`);
    }
  process.stdout.write(`BENCH_JSON ${JSON.stringify({ files: fileCount, results })}\n`);
}
