// `fathom team push`: uploads what the team store lacks of a workspace's semantic index. In order,
// each step its own transactions: which (file hash, masked path) pairs the store lacks; of those
// files' chunks, which vectors it lacks; those vectors (batches of `vectorsPerBatch`, read from
// the embedding cache); the files' records with their paths (batches of `filesPerBatch`, each
// file whole with its chunks); last the snapshot row (Merkle root, simhash of the leaves). So a
// push stopped anywhere (killed, the store gone) leaves the store consistent: vectors nobody's
// record names yet (found and not sent again by the next push), and whole files, never part of
// one; a snapshot only after everything before it. A second push of the same tree sends nothing
// but the checks. Paths are masked under the team key (index/export/path-mask.ts) before they
// leave; no text is read. The daemon calls it with the engine's records (`semanticRecords`).
// Each batch is read and encoded while the one before is in the store (`oneAhead`).
// A push that left out nothing (no file skipped, none changed since the sync) marks its snapshot
// complete; a later push of a tree whose complete snapshot has as many chunks as the index holds
// ends after that one check, gathering no records (what it would send is nothing: every pair of
// the tree is there). The chunk count guards against an index that holds files the complete
// push's did not (another Fathom's languages or limits over the same tree).
import type { PathMask } from '../index/export/path-mask.js';
import type { SemanticRecords } from '../index/semantic/semantic-index.js';
import { leafSimhash } from './simhash.js';
import { halfVectorBytes, type FileRecord, type TeamStore } from './team-store.js';

export interface PushInput {
  merkleRoot: string;
  /** Every file's content hash (the tree's leaves), for the snapshot's simhash. */
  fileHashes: string[];
  modelId: string;
  /** Files and chunks the semantic index holds. */
  files: number;
  chunks: number;
  /**
   * The index's records of the content the file set holds now (gathered only when the store lacks
   * a complete snapshot of the tree); `stale`: files left out as changed since the sync.
   */
  records(): { records: SemanticRecords; stale: number };
}

export interface PushOptions {
  vectorsPerBatch?: number;
  filesPerBatch?: number;
  onProgress?: (message: string, fraction: number) => void;
}

export interface PushSummary {
  store: string;
  teamKeyId: string;
  modelId: string;
  /** Files of the semantic index pushed (with the content the file set holds now). */
  files: number;
  /** The store held a complete push of this tree already: nothing was checked file by file, nothing sent. */
  upToDate: boolean;
  /** What the store lacked and got: vectors, files' records, (file, path) pairs. */
  uploaded: { vectors: number; files: number; paths: number };
  /** Files left out because the embedding cache could not give a vector of theirs (the next sync embeds them again). */
  skippedFiles: number;
  snapshot: { id: number; created: boolean; merkleRoot: string; simhash: string };
  bytesSent: number;
  ms: number;
}

