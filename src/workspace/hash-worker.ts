// Worker-thread body of the hash pool: stats, and where needed reads and hashes, the files it is
// sent, so a scan uses every core while the main thread walks and answers requests.
import { parentPort } from 'node:worker_threads';
import { inspectFile, type FileCheck, type FileOutcome } from './file-content.js';

export interface HashJob {
  id: number;
  checks: FileCheck[];
  maxFileBytes: number;
}

export interface HashReply {
  id: number;
  outcomes: FileOutcome[];
}

parentPort?.on('message', (job: HashJob) => {
  const outcomes = job.checks.map((check) => inspectFile(check, job.maxFileBytes));
  parentPort!.postMessage({ id: job.id, outcomes } satisfies HashReply);
});
