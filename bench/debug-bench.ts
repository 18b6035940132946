// The debugger with real adapters (debugpy, lldb-vscode, delve): the time from launch to the first
// stop at a breakpoint, and the cost of one state question (the stack and the locals of the top
// frame) in a function with 100 locals; 5 runs each (median, worst). Go's launch includes delve
// building the program. Prints a table and one `BENCH_JSON` line.
//
// Usage: node dist/bench/debug-bench.js
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { adapterFor } from '../src/debug/adapters.js';
import { DebugSession } from '../src/debug/debug-session.js';

const count = 100;

/** A program whose function `work` has 100 locals, and the line of its last statement. */
function programs(folder: string): Array<{ name: string; program: string; source: string; line: number }> {
  const py = path.join(folder, 'many.py');
  fs.writeFileSync(py, `def work():\n${Array.from({ length: count }, (_, at) => `    v${at} = ${at} * 3`).join('\n')}\n    return v99\n\n\nwork()\n`);
  const c = path.join(folder, 'many.c');
  fs.writeFileSync(
    c,
    `int work(void) {\n${Array.from({ length: count }, (_, at) => `    volatile int v${at} = ${at} * 3;`).join('\n')}\n    return v99;\n}\nint main(void) { return work() > 0 ? 0 : 1; }\n`,
  );
  const built = spawnSync('gcc', ['-g', '-O0', '-o', path.join(folder, 'many'), c]);
  if (built.status !== 0) throw new Error(`gcc: ${built.stderr.toString()}`);
  const goFolder = path.join(folder, 'go');
  fs.mkdirSync(goFolder);
  fs.writeFileSync(path.join(goFolder, 'go.mod'), 'module example.com/many\n\ngo 1.19\n');
  const goSource = path.join(goFolder, 'main.go');
  fs.writeFileSync(
    goSource,
    `package main\n\nfunc work() int {\n${Array.from({ length: count }, (_, at) => `\tv${at} := ${at} * 3`).join('\n')}\n\treturn ${Array.from({ length: count }, (_, at) => `v${at}`).join(' + ')}\n}\n\nfunc main() { _ = work() }\n`,
  );
  return [
    { name: 'python (debugpy)', program: py, source: py, line: count + 2 },
    { name: 'c (lldb-vscode)', program: path.join(folder, 'many'), source: c, line: count + 2 },
    { name: 'go (delve)', program: goSource, source: goSource, line: count + 4 },
  ];
}

function median(values: number[]): number {
  return values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
}

async function main(): Promise<void> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-debug-bench-'));
  const rows: Array<{ name: string; launchMs: number[]; stateMs: number[]; locals: number }> = [];
  for (const entry of programs(folder)) {
    const command = await adapterFor(entry.program);
    if ('missing' in command) {
      console.log(`${entry.name}: ${command.missing}`);
      continue;
    }
    const row = { name: entry.name, launchMs: [] as number[], stateMs: [] as number[], locals: 0 };
    for (let run = 0; run < 5; run++) {
      const started = performance.now();
      const session = await DebugSession.launch(
        `bench-${run}`,
        command,
        {
          program: entry.program,
          args: [],
          cwd: path.dirname(entry.program),
          env: {},
          breakpoints: [{ path: entry.source, line: entry.line }],
          stopOnEntry: false,
        },
        120_000,
      );
      row.launchMs.push(performance.now() - started);
      if (session.phase !== 'stopped') throw new Error(`${entry.name} run ${run}: ${session.phase}, not stopped`);
      const t0 = performance.now();
      const state = await session.state({ maxLocals: 200 });
      row.stateMs.push(performance.now() - t0);
      row.locals = state.frames[0]?.locals?.length ?? 0;
      await session.terminate();
    }
    rows.push(row);
  }
  console.log('| adapter | launch → first stop (median / worst) | state: stack + 100 locals (median / worst) |');
  console.log('|---|---|---|');
  for (const row of rows)
    console.log(
      `| ${row.name} | ${median(row.launchMs).toFixed(0)} / ${Math.max(...row.launchMs).toFixed(0)} ms | ${median(row.stateMs).toFixed(1)} / ${Math.max(...row.stateMs).toFixed(1)} ms (${row.locals} locals) |`,
    );
  console.log(`BENCH_JSON ${JSON.stringify({ bench: 'debug', rows })}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
