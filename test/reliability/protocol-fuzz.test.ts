// A hostile client, seeded: over stdio and over the socket, at least 10,000 frames each of wrong-typed
// params for every documented method, bodies that are not JSON, messages that are not requests,
// garbage, truncated and unterminated headers, wrong and absurd Content-Lengths. The daemon never
// crashes, writes only well-formed frames, answers every request it could read exactly once (never
// with InternalError), writes nothing outside the workspace, and still answers fathom/status. With
// oversized frames from three clients its memory stays under 600 MB, and while a client streams
// garbage headers another one is still answered.
import assert from 'node:assert/strict';
import { after, test, type TestContext } from 'node:test';
import { sleep } from '../helpers/fixture.js';
import {
  breakerKinds,
  documentedMethods,
  FrameFactory,
  FuzzLedger,
  methodFields,
  prepareFuzzCwd,
  writeFuzzFixture,
  writesInCwd,
  writesOutside,
  type BreakerKind,
  type FuzzFrame,
} from '../helpers/protocol-fuzz.js';
import { runSeed, SeededRandom } from '../helpers/seeded-random.js';
import { cleanupReliability, idle, medianMax, scratchDir, startDaemon, type DaemonHandle, type StrictClient } from '../helpers/strict-client.js';

const seed = runSeed(20_261_202);
const fixture = writeFuzzFixture(scratchDir('fathom-rel-fuzz-'));
const framesPerTransport = 10_000;
const memoryCeilingMb = 600;
const answerBoundMs = 2_000;

after(cleanupReliability);

