// How soon a starting daemon answers, from its side: spawns `serve-main.js --socket` (as the CLI
// does when no daemon runs), connects every 2 ms until it accepts, sends `fathom/status` for ROOT
// and times the answer; then stops it. The same for a second build's entry when given, rounds
// interleaved. Prints each round and the medians (ms from the spawn). Issue 31's restart status
// from a shell is bench/restart-status.sh; this is the daemon's share of it.
//
// Usage: node dist/bench/daemon-start.js ROOT CACHE [OTHER_DIST_SERVE_MAIN] [--rounds N]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const roundsAt = args.indexOf('--rounds');
const rounds = roundsAt >= 0 ? Number(args.splice(roundsAt, 2)[1]) : 7;
const [root, cache, other] = args;
if (!root || !cache || !Number.isInteger(rounds) || rounds < 1) {
  process.stderr.write('usage: node dist/bench/daemon-start.js ROOT CACHE [OTHER_DIST_SERVE_MAIN] [--rounds N]\n');
  process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const entries: Array<[string, string]> = [['this', path.resolve(here, '../src/cli/serve-main.js')]];
if (other) entries.unshift(['other', path.resolve(other)]);
const socketPath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-daemon-start-')), 'fathom.sock');

function connect(): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** One start: ms from the spawn until the socket accepts and until status is answered. */
async function once(entry: string): Promise<{ listening: number; answered: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [entry, '--socket', socketPath], { env: { ...process.env, FATHOM_CACHE_DIR: cache }, stdio: 'ignore' });
  let socket: net.Socket | undefined;
  while (!socket) {
    socket = await connect().catch(async () => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      return undefined;
    });
  }
  const listening = performance.now() - started;
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'fathom/status', params: { root: path.resolve(root!) } });
  socket.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  await new Promise((resolve) => socket.once('data', resolve));
  const answered = performance.now() - started;
  socket.destroy();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  fs.rmSync(socketPath, { force: true });
  return { listening, answered };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const results = new Map<string, Array<{ listening: number; answered: number }>>(entries.map(([label]) => [label, []]));
for (let round = 1; round <= rounds; round++) {
  for (const [label, entry] of entries) {
    const result = await once(entry);
    results.get(label)!.push(result);
    process.stdout.write(`round ${round} ${label}: listening ${result.listening.toFixed(0)} ms, status answered ${result.answered.toFixed(0)} ms\n`);
  }
}
for (const [label, list] of results) {
  process.stdout.write(
    `${label}: median listening ${median(list.map((r) => r.listening)).toFixed(0)} ms, status answered ${median(list.map((r) => r.answered)).toFixed(0)} ms (${rounds} rounds)\n`,
  );
}
