// Benchmark of what a team join reads from the store (issue 34), at the kernel's scale on a
// synthetic team: FILES files of 10 chunks each (default 20,000: 200,000 vectors of 384 random
// numbers, the kernel's model size), pushed through the member functions into a throwaway
// PostgreSQL 15 cluster (test/helpers/postgres.ts). Then, in interleaved rounds, every file is read
// back as the join did before schema 5 (file_records, then file_vectors, 5,000 files a round: a
// row per chunk and per vector) and as it does now (fetchForJoin: file_packs, a row per file,
// 2,000 files a round; over one connection, and over two as a join reads), and the store's own
// share (file_packs counted in SQL, nothing sent).
// Synthetic content, real store and client: it times the read path, not retrieval. Prints medians
// and one `BENCH_JSON` line.
//
// Usage: node dist/bench/team-read-bench.js [FILES] [ROUNDS]
import { createHash, randomBytes } from 'node:crypto';
import { startCluster } from '../test/helpers/postgres.js';
import { PathMask } from '../src/index/export/path-mask.js';
import { fetchForJoin } from '../src/team/join.js';
import { initStore } from '../src/team/schema.js';
import { packHashes, TeamStore } from '../src/team/team-store.js';

const fileCount = Number(process.argv[2] ?? 20_000);
const rounds = Number(process.argv[3] ?? 3);
const chunksPerFile = 10;
const dimensions = 384;
const model = 'bench-model';
const cluster = startCluster();
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

try {
  await cluster.sql('CREATE ROLE team_owner LOGIN CREATEROLE');
  await cluster.sql('CREATE DATABASE fathom OWNER team_owner');
  await cluster.sql('CREATE ROLE bench_member LOGIN');
  await initStore({ conninfo: cluster.conninfo('team_owner', 'fathom'), grant: ['bench_member'] });
  const store = await TeamStore.open({ conninfo: cluster.conninfo('bench_member', 'fathom') });
  const second = await TeamStore.open({ conninfo: cluster.conninfo('bench_member', 'fathom') });
  const mask = new PathMask(randomBytes(32));
  const team = mask.keyId;
  const files: Array<{ path: string; fileHash: string }> = [];
  const filled = performance.now();
  for (let start = 0; start < fileCount; start += 500) {
    const records = [];
    const vectors = [];
    for (let file = start; file < Math.min(fileCount, start + 500); file++) {
      const fileHash = createHash('sha256').update(`file ${file}`).digest('hex');
      const filePath = `dir${file % 100}/file${file}.c`;
      files.push({ path: filePath, fileHash });
      const chunks = [];
      for (let chunk = 0; chunk < chunksPerFile; chunk++) {
        const chunkHash = createHash('sha256').update(`chunk ${file} ${chunk}`).digest('hex');
        vectors.push({ chunkHash, vector: Float32Array.from({ length: dimensions }, () => Math.random() - 0.5) });
        chunks.push({ startLine: 10 * chunk, endLine: 10 * chunk + 9, startByte: 300 * chunk, endByte: 300 * chunk + 299, chunkHash });
      }
      records.push({ fileHash, maskedPaths: [mask.mask(filePath)], chunks });
    }
    for (let at = 0; at < vectors.length; at += 2_000) await store.putEmbeddings(team, model, dimensions, vectors.slice(at, at + 2_000));
    await store.putFiles(team, model, records);
  }
  await cluster.sql('ANALYZE', [], 'fathom');
  const hashes = files.map((file) => file.fileHash);
  process.stdout.write(`store: ${fileCount} files, ${fileCount * chunksPerFile} vectors pushed in ${((performance.now() - filled) / 1000).toFixed(1)} s\n`);
  const before: number[] = [];
  const now: number[] = [];
  const two: number[] = [];
  const server: number[] = [];
  const serverConnection = await cluster.connect('bench_member', 'fathom');
  for (let round = 0; round < rounds; round++) {
    let started = performance.now();
    let vectors = 0;
    for (let at = 0; at < hashes.length; at += 5_000) {
      const records = await store.fileRecords(team, model, hashes.slice(at, at + 5_000));
      vectors += (
        await store.fileVectors(
          team,
          model,
          dimensions,
          records.map((record) => record.fileHash),
        )
      ).size;
    }
    before.push(performance.now() - started);
    started = performance.now();
    const fetched = await fetchForJoin([store], mask, { modelId: model, dimensions, merkleRoot: '00'.repeat(32), files }, () => undefined);
    now.push(performance.now() - started);
    if (vectors !== fetched.fetchedChunks) throw new Error(`read ${vectors} vectors before, ${fetched.fetchedChunks} now`);
    started = performance.now();
    await fetchForJoin([store, second], mask, { modelId: model, dimensions, merkleRoot: '00'.repeat(32), files }, () => undefined);
    two.push(performance.now() - started);
    started = performance.now();
    for (let at = 0; at < hashes.length; at += 2_000)
      await serverConnection.query('SELECT count(*), sum(length(vectors)) FROM fathom.file_packs($1, $2, $3)', [
        team,
        model,
        packHashes(hashes.slice(at, at + 2_000)),
      ]);
    server.push(performance.now() - started);
  }
  await serverConnection.end();
  await store.close();
  await second.close();
  const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
  process.stdout.write(`read every file's records and vectors (median of ${rounds}):\n`);
  process.stdout.write(`  file_records + file_vectors (before schema 5)  ${seconds(median(before))}\n`);
  process.stdout.write(`  file_packs (fetchForJoin)                      ${seconds(median(now))}  ${(median(before) / median(now)).toFixed(1)}x\n`);
  process.stdout.write(`  file_packs over two connections (a join)      ${seconds(median(two))}  ${(median(before) / median(two)).toFixed(1)}x\n`);
  process.stdout.write(`  the store's own share (nothing sent)           ${seconds(median(server))}\n`);
  process.stdout.write(
    `BENCH_JSON ${JSON.stringify({ files: fileCount, vectors: fileCount * chunksPerFile, beforeMs: before, nowMs: now, twoConnectionsMs: two, serverMs: server })}\n`,
  );
} finally {
  cluster.destroy();
}
