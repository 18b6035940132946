// Benchmark of the daemon under hostile clients, over its real socket, holding Django (issue 36
// item 7). Goals: daemon RSS <= 600 MB; another client's `fathom/status` <= 100 ms.
//
// A fresh daemon (its own socket and cache folder under a temp folder) indexes the workspace
// (fathom/index, then a grep, a code search and a symbol search, so its RSS is a working
// daemon's); its status is timed alone for 2 s; then, all at once:
//   (a) three clients each announce `Content-Length: 99999999999` and stream 1 GiB into it in
//       64 KiB chunks, reconnecting whenever the daemon drops them;
//   (b) two fuzzer clients (seeded) send garbage: random bytes, headers that never end, bad or
//       contradictory Content-Length, bodies that are not JSON or not requests, requests of
//       read-only methods with wrong params, frames announced over the limit; reconnecting
//       whenever dropped;
//   (c) a well-behaved client asks `fathom/status` every 50 ms, each answer timed (on a thread
//       of its own, so that this process's busy loop does not count as the daemon's time).
// The daemon's RSS (/proc/PID/status VmRSS) is sampled every 100 ms, its peak (VmHWM, reset
// right before) read at the end, and its RSS 2 s and 5 s after the hostile clients left, then
// after a full GC (the daemon is started with a SIGUSR2 hook that runs one). Then:
// is it alive, and does a grep for a literal find what ripgrep finds (ripgrep told to skip what
// the file set skips)? Then (d), as before: three clients each send 4 requests just under the
// 64 MiB limit (read, parsed and answered: the most a client may make the daemon hold).
// Prints a table and one `BENCH_JSON` line. Asserts nothing; exits 1 when the daemon died.
//
// Usage: node dist/bench/hostile-client-bench.js [CLI_MAIN]
//   CLI_MAIN: the daemon to measure (default: this build's dist/src/cli/main.js); give another
//   build's to compare (a checkout of an older commit, built, with a node_modules link beside it).
//   FATHOM_BENCH_ROOT: the workspace the daemon holds (default $FATHOM_BENCH_DIR/django, made by
//   bench/corpora.sh; `none` for an empty daemon). FATHOM_BENCH_WORK=grep: indexed and grepped
//   only. FATHOM_BENCH_SEED: the fuzzers' seed (default 1). FATHOM_BENCH_SECONDS: the longest the
//   hostile phase runs (default 60); it ends once the three 1 GiB streams are sent, and the
//   fuzzers and the status client have run FATHOM_BENCH_MIN_SECONDS (default 20).
//   FATHOM_BENCH_AT_LIMIT=0 skips (d). FATHOM_BENCH_LANES: the hostile lanes run (default
//   `oversized,fuzz`; `oversized` or `fuzz` alone, to tell their costs apart).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { RawClient, streamRepeated } from '../test/helpers/raw-client.js';
import { SeededRandom } from '../test/helpers/seeded-random.js';

const mib = 1024 * 1024;
const mb = 1e6;

function procStatus(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** The RSS of the process and its descendants (language servers, should a request start one). */
function treeRss(pid: number): number {
  let total = procStatus(pid, 'VmRSS');
  let tasks: string[];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return total;
  }
  for (const task of tasks) {
    let children: string[] = [];
    try {
      children = fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    } catch {
      // the thread ended meanwhile
    }
    for (const child of children) total += treeRss(Number(child));
  }
  return total;
}

