// Worker-thread body of the hash pool: stats, and where needed reads and hashes, the files it is
// sent, so a scan uses every core while the main thread walks and answers requests. A stat job
// (a restart's or a reconcile's known files) only compares each file's lstat with what is known
// and answers one byte a file: the main thread then lists folders and nothing else.
import { parentPort } from 'node:worker_threads';
import { inspectFile, statSame, type FileCheck, type FileOutcome } from './file-content.js';

export interface InspectJob {
  id: number;
  checks: FileCheck[];
  maxFileBytes: number;
}

/** Files known by (size, mtime, inode): `paths` joined by NUL, `known` three numbers a file. */
export interface StatJob {
  id: number;
  paths: string;
  known: Float64Array;
}

export type HashJob = InspectJob | StatJob;

export interface HashReply {
  id: number;
  outcomes?: FileOutcome[];
  /** A stat job's answer: 1 where the file is a regular file with the known (size, mtime, inode), else 0. */
  same?: Uint8Array;
}

parentPort?.on('message', (job: HashJob) => {
  if ('paths' in job) {
    const same = statSame(job.paths, job.known);
    parentPort!.postMessage({ id: job.id, same } satisfies HashReply, [same.buffer as ArrayBuffer]);
    return;
  }
  const outcomes = job.checks.map((check) => inspectFile(check, job.maxFileBytes));
  parentPort!.postMessage({ id: job.id, outcomes } satisfies HashReply);
});
