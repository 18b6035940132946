// WorkerPool: jobs with an affinity go to the worker whose slot it names when that worker is free,
// and stay with the worker that took one while its own was busy; jobs without one are taken in
// order by any worker. With a depth of 2, a busy worker is sent its next job ahead; when it dies,
// only the job it was running fails. Idle, the workers beyond the first stop first.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkerPool } from '../../src/base/worker-pool.js';

interface Job {
  id: number;
  delayMs?: number;
  exit?: boolean;
  retire?: boolean;
}
interface Reply {
  id: number;
  threadId: number;
}

const script = new URL('../helpers/thread-worker.js', import.meta.url);

test('jobs of one affinity land on one worker while it is free', async () => {
  const pool = new WorkerPool<Job, Reply>(script, 2, 'test');
  try {
    pool.warm();
    const threadsOf = new Map<number, Set<number>>();
    for (let round = 0; round < 20; round++) {
      // Both workers are idle: each takes the job that falls to its slot, whichever is queued first.
      const affinities = round % 2 === 0 ? [7, 10] : [10, 7];
      const replies = await Promise.all(affinities.map((affinity) => pool.run({}, affinity)));
      replies.forEach((reply, at) => {
        const affinity = affinities[at]!;
        if (!threadsOf.has(affinity)) threadsOf.set(affinity, new Set());
        threadsOf.get(affinity)!.add(reply.threadId);
      });
    }
    assert.equal(threadsOf.get(7)!.size, 1, 'affinity 7 always on one thread');
    assert.equal(threadsOf.get(10)!.size, 1, 'affinity 10 always on one thread');
    assert.notDeepEqual([...threadsOf.get(7)!], [...threadsOf.get(10)!], 'the two affinities fall to different slots');
  } finally {
    pool.close();
  }
});

test('a lone job goes to the idle worker of its slot, not to the last idle one', async () => {
  const pool = new WorkerPool<Job, Reply>(script, 2, 'test');
  try {
    // Both workers started and idle.
    await Promise.all([pool.run({}, 0), pool.run({}, 1)]);
    // One job at a time, affinities taking turns: the last worker to finish is not always the one.
    const threads = new Map<number, Set<number>>([
      [5, new Set()],
      [6, new Set()],
    ]);
    for (let round = 0; round < 10; round++) {
      for (const affinity of [5, 6]) threads.get(affinity)!.add((await pool.run({}, affinity)).threadId);
    }
    assert.equal(threads.get(5)!.size, 1);
    assert.equal(threads.get(6)!.size, 1);
    assert.notDeepEqual([...threads.get(5)!], [...threads.get(6)!]);
  } finally {
    pool.close();
  }
});

test('a job taken by another worker while its own was busy stays with that worker', async () => {
  const pool = new WorkerPool<Job, Reply>(script, 2, 'test');
  try {
    // Both started; affinities 0 and 1 fall to different workers.
    const [first, second] = await Promise.all([pool.run({}, 0), pool.run({}, 1)]);
    assert.notEqual(first!.threadId, second!.threadId);
    // Affinity 0's worker is busy for a while: the other worker takes affinity 0's job.
    const slow = pool.run({ delayMs: 300 }, 0);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const stolen = await pool.run({}, 0);
    assert.equal(stolen.threadId, second!.threadId, 'taken by the idle worker');
    assert.equal((await slow).threadId, first!.threadId);
    // Both idle again: affinity 0 now goes to the worker that took it last (what it kept is there).
    for (let round = 0; round < 5; round++) assert.equal((await pool.run({}, 0)).threadId, second!.threadId);
  } finally {
    pool.close();
  }
});

test('jobs without an affinity are all answered, in any worker', async () => {
  const pool = new WorkerPool<Job, Reply>(script, 2, 'test');
  try {
    const replies = await Promise.all(Array.from({ length: 50 }, () => pool.run({})));
    assert.equal(new Set(replies.map((reply) => reply.id)).size, 50);
  } finally {
    pool.close();
  }
});

test('with a depth of 2, jobs are sent ahead to busy workers and all answered', async () => {
  const pool = new WorkerPool<Job, Reply>(script, 2, 'test', { depth: 2 });
  try {
    const replies = await Promise.all(Array.from({ length: 60 }, (_, index) => pool.run({ delayMs: index % 7 === 0 ? 20 : 0 }, index % 5)));
    assert.equal(new Set(replies.map((reply) => reply.id)).size, 60);
    assert.equal(new Set(replies.map((reply) => reply.threadId)).size, 2, 'both workers took jobs');
  } finally {
    pool.close();
  }
});

test('with a depth of 2, a worker that dies fails the job it ran; the one sent ahead is answered elsewhere', async () => {
  const pool = new WorkerPool<Job, Reply>(script, 1, 'test', { depth: 2 });
  try {
    // One worker: the second job waits in the dying worker's queue when it exits.
    const dying = pool.run({ delayMs: 50, exit: true });
    const ahead = pool.run({});
    await assert.rejects(dying, /test worker exited with code 3/);
    let timer: NodeJS.Timeout | undefined;
    const lost = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('the job sent ahead was lost')), 10_000)));
    const answered = await Promise.race([ahead, lost]).finally(() => clearTimeout(timer));
    assert.ok(answered.threadId > 0, 'answered by the replacement worker');
    // The pool goes on.
    assert.equal((await Promise.all([pool.run({}), pool.run({})])).length, 2);
  } finally {
    pool.close();
  }
});

test('with a depth of 2, a worker that asks to retire answers the job sent ahead, then is replaced', async () => {
  const pool = new WorkerPool<Job, Reply>(script, 1, 'test', { depth: 2 });
  try {
    const [retiring, ahead] = await Promise.all([pool.run({ delayMs: 30, retire: true }), pool.run({})]);
    assert.equal(ahead!.threadId, retiring!.threadId, 'the job sent ahead was answered by the retiring worker');
    const next = await pool.run({});
    assert.notEqual(next.threadId, retiring!.threadId, 'a fresh worker took the next job');
  } finally {
    pool.close();
  }
});

test('after a short idle the workers beyond the first stop; the first stays until the long one', async () => {
  const pool = new WorkerPool<Job, Reply>(script, 2, 'test', { idleMs: 60_000, spareIdleMs: 100 });
  try {
    const busy = () => Promise.all([pool.run({ delayMs: 50 }), pool.run({ delayMs: 50 })]);
    const before = new Set((await busy()).map((reply) => reply.threadId));
    assert.equal(before.size, 2, 'two workers ran the batch');
    await new Promise((resolve) => setTimeout(resolve, 400));
    const after = (await busy()).map((reply) => reply.threadId);
    assert.equal(after.filter((thread) => before.has(thread)).length, 1, 'one worker was kept, the other started again');
  } finally {
    pool.close();
  }
});

test('a pool given no shorter spare idle keeps every worker until the long one', async () => {
  const pool = new WorkerPool<Job, Reply>(script, 2, 'test', { idleMs: 60_000, spareIdleMs: 60_000 });
  try {
    const busy = () => Promise.all([pool.run({ delayMs: 50 }), pool.run({ delayMs: 50 })]);
    const before = new Set((await busy()).map((reply) => reply.threadId));
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.deepEqual(new Set((await busy()).map((reply) => reply.threadId)), before);
  } finally {
    pool.close();
  }
});
