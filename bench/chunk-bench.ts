// Benchmark of the chunker (src/index/syntax) on real corpora, in one run:
// 1. Throughput: every file of the corpus through the chunk workers (2 threads on this machine),
//    side by side with the bare parse of the same files by the same grammar in the same workers
//    (the baseline the chunker's own cost is measured against): MB/s per core, chunks/s, the
//    overhead of chunking + headers over the parse (once counted in the workers, once with every
//    chunk copied to the main thread), peak RSS of the whole process (workers included).
// 2. Quality, against fixed 1,500-character windows on a sample of the files: the share of chunks
//    that parse alone without an ERROR (syntactically whole), and the share of functions that fit
//    the budget but are cut in two.
// Prints tables and one `BENCH_JSON` line.
//
// Usage: node dist/bench/chunk-bench.js [linux|typescript|PATH]...   (default: both; bench/corpora.sh)
//   FATHOM_BENCH_SAMPLE=N takes every Nth file for the quality table (default: about 500 files).
import fs from 'node:fs';
import path from 'node:path';
import { ChunkPool } from '../src/index/syntax/chunk-pool.js';
import { chunkFile } from '../src/index/syntax/chunk-file.js';
import { extractEntities } from '../src/index/syntax/entities.js';
import { GrammarSet, parseSource } from '../src/index/syntax/grammars.js';
import { SourceText } from '../src/index/syntax/source-text.js';

const budget = 1500;

interface Corpus {
  name: string;
  root: string;
  extensions: RegExp;
}

function corpusFiles(corpus: Corpus): string[] {
  const out: string[] = [];
  const walk = (folder: string): void => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      if (entry.name === '.git') continue;
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && corpus.extensions.test(entry.name)) out.push(full);
    }
  };
  walk(corpus.root);
  return out.sort();
}

function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}

async function throughput(
  pool: ChunkPool,
  files: string[],
  kind: 'parse' | 'count' | 'chunk',
): Promise<{ seconds: number; workerSeconds: number; bytes: number; chunks: number; oversized: number; failed: number }> {
  const started = performance.now();
  let workerMs = 0;
  let bytes = 0;
  let chunks = 0;
  let oversized = 0;
  let failed = 0;
  // Keep a bounded number of files in flight: the queue, not the caller, feeds the workers.
  let next = 0;
  const lanes = Array.from({ length: pool.size * 4 }, async () => {
    while (next < files.length) {
      const file = files[next++]!;
      try {
        if (kind === 'parse') {
          const parsed = await pool.parse({ path: file });
          bytes += parsed.byteLength;
          workerMs += parsed.elapsedMs;
        } else if (kind === 'count') {
          const counted = await pool.count({ path: file });
          bytes += counted.byteLength;
          workerMs += counted.elapsedMs;
          chunks += counted.chunks;
          oversized += counted.oversized;
        } else {
          const result = await pool.chunk({ path: file });
          bytes += result.byteLength;
          chunks += result.chunks.length;
          oversized += result.chunks.filter((chunk) => chunk.oversized).length;
        }
      } catch {
        failed += 1;
      }
    }
  });
  await Promise.all(lanes);
  return { seconds: (performance.now() - started) / 1000, workerSeconds: workerMs / 1000, bytes, chunks, oversized, failed };
}

interface Quality {
  chunks: number;
  whole: number;
  functions: number;
  cut: number;
}

