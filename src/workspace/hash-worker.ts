// Worker-thread body of the hash pool: reads and judges the files it is sent, so hashing a large
// tree uses every core while the main thread keeps walking and answering requests.
import { parentPort } from 'node:worker_threads';
import { readAndJudgeSync, type ContentVerdict } from './file-content.js';

export interface HashJob {
  id: number;
  paths: string[];
  maxFileBytes: number;
}

export interface HashReply {
  id: number;
  verdicts: ContentVerdict[];
}

parentPort?.on('message', (job: HashJob) => {
  const verdicts = job.paths.map((absolutePath) => readAndJudgeSync(absolutePath, job.maxFileBytes));
  parentPort!.postMessage({ id: job.id, verdicts } satisfies HashReply);
});
