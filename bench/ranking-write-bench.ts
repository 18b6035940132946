// Benchmark of writing chunks.bin (src/index/ranking/chunk-ranking-file.ts' writeRankingFile) with
// many terms of one-word posting lists, as a large corpus's rare terms are: the time to write
// N terms (99% one word long, 1% 200 words), this build's writer and, given another build's dist
// folder, that one's, interleaved, three rounds each. Prints one line a round and a BENCH_JSON line.
//
// Usage: node dist/bench/ranking-write-bench.js [N] [OTHER_DIST]   (N default 2,000,000)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const count = Number(process.argv[2] ?? 2_000_000);
const other = process.argv[3];
const own = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
type Writer = (file: string, tables: unknown, terms: Iterable<{ name: string; list: Uint32Array }>) => Promise<void>;

const tables = {
  root: '/bench',
  version: 1,
  budgetBytes: 4000,
  chunkFile: new Uint32Array(10),
  chunkLines: new Uint32Array(20),
  chunkBytes: new Uint32Array(20),
  chunkLengths: new Uint16Array(10),
  files: [{ path: 'a', hash: '00'.repeat(32), first: 0, count: 10 }],
};
const names = Array.from({ length: count }, (_, index) => `t${index.toString(36).padStart(6, '0')}`);
function* terms(): Iterable<{ name: string; list: Uint32Array }> {
  for (let index = 0; index < count; index++) yield { name: names[index]!, list: index % 100 === 0 ? new Uint32Array(200).fill(index) : Uint32Array.of(index) };
}

async function time(dist: string): Promise<number> {
  const { writeRankingFile } = (await import(path.join(dist, 'src/index/ranking/chunk-ranking-file.js'))) as { writeRankingFile: Writer };
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-rank-write-')), 'chunks.bin');
  const started = performance.now();
  await writeRankingFile(file, tables, terms());
  const ms = performance.now() - started;
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  return ms;
}

const results: Record<string, number[]> = { this: [], other: [] };
for (let round = 0; round < 3; round++) {
  results.this!.push(await time(own));
  if (other) results.other!.push(await time(path.resolve(other)));
  process.stdout.write(`round ${round + 1}: this ${results.this!.at(-1)!.toFixed(0)} ms${other ? `, ${other} ${results.other!.at(-1)!.toFixed(0)} ms` : ''}\n`);
}
process.stdout.write(`BENCH_JSON ${JSON.stringify({ terms: count, thisMs: results.this, otherMs: results.other })}\n`);
