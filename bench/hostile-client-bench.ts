// Benchmark of the daemon under hostile clients, over its real socket: (1) the daemon's RSS while
// three clients each announce a 99999999999-byte frame and stream up to 1 GiB into it
// (reconnecting whenever the daemon drops them), sampled every 20 ms, and 2 s after they left;
// (1b) the same while three clients each send 4 requests just under the 64 MiB limit (read,
// parsed and answered: the most a client may make the daemon hold); (2) the latency of another client's `fathom/status`, one after the other, while a hostile client
// streams 48 MiB of header that never ends (reconnecting whenever dropped), against the same
// client's latency with nobody else connected. Goals: RSS <= 600 MB; status <= 100 ms.
// Prints a table and one `BENCH_JSON` line.
//
// Usage: node dist/bench/hostile-client-bench.js [CLI_MAIN]
//   CLI_MAIN: the daemon to measure (default: this build's dist/src/cli/main.js); give another
//   build's to compare (a checkout of an older commit, built, with a node_modules link beside it).
//   FATHOM_BENCH_ROOT: a workspace the daemon holds meanwhile (default $FATHOM_BENCH_DIR/django
//   when bench/corpora.sh made it; `none` for an empty daemon): indexed, grepped and searched
//   first, so the RSS is a daemon's at work, and the survivor's status is that workspace's;
//   FATHOM_BENCH_WORK=grep: indexed and grepped only.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RawClient, streamRepeated } from '../test/helpers/raw-client.js';

const mib = 1024 * 1024;

