// One round of "a file changed right after a restart", as an editor meets it: `fathom stop`, the
// cache's graph.bin read once (both sides start warm), `fathom status` in ROOT (it starts the
// daemon), then a C function appended to PROBE and `fathom/symbols` asked for its name over the
// daemon's socket every 10 ms until it answers it (given up after 30 s); the file is restored
// after. Prints LABEL and the ms from the write to that answer. Interleave two builds' rounds for
// an A/B (bench/RESULTS.md):
//   for r in 1 2 3; do node dist/bench/restart-change.js OLD/dist/src/cli/main.js ROOT OLDCACHE old PROBE; \
//     node dist/bench/restart-change.js dist/src/cli/main.js ROOT CACHE new PROBE; done
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { createMessageConnection, SocketMessageReader, SocketMessageWriter } from 'vscode-jsonrpc/node';

const [main, root, cache, label, probe] = process.argv.slice(2);
if (!main || !root || !cache || !label || !probe) throw new Error('usage: restart-change MAIN ROOT CACHE LABEL PROBE');
const env = { ...process.env, FATHOM_SOCKET: `/tmp/fathom-restart-change-${label}.sock`, FATHOM_CACHE_DIR: cache };
const cli = (...args: string[]): void => {
  try {
    execFileSync(process.execPath, [main, ...args], { cwd: root, env, stdio: 'ignore' });
  } catch {
    // stop with no daemon, a status that says a build runs: the timing is what counts
  }
};
cli('stop');
await new Promise((resolve) => setTimeout(resolve, 500));
for (const folder of fs.readdirSync(`${cache}/workspaces`)) {
  const graph = `${cache}/workspaces/${folder}/graph.bin`;
  if (fs.existsSync(graph)) fs.readFileSync(graph);
}
cli('status');
const socket = net.connect(env.FATHOM_SOCKET);
await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
const connection = createMessageConnection(new SocketMessageReader(socket), new SocketMessageWriter(socket));
connection.listen();
const original = fs.readFileSync(probe);
const name = `zeppelin_probe_${label.replace(/\W/g, '_')}_${Date.now() % 100_000}`;
const since = performance.now();
let found: number | undefined;
try {
  fs.appendFileSync(probe, `\nint ${name}(int x)\n{\n\treturn x + 1;\n}\n`);
  while (performance.now() - since < 30_000) {
    const answer = JSON.stringify(await connection.sendRequest('fathom/symbols', { root, query: name, limit: 5 }));
    if (answer.includes(name)) {
      found = performance.now() - since;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
} finally {
  fs.writeFileSync(probe, original);
  connection.dispose();
  socket.destroy();
}
console.log(`${label} ${found === undefined ? '> 30000' : Math.round(found)}`);
cli('stop');