/** Whole = the chunk's text parses alone without ERROR/MISSING; cut = a boundary strictly inside a function that fits the budget. */
async function quality(grammars: GrammarSet, files: string[], cutter: 'ast' | 'windows'): Promise<Quality> {
  const totals: Quality = { chunks: 0, whole: 0, functions: 0, cut: 0 };
  for (const file of files) {
    const bytes = fs.readFileSync(file);
    const spec = grammars.table.detect(file, bytes.subarray(0, 256));
    if (!spec) continue;
    const state = await grammars.load(spec.id);
    if (state.state !== 'loaded') continue;
    const source = new SourceText(bytes);
    let ranges: Array<[number, number]>;
    if (cutter === 'ast') {
      const result = await chunkFile(grammars, { path: file, bytes }, { budgetBytes: budget });
      ranges = result.chunks.map((chunk) => [source.unitAt(chunk.startByte), source.unitAt(chunk.endByte)]);
    } else {
      ranges = [];
      for (let start = 0; start < source.length; start += budget) ranges.push([start, Math.min(source.length, start + budget)]);
    }
    const tree = parseSource(grammars, state.grammar, source);
    if (!tree) continue;
    const functions = extractEntities(tree.rootNode, state.grammar.chunksQuery, source.text, spec.entityDepth).entities.filter(
      (entity) => (entity.kind === 'function' || entity.kind === 'method') && source.byteLength(entity.start, entity.end) <= budget,
    );
    tree.delete();
    const boundaries = ranges.flatMap(([start, end]) => [start, end]);
    for (const entity of functions) {
      totals.functions += 1;
      if (boundaries.some((boundary) => boundary > entity.start && boundary < entity.end)) totals.cut += 1;
    }
    for (const [start, end] of ranges) {
      const alone = parseSource(grammars, state.grammar, SourceText.fromString(source.text.slice(start, end)));
      if (!alone) continue;
      totals.chunks += 1;
      if (!alone.rootNode.hasError) totals.whole += 1;
      alone.delete();
    }
  }
  return totals;
}

function percent(part: number, whole: number): string {
  return whole === 0 ? '-' : `${((100 * part) / whole).toFixed(1)}%`;
}

