// Worker-thread body of the grep pool: verifies the candidates of one chunk (verify.ts) and sends
// the matching lines back in batches. It publishes the index of the file it is on in shared
// memory, so the pool can tell which file a runaway regex is stuck in, stop this thread, and go on
// without that file.
import { parentPort, workerData } from 'node:worker_threads';
import { packMatches, type FileMatches, type MatchBatch } from './match-batch.js';
import { verifyChunk, type GrepChunk } from './verify.js';

export type { GrepChunk, GrepFile, MatchSpec } from './verify.js';

/**
 * Results go back in batches (one message per file cost more than matching a few lines): `batch`
 * holds the files with matches (match-batch.ts); `upTo` is the chunk index every file before which
 * has been reported (files without matches included).
 */
export type GrepWorkerMessage = { type: 'files'; id: number; batch: MatchBatch; upTo: number } | { type: 'done'; id: number };

/** A batch is sent once it holds this many matching lines, or is this old. */
const batchLines = 4_000;
const batchMs = 20;

/** Where the pool looks for the file this thread is on (see grep-pool.ts). */
const current = new Int32Array((workerData as { progress: SharedArrayBuffer } | null)?.progress ?? new SharedArrayBuffer(4));

parentPort?.on('message', (chunk: GrepChunk) => {
  let batch: FileMatches[] = [];
  let batchLineCount = 0;
  let batchStarted = performance.now();
  const send = (upTo: number): void => {
    parentPort!.postMessage({ type: 'files', id: chunk.id, batch: packMatches(batch), upTo } satisfies GrepWorkerMessage);
    batch = [];
    batchLineCount = 0;
    batchStarted = performance.now();
  };
  verifyChunk(chunk, {
    before: (index) => {
      // Before a file that may get stuck, what is done is reported (the pool then retries only the rest).
      if (batchLineCount >= batchLines || performance.now() - batchStarted > batchMs) send(index);
      Atomics.store(current, 0, index);
    },
    found: (index, matches, count) => {
      batch.push([index, matches, count]);
      batchLineCount += matches.length;
    },
  });
  Atomics.store(current, 0, -1);
  if (batch.length > 0) send(chunk.files.length);
  parentPort!.postMessage({ type: 'done', id: chunk.id } satisfies GrepWorkerMessage);
});
