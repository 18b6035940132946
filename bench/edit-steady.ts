// One file changed in a running daemon whose indexes are all loaded, as an editor meets it
// (change-probe.ts: a function with a comment in words appended to PROBE, then until grep, the
// chunk ranking, the code graph and semantic search each have it, given up after 20 s; the file is
// restored after). Prints LABEL and the four ms (issue 31's "one file changed" row: regex <= 50
// ms, ranking and graph <= 500 ms, vectors <= 2 s). Ask every index once before (a grep, a
// lexical and a hybrid search, `fathom symbols`) so that they are loaded, and leave a few seconds
// between rounds:
//   node dist/bench/edit-steady.js SOCKET ROOT PROBE LABEL
import { connect, timeChange } from './change-probe.js';

const [socketPath, root, probe, label] = process.argv.slice(2);
if (!socketPath || !root || !probe || !label) throw new Error('usage: edit-steady SOCKET ROOT PROBE LABEL');
const connection = await connect(socketPath);
try {
  const times = await timeChange(connection, root, probe, `zeppelin_probe_${label.replace(/\W/g, '_')}_${Date.now() % 100_000}`, 20_000);
  const shown = (ms: number | undefined): string => (ms === undefined ? '> 20000' : `${Math.round(ms)}`);
  console.log(`${label} grep ${shown(times.regex)} ranking ${shown(times.ranking)} graph ${shown(times.graph)} vectors ${shown(times.vectors)}`);
} finally {
  connection.dispose();
}