async function main(): Promise<void> {
  const benchDir = process.env.FATHOM_BENCH_DIR ?? '/tmp/fathom-bench';
  const named: Record<string, Corpus> = {
    linux: { name: 'linux (C)', root: path.join(benchDir, 'linux'), extensions: /\.[ch]$/ },
    typescript: { name: 'typescript (TS/JS)', root: path.join(benchDir, 'typescript'), extensions: /\.(ts|js)$/ },
  };
  const wanted = process.argv.slice(2);
  const corpora = (wanted.length > 0 ? wanted : ['typescript', 'linux']).map(
    (name) => named[name] ?? { name, root: path.resolve(name), extensions: /\.(c|h|ts|tsx|js|py|go|rs|java)$/ },
  );
  const sampleFor = (count: number): number => Number(process.env.FATHOM_BENCH_SAMPLE ?? Math.max(1, Math.floor(count / 500)));
  const pool = new ChunkPool(2);
  const grammars = new GrammarSet();
  const report: Record<string, unknown> = {};
  for (const corpus of corpora) {
    const files = corpusFiles(corpus);
    const totalBytes = files.reduce((sum, file) => sum + fs.statSync(file).size, 0);
    console.log(`\n## ${corpus.name}: ${files.length} files, ${(totalBytes / 1e6).toFixed(0)} MB, ${pool.size} worker threads`);
    // Warm the page cache and the workers' grammars on a slice, then measure parse and chunk passes.
    await throughput(pool, files.slice(0, 200), 'chunk');
    const parse = await throughput(pool, files, 'parse');
    const rssAfterParse = peakRssMb();
    const count = await throughput(pool, files, 'count');
    const rssAfterCount = peakRssMb();
    const chunk = await throughput(pool, files, 'chunk');
    const rssAfterChunk = peakRssMb();
    // Per core: bytes over the time the workers spent on the files (read excluded), which does not
    // depend on how the largest files happen to be scheduled; wall time for the whole pass.
    const perCore = (pass: { bytes: number; workerSeconds: number }): string => (pass.bytes / 1e6 / pass.workerSeconds).toFixed(2);
    console.log('| pass | wall seconds | worker seconds | MB/s per core | chunks/s per core | chunks | oversized | failed |');
    console.log('|---|---|---|---|---|---|---|---|');
    console.log(`| bare parse | ${parse.seconds.toFixed(1)} | ${parse.workerSeconds.toFixed(1)} | ${perCore(parse)} | - | - | - | ${parse.failed} |`);
    console.log(
      `| chunk + headers (counted in the workers) | ${count.seconds.toFixed(1)} | ${count.workerSeconds.toFixed(1)} | ${perCore(count)} | ${(count.chunks / count.workerSeconds).toFixed(0)} | ${count.chunks} | ${count.oversized} | ${count.failed} |`,
    );
    console.log(
      `| chunk + headers, every chunk copied to the main thread | ${chunk.seconds.toFixed(1)} | - | - | - | ${chunk.chunks} | ${chunk.oversized} | ${chunk.failed} |`,
    );
    const overhead = count.workerSeconds / parse.workerSeconds - 1;
    console.log(
      `chunking + headers cost ${(100 * overhead).toFixed(0)}% of worker time on top of the bare parse; the whole corpus chunked and shipped in ${chunk.seconds.toFixed(0)} s wall on ${pool.size} workers`,
    );
    console.log(
      `peak RSS of the process (workers included) after the parse pass ${rssAfterParse.toFixed(0)} MB, after chunking in the workers ${rssAfterCount.toFixed(0)} MB, after shipping every chunk to the main thread ${rssAfterChunk.toFixed(0)} MB`,
    );
    let inProcess: { parseSeconds: number; chunkSeconds: number; overhead: number } | undefined;
    if (totalBytes < 100e6) {
      // A small corpus is dominated by its largest files' scheduling on the workers: measure it
      // on one thread too, parse and chunk passes alternating, median of 3.
      const loaded = files.map((file) => ({ file, bytes: fs.readFileSync(file) }));
      const ratios: Array<{ parseSeconds: number; chunkSeconds: number; overhead: number }> = [];
      for (let round = 0; round < 3; round++) {
        let started = performance.now();
        for (const { file, bytes } of loaded) {
          const spec = grammars.table.detect(file, bytes.subarray(0, 256));
          const state = spec ? await grammars.load(spec.id) : undefined;
          if (state?.state === 'loaded') parseSource(grammars, state.grammar, new SourceText(bytes))?.delete();
        }
        const parseSeconds = (performance.now() - started) / 1000;
        started = performance.now();
        for (const { file, bytes } of loaded) await chunkFile(grammars, { path: file, bytes }, { budgetBytes: budget });
        const chunkSeconds = (performance.now() - started) / 1000;
        ratios.push({ parseSeconds, chunkSeconds, overhead: chunkSeconds / parseSeconds - 1 });
      }
      inProcess = ratios.sort((a, b) => a.overhead - b.overhead)[1]!;
      console.log(
        `one thread, in process (median of 3): parse ${inProcess.parseSeconds.toFixed(2)} s, chunk + headers ${inProcess.chunkSeconds.toFixed(2)} s: ${(100 * inProcess.overhead).toFixed(0)}% on top of the parse`,
      );
    }
    const sampleEvery = sampleFor(files.length);
    const sample = files.filter((_, index) => index % sampleEvery === 0);
    const ast = await quality(grammars, sample, 'ast');
    const windows = await quality(grammars, sample, 'windows');
    console.log(`\nquality on every ${sampleEvery}th file (${sample.length} files), budget ${budget}:`);
    console.log('| chunker | chunks | syntactically whole | functions that fit | cut in two |');
    console.log('|---|---|---|---|---|');
    console.log(`| Fathom (tree-sitter) | ${ast.chunks} | ${percent(ast.whole, ast.chunks)} | ${ast.functions} | ${percent(ast.cut, ast.functions)} |`);
    console.log(
      `| fixed ${budget}-char windows | ${windows.chunks} | ${percent(windows.whole, windows.chunks)} | ${windows.functions} | ${percent(windows.cut, windows.functions)} |`,
    );
    report[corpus.name] = {
      files: files.length,
      bytes: totalBytes,
      parse,
      count,
      chunk,
      overhead,
      inProcess,
      peakRssMb: { afterParse: rssAfterParse, afterCount: rssAfterCount, afterChunk: rssAfterChunk },
      quality: { ast, windows },
    };
  }
  pool.close();
  console.log(`\nBENCH_JSON ${JSON.stringify(report)}`);
}

await main();
