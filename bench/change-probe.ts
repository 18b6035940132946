// A file changed as a user changes it, and how long each index takes to have it: a function with
// a comment in words appended to a corpus file, then every 10 ms over the daemon's socket, until
// grep finds its name, the chunk ranking ranks the file for it, the code graph knows the name, and
// semantic search's store holds its chunk. Shared by pipeline-bench.ts (after a restart) and
// edit-steady.ts (in a running daemon).
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createMessageConnection, type MessageConnection, SocketMessageReader, SocketMessageWriter } from 'vscode-jsonrpc/node';

export function connect(socketPath: string): Promise<MessageConnection> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    socket.once('connect', () => {
      const connection = createMessageConnection(new SocketMessageReader(socket), new SocketMessageWriter(socket));
      connection.listen();
      resolve(connection);
    });
    socket.once('error', reject);
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `found` every 10 ms until it says yes (ms since `since`) or `limitMs` passes (undefined). */
export async function until(found: () => Promise<boolean>, since: number, limitMs: number): Promise<number | undefined> {
  while (performance.now() - since < limitMs) {
    try {
      if (await found()) return performance.now() - since;
    } catch {
      // an answer that is an error: not yet
    }
    await sleep(10);
  }
  return undefined;
}

function probeText(file: string, name: string): string {
  if (file.endsWith('.py')) return `\n\ndef ${name}():\n    """Tallies the zeppelin manifest for ${name}."""\n    return 42\n`;
  if (file.endsWith('.c')) return `\n\n/* Tallies the zeppelin manifest for ${name}. */\nint ${name}(void)\n{\n\treturn 42;\n}\n`;
  return `\n\n/** Tallies the zeppelin manifest for ${name}. */\nexport function ${name}(): number {\n  return 42;\n}\n`;
}

export interface ChangeTimes {
  regex: number | undefined;
  ranking: number | undefined;
  graph: number | undefined;
  vectors: number | undefined;
}

/** Appends a function named `name` to `probe` (in `root`), times each index until it has it, and restores the file. */
export async function timeChange(connection: MessageConnection, root: string, probe: string, name: string, limitMs: number): Promise<ChangeTimes> {
  const original = fs.readFileSync(probe);
  const relative = path.relative(root, probe);
  // The store holds the new chunk once the file's nearest chunk to its words reaches past the old
  // last line (the snippet is read from the disk, so its text says nothing about the vectors).
  // One hit: the store widens its search until it has as many inside the file as asked.
  const oldLines = original.toString('utf8').split('\n').length;
  try {
    const since = performance.now();
    fs.appendFileSync(probe, probeText(probe, name));
    const [regex, ranking, graph, vectors] = await Promise.all([
      until(
        async () => JSON.stringify(await connection.sendRequest('fathom/grep', { root, pattern: name, fixedStrings: true })).includes(name),
        since,
        limitMs,
      ),
      until(
        async () =>
          JSON.stringify(
            await connection.sendRequest('fathom/codeSearch', { root, query: `${name} zeppelin manifest`, mode: 'lexical', maxResults: 5 }),
          ).includes(relative),
        since,
        limitMs,
      ),
      until(async () => JSON.stringify(await connection.sendRequest('fathom/symbols', { root, query: name, limit: 5 })).includes(name), since, limitMs),
      until(
        async () => {
          const answer = (await connection.sendRequest('fathom/codeSearch', {
            root,
            query: `Tallies the zeppelin manifest for ${name}`,
            mode: 'semantic',
            paths: [relative],
            maxResults: 1,
          })) as { hits?: Array<{ path: string; end: number }> };
          return (answer.hits ?? []).some((hit) => hit.path === relative && hit.end > oldLines);
        },
        since,
        limitMs,
      ),
    ]);
    return { regex, ranking, graph, vectors };
  } finally {
    fs.writeFileSync(probe, original);
  }
}
