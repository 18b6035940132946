// Worker for test/base/worker-pool.test.ts: answers each job with its id and this thread's id, after
// `delayMs` when given (asking to retire when the job says `retire`); a job with `exit` ends the
// thread instead. (The test runner also runs every file under dist/test/ as a test: outside
// a worker it does nothing.)
import { parentPort, threadId } from 'node:worker_threads';

parentPort?.on('message', (job: { id: number; delayMs?: number; exit?: boolean; retire?: boolean }) => {
  if (job.exit) process.exit(3);
  if (job.delayMs) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, job.delayMs);
  parentPort!.postMessage({ id: job.id, threadId, ...(job.retire ? { retire: true } : {}) });
});
