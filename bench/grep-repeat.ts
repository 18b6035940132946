// One grep query run many times in one process, for comparing two builds of the regex index on
// the same machine in turns (this machine's times move by 2× between benchmark runs; a same-run
// A/B is what tells a change's effect). Prints the median, quartile and minimum of the daemon's
// `elapsedMs`, the process's CPU time per query (every thread: workers and V8's GC helpers
// included) and its page faults per query (~15 µs each on these VMs).
//
//   node dist/bench/grep-repeat.js [ROOT]        (default: the kernel in /tmp/fathom-bench/linux)
//   FATHOM_QUERY='{"pattern":"static inline","fixedStrings":true,"globs":["*.h"]}'  the request
//   FATHOM_RUNS=40 (timed, after 10 untimed), FATHOM_PAGE=1: the default page, not every line
//
// To compare two builds: copy one build's dist/ aside (with a node_modules link beside it), then
// run both copies' grep-repeat.js in turns, a few times each.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RegexIndex, type GrepRequest } from '../src/index/regex/regex-index.js';
import { HashPool } from '../src/workspace/hash-pool.js';
import { BufferOverlay } from '../src/workspace/overlay.js';
import { Workspace } from '../src/workspace/workspace.js';

/** This process's minor page faults so far (Linux). */
function minorFaults(): number {
  try {
    return Number(fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')[7]);
  } catch {
    return Number.NaN;
  }
}

async function main(): Promise<void> {
  const root = fs.realpathSync(process.argv[2] ?? path.join(process.env.FATHOM_BENCH_DIR ?? '/tmp/fathom-bench', 'linux'));
  const request = JSON.parse(process.env.FATHOM_QUERY ?? '{"pattern":"static inline","fixedStrings":true,"globs":["*.h"]}') as GrepRequest;
  const runs = Number(process.env.FATHOM_RUNS ?? 40);
  const full = process.env.FATHOM_PAGE ? {} : { maxResults: 10_000_000 };
  // The caches are kept across invocations (by root), so that runs in turns do not rebuild.
  const cacheRoot = path.join(os.tmpdir(), `fathom-grep-repeat-${Buffer.from(root).toString('hex').slice(-24)}`);
  fs.mkdirSync(path.join(cacheRoot, 'workspace'), { recursive: true });
  fs.mkdirSync(path.join(cacheRoot, 'index'), { recursive: true });
  const pool = new HashPool();
  const workspace = new Workspace({ root, cacheDir: path.join(cacheRoot, 'workspace'), maxFileBytes: 1 << 20, reconcileIntervalMs: 0, pool });
  await workspace.whenReady();
  const index = new RegexIndex(workspace, new BufferOverlay(), path.join(cacheRoot, 'index'));
  await index.ensureBuilt();
  for (let run = 0; run < 10; run++) await index.search({ ...request, ...full });
  const elapsed: number[] = [];
  const cpu = process.cpuUsage();
  const faults = minorFaults();
  let lines = 0;
  let total = 0;
  for (let run = 0; run < runs; run++) {
    const result = await index.search({ ...request, ...full });
    elapsed.push(result.stats.elapsedMs);
    lines = result.lines.length;
    total = result.total;
  }
  const used = process.cpuUsage(cpu);
  const faulted = minorFaults() - faults;
  elapsed.sort((a, b) => a - b);
  const at = (share: number): string => elapsed[Math.floor(share * (elapsed.length - 1))]!.toFixed(1);
  console.log(
    `${JSON.stringify(request)}${process.env.FATHOM_PAGE ? ' (default page)' : ''}: ${lines} lines of ${total}; elapsedMs median ${at(0.5)}, p25 ${at(0.25)}, min ${at(0)}; ` +
      `process CPU ${((used.user + used.system) / 1000 / runs).toFixed(1)} ms a query (system ${(used.system / 1000 / runs).toFixed(1)}), ${(faulted / runs).toFixed(0)} page faults a query`,
  );
  index.dispose();
  await workspace.close();
  pool.close();
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