/** Waits until `remaining()` is 0, or has not dropped for `quietMs`, or `timeoutMs` passed. */
async function waitForAnswers(remaining: () => number, done: () => boolean, quietMs: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = remaining();
  let lastChange = Date.now();
  while (remaining() > 0 && !done() && Date.now() < deadline && Date.now() - lastChange < quietMs) {
    await sleep(50);
    if (remaining() !== last) {
      last = remaining();
      lastChange = Date.now();
    }
  }
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

async function sendFrame(client: StrictClient, fuzzed: FuzzFrame): Promise<boolean> {
  for (const bytes of fuzzed.writes) {
    if (!(await writeWithin(client, bytes, 30_000))) return false;
    // A frame split across writes arrives in pieces only if the pieces do not share a write.
    if (fuzzed.kind === 'split') await new Promise((resolve) => setImmediate(resolve));
  }
  return true;
}

/** A write that gives up after `ms` (a daemon that stopped reading must not stall the test). */
function writeWithin(client: StrictClient, bytes: string | Buffer, ms: number): Promise<boolean> {
  return Promise.race([client.write(bytes), idle(Math.max(0, ms)).then(() => false)]);
}

function describeExit(daemon: DaemonHandle): string {
  return daemon.exit ? `code ${daemon.exit.code} signal ${daemon.exit.signal}` : 'running';
}

function report(t: TestContext, name: string, ledger: FuzzLedger, extra: Record<string, unknown>): void {
  t.diagnostic(
    `${name}: seed ${seed}, ${ledger.framesSent} frames sent; by kind ${JSON.stringify(Object.fromEntries(ledger.byKind))}; answers by code ${JSON.stringify(Object.fromEntries(ledger.byCode))}; ${JSON.stringify(extra)}`,
  );
}

test('the fuzzer has params for every method docs/protocol.md documents', () => {
  const fields = methodFields(fixture);
  assert.deepEqual(
    documentedMethods().filter((method) => !(method in fields)),
    [],
    'add the new methods to methodFields in test/helpers/protocol-fuzz.ts',
  );
});

interface BreakerOutcome {
  session: number;
  kind: BreakerKind;
  ok: boolean;
  outcome: string;
}

const stdioLedger = new FuzzLedger();
/** Requests (with a valid id, in a well-framed stream) not answered before 5 s passed with no answer at all (over stdio, nor later in the session). */
const stdioUnanswered: string[] = [];
const socketUnanswered: string[] = [];
const stdioOutcomes: BreakerOutcome[] = [];

/** After a frame that breaks the framing: the daemon serves on (answers a status) or exits by itself with `allowed`; it never crashes or hangs. */
async function breakerOutcome(daemon: DaemonHandle, client: StrictClient, kind: BreakerKind): Promise<{ ok: boolean; outcome: string }> {
  const ending = kind === 'exit' || kind === 'shutdown-exit' || kind === 'stop';
  const midFrame = kind === 'oversized' || kind === 'unterminated';
  const allowed = kind === 'exit' ? 1 : 0;
  let outcome: string;
  let ok: boolean;
  if (ending) {
    const exited = await Promise.race([daemon.exited, idle(10_000).then(() => undefined)]);
    ok = exited !== undefined && exited.code === allowed && exited.signal === null;
    outcome = exited ? `exited by itself: ${describeExit(daemon)}` : 'did not exit within 10 s';
  } else {
    let answered = false;
    if (!midFrame) {
      // Up to 5 s: the frame may be read only after the session's backlog of requests is answered.
      for (let attempt = 0; attempt < 5 && !answered && !daemon.exit; attempt++) {
        answered = await client.request('fathom/status', {}, 1_000).then(
          () => true,
          () => false,
        );
      }
    } else await sleep(300);
    // A daemon that did not answer may be on its way out: a stdio daemon whose framing broke answers
    // what it read before the break (up to drainMs), then exits by itself within a second more; on
    // a loaded machine (three daemons at once, CI) that can come after the 5 s of probes (stop 56's
    // CI: exit code 0 just after them). Deaf means not gone 10 s after the probes either. A daemon
    // that closed its output is on its way out too (its exit event comes a few ms after the close).
    if ((client.closed || (!answered && !midFrame)) && !daemon.exit) await Promise.race([daemon.exited, idle(10_000)]);
    const exitedEarly = daemon.exit !== undefined;
    daemon.child.stdin!.end();
    const exited = await Promise.race([daemon.exited, idle(10_000).then(() => undefined)]);
    const cleanExit = exited !== undefined && exited.code === allowed && exited.signal === null;
    if (exitedEarly) {
      ok = cleanExit;
      outcome = `exited by itself: ${describeExit(daemon)}`;
    } else if (answered) {
      ok = cleanExit;
      outcome = `served on (status answered); after stdin closed: ${exited ? describeExit(daemon) : 'no exit within 10 s'}`;
    } else if (midFrame) {
      ok = cleanExit;
      outcome = `waited for the rest of the frame; after stdin closed: ${exited ? describeExit(daemon) : 'no exit within 10 s'}`;
    } else {
      ok = false;
      outcome = `neither answered a status within 5 s nor exited within 10 s more (alive and deaf); after stdin closed: ${exited ? describeExit(daemon) : 'no exit within 10 s'}`;
    }
  }
  if (!daemon.exit) await daemon.kill();
  return { ok, outcome };
}

/** One stdio session: well-framed hostile frames, then the session's frame that breaks the framing. */
async function stdioSession(session: number, frames: number, failures: string[]): Promise<FrameFactory> {
  const label = `stdio session ${session}`;
  const factory = new FrameFactory(new SeededRandom(seed * 31 + session), fixture, `stdio${session}`);
  const daemon = await startDaemon({ transport: 'stdio', label, log: 'error', keep: false, prepareCwd: prepareFuzzCwd });
  const client = daemon.stdio!;
  const ledger = new FuzzLedger();
  client.onMessage((message) => ledger.observe(message, label));
  for (let index = 0; index < frames && !daemon.exit; index++) {
    const fuzzed = factory.inSync();
    ledger.count(fuzzed);
    if (!(await sendFrame(client, fuzzed))) break;
  }
  // Answers still coming in while the session goes on (status, the breaker) count: what is missing is judged at its end.
  await waitForAnswers(
    () => ledger.unanswered().length,
    () => daemon.exit !== undefined || client.closed,
    5_000,
    60_000,
  );
  ledger.dropUnanswered();
  if (daemon.exit) failures.push(`${label}: the daemon exited during well-framed frames (${describeExit(daemon)}): ${daemon.stderrTail()}`);
  else {
    const status = await client.request('fathom/status', { root: fixture.workspace }, 10_000).catch((error: Error) => error);
    if (status instanceof Error) failures.push(`${label}: no fathom/status after the well-framed frames: ${status.message}`);
    else if (status.error) failures.push(`${label}: fathom/status answered ${status.error.code} ${status.error.message}`);
  }
  const kind = breakerKinds[session]!;
  const breaker = factory.breaker(kind);
  ledger.count(breaker);
  const answeredAfter: string[] = [];
  const listening = client.onMessage((message) => {
    if (message.method === undefined && message.id === null) answeredAfter.push(String(message.error?.code));
  });
  if (!daemon.exit) await sendFrame(client, breaker);
  const outcome = await breakerOutcome(daemon, client, kind);
  listening.dispose();
  outcome.outcome = `${outcome.outcome}; answers with a null id after the frame: ${answeredAfter.length === 0 ? 'none' : answeredAfter.join(', ')}`;
  stdioOutcomes.push({ session, kind, ...outcome });
  stdioUnanswered.push(...ledger.neverAnswered().map((left) => `${label}: ${left}`));
  failures.push(...client.violations, ...writesInCwd(daemon.cwd).map((problem) => `${label}: ${problem}`));
  stdioLedger.absorb(ledger);
  return factory;
}

test(`stdio: ${framesPerTransport}+ hostile frames in sessions that each end with a frame breaking the framing`, { timeout: 300_000 }, async (t) => {
  const sessions = breakerKinds.length;
  const perSession = Math.ceil(framesPerTransport / sessions);
  const failures: string[] = [];
  const started = Date.now();
  const factories: FrameFactory[] = [];
  // Three daemons at a time: each session has its own seed, so the frames do not depend on the interleaving.
  for (let first = 0; first < sessions; first += 3) {
    const batch = Array.from({ length: Math.min(3, sessions - first) }, (_, offset) => stdioSession(first + offset, perSession, failures));
    factories.push(...(await Promise.all(batch)));
  }
  const perMethod = new Map<string, number>();
  for (const factory of factories) for (const [method, count] of factory.perMethod) perMethod.set(method, (perMethod.get(method) ?? 0) + count);
  report(t, 'stdio', stdioLedger, {
    sessions,
    seconds: Math.round((Date.now() - started) / 1000),
    methods: perMethod.size,
    fewestRequestsOfAMethod: Math.min(...perMethod.values()),
    lateAnswers: stdioLedger.lateAnswers,
  });
  failures.push(...writesOutside(fixture), ...stdioLedger.problems);
  assert.ok(stdioLedger.framesSent >= framesPerTransport, `${stdioLedger.framesSent} frames`);
  assert.deepEqual(failures.slice(0, 30), [], `seed ${seed}: ${failures.length} problems`);
});

test('stdio: after each frame that breaks the framing the daemon serves on or exits cleanly; it never crashes or goes deaf', (t) => {
  assert.equal(stdioOutcomes.length, breakerKinds.length, 'every session ran');
  for (const outcome of stdioOutcomes) t.diagnostic(`${outcome.kind}: ${outcome.outcome}`);
  assert.deepEqual(
    stdioOutcomes.filter((outcome) => !outcome.ok).map((outcome) => `${outcome.kind}: ${outcome.outcome}`),
    [],
    `seed ${seed}`,
  );
});

test('stdio: every request the daemon could read is answered exactly once', () => {
  assert.ok(stdioLedger.framesSent > 0, 'the stdio fuzz ran');
  assert.deepEqual(stdioUnanswered.slice(0, 20), [], `seed ${seed}: ${stdioUnanswered.length} requests never answered`);
});

test('stdio: every answer carries a documented code, never InternalError', () => {
  assert.ok(stdioLedger.framesSent > 0, 'the stdio fuzz ran');
  assert.deepEqual(
    [...stdioLedger.internalErrors.slice(0, 20), ...stdioLedger.undocumentedCodes.slice(0, 10)],
    [],
    `seed ${seed}: ${stdioLedger.internalErrors.length} InternalError answers, ${stdioLedger.undocumentedCodes.length} undocumented codes`,
  );
});

const socketLedger = new FuzzLedger();

test(
  `socket: ${framesPerTransport}+ hostile frames over two connections at a time; another client's status is answered throughout`,
  { timeout: 300_000 },
  async (t) => {
    const daemon = await startDaemon({ transport: 'socket', label: 'socket fuzz daemon', log: 'error', prepareCwd: prepareFuzzCwd });
    const monitor = (await daemon.connect('monitor')).client;
    await monitor.result('fathom/index', { root: fixture.workspace });
    const failures: string[] = [];
    const latencies: number[] = [];
    let sent = 0;
    let connections = 0;
    let done = false;
    /** What the hostile lanes sent lately: named when the monitor's status is late. */
    const recent: { at: number; what: string }[] = [];
    const lately = (): string => {
      const since = Date.now() - answerBoundMs - 500;
      const counts = new Map<string, number>();
      for (const entry of recent) if (entry.at >= since) counts.set(entry.what, (counts.get(entry.what) ?? 0) + 1);
      return [...counts]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 6)
        .map(([what, count]) => `${what}×${count}`)
        .join(', ');
    };
    const started = Date.now();
    const socketBreakers = breakerKinds.filter((kind) => kind !== 'stop');
    const lane = async (laneIndex: number): Promise<void> => {
      const random = new SeededRandom(seed + 1 + laneIndex);
      const factory = new FrameFactory(random, fixture, `sock${laneIndex}`);
      while (sent < framesPerTransport && !daemon.exit) {
        const label = `hostile connection ${laneIndex}.${connections++}`;
        const { client, socket } = await daemon.connect(label, { keep: false });
        const ledger = new FuzzLedger();
        client.onMessage((message) => ledger.observe(message, label));
        const count = random.between(20, 700);
        for (let index = 0; index < count && sent < framesPerTransport && !client.closed; index++) {
          const fuzzed = factory.inSync();
          ledger.count(fuzzed);
          sent++;
          recent.push({ at: Date.now(), what: fuzzed.method ?? fuzzed.kind });
          if (recent.length > 4_000) recent.splice(0, 2_000);
          if (!(await sendFrame(client, fuzzed))) break;
        }
        if (random.chance(0.6)) {
          const breaker = factory.breaker(random.pick(socketBreakers), 4 << 20);
          ledger.count(breaker);
          sent++;
          await sendFrame(client, breaker);
          await waitUntil(() => client.closed, 200);
          ledger.dropUnanswered();
        } else {
          await waitForAnswers(
            () => ledger.unanswered().length,
            () => client.closed || daemon.exit !== undefined,
            5_000,
            60_000,
          );
          socketUnanswered.push(...ledger.dropUnanswered().map((left) => `${label}: ${left}`));
        }
        socket.destroy();
        failures.push(...client.violations);
        socketLedger.absorb(ledger);
      }
    };
    const watch = async (): Promise<void> => {
      while (!done && !daemon.exit) {
        const begun = performance.now();
        const answer = await monitor.request('fathom/status', {}, answerBoundMs).catch((error: Error) => error);
        if (answer instanceof Error) failures.push(`monitor: ${answer.message} (${sent} frames in; sent in the ${answerBoundMs + 500} ms before: ${lately()})`);
        else latencies.push(performance.now() - begun);
        await sleep(250);
      }
    };
    const watching = watch();
    await Promise.all([lane(0), lane(1)]);
    done = true;
    await watching;
    if (daemon.exit) failures.push(`the daemon exited (${describeExit(daemon)}): ${daemon.stderrTail()}`);
    else {
      const status = await monitor.request('fathom/status', { root: fixture.workspace }, 10_000).catch((error: Error) => error);
      if (status instanceof Error || status.error)
        failures.push(`no normal fathom/status after the fuzz: ${status instanceof Error ? status.message : status.error!.message}`);
    }
    failures.push(...monitor.violations, ...writesOutside(fixture), ...writesInCwd(daemon.cwd), ...socketLedger.problems);
    const { median, max } = medianMax(latencies);
    report(t, 'socket', socketLedger, {
      lateAnswers: socketLedger.lateAnswers,
      connections,
      seconds: Math.round((Date.now() - started) / 1000),
      statusChecks: latencies.length,
      statusMedianMs: Math.round(median),
      statusMaxMs: Math.round(max),
    });
    assert.ok(socketLedger.framesSent >= framesPerTransport, `${socketLedger.framesSent} frames`);
    assert.deepEqual(failures.slice(0, 30), [], `seed ${seed}: ${failures.length} problems`);
  },
);