export async function pushToStore(store: TeamStore, mask: PathMask, input: PushInput, options: PushOptions = {}): Promise<PushSummary> {
  const started = performance.now();
  const team = mask.keyId;
  const model = input.modelId;
  const progress = options.onProgress ?? (() => undefined);
  const vectorsPerBatch = options.vectorsPerBatch ?? 2_000;
  const filesPerBatch = options.filesPerBatch ?? 500;
  const simhash = leafSimhash(input.fileHashes);
  const summary = { store: store.description, teamKeyId: team, modelId: model };
  let bytesSent = 32;

  const done = await store.completeSnapshot(team, model, input.merkleRoot);
  if (done && done.chunkCount === input.chunks)
    return {
      ...summary,
      files: input.files,
      upToDate: true,
      uploaded: { vectors: 0, files: 0, paths: 0 },
      skippedFiles: 0,
      snapshot: { id: done.id, created: false, merkleRoot: input.merkleRoot, simhash },
      bytesSent,
      ms: Math.round(performance.now() - started),
    };

  const { records: gathered, stale } = input.records();
  const { dimensions } = gathered;
  const files = gathered.files;
  const pairs = files.map((file) => ({ fileHash: file.fileHash, maskedPath: mask.mask(file.path) }));
  progress(`checking ${pairs.length} files against the store`, 0);
  bytesSent += pairs.length * 40;
  const missingPairs = (await store.missingFiles(team, model, pairs)).map((index) => ({ ...pairs[index]!, chunks: files[index]!.chunks }));

  // The vectors the store lacks, of the chunks of the files it lacks.
  const wanted = [...new Set(missingPairs.flatMap((pair) => pair.chunks.map((chunk) => chunk.textHash)))];
  bytesSent += wanted.length * 32;
  const missingVectors = wanted.length === 0 ? [] : await store.missingChunks(team, model, wanted);
  const unavailable = new Set<string>();
  let vectors = 0;
  await oneAhead(
    Math.ceil(missingVectors.length / vectorsPerBatch),
    (index) => {
      const batch: Array<{ chunkHash: string; vector: Float32Array }> = [];
      for (const chunkHash of missingVectors.slice(index * vectorsPerBatch, (index + 1) * vectorsPerBatch)) {
        const vector = gathered.vector(chunkHash);
        if (vector && vector.length === dimensions) batch.push({ chunkHash, vector });
        else unavailable.add(chunkHash);
      }
      bytesSent += batch.length * (32 + dimensions * halfVectorBytes);
      return batch.length > 0 ? store.putEmbeddings(team, model, dimensions, batch) : undefined;
    },
    (index, inserted) => {
      vectors += inserted;
      const done = Math.min(missingVectors.length, (index + 1) * vectorsPerBatch);
      progress(`${done}/${missingVectors.length} vectors`, (0.8 * done) / missingVectors.length);
    },
  );

  // Each file hash once, with every masked path the store lacks for it.
  const byHash = new Map<string, FileRecord>();
  let skippedFiles = 0;
  for (const pair of missingPairs) {
    if (pair.chunks.some((chunk) => unavailable.has(chunk.textHash))) {
      skippedFiles++;
      continue;
    }
    let record = byHash.get(pair.fileHash);
    if (!record)
      byHash.set(
        pair.fileHash,
        (record = {
          fileHash: pair.fileHash,
          maskedPaths: [],
          chunks: pair.chunks.map((chunk) => ({
            startLine: chunk.startLine,
            endLine: chunk.endLine,
            startByte: chunk.startByte,
            endByte: chunk.endByte,
            chunkHash: chunk.textHash,
          })),
        }),
      );
    if (!record.maskedPaths.includes(pair.maskedPath)) record.maskedPaths.push(pair.maskedPath);
  }
  const records = [...byHash.values()];
  let uploadedFiles = 0;
  // Only now: every vector a record names is in the store (the foreign key checks it).
  await oneAhead(
    Math.ceil(records.length / filesPerBatch),
    (index) => {
      const batch = records.slice(index * filesPerBatch, (index + 1) * filesPerBatch);
      bytesSent += batch.reduce(
        (sum, record) => sum + 36 + record.chunks.length * 56 + record.maskedPaths.reduce((bytes, masked) => bytes + masked.length + 4, 0),
        0,
      );
      return store.putFiles(team, model, batch);
    },
    (index, inserted) => {
      uploadedFiles += inserted;
      const done = Math.min(records.length, (index + 1) * filesPerBatch);
      progress(`${done}/${records.length} files' records`, 0.8 + (0.2 * done) / records.length);
    },
  );

  const chunkCount = files.reduce((sum, file) => sum + file.chunks.length, 0);
  const complete = skippedFiles === 0 && stale === 0;
  const snapshot = await store.putSnapshot(team, model, { merkleRoot: input.merkleRoot, simhash, fileCount: input.fileHashes.length, chunkCount, complete });
  return {
    ...summary,
    files: files.length,
    upToDate: false,
    uploaded: { vectors, files: uploadedFiles, paths: missingPairs.length - skippedFiles },
    skippedFiles,
    snapshot: { ...snapshot, merkleRoot: input.merkleRoot, simhash },
    bytesSent,
    ms: Math.round(performance.now() - started),
  };
}

/**
 * Runs `count` store calls in order, each made (`make`: reading and encoding its batch, this
 * thread's work) while the one before is in the store, so neither side waits on the other; at
 * most one call is in the store and one queued behind it (one connection runs them in order). A
 * failed call stops the run; one already queued still runs, as its own transaction.
 */
async function oneAhead(count: number, make: (index: number) => Promise<number> | undefined, done: (index: number, result: number) => void): Promise<void> {
  let previous: { index: number; call: Promise<number> } | undefined;
  for (let index = 0; index < count; index++) {
    const call = make(index);
    // Awaited below, or, if an earlier call fails first, left to end on its own.
    call?.catch(() => undefined);
    if (previous) done(previous.index, await previous.call);
    previous = call ? { index, call } : undefined;
  }
  if (previous) done(previous.index, await previous.call);
}
