// The debugger with a real adapter (debugpy): the time from launch to the first stop at a
// breakpoint, and the cost of one state question (stack + the locals of the top frame) for a frame
// with 100 locals, each over 10 runs (median, p95). Prints a table and one `BENCH_JSON` line.
//
// Usage: node dist/bench/debug-bench.js
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { adapterFor } from '../src/debug/adapters.js';
import { DebugSession } from '../src/debug/debug-session.js';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function main(): Promise<void> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-debug-bench-'));
  const program = path.join(folder, 'many.py');
  const locals = Array.from({ length: 100 }, (_, at) => `    v${at} = ${at} * 3`).join('\n');
  fs.writeFileSync(program, `def work():\n${locals}\n    return v99\n\n\nwork()\n`);
  const command = adapterFor(program);
  if ('missing' in command) throw new Error(command.missing);
  const launches: number[] = [];
  const states: number[] = [];
  for (let run = 0; run < 10; run++) {
    const started = performance.now();
    const session = await DebugSession.launch(`bench-${run}`, command, { program, args: [], cwd: folder, env: {}, breakpoints: [{ path: program, line: 102 }], stopOnEntry: false });
    launches.push(performance.now() - started);
    if (session.phase !== 'stopped') throw new Error(`run ${run}: ${session.phase}, not stopped`);
    const t0 = performance.now();
    const state = await session.state();
    states.push(performance.now() - t0);
    if ((state.frames[0]?.locals?.length ?? 0) < 100) throw new Error(`only ${state.frames[0]?.locals?.length} locals`);
    await session.terminate();
  }
  launches.sort((a, b) => a - b);
  states.sort((a, b) => a - b);
  console.log('| adapter | launch → first stop (median / p95) | state with 100 locals (median / p95) |');
  console.log('|---|---|---|');
  console.log(`| debugpy ${command.command} | ${percentile(launches, 50).toFixed(0)} / ${percentile(launches, 95).toFixed(0)} ms | ${percentile(states, 50).toFixed(1)} / ${percentile(states, 95).toFixed(1)} ms |`);
  console.log(`BENCH_JSON ${JSON.stringify({ bench: 'debug', adapter: 'debugpy', launchMs: launches, stateMs: states })}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