test('socket: every request on a connection that stayed framed is answered exactly once', () => {
  assert.ok(socketLedger.framesSent > 0, 'the socket fuzz ran');
  assert.deepEqual(socketUnanswered.slice(0, 20), [], `seed ${seed}: ${socketUnanswered.length} requests never answered`);
});

test('socket: every answer carries a documented code, never InternalError', () => {
  assert.ok(socketLedger.framesSent > 0, 'the socket fuzz ran');
  assert.deepEqual(
    [...socketLedger.internalErrors.slice(0, 20), ...socketLedger.undocumentedCodes.slice(0, 10)],
    [],
    `seed ${seed}: ${socketLedger.internalErrors.length} InternalError answers, ${socketLedger.undocumentedCodes.length} undocumented codes`,
  );
});

/** Answers fathom/status on `client` every `everyMs` until `stop()`; the latencies, and the requests not answered in time. */
function pollStatus(client: StrictClient, everyMs: number): { stop: () => Promise<{ latencies: number[]; missed: string[] }> } {
  const latencies: number[] = [];
  const missed: string[] = [];
  let stopped = false;
  const running = (async () => {
    while (!stopped) {
      const begun = performance.now();
      const answer = await client.request('fathom/status', {}, answerBoundMs).catch((error: Error) => error);
      if (answer instanceof Error) missed.push(answer.message);
      else latencies.push(performance.now() - begun);
      await sleep(everyMs);
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await running;
      return { latencies, missed };
    },
  };
}

test(
  `socket: three clients streaming oversized frames (Content-Length: 99999999999): the daemon's RSS stays ≤ ${memoryCeilingMb} MB and another client is answered`,
  { timeout: 120_000 },
  async (t) => {
    const daemon = await startDaemon({ transport: 'socket', label: 'oversized-frame daemon' });
    const monitor = (await daemon.connect('monitor')).client;
    await monitor.result('fathom/index', { root: fixture.workspace });
    const baseline = daemon.rssMb() ?? 0;
    let maxRss = baseline;
    const sampler = setInterval(() => (maxRss = Math.max(maxRss, daemon.rssMb() ?? 0)), 25);
    const polling = pollStatus(monitor, 100);
    const perClient = 256 << 20;
    const deadline = Date.now() + 30_000;
    const chunk = Buffer.alloc(1 << 20, 'a');
    const streamed = await Promise.all(
      [0, 1, 2].map(async (index) => {
        const { client, socket } = await daemon.connect(`oversized ${index}`, { keep: false });
        let sent = 0;
        if (await writeWithin(client, 'Content-Length: 99999999999\r\n\r\n{"jsonrpc":"2.0","id":1,"method":"fathom/status","params":{"root":"', 5_000)) {
          while (sent < perClient && Date.now() < deadline && (await writeWithin(client, chunk, deadline - Date.now()))) sent += chunk.length;
        }
        await sleep(500);
        maxRss = Math.max(maxRss, daemon.rssMb() ?? 0);
        socket.destroy();
        return { sent, closedByDaemon: client.closed, violations: client.violations };
      }),
    );
    const { latencies, missed } = await polling.stop();
    clearInterval(sampler);
    const { median, max } = medianMax(latencies);
    t.diagnostic(
      `oversized: baseline RSS ${Math.round(baseline)} MB, max RSS ${Math.round(maxRss)} MB; streamed MiB per client ${JSON.stringify(streamed.map((entry) => entry.sent >> 20))}; status checks ${latencies.length} (median ${Math.round(median)} ms, max ${Math.round(max)} ms, ${missed.length} not answered within ${answerBoundMs} ms)`,
    );
    assert.equal(daemon.exit, undefined, `the daemon died: ${daemon.stderrTail()}`);
    assert.deepEqual(
      streamed.flatMap((entry) => entry.violations),
      [],
    );
    assert.ok(
      maxRss <= memoryCeilingMb,
      `the daemon's RSS reached ${Math.round(maxRss)} MB (ceiling ${memoryCeilingMb} MB) while 3 clients streamed ${streamed.reduce((sum, entry) => sum + entry.sent, 0) >> 20} MiB of oversized frames`,
    );
    assert.deepEqual(missed.slice(0, 5), [], `${missed.length} of ${missed.length + latencies.length} status requests unanswered within ${answerBoundMs} ms`);
  },
);

test("socket: while a hostile client streams garbage headers, another client's fathom/status is answered", { timeout: 120_000 }, async (t) => {
  const daemon = await startDaemon({ transport: 'socket', label: 'garbage-header daemon' });
  const monitor = (await daemon.connect('monitor')).client;
  await monitor.result('fathom/index', { root: fixture.workspace });
  const random = new SeededRandom(seed + 7);
  // Two shapes of garbage, 1 MiB each: many header lines that never end the header, and one line that never ends.
  const lines = Buffer.alloc(1 << 20);
  let filled = 0;
  while (filled < lines.length) filled += lines.write(`X-Garbage-${random.int(1e6)}: ${'g'.repeat(random.between(10, 1_000))}\r\n`, filled);
  const oneLine = Buffer.alloc(1 << 20, 'h');
  const polling = pollStatus(monitor, 100);
  let streamed = 0;
  let connections = 0;
  let closedByDaemon = 0;
  const began = Date.now();
  const deadline = began + 8_000;
  // The daemon closes a connection whose header runs past 8 KiB: the hostile client comes back at
  // once, again and again, for the whole time the monitor asks.
  while (Date.now() < deadline && streamed < 256 << 20) {
    const { client: hostile, socket } = await daemon.connect('garbage streamer', { keep: false });
    connections += 1;
    if (await writeWithin(hostile, 'Content-Length: 5\r\nX-Start: ', 5_000)) {
      while (Date.now() < deadline && streamed < 256 << 20 && (await writeWithin(hostile, random.chance(0.5) ? lines : oneLine, deadline - Date.now())))
        streamed += 1 << 20;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (hostile.closed) closedByDaemon += 1;
    socket.destroy();
  }
  const streamingMs = Date.now() - began;
  const { latencies, missed } = await polling.stop();
  const hostile = { closed: closedByDaemon === connections };
  const { median, max } = medianMax(latencies);
  t.diagnostic(
    `garbage headers: ${streamed >> 20} MiB streamed in ${streamingMs} ms over ${connections} connections, ${closedByDaemon} closed by the daemon (every one: ${hostile.closed}); status latency median ${median.toFixed(1)} ms, max ${max.toFixed(1)} ms over ${latencies.length} answers (goal 100 ms); ${missed.length} not answered within ${answerBoundMs} ms`,
  );
  assert.equal(daemon.exit, undefined, `the daemon died: ${daemon.stderrTail()}`);
  assert.ok(latencies.length + missed.length >= 10, 'the monitor asked throughout');
  assert.deepEqual(
    missed.slice(0, 5),
    [],
    `${missed.length} of ${missed.length + latencies.length} status requests were not answered within ${answerBoundMs} ms`,
  );
});