function percentile(values: number[], fraction: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

function summary(values: number[]): { count: number; p50: number; p99: number; max: number } {
  return { count: values.length, p50: percentile(values, 0.5), p99: percentile(values, 0.99), max: values.length ? Math.max(...values) : NaN };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function connect(socketPath: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** A request answered within `timeoutMs` (RawClient.result waits 20 s: a cold index of Django takes longer on 2 cores). */
async function call<T>(client: RawClient, method: string, params: unknown, timeoutMs = 600_000): Promise<T> {
  const id = client.newId();
  client.send({ id, method, params });
  const response = await client.waitFor((message) => message.id === id && !('method' in message), timeoutMs);
  if (response.error) throw new Error(`${method}: ${response.error.code} ${response.error.message}`);
  return response.result as T;
}

/** One hostile client: `opening` then `chunk` again and again, `total` bytes in all, over as many connections as it takes. */
async function hostile(socketPath: string, opening: string, chunk: Buffer, total: number, deadline: number): Promise<{ sent: number; connections: number }> {
  let sent = 0;
  let connections = 0;
  while (sent < total && Date.now() < deadline) {
    const socket = await connect(socketPath).catch(() => undefined);
    if (!socket) break; // the daemon is gone
    socket.on('error', () => undefined);
    socket.resume(); // the daemon's answers are not read
    connections += 1;
    socket.write(opening);
    sent += await streamRepeated(socket, chunk, total - sent);
    socket.destroy();
  }
  return { sent, connections };
}

/** A seeded generator (mulberry32), so that a run's garbage can be sent again. */
function random(seed: number): () => number {
  const source = new SeededRandom(seed);
  return () => source.next();
}

/** Read-only methods (none writes a file, starts a process, opens another root or stops the daemon), and some that do not exist. */
const fuzzMethods = [
  'fathom/status',
  'fathom/files',
  'fathom/grep',
  'fathom/symbols',
  'fathom/outline',
  'fathom/definition',
  'fathom/references',
  'fathom/callers',
  'fathom/merkle',
  'fathom/chunks',
  'fathom/structuralSearch',
  'fathom/codeSearch',
  'fathom/nope',
  '$/nope',
  'textDocument/didClose',
  'initialized',
];

/** Garbage frames: each a byte string to write as one piece, and whether the daemon may keep the connection after it. */
function fuzzFrames(next: () => number, root: string | undefined): () => { bytes: Buffer; kind: string } {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const int = (most: number): number => Math.floor(next() * (most + 1));
  const randomBytes = (count: number): Buffer => Buffer.from(Array.from({ length: count }, () => int(255)));
  const frame = (body: Buffer | string): Buffer => {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    return Buffer.concat([Buffer.from(`Content-Length: ${bytes.length}\r\n\r\n`, 'ascii'), bytes]);
  };
  // Never a real folder but the workspace's: a root the daemon can open would have it index that folder (the whole disk, for `/`).
  const junkRoot = (): unknown =>
    pick<unknown>([root, `${root ?? ''}/no such folder`, '/nonexistent/fathom-fuzz', '', 'relative/path', 42, null, [], {}, '\u0000']);
  const junkValue = (depth = 0): unknown =>
    pick<() => unknown>([
      () => null,
      () => int(1e9) - 5e8,
      () => next() * 1e300,
      () => 'x'.repeat(int(64)),
      () => pick(['', '..', '/', '/etc/passwd', '\u0000', '\ud800', '(?:a+)+$', '.*', '[', 'def get_', root ?? '/nowhere']),
      () => (depth < 3 ? Array.from({ length: int(4) }, () => junkValue(depth + 1)) : []),
      () =>
        depth < 3
          ? Object.fromEntries(
              Array.from({ length: int(4) }, () =>
                ((key: string) => [key, key === 'root' ? junkRoot() : junkValue(depth + 1)])(
                  pick(['root', 'pattern', 'query', 'path', 'line', 'uri', 'maxResults', 'glob', 'x']),
                ),
              ),
            )
          : {},
      () => true,
    ])();
  const params = (): unknown => {
    if (next() < 0.2) return pick<unknown>([null, 42, 'x', [junkRoot()], []]);
    const value: Record<string, unknown> = {};
    if (next() < 0.6) value.root = next() < 0.7 ? root : junkRoot();
    for (const key of ['pattern', 'query', 'path', 'line', 'character', 'maxResults', 'glob', 'languages', 'name']) if (next() < 0.3) value[key] = junkValue();
    // A real search now and then, kept small.
    if (typeof value.pattern === 'string' || typeof value.query === 'string') value.maxResults = 1 + int(20);
    return value;
  };
  const id = (): unknown => pick([int(1000), String(int(1000)), null, {}, [], 1.5, -1, 'x']);
  return () =>
    pick<() => { bytes: Buffer; kind: string }>([
      () => ({ kind: 'random bytes', bytes: randomBytes(1 + int(4096)) }),
      () => ({
        kind: 'header that never ends',
        bytes: Buffer.concat([Buffer.from(`Content-Length: ${int(100)}\r\nX-Padding: `), Buffer.alloc(int(64 * 1024), 0x61)]),
      }),
      () => ({
        kind: 'bad Content-Length',
        bytes: Buffer.from(
          `${pick(['Content-Length: -1', 'Content-Length: abc', 'Content-Length: 1e3', 'Content-Length: 1\r\nContent-Length: 2', 'Content-Type: x', 'Content-Length:', `Content-Length: ${'9'.repeat(40)}`])}\r\n\r\n{}`,
        ),
      }),
      () => ({
        kind: 'not JSON',
        bytes: frame(
          pick([randomBytes(int(2048)), Buffer.from('{"jsonrpc":"2.0","id":1,"method":"fathom/status","params":{'), Buffer.from('\xff\xfe{}', 'latin1')]),
        ),
      }),
      () => ({
        kind: 'not a request',
        bytes: frame(
          JSON.stringify(
            pick<unknown>([
              [{ jsonrpc: '2.0', id: 1, method: 'fathom/status' }],
              42,
              'x',
              null,
              { jsonrpc: '2.0' },
              { id: int(9), result: null },
              { method: 7 },
            ]),
          ),
        ),
      }),
      () => ({
        kind: 'wrong params',
        bytes: frame(JSON.stringify({ jsonrpc: '2.0', ...(next() < 0.8 ? { id: id() } : {}), method: pick(fuzzMethods), params: params() })),
      }),
      () => ({
        kind: 'wrong params',
        bytes: frame(JSON.stringify({ jsonrpc: '2.0', ...(next() < 0.8 ? { id: id() } : {}), method: pick(fuzzMethods), params: params() })),
      }),
      () => ({
        kind: 'wrong params',
        bytes: frame(JSON.stringify({ jsonrpc: '2.0', ...(next() < 0.8 ? { id: id() } : {}), method: pick(fuzzMethods), params: params() })),
      }),
      () => ({
        kind: 'over the limit',
        bytes: Buffer.concat([
          Buffer.from(`Content-Length: ${2 ** 40 + int(1e6)}\r\n\r\n{"jsonrpc":"2.0","id":${int(99)},"method":"fathom/grep","params":{"x":"`),
          Buffer.alloc(int(256 * 1024), 0x78),
        ]),
      }),
      () => ({
        kind: 'length too short',
        bytes: Buffer.from(`Content-Length: 5\r\n\r\n${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'fathom/status' })}`),
      }),
    ])();
}

/** One fuzzer client: garbage frames until `stop()`, over as many connections as it takes (at most 40 frames each). */
async function fuzzer(
  socketPath: string,
  seed: number,
  root: string | undefined,
  stop: () => boolean,
): Promise<{ frames: number; bytes: number; connections: number; answerBytes: number; kinds: Record<string, number> }> {
  const nextFrame = fuzzFrames(random(seed), root);
  const result = { frames: 0, bytes: 0, connections: 0, answerBytes: 0, kinds: {} as Record<string, number> };
  while (!stop()) {
    const socket = await connect(socketPath).catch(() => undefined);
    if (!socket) break; // the daemon is gone
    result.connections += 1;
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => (result.answerBytes += chunk.length));
    for (let count = 0; count < 40 && !socket.destroyed && !stop(); count++) {
      const { bytes, kind } = nextFrame();
      const ok = await new Promise<boolean>((resolve) => socket.write(bytes, (error) => resolve(!error)));
      if (!ok) break;
      result.frames += 1;
      result.bytes += bytes.length;
      result.kinds[kind] = (result.kinds[kind] ?? 0) + 1;
      // Let the daemon answer or close now and then, as a slow client would.
      if (count % 8 === 7) await sleep(1);
    }
    socket.destroy();
  }
  return result;
}

/**
 * The well-behaved client, on a thread of its own (its timings are the daemon's, not this
 * process's, whose own loop is busy writing garbage): `fathom/status` every `everyMs`, each timed
 * (a slow one delays the next, never overlaps it), until told to stop.
 */
const statusThread = `
const { parentPort, workerData } = require('node:worker_threads');
const net = require('node:net');
const { socketPath, params, everyMs } = workerData;
const latencies = [];
let failures = 0, stopping = false, buffer = Buffer.alloc(0), waiting, id = 0;
parentPort.on('message', () => (stopping = true));
const socket = net.connect(socketPath);
socket.on('error', () => undefined);
socket.on('close', () => { stopping = true; waiting?.(undefined); });
socket.on('data', (chunk) => {
  buffer = Buffer.concat([buffer, chunk]);
  for (;;) {
    const end = buffer.indexOf('\\r\\n\\r\\n');
    if (end < 0) return;
    const length = Number(/Content-Length: (\\d+)/i.exec(buffer.subarray(0, end).toString())[1]);
    if (buffer.length < end + 4 + length) return;
    const message = JSON.parse(buffer.subarray(end + 4, end + 4 + length).toString());
    buffer = buffer.subarray(end + 4 + length);
    if (message.id === id) waiting?.(message);
  }
});
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
socket.once('connect', async () => {
  let due = Date.now();
  while (!stopping) {
    id += 1;
    const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'fathom/status', params });
    const started = process.hrtime.bigint();
    const answer = await new Promise((resolve) => {
      waiting = resolve;
      socket.write('Content-Length: ' + Buffer.byteLength(body) + '\\r\\n\\r\\n' + body);
    });
    if (answer && answer.result) latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
    else failures += 1;
    due += everyMs;
    await sleep(Math.max(0, due - Date.now()));
    if (Date.now() > due + everyMs) due = Date.now();
  }
  socket.destroy();
  parentPort.postMessage({ latencies, failures });
});
`;

function statusEvery(socketPath: string, everyMs: number, params: Record<string, unknown>): { stop: () => Promise<{ latencies: number[]; failures: number }> } {
  const worker = new Worker(statusThread, { eval: true, workerData: { socketPath, params, everyMs } });
  const done = new Promise<{ latencies: number[]; failures: number }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    stop: async () => {
      worker.postMessage('stop');
      const result = await done;
      await worker.terminate();
      return result;
    },
  };
}

/** One client sending `count` fathom/status requests of `bytes` bytes each (a string param), one after the other, each answered. */
async function largeRequests(socketPath: string, bytes: number, count: number): Promise<number> {
  const socket = await connect(socketPath);
  const client = new RawClient(socket, socket);
  let answered = 0;
  for (let id = 1; id <= count; id++) {
    const opening = `{"jsonrpc":"2.0","id":${id},"method":"fathom/status","params":{"padding":"`;
    const closing = '"}}';
    socket.write(`Content-Length: ${bytes}\r\n\r\n${opening}`);
    const padding = bytes - opening.length - closing.length;
    for (let sent = 0; sent < padding; sent += mib) await new Promise((resolve) => socket.write(Buffer.alloc(Math.min(mib, padding - sent), 0x78), resolve));
    socket.write(closing);
    const answer = await client.waitFor((message) => message.id === id, 60_000);
    if (answer.result) answered += 1;
  }
  socket.destroy();
  return answered;
}

/** The daemon's grep for a literal against ripgrep's, ripgrep skipping what the file set skips: equal `path:line` sets? */
async function grepAgainstRg(client: RawClient, root: string, literal: string): Promise<{ literal: string; fathom: number; rg: number; equal: boolean }> {
  const files = await call<{ files: string[] }>(client, 'fathom/files', { root, limit: 10_000_000 });
  const known = new Set(files.files);
  const excludes: string[] = [];
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() && !entry.isSymbolicLink()) continue;
    const relative = path.relative(root, path.join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name));
    if (!known.has(relative) && !relative.startsWith('.git/')) excludes.push(relative);
  }
  const grep = await call<{ matches: { path: string; line: number }[] }>(client, 'fathom/grep', {
    root,
    pattern: literal,
    fixedStrings: true,
    maxResults: 10_000_000,
  });
  const ours = new Set(grep.matches.map((match) => `${match.path}:${match.line}`));
  const args = [
    '-n',
    '--no-heading',
    '--no-config',
    '--hidden',
    '--no-ignore',
    '--no-messages',
    '-g',
    '!.git',
    ...excludes.flatMap((file) => ['-g', `!/${file}`]),
    '-F',
    '-e',
    literal,
    '.',
  ];
  const output = spawnSync('rg', args, { cwd: root, maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] }).stdout.toString('utf8');
  const theirs = new Set(
    output
      .split('\n')
      .filter(Boolean)
      .map((line) => /^(?:\.\/)?(.*?):(\d+):/.exec(line))
      .filter((match) => match !== null)
      .map((match) => `${match[1]}:${match[2]}`),
  );
  const equal = ours.size === theirs.size && [...ours].every((key) => theirs.has(key));
  return { literal, fathom: ours.size, rg: theirs.size, equal };
}

