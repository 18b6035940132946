// A workspace's first semantic index from the team store (`fathom team join`, and `fathom index`
// with a store configured): the records and vectors of the files the workspace can prove it holds
// (their content hashes, which the store's member functions answer for and nothing else), turned
// into each local path's chunks with their vectors. A file hash the workspace holds at several
// paths gives each of them the chunks; a file the store has no records of, or whose records lack a
// vector, is left to local embedding. The nearest snapshot (by simhash) is named for the answer:
// records are content-addressed, so any clone's records serve, whichever snapshot they came with.
// Called by the daemon with the engine's file hashes; the engine seeds its semantic index with each
// round of files as it arrives.
import { HalfVector } from '../base/half-float.js';
import type { PathMask } from '../index/export/path-mask.js';
import type { SeedFile } from '../index/semantic/semantic-index.js';
import { leafSimhash } from './simhash.js';
import type { FilePack, Snapshot, TeamStore } from './team-store.js';

export interface JoinInput {
  modelId: string;
  dimensions: number;
  merkleRoot: string;
  /** Every file of the workspace with its content hash. */
  files: ReadonlyArray<{ path: string; fileHash: string }>;
}

export interface JoinFetch {
  /** Distinct file contents the workspace holds, and how many of them the store gave (records and every vector). */
  distinctFiles: number;
  fetchedFiles: number;
  fetchedChunks: number;
  /** Bytes of vectors received (as the store keeps them: f16, or f32 when pushed before schema 6). */
  vectorBytes: number;
  nearest: (Snapshot & { sameTree: boolean }) | undefined;
}

/** Files asked in one call (rows of their chunks and vectors): progress between calls, memory bounded by it. */
const filesPerRound = 2_000;

/**
 * Fetches what the store holds of the workspace's files, a round of files a call, each round's
 * files handed to `onFiles` as it arrives (the join seeds them while the store reads the next).
 * `connections` are connections to one store (one or two): rounds go to them in turn, one in
 * flight on each, so the store reads a round while this thread parses and unpacks the one before.
 */
export async function fetchForJoin(
  connections: readonly TeamStore[],
  mask: PathMask,
  input: JoinInput,
  onFiles: (files: SeedFile[]) => void,
  onProgress?: (done: number, total: number) => void,
): Promise<JoinFetch> {
  const team = mask.keyId;
  const pathsByHash = new Map<string, string[]>();
  for (const { path, fileHash } of input.files) {
    const paths = pathsByHash.get(fileHash);
    if (paths) paths.push(path);
    else pathsByHash.set(fileHash, [path]);
  }
  const distinct = [...pathsByHash.keys()];
  const [nearest] = await connections[0]!.nearestSnapshots(team, input.modelId, leafSimhash(input.files.map((file) => file.fileHash)), 1);
  let fetchedFiles = 0;
  let fetchedChunks = 0;
  let vectorBytes = 0;
  const rounds = Math.ceil(distinct.length / filesPerRound);
  const ask = (round: number): Promise<FilePack[]> => {
    const store = connections[round % connections.length]!;
    const call = store.filePacks(team, input.modelId, input.dimensions, distinct.slice(round * filesPerRound, (round + 1) * filesPerRound));
    // Awaited in its turn; a failure before then is not left unhandled.
    call.catch(() => undefined);
    return call;
  };
  const inFlight = Array.from({ length: Math.min(rounds, connections.length) }, (_, round) => ask(round));
  for (let round = 0; round < rounds; round++) {
    const packs = await inFlight.shift()!;
    if (round + connections.length < rounds) inFlight.push(ask(round + connections.length));
    const files: SeedFile[] = [];
    for (const pack of packs) {
      const vectors = pack.vectors;
      if (!vectors) continue;
      vectorBytes += pack.vectorBytes;
      const chunks = pack.chunks.map((chunk, at) => ({
        startLine: chunk.startLine,
        endLine: chunk.endLine,
        startByte: chunk.startByte,
        endByte: chunk.endByte,
        textHash: chunk.chunkHash,
        vector:
          vectors instanceof HalfVector
            ? new HalfVector(vectors.bits.subarray(at * input.dimensions, (at + 1) * input.dimensions))
            : vectors.subarray(at * input.dimensions, (at + 1) * input.dimensions),
      }));
      fetchedFiles += 1;
      fetchedChunks += chunks.length;
      for (const path of pathsByHash.get(pack.fileHash) ?? []) files.push({ file: path, fileHash: pack.fileHash, chunks });
    }
    onFiles(files);
    onProgress?.(Math.min(distinct.length, (round + 1) * filesPerRound), distinct.length);
  }
  return {
    distinctFiles: distinct.length,
    fetchedFiles,
    fetchedChunks,
    vectorBytes,
    nearest: nearest ? { ...nearest, sameTree: nearest.merkleRoot === input.merkleRoot } : undefined,
  };
}
