// Worker-thread body of the grep pool: verifies the candidates of one chunk after another
// (verify.ts) and sends the matching lines back in batches (match-batch.ts). It publishes the
// chunk and the index of the file it is on in shared memory, so the pool can tell which file a
// runaway regex is stuck in, stop this thread, and go on without that file.
import { parentPort, workerData } from 'node:worker_threads';
import { ContentDamaged } from './content-check.js';
import { MatchBatchWriter, type MatchBatch } from './match-batch.js';
import { verifyChunk, type GrepChunk } from './verify.js';

export type { GrepChunk, GrepFile, MatchSpec } from './verify.js';

/**
 * Results go back in batches (one message per file cost more than matching a few lines): `batch`
 * holds the files with matches; `upTo` is the chunk index every file before which has been
 * reported (files without matches included).
 */
export type GrepWorkerMessage =
  | { type: 'files'; id: number; batch: MatchBatch; upTo: number }
  | { type: 'damaged'; id: number; store: number; reason: string }
  | { type: 'done'; id: number };

/** A batch is sent once it holds this many matching lines, or is this old. */
const batchLines = 4_000;
const batchMs = 20;

/** Where the pool looks for the file this thread is on, and its chunk (see grep-pool.ts). */
const current = new Int32Array((workerData as { progress: SharedArrayBuffer } | null)?.progress ?? new SharedArrayBuffer(8));

const writer = new MatchBatchWriter();

parentPort?.on('message', (chunk: GrepChunk) => {
  Atomics.store(current, 0, -1);
  Atomics.store(current, 1, chunk.id);
  let batchStarted = performance.now();
  const send = (upTo: number): void => {
    const { batch, transfer } = writer.take();
    parentPort!.postMessage({ type: 'files', id: chunk.id, batch, upTo } satisfies GrepWorkerMessage, transfer);
    batchStarted = performance.now();
  };
  try {
    verifyChunk(chunk, writer, (index) => {
      // Before a file that may get stuck, what is done is reported (the pool then retries only the rest).
      if (writer.lines >= batchLines || performance.now() - batchStarted > batchMs) send(index);
      Atomics.store(current, 0, index);
    });
  } catch (error) {
    if (!(error instanceof ContentDamaged)) throw error;
    // The search is done again from the files on disk: what this chunk found is dropped.
    Atomics.store(current, 0, -1);
    writer.take();
    parentPort!.postMessage({ type: 'damaged', id: chunk.id, store: error.store, reason: error.message } satisfies GrepWorkerMessage);
    parentPort!.postMessage({ type: 'done', id: chunk.id } satisfies GrepWorkerMessage);
    return;
  }
  Atomics.store(current, 0, -1);
  if (!writer.empty) send(chunk.files.length);
  parentPort!.postMessage({ type: 'done', id: chunk.id } satisfies GrepWorkerMessage);
});
