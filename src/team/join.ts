// A workspace's first semantic index from the team store (`fathom team join`, and `fathom index`
// with a store configured): the records and vectors of the files the workspace can prove it holds
// (their content hashes, which the store's member functions answer for and nothing else), turned
// into each local path's chunks with their vectors. A file hash the workspace holds at several
// paths gives each of them the chunks; a file the store has no records of, or whose records lack a
// vector, is left to local embedding. The nearest snapshot (by simhash) is named for the answer:
// records are content-addressed, so any clone's records serve, whichever snapshot they came with.
// Called by the daemon with the engine's file hashes; the engine seeds its semantic index with it.
import type { PathMask } from '../index/export/path-mask.js';
import type { SeedFile } from '../index/semantic/semantic-index.js';
import { leafSimhash } from './simhash.js';
import type { Snapshot, TeamStore } from './team-store.js';

export interface JoinInput {
  modelId: string;
  dimensions: number;
  merkleRoot: string;
  /** Every file of the workspace with its content hash. */
  files: ReadonlyArray<{ path: string; fileHash: string }>;
}

export interface JoinFetch {
  files: SeedFile[];
  /** Distinct file contents the workspace holds, and how many of them the store gave (records and every vector). */
  distinctFiles: number;
  fetchedFiles: number;
  fetchedChunks: number;
  /** Bytes of vectors received. */
  vectorBytes: number;
  nearest: (Snapshot & { sameTree: boolean }) | undefined;
}

/** Hashes asked in one round (records, then their vectors): progress between rounds, memory bounded by it. */
const hashesPerRound = 5_000;

export async function fetchForJoin(store: TeamStore, mask: PathMask, input: JoinInput, onProgress?: (done: number, total: number) => void): Promise<JoinFetch> {
  const team = mask.keyId;
  const pathsByHash = new Map<string, string[]>();
  for (const { path, fileHash } of input.files) {
    const paths = pathsByHash.get(fileHash);
    if (paths) paths.push(path);
    else pathsByHash.set(fileHash, [path]);
  }
  const distinct = [...pathsByHash.keys()];
  const [nearest] = await store.nearestSnapshots(team, input.modelId, leafSimhash(input.files.map((file) => file.fileHash)), 1);
  const files: SeedFile[] = [];
  let fetchedFiles = 0;
  let fetchedChunks = 0;
  let vectorBytes = 0;
  for (let start = 0; start < distinct.length; start += hashesPerRound) {
    const round = distinct.slice(start, start + hashesPerRound);
    const records = await store.fileRecords(team, input.modelId, round);
    const vectors = await store.fileVectors(
      team,
      input.modelId,
      records.map((record) => record.fileHash),
    );
    for (const vector of vectors.values()) vectorBytes += vector.byteLength;
    for (const record of records) {
      if (record.chunks.some((chunk) => vectors.get(chunk.chunkHash)?.length !== input.dimensions)) continue;
      const chunks = record.chunks.map((chunk) => ({
        startLine: chunk.startLine,
        endLine: chunk.endLine,
        startByte: chunk.startByte,
        endByte: chunk.endByte,
        textHash: chunk.chunkHash,
        vector: vectors.get(chunk.chunkHash)!,
      }));
      fetchedFiles += 1;
      fetchedChunks += chunks.length;
      for (const path of pathsByHash.get(record.fileHash) ?? []) files.push({ file: path, fileHash: record.fileHash, chunks });
    }
    onProgress?.(Math.min(distinct.length, start + round.length), distinct.length);
  }
  return {
    files,
    distinctFiles: distinct.length,
    fetchedFiles,
    fetchedChunks,
    vectorBytes,
    nearest: nearest ? { ...nearest, sameTree: nearest.merkleRoot === input.merkleRoot } : undefined,
  };
}
