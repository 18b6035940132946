// The semantic index's parts on 2 cores:
//   1. the vector store (usearch HNSW, cosine, f16, as VectorStore makes it) on synthetic clustered
//      vectors (384-d, 1,000 clusters; uniform random vectors are the worst case and not what
//      code embeddings look like): add time, query latency p50/p95 and recall@10 against an
//      exact scan, at 100k and 1M vectors;
//   2. the embedding pipeline (chunking, the embedding worker, the cache, the store) on a corpus
//      with a model folder (FATHOM_BENCH_MODEL=DIR; default: the tiny test model, which measures
//      the pipeline's own cost, not a real model's): chunks embedded per second, and one changed
//      file → its new vectors searchable.
// Prints tables and one `BENCH_JSON` line.
//
// Usage: node dist/bench/vector-bench.js [SIZES] [CORPUS]   (default: 100000,1000000 django; SIZES 0: the pipeline only)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EmbedPool } from '../src/index/semantic/embed-pool.js';
import { EmbeddingCache } from '../src/index/semantic/embedding-cache.js';
import { openModelFolder } from '../src/index/semantic/model-folder.js';
import { SemanticIndex } from '../src/index/semantic/semantic-index.js';
import { VectorStore } from '../src/index/semantic/vector-store.js';
import { ChunkPool } from '../src/index/syntax/chunk-pool.js';
import { contextualizedText } from '../src/index/syntax/chunk.js';
import { HashPool } from '../src/workspace/hash-pool.js';
import { Workspace } from '../src/workspace/workspace.js';
import { buildTinyModel } from '../test/helpers/tiny-model.js';
import { SeededRandom } from '../test/helpers/seeded-random.js';

const dimensions = 384;

/** A deterministic generator (mulberry32); Gaussian-ish noise below. */
function random(seed: number): () => number {
  const source = new SeededRandom(seed);
  return () => source.next();
}

