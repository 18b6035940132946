// How closely a team join's staged vectors answer (issue 34): until the HNSW graph takes them,
// the semantic store searches them exactly as i8 rows, each scaled so its largest number is ±127
// (src/index/semantic/vector-store.ts). This reads N vectors (default 200,000) of a real embedding
// cache (embeddings/<model>.vec, its records as embedding-cache.ts lays them out), makes 100
// questions of them (the sum of two vectors, none a row itself), and compares the i8 rows' exact
// top 10 with the f32 vectors' exact top 10: recall@10 and the largest difference of the best
// similarity. Also times both searches (usearch's exactSearch on every core), as ratios.
//
// Usage: node dist/bench/staged-recall-bench.js CACHE_DIR [N]   (a cache a `fathom index` filled)
import fs from 'node:fs';
import path from 'node:path';
import { exactSearch, MetricKind } from 'usearch';

const cacheDir = process.argv[2];
const count = Number(process.argv[3] ?? 200_000);
const folder = cacheDir ? path.join(cacheDir, 'embeddings') : '';
const log = folder && fs.existsSync(folder) ? fs.readdirSync(folder).find((name) => name.endsWith('.vec')) : undefined;
if (!log) {
  process.stderr.write('usage: node dist/bench/staged-recall-bench.js CACHE_DIR [N]   (CACHE_DIR/embeddings/*.vec)\n');
  process.exit(2);
}
const handle = fs.openSync(path.join(folder, log), 'r');
const header = Buffer.alloc(16);
fs.readSync(handle, header, 0, 16, 0);
const dimensions = header.readUInt32LE(8);
const recordBytes = 32 + 4 * dimensions + 4;
const available = Math.floor((fs.fstatSync(handle).size - 16) / recordBytes);
const rows = Math.min(count, available);
const bytes = Buffer.alloc(rows * recordBytes);
fs.readSync(handle, bytes, 0, bytes.length, 16);
fs.closeSync(handle);

/** As vector-store.ts quantizes (rounded half away from zero). */
function quantize(vector: Float32Array, out: Int8Array, at: number): void {
  let largest = 0;
  for (let index = 0; index < vector.length; index++) largest = Math.max(largest, Math.abs(vector[index]!));
  const scale = largest > 0 ? 127 / largest : 0;
  for (let index = 0; index < vector.length; index++) {
    const scaled = vector[index]! * scale;
    out[at + index] = scaled < 0 ? (scaled - 0.5) | 0 : (scaled + 0.5) | 0;
  }
}

const f32 = new Float32Array(rows * dimensions);
const i8 = new Int8Array(rows * dimensions);
for (let row = 0; row < rows; row++) {
  const start = row * recordBytes + 32;
  const vector = new Float32Array(bytes.buffer.slice(bytes.byteOffset + start, bytes.byteOffset + start + 4 * dimensions));
  f32.set(vector, row * dimensions);
  quantize(vector, i8, row * dimensions);
}
let found = 0;
let worst = 0;
const times = { f32: 0, i8: 0 };
const questions = 100;
for (let question = 0; question < questions; question++) {
  const a = (question * 1_931) % rows;
  const b = (question * 7_919 + 13) % rows;
  const query = Float32Array.from({ length: dimensions }, (_, at) => f32[a * dimensions + at]! + f32[b * dimensions + at]!);
  const query8 = new Int8Array(dimensions);
  quantize(query, query8, 0);
  let started = performance.now();
  const exact = exactSearch(f32, query, dimensions, 10, MetricKind.Cos, 0);
  times.f32 += performance.now() - started;
  started = performance.now();
  const staged = exactSearch(i8, query8, dimensions, 10, MetricKind.Cos, 0);
  times.i8 += performance.now() - started;
  const wanted = new Set(Array.from(exact.keys, Number));
  for (const key of staged.keys) if (wanted.has(Number(key))) found++;
  worst = Math.max(worst, Math.abs(exact.distances[0]! - staged.distances[0]!));
}
const recall = found / (10 * questions);
process.stdout.write(`${rows} vectors of ${log} (${dimensions}-d), ${questions} questions\n`);
process.stdout.write(`i8 rows against f32: recall@10 ${recall.toFixed(3)}, best similarity off by at most ${worst.toFixed(4)}\n`);
process.stdout.write(
  `one question: f32 ${(times.f32 / questions).toFixed(1)} ms, i8 ${(times.i8 / questions).toFixed(1)} ms (${(times.f32 / times.i8).toFixed(1)}x); memory ${(f32.byteLength / 2 ** 20).toFixed(0)} MiB against ${(i8.byteLength / 2 ** 20).toFixed(0)} MiB\n`,
);
process.stdout.write(
  `BENCH_JSON ${JSON.stringify({ rows, dimensions, recallAt10: recall, worstBestSimilarity: worst, msPerQuestion: { f32: times.f32 / questions, i8: times.i8 / questions } })}\n`,
);
