// The semantic index's HNSW graph on real code embeddings: usearch's default widths (insertion 128,
// search 64) against Fathom's (`graphExpansion`, vector-store.ts), built the way VectorStore builds
// it (cosine, f16, connectivity 16, adds of 5,000 on every core). For each: the build's time, the
// recall@10 of 200 queries against an exact scan of the same vectors, and a query's time.
// The vectors come from an embedding cache a `fathom index` left (FATHOM_CACHE_DIR's
// embeddings/<model>.vec; the kernel's holds 832k): the first N, the queries from further on.
//
// Usage: node dist/bench/graph-expansion-bench.js EMBEDDINGS.vec [N]   (default N: 200000)
//   FATHOM_GRAPH_WIDTHS=ADD/SEARCH,...   more widths to try after those two (e.g. 32/256,48/256)
import fs from 'node:fs';
import { exactSearch, Index, MetricKind, ScalarKind } from 'usearch';
import { graphExpansion } from '../src/index/semantic/vector-store.js';

const [file, sizeArgument] = process.argv.slice(2);
if (!file) throw new Error('usage: graph-expansion-bench EMBEDDINGS.vec [N]');
const size = Number(sizeArgument ?? 200_000);
const queryCount = 200;

// The cache's layout (embedding-cache.ts): 16 header bytes (dimensions at 8), then records of a
// 32-byte key, the f32 vector and 4 check bytes.
const fd = fs.openSync(file, 'r');
const header = Buffer.alloc(16);
fs.readSync(fd, header, 0, 16, 0);
const dimensions = header.readUInt32LE(8);
const record = 32 + dimensions * 4 + 4;
const records = Math.floor((fs.fstatSync(fd).size - 16) / record);
if (records < size + 1_000 + queryCount * 97) throw new Error(`${file} holds ${records} vectors: too few for N = ${size}`);
function vectorsAt(first: number, count: number, stride = 1): Float32Array {
  const out = new Float32Array(count * dimensions);
  const bytes = Buffer.alloc(record);
  for (let at = 0; at < count; at++) {
    fs.readSync(fd, bytes, 0, record, 16 + (first + at * stride) * record);
    out.set(new Float32Array(bytes.buffer.slice(bytes.byteOffset + 32, bytes.byteOffset + 32 + dimensions * 4)), at * dimensions);
  }
  return out;
}
const vectors = vectorsAt(0, size);
const queries = vectorsAt(size + 1_000, queryCount, 97);
// Copies: usearch reads a typed array from the start of its buffer, whatever its offset.
const query = (at: number): Float32Array => queries.slice(at * dimensions, (at + 1) * dimensions);
const truth = Array.from(
  { length: queryCount },
  (_, at) => new Set(Array.from(exactSearch(vectors, query(at), dimensions, 10, MetricKind.Cos, 0).keys, Number)),
);

const rows: string[] = [];
const results: Record<string, { buildMs: number; recall: number; queryMs: number }> = {};
const tried = (process.env.FATHOM_GRAPH_WIDTHS ?? '')
  .split(',')
  .filter((widths) => widths.trim() !== '')
  .map((widths): [string, { expansion_add: number; expansion_search: number }] => {
    const [add, search] = widths.split('/').map(Number);
    if (!(add! > 0 && search! > 0)) throw new Error(`FATHOM_GRAPH_WIDTHS: ${widths} is not ADD/SEARCH`);
    return [`${add}/${search}`, { expansion_add: add!, expansion_search: search! }];
  });
for (const [name, expansion] of [
  ['usearch default (128/64)', { expansion_add: 128, expansion_search: 64 }] as const,
  [`Fathom (${graphExpansion.expansion_add}/${graphExpansion.expansion_search})`, graphExpansion] as const,
  ...tried,
]) {
  const index = new Index({ dimensions, metric: MetricKind.Cos, quantization: ScalarKind.F16, connectivity: 16, ...expansion, multi: false });
  const keys = BigUint64Array.from({ length: size }, (_, at) => BigInt(at));
  const started = performance.now();
  for (let at = 0; at < size; at += 5_000)
    index.add(keys.subarray(at, at + 5_000), vectors.subarray(at * dimensions, Math.min(size, at + 5_000) * dimensions), 0);
  const buildMs = performance.now() - started;
  let found = 0;
  const searched = performance.now();
  for (let at = 0; at < queryCount; at++) for (const key of index.search(query(at), 10, 1).keys) if (truth[at]!.has(Number(key))) found++;
  const queryMs = (performance.now() - searched) / queryCount;
  results[name] = { buildMs, recall: found / queryCount / 10, queryMs };
  rows.push(`| ${name} | ${(buildMs / 1000).toFixed(1)} s | ${(found / queryCount / 10).toFixed(3)} | ${queryMs.toFixed(2)} ms |`);
}
const [base, ours] = Object.values(results) as [(typeof results)[string], (typeof results)[string]];
console.log(`${size} vectors of ${dimensions} dimensions from ${file}; ${queryCount} queries\n`);
console.log('| widths | build | recall@10 | query |\n|---|---|---|---|');
console.log(rows.join('\n'));
console.log(`\nbuild ${(base.buildMs / ours.buildMs).toFixed(2)}x faster, recall ${ours.recall.toFixed(3)} against ${base.recall.toFixed(3)}`);
console.log(`BENCH_JSON ${JSON.stringify({ size, dimensions, results })}`);
