// One file changed in a running daemon whose indexes are all loaded, as an editor meets it: a C
// function (with a comment in words) appended to PROBE, then, polled every 10 ms over the daemon's
// socket, until grep finds its name, the chunk ranking ranks the file for it, the code graph knows
// the name, and semantic search's store holds its chunk (given up after 20 s each); the file is
// restored after. Prints LABEL and the four ms (issue 31's "one file changed" row: regex <= 50 ms,
// ranking and graph <= 500 ms, vectors <= 2 s). Ask every index once before (a grep, a lexical and
// a hybrid search, `fathom symbols`) so that they are loaded, and leave a few seconds between rounds:
//   node dist/bench/edit-steady.js SOCKET ROOT PROBE LABEL
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createMessageConnection, SocketMessageReader, SocketMessageWriter } from 'vscode-jsonrpc/node';

const [socketPath, root, probe, label] = process.argv.slice(2);
if (!socketPath || !root || !probe || !label) throw new Error('usage: edit-steady SOCKET ROOT PROBE LABEL');
const socket = net.connect(socketPath);
await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
const connection = createMessageConnection(new SocketMessageReader(socket), new SocketMessageWriter(socket));
connection.listen();
const relative = path.relative(root, probe);
const original = fs.readFileSync(probe);
const name = `zeppelin_probe_${label.replace(/\W/g, '_')}_${Date.now() % 100_000}`;
const oldLines = original.toString('utf8').split('\n').length;
const until = async (check: () => Promise<boolean>, since: number): Promise<string> => {
  while (performance.now() - since < 20_000) {
    if (await check()) return `${Math.round(performance.now() - since)}`;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return '> 20000';
};
const since = performance.now();
try {
  fs.appendFileSync(probe, `\n/* Tallies the zeppelin manifest for ${name}. */\nint ${name}(int manifest)\n{\n\treturn manifest + 1;\n}\n`);
  const [grep, ranking, graph, vectors] = await Promise.all([
    until(async () => JSON.stringify(await connection.sendRequest('fathom/grep', { root, pattern: name, fixedStrings: true })).includes(name), since),
    until(
      async () =>
        JSON.stringify(
          await connection.sendRequest('fathom/codeSearch', { root, query: `${name} zeppelin manifest`, mode: 'lexical', maxResults: 5 }),
        ).includes(relative),
      since,
    ),
    until(async () => JSON.stringify(await connection.sendRequest('fathom/symbols', { root, query: name, limit: 5 })).includes(name), since),
    until(async () => {
      const answer = (await connection.sendRequest('fathom/codeSearch', {
        root,
        query: `Tallies the zeppelin manifest for ${name}`,
        mode: 'semantic',
        paths: [relative],
        maxResults: 1,
      })) as { hits?: Array<{ path: string; end: number }> };
      return (answer.hits ?? []).some((hit) => hit.path === relative && hit.end > oldLines);
    }, since),
  ]);
  console.log(`${label} grep ${grep} ranking ${ranking} graph ${graph} vectors ${vectors}`);
} finally {
  fs.writeFileSync(probe, original);
  connection.dispose();
  socket.destroy();
}