function clustered(count: number, seed: number, centers: Float32Array): Float32Array {
  const next = random(seed);
  const out = new Float32Array(count * dimensions);
  const clusters = centers.length / dimensions;
  for (let at = 0; at < count; at++) {
    const center = Math.floor(next() * clusters);
    let norm = 0;
    for (let d = 0; d < dimensions; d++) {
      const value = centers[center * dimensions + d]! + (next() + next() + next() - 1.5) * 0.35;
      out[at * dimensions + d] = value;
      norm += value * value;
    }
    norm = Math.sqrt(norm);
    for (let d = 0; d < dimensions; d++) out[at * dimensions + d]! /= norm;
  }
  return out;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function storeBench(size: number): Record<string, number> {
  const next = random(7);
  const centers = new Float32Array(1000 * dimensions).map(() => next() * 2 - 1);
  const vectors = clustered(size, 11, centers);
  const queries = clustered(200, 13, centers);
  const store = new VectorStore(dimensions, 'bench');
  const started = performance.now();
  // Files of 20 chunks, as replaceFile receives them.
  for (let first = 0; first < size; first += 20) {
    const count = Math.min(20, size - first);
    store.replaceFile(
      `f${first}`,
      'h',
      Array.from({ length: count }, (_, at) => ({
        startLine: at,
        endLine: at,
        startByte: 0,
        endByte: 1,
        textHash: '00',
        vector: vectors.subarray((first + at) * dimensions, (first + at + 1) * dimensions),
      })),
    );
  }
  const addMs = performance.now() - started;
  const latencies: number[] = [];
  const found: string[][] = [];
  for (let at = 0; at < 200; at++) {
    const query = queries.subarray(at * dimensions, (at + 1) * dimensions);
    const t0 = performance.now();
    const hits = store.search(query, 10);
    latencies.push(performance.now() - t0);
    found.push(hits.map((hit) => `${hit.path}:${hit.startLine}`));
  }
  latencies.sort((a, b) => a - b);
  // Recall@10 against an exact scan, on the first 50 queries.
  let recalled = 0;
  for (let at = 0; at < 50; at++) {
    const query = queries.subarray(at * dimensions, (at + 1) * dimensions);
    const best: Array<[number, number]> = [];
    for (let row = 0; row < size; row++) {
      let dot = 0;
      for (let d = 0; d < dimensions; d++) dot += vectors[row * dimensions + d]! * query[d]!;
      if (best.length < 10 || dot > best[best.length - 1]![0]) {
        best.push([dot, row]);
        best.sort((a, b) => b[0] - a[0]);
        if (best.length > 10) best.pop();
      }
    }
    const exact = new Set(best.map(([, row]) => `f${row - (row % 20)}:${row % 20}`));
    recalled += found[at]!.filter((hit) => exact.has(hit)).length / 10;
  }
  return {
    size,
    addMs,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    recall10: recalled / 50,
    rssMiB: process.memoryUsage().rss / 1024 / 1024,
  };
}

async function pipelineBench(corpus: string): Promise<Record<string, unknown>> {
  const benchDir = process.env.FATHOM_BENCH_DIR ?? '/tmp/fathom-bench';
  const root = fs.realpathSync(path.join(benchDir, corpus));
  const modelDir = process.env.FATHOM_BENCH_MODEL ?? buildTinyModel();
  const model = openModelFolder(modelDir);
  const hashPool = new HashPool();
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-vector-bench-'));
  const workspace = new Workspace({ root, cacheDir: path.join(cacheDir, 'ws'), maxFileBytes: 1 << 20, reconcileIntervalMs: 0, pool: hashPool });
  await workspace.whenReady();
  const embedPool = new EmbedPool();
  const chunks = new ChunkPool(2);
  const embedder = embedPool.embedder(model);
  const [probe] = await embedder.embed(['probe'], 'document');
  const cache = EmbeddingCache.open(path.join(cacheDir, 'embeddings'), model.id, probe!.length);
  // The model alone: 2,000 chunk texts (header + text, as the index embeds them), batches of 32.
  const texts: string[] = [];
  for (const file of workspace.files().filter((name) => name.endsWith('.py'))) {
    if (texts.length >= 2000) break;
    for (const chunk of (await chunks.chunk({ path: file, absolutePath: path.join(root, file), options: { budgetBytes: 1500 } })).chunks)
      texts.push(contextualizedText(chunk));
  }
  texts.length = Math.min(texts.length, 2000);
  const embedStarted = performance.now();
  for (let at = 0; at < texts.length; at += 32) await embedder.embed(texts.slice(at, at + 32), 'document');
  const modelChunksPerSecond = texts.length / ((performance.now() - embedStarted) / 1000);
  const index = new SemanticIndex(workspace, chunks, embedder, cache, { folder: cacheDir, syncIntervalMs: 0 });
  const started = performance.now();
  await index.ensureBuilt();
  const buildMs = performance.now() - started;
  const built = index.status();
  // One file changed: write, then a sync (on demand) until its new vector answers.
  const target = workspace.files().filter((file) => file.endsWith('.py'))[100]!;
  const absolute = path.join(root, target);
  const original = fs.readFileSync(absolute);
  const changes: number[] = [];
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      const t0 = performance.now();
      fs.writeFileSync(absolute, Buffer.concat([original, Buffer.from(`\n# changed ${attempt} ${Date.now()}\n`)]));
      while (index.status().pendingFiles === 0) await new Promise((resolve) => setTimeout(resolve, 2));
      await index.sync();
      changes.push(performance.now() - t0);
    }
  } finally {
    fs.writeFileSync(absolute, original);
  }
  await index.dispose();
  cache.close();
  embedPool.close();
  chunks.close();
  await workspace.close();
  hashPool.close();
  return {
    corpus,
    model: model.dir,
    modelId: model.id,
    dimensions: probe!.length,
    files: built.files,
    chunks: built.chunks,
    embedded: built.lastSync?.embedded,
    buildMs,
    chunksPerSecond: (built.lastSync?.embedded ?? 0) / (buildMs / 1000),
    modelChunksPerSecond,
    changeMs: changes,
  };
}

async function main(): Promise<void> {
  const sizes = (process.argv[2] ?? '100000,1000000')
    .split(',')
    .map(Number)
    .filter((size) => size > 0); // 0: the pipeline only
  const corpus = process.argv[3] ?? 'django';
  const stores = sizes.map((size) => storeBench(size));
  console.log('| vectors (384-d, clustered) | add | query p50 / p95 | recall@10 | RSS |');
  console.log('|---|---|---|---|---|');
  for (const row of stores)
    console.log(
      `| ${row.size} | ${(row.addMs! / 1000).toFixed(1)} s | ${row.p50!.toFixed(2)} / ${row.p95!.toFixed(2)} ms | ${row.recall10!.toFixed(3)} | ${row.rssMiB!.toFixed(0)} MiB |`,
    );
  const pipeline = await pipelineBench(corpus);
  console.log(
    `pipeline on ${corpus} with ${String(pipeline.model)}: ${String(pipeline.files)} files, ${String(pipeline.chunks)} chunks (${String(pipeline.embedded)} embedded) in ${((pipeline.buildMs as number) / 1000).toFixed(1)} s = ${(pipeline.chunksPerSecond as number).toFixed(0)} chunks/s with chunking (the model alone: ${(pipeline.modelChunksPerSecond as number).toFixed(0)} chunks/s); one file changed → new vectors searchable: ${(pipeline.changeMs as number[]).map((ms) => `${ms.toFixed(0)} ms`).join(', ')}`,
  );
  console.log(`BENCH_JSON ${JSON.stringify({ bench: 'vectors', stores, pipeline })}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
