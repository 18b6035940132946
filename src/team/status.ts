// `fathom team status`: what the team store holds for a workspace, asked with the workspace's own
// file hashes (so it says nothing of files the workspace lacks): how many of its files have
// records and vectors there, and the team's snapshots of the model nearest to the workspace's tree
// by simhash (the one a join would start from; `sameTree` when its Merkle root is the workspace's).
// Called by the daemon with the engine's tree facts.
import type { PathMask } from '../index/export/path-mask.js';
import { leafSimhash } from './simhash.js';
import type { Snapshot, TeamStore } from './team-store.js';

export interface TeamStatus {
  store: string;
  schemaVersion: number;
  teamKeyId: string;
  modelId: string;
  local: { files: number; merkleRoot: string; simhash: string };
  /** Of the workspace's files (distinct contents), how many the store holds records of, and their chunks. */
  held: { files: number; distinctFiles: number; chunks: number };
  /** The nearest snapshots, nearest first (at most 5). */
  nearest: Array<Snapshot & { sameTree: boolean }>;
}

export async function teamStatus(store: TeamStore, mask: PathMask, tree: { merkleRoot: string; fileHashes: string[]; modelId: string }): Promise<TeamStatus> {
  const simhash = leafSimhash(tree.fileHashes);
  const distinct = [...new Set(tree.fileHashes)];
  const held = await store.heldFiles(mask.keyId, tree.modelId, distinct);
  const nearest = await store.nearestSnapshots(mask.keyId, tree.modelId, simhash, 5);
  return {
    store: store.description,
    schemaVersion: store.version,
    teamKeyId: mask.keyId,
    modelId: tree.modelId,
    local: { files: tree.fileHashes.length, merkleRoot: tree.merkleRoot, simhash },
    held: { files: held.files, distinctFiles: distinct.length, chunks: held.chunks },
    nearest: nearest.map((snapshot) => ({ ...snapshot, sameTree: snapshot.merkleRoot === tree.merkleRoot })),
  };
}