async function main(): Promise<void> {
  const cliMain = path.resolve(process.argv[2] ?? fileURLToPath(new URL('../src/cli/main.js', import.meta.url)));
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-hostile-'));
  const socketPath = path.join(folder, 'run', 'fathom.sock');
  // A full GC on SIGUSR2 (a module loaded before the daemon's own; --expose-gc changes no GC
  // heuristic): what RSS the clients left behind is retained, and what is garbage not yet collected
  // (an idle daemon allocates nothing, so V8 has no reason to collect). FATHOM_BENCH_GC=0: none.
  const gcHook = path.join(folder, 'gc-on-sigusr2.mjs');
  fs.writeFileSync(gcHook, "process.on('SIGUSR2', () => { globalThis.gc(); globalThis.gc(); });\n");
  const withGc = process.env.FATHOM_BENCH_GC !== '0';
  const daemon = spawn(
    process.execPath,
    [...(withGc ? ['--expose-gc', '--import', pathToFileURL(gcHook).href] : []), cliMain, 'serve', '--socket', socketPath],
    {
      env: { ...process.env, FATHOM_SOCKET: socketPath, FATHOM_CACHE_DIR: path.join(folder, 'cache'), FATHOM_LOG: 'error' },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const pid = daemon.pid!;
  let died = false;
  daemon.on('exit', () => (died = true));
  try {
    for (let attempt = 0; attempt < 400 && !fs.existsSync(socketPath); attempt++) await sleep(25);
    await sleep(100);
    const survivorSocket = await connect(socketPath);
    const survivor = new RawClient(survivorSocket, survivorSocket);
    await survivor.result('fathom/status', {});
    const benchRoot = process.env.FATHOM_BENCH_ROOT ?? path.join(process.env.FATHOM_BENCH_DIR ?? '/tmp/fathom-bench', 'django');
    const root = benchRoot !== 'none' && fs.existsSync(benchRoot) ? fs.realpathSync(benchRoot) : undefined;
    const indexStarted = Date.now();
    if (root) {
      await call(survivor, 'fathom/index', { root });
      await call(survivor, 'fathom/grep', { root, pattern: 'def get_' });
      if (process.env.FATHOM_BENCH_WORK !== 'grep') {
        await call(survivor, 'fathom/codeSearch', { root, query: 'where are expired sessions removed' });
        await call(survivor, 'fathom/symbols', { root, query: 'QuerySet' });
      }
    }
    const indexMs = Date.now() - indexStarted;
    const statusParams = root ? { root } : {};
    const indexHwm = procStatus(pid, 'VmHWM');
    await sleep(1_000);
    const idleRss = procStatus(pid, 'VmRSS');

    // The survivor's status alone.
    const quietUntil = Date.now() + 2_000;
    const quietRun = statusEvery(socketPath, 50, statusParams);
    await sleep(quietUntil - Date.now());
    const quiet = await quietRun.stop();

    // All at once: (a) three oversized streams, (b) two fuzzers, (c) status every 50 ms.
    let hwmReset = true;
    try {
      fs.writeFileSync(`/proc/${pid}/clear_refs`, '5'); // VmHWM := VmRSS (Linux 4.0+)
    } catch {
      hwmReset = false;
    }
    const samples: { ms: number; rss: number; tree: number }[] = [];
    const started = Date.now();
    const sampler = setInterval(() => samples.push({ ms: Date.now() - started, rss: procStatus(pid, 'VmRSS'), tree: treeRss(pid) }), 100);
    const deadline = started + Number(process.env.FATHOM_BENCH_SECONDS ?? 60) * 1_000;
    const atLeast = started + Number(process.env.FATHOM_BENCH_MIN_SECONDS ?? 20) * 1_000;
    let hostileDone = false;
    const stop = (): boolean => (hostileDone && Date.now() > atLeast) || died || Date.now() > deadline;
    const opening = 'Content-Length: 99999999999\r\n\r\n{"jsonrpc":"2.0","id":1,"method":"fathom/status","params":{"padding":"';
    const lanes = new Set((process.env.FATHOM_BENCH_LANES ?? 'oversized,fuzz').split(','));
    const oversizedRun = Promise.all(
      (lanes.has('oversized') ? [0, 1, 2] : []).map(() => hostile(socketPath, opening, Buffer.alloc(64 * 1024, 0x78), 1024 * mib, deadline)),
    ).finally(() => (hostileDone = true));
    const seed = Number(process.env.FATHOM_BENCH_SEED ?? 1);
    const fuzzRuns = Promise.all((lanes.has('fuzz') ? [seed, seed + 1] : []).map((each) => fuzzer(socketPath, each, root, stop)));
    const loadedRun = statusEvery(socketPath, 50, statusParams);
    const [oversized, fuzzed] = await Promise.all([oversizedRun, fuzzRuns]);
    while (!stop()) await sleep(50);
    const loaded = await loadedRun.stop();
    const hostileMs = Date.now() - started;
    clearInterval(sampler);
    const hwm = procStatus(pid, 'VmHWM');
    const peakSampled = Math.max(0, ...samples.map((sample) => sample.rss));
    const peakTree = Math.max(0, ...samples.map((sample) => sample.tree));
    await sleep(2_000);
    const after2s = procStatus(pid, 'VmRSS');
    await sleep(3_000);
    const after5s = procStatus(pid, 'VmRSS');
    let afterGc: number | undefined;
    if (withGc && !died) {
      process.kill(pid, 'SIGUSR2');
      await sleep(2_000);
      afterGc = procStatus(pid, 'VmRSS');
    }

    // Alive, and right.
    let alive = !died;
    let grep: Awaited<ReturnType<typeof grepAgainstRg>> | undefined;
    let afterStatusMs: number | undefined;
    if (alive) {
      try {
        const freshSocket = await connect(socketPath);
        const fresh = new RawClient(freshSocket, freshSocket);
        const at = process.hrtime.bigint();
        await fresh.result('fathom/status', statusParams);
        afterStatusMs = Number(process.hrtime.bigint() - at) / 1e6;
        if (root) grep = await grepAgainstRg(fresh, root, 'get_queryset');
        freshSocket.destroy();
      } catch (error) {
        alive = false;
        console.error(`after the hostile clients: ${(error as Error).message}`);
      }
    }

    // (d) Three clients, each 4 requests just under the limit, read and answered.
    let atLimit: { peak: number; after: number; answered: number[] } | undefined;
    if (alive && process.env.FATHOM_BENCH_AT_LIMIT !== '0') {
      let peak = procStatus(pid, 'VmRSS');
      const limitSampler = setInterval(() => (peak = Math.max(peak, procStatus(pid, 'VmRSS'))), 100);
      const answered = await Promise.all([0, 1, 2].map(() => largeRequests(socketPath, 64 * mib - 1_024, 4).catch(() => 0)));
      clearInterval(limitSampler);
      await sleep(2_000);
      atLimit = { peak, after: procStatus(pid, 'VmRSS'), answered };
      alive = alive && !died;
    }
    survivorSocket.destroy();

    const fmt = (bytes: number): string => `${(bytes / mb).toFixed(0)} MB`;
    const ms = (value: number): string => value.toFixed(1);
    const fuzzTotals = fuzzed.reduce(
      (sum, entry) => ({
        frames: sum.frames + entry.frames,
        bytes: sum.bytes + entry.bytes,
        connections: sum.connections + entry.connections,
        answerBytes: sum.answerBytes + entry.answerBytes,
      }),
      { frames: 0, bytes: 0, connections: 0, answerBytes: 0 },
    );
    const rows: [string, string][] = [
      ['workspace held', `${root ?? 'none'} (indexed in ${indexMs} ms; VmHWM while indexing ${fmt(indexHwm)})`],
      ['daemon RSS idle, indexed', fmt(idleRss)],
      [
        'hostile phase',
        `${hostileMs} ms: ${oversized.length} × ${(oversized.reduce((sum, entry) => sum + entry.sent, 0) / mib / Math.max(1, oversized.length)).toFixed(0)} MiB oversized over ${oversized.reduce((sum, entry) => sum + entry.connections, 0)} connections; ${fuzzed.length} fuzzers ${fuzzTotals.frames} frames, ${(fuzzTotals.bytes / mib).toFixed(0)} MiB over ${fuzzTotals.connections} connections`,
      ],
      [
        'daemon RSS peak (VmHWM)',
        `${hwmReset ? `${fmt(hwm)}, +${fmt(hwm - idleRss)} over idle` : 'not reset'} (sampled every 100 ms: ${fmt(peakSampled)}; with children ${fmt(peakTree)}) goal <= 600 MB`,
      ],
      ['daemon RSS after they left', `${fmt(after2s)} at 2 s, ${fmt(after5s)} at 5 s${afterGc === undefined ? '' : `; after a full GC ${fmt(afterGc)}`}`],
      [
        'status alone: p50 / p99 / max',
        `${ms(percentile(quiet.latencies, 0.5))} / ${ms(percentile(quiet.latencies, 0.99))} / ${ms(Math.max(...quiet.latencies))} ms (${quiet.latencies.length})`,
      ],
      [
        'status under attack: p50 / p99 / max',
        `${ms(percentile(loaded.latencies, 0.5))} / ${ms(percentile(loaded.latencies, 0.99))} / ${ms(Math.max(...loaded.latencies))} ms (${loaded.latencies.length}, ${loaded.failures} failed) goal <= 100 ms`,
      ],
      ['alive after', `${alive ? 'yes' : 'NO'}${afterStatusMs === undefined ? '' : ` (a new client's status ${ms(afterStatusMs)} ms)`}`],
      ['grep -F equal to rg', grep ? `${grep.equal ? 'yes' : 'NO'} (${grep.literal}: ${grep.fathom} lines, rg ${grep.rg})` : 'not run'],
      [
        '(d) 3 clients × 4 requests of 64 MiB',
        atLimit
          ? `peak ${fmt(atLimit.peak)}, 2 s later ${fmt(atLimit.after)}; ${atLimit.answered.reduce((sum, count) => sum + count, 0)} of 12 answered`
          : 'not run',
      ],
    ];
    const width = Math.max(...rows.map(([name]) => name.length));
    console.log(`daemon: ${cliMain}; ${os.availableParallelism()} CPUs, Node ${process.version}`);
    for (const [name, value] of rows) console.log(`${name.padEnd(width)}  ${value}`);
    const report = {
      bench: 'hostile-client',
      cli: cliMain,
      workspace: root ?? null,
      indexMs,
      rss: { indexHwm, idle: idleRss, peakHwm: hwmReset ? hwm : null, peakSampled, peakTree, after2s, after5s, afterGc: afterGc ?? null },
      goals: { rssMb: 600, statusMs: 100 },
      hostileMs,
      oversized,
      fuzz: fuzzed,
      statusMs: { quiet: summary(quiet.latencies), loaded: { ...summary(loaded.latencies), failures: loaded.failures }, afterMs: afterStatusMs ?? null },
      alive,
      grep: grep ?? null,
      atLimit: atLimit ?? null,
      samples: samples.filter((_, index) => index % 10 === 0).map((sample) => [sample.ms, Math.round(sample.rss / mb)]),
    };
    console.log(`\nBENCH_JSON ${JSON.stringify(report)}`);
    if (!alive) process.exitCode = 1;
  } finally {
    daemon.kill('SIGKILL');
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

await main();