function rssOf(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function connect(socketPath: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}


/** One hostile client: `opening` then `chunk` again and again, `total` bytes in all, over as many connections as it takes. */
async function hostile(socketPath: string, opening: string, chunk: Buffer, total: number, deadline: number): Promise<{ sent: number; connections: number }> {
  let sent = 0;
  let connections = 0;
  while (sent < total && Date.now() < deadline) {
    const socket = await connect(socketPath);
    socket.on('error', () => undefined);
    socket.resume(); // the daemon's answers are not read
    connections += 1;
    socket.write(opening);
    sent += await streamRepeated(socket, chunk, total - sent);
    socket.destroy();
  }
  return { sent, connections };
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

async function statusLatencies(client: RawClient, until: () => boolean, most = 2_000, params: Record<string, unknown> = {}): Promise<number[]> {
  const latencies: number[] = [];
  while (!until() && latencies.length < most) {
    const started = process.hrtime.bigint();
    await client.result('fathom/status', params);
    latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return latencies;
}

async function main(): Promise<void> {
  const cliMain = path.resolve(process.argv[2] ?? fileURLToPath(new URL('../src/cli/main.js', import.meta.url)));
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-hostile-'));
  const socketPath = path.join(folder, 'run', 'fathom.sock');
  const daemon = spawn(process.execPath, [cliMain, 'serve', '--socket', socketPath], { env: { ...process.env, FATHOM_CACHE_DIR: path.join(folder, 'cache'), FATHOM_LOG: 'error' }, stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    for (let attempt = 0; attempt < 400 && !fs.existsSync(socketPath); attempt++) await sleep(25);
    await sleep(100);
    const survivorSocket = await connect(socketPath);
    const survivor = new RawClient(survivorSocket, survivorSocket);
    await survivor.result('fathom/status', {});
    // The workspace a working daemon holds: its file set, regex index, chunk ranking and code graph.
    const benchRoot = process.env.FATHOM_BENCH_ROOT ?? path.join(process.env.FATHOM_BENCH_DIR ?? '/tmp/fathom-bench', 'django');
    const root = benchRoot !== 'none' && fs.existsSync(benchRoot) ? fs.realpathSync(benchRoot) : undefined;
    if (root) {
      await survivor.result('fathom/index', { root });
      await survivor.result('fathom/grep', { root, pattern: 'def get_' });
      // FATHOM_BENCH_WORK=grep: the file set and regex index only (the probe's daemon: index, status, grep).
      if (process.env.FATHOM_BENCH_WORK !== 'grep') {
        await survivor.result('fathom/codeSearch', { root, query: 'where are expired sessions removed' });
        await survivor.result('fathom/symbols', { root, query: 'QuerySet' });
      }
    }
    const statusParams = root ? { root } : {};

    // (1) Memory: three clients, each up to 1 GiB into a frame announced as 99999999999 bytes.
    const idleRss = rssOf(daemon.pid!);
    let peakRss = idleRss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssOf(daemon.pid!))), 20);
    const started = Date.now();
    const opening = 'Content-Length: 99999999999\r\n\r\n{"jsonrpc":"2.0","id":1,"method":"fathom/status","params":{"padding":"';
    const oversized = await Promise.all([0, 1, 2].map(() => hostile(socketPath, opening, Buffer.alloc(mib, 0x78), 1024 * mib, started + 20_000)));
    const oversizedMs = Date.now() - started;
    clearInterval(sampler);
    await sleep(2_000);
    const afterRss = rssOf(daemon.pid!);

    // (1b) Memory: three clients, each 4 requests just under the limit, read and answered.
    let peakAtLimitRss = rssOf(daemon.pid!);
    const limitSampler = setInterval(() => (peakAtLimitRss = Math.max(peakAtLimitRss, rssOf(daemon.pid!))), 20);
    const atLimit = await Promise.all([0, 1, 2].map(() => largeRequests(socketPath, 64 * mib - 1_024, 4)));
    clearInterval(limitSampler);
    await sleep(2_000);
    const afterAtLimitRss = rssOf(daemon.pid!);

    // (2) Latency: the survivor's status alone, then while a hostile client streams 48 MiB of header.
    const quietDeadline = Date.now() + 1_000;
    const quiet = await statusLatencies(survivor, () => Date.now() > quietDeadline, 200, statusParams);
    let streaming = true;
    const garbage = hostile(socketPath, 'Content-Length: 5\r\nX-Padding: ', Buffer.alloc(64 * 1024, 0x61), 48 * mib, Date.now() + 30_000).finally(() => (streaming = false));
    await sleep(5); // the hostile client is connected and writing
    const loaded = await statusLatencies(survivor, () => !streaming, 2_000, statusParams);
    const headers = await garbage;
    survivorSocket.destroy();

    const rows: [string, string][] = [
      ['daemon RSS idle', `${(idleRss / mib).toFixed(0)} MiB`],
      ['daemon RSS peak, 3 oversized-frame clients', `${(peakRss / mib).toFixed(0)} MiB (goal <= 600 MB)`],
      ['daemon RSS 2 s after they left', `${(afterRss / mib).toFixed(0)} MiB`],
      ['daemon RSS peak, 3 clients sending 64 MiB requests', `${(peakAtLimitRss / mib).toFixed(0)} MiB (${atLimit.reduce((sum, count) => sum + count, 0)} of 12 answered; 2 s later ${(afterAtLimitRss / mib).toFixed(0)} MiB)`],
      ['oversized bytes sent (3 clients)', `${(oversized.reduce((sum, entry) => sum + entry.sent, 0) / mib).toFixed(0)} MiB over ${oversized.reduce((sum, entry) => sum + entry.connections, 0)} connections in ${oversizedMs} ms`],
      ['status alone: median / p99 / max', `${percentile(quiet, 0.5).toFixed(2)} / ${percentile(quiet, 0.99).toFixed(2)} / ${Math.max(...quiet).toFixed(2)} ms (${quiet.length})`],
      ['status during garbage headers: median / p99 / max', `${percentile(loaded, 0.5).toFixed(2)} / ${percentile(loaded, 0.99).toFixed(2)} / ${Math.max(...loaded).toFixed(2)} ms (${loaded.length}; goal <= 100 ms)`],
      ['garbage header bytes sent', `${(headers.sent / mib).toFixed(0)} MiB over ${headers.connections} connections`],
    ];
    const width = Math.max(...rows.map(([name]) => name.length));
    console.log(`daemon: ${cliMain}; workspace held: ${root ?? 'none'}`);
    for (const [name, value] of rows) console.log(`${name.padEnd(width)}  ${value}`);
    const report = {
      bench: 'hostile-client',
      cli: cliMain,
      workspace: root ?? null,
      rss: { idle: idleRss, peak: peakRss, after: afterRss, peakAtLimit: peakAtLimitRss, afterAtLimit: afterAtLimitRss },
      atLimitAnswered: atLimit,
      oversized: { sentBytes: oversized.map((entry) => entry.sent), connections: oversized.map((entry) => entry.connections), ms: oversizedMs },
      statusMs: { quiet: { median: percentile(quiet, 0.5), p99: percentile(quiet, 0.99), max: Math.max(...quiet), count: quiet.length }, loaded: { median: percentile(loaded, 0.5), p99: percentile(loaded, 0.99), max: Math.max(...loaded), count: loaded.length } },
      garbage: headers,
    };
    console.log(`\nBENCH_JSON ${JSON.stringify(report)}`);
  } finally {
    daemon.kill('SIGKILL');
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

await main();
