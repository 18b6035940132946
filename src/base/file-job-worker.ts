// The message loop of a worker thread that answers jobs about one file each (the chunk, chunk
// terms and syntax pass workers): the file is read (unless the job brings its bytes), the worker's
// own function answers, and an error becomes the job's answer (its message and errno code). After
// a WebAssembly trap the worker answers (code 'trap', retiring) and exits, so that a grammar that
// crashed cannot poison later files (the pool starts a fresh worker); after a file over `retireAfterBytes` (default 2 MB)
// it asks to retire: WebAssembly memory only grows, and a parser's heap stays at its peak.
import fs from 'node:fs';
import { parentPort } from 'node:worker_threads';

export interface FileJob {
  id: number;
  /** Shown in answers; read when neither `bytes` nor `absolutePath` is given. */
  path: string;
  absolutePath?: string;
  bytes?: Uint8Array;
}

/** Answers each job posted to this worker with `answer(job, bytes)` (its fields join the reply's id). */
export function serveFileJobs<Job extends FileJob>(
  answer: (job: Job, bytes: Uint8Array) => Promise<object>,
  options: { retireAfterBytes?: number } = {},
): void {
  const retireAfterBytes = options.retireAfterBytes ?? 2_000_000;
  parentPort!.on('message', (job: Job) => {
    void (async () => {
      let reply: { id: number; retire?: boolean } & Record<string, unknown>;
      let trapped = false;
      let size = 0;
      try {
        const bytes = job.bytes ?? fs.readFileSync(job.absolutePath ?? job.path);
        size = bytes.length;
        reply = { id: job.id, ...(await answer(job, bytes)) };
      } catch (error) {
        trapped = error instanceof Error && error.constructor.name === 'RuntimeError'; // a WebAssembly trap
        const code = (error as NodeJS.ErrnoException).code;
        reply = { id: job.id, error: error instanceof Error ? error.message : String(error), ...(code ? { code } : {}) };
      }
      if (size > retireAfterBytes) reply.retire = true;
      // A trap is said as such (code 'trap': the pool may run the job again elsewhere) and this
      // worker takes no other job (it exits).
      if (trapped) Object.assign(reply, { code: 'trap', retire: true });
      parentPort!.postMessage(reply);
      if (trapped) process.exit(1);
    })();
  });
}
