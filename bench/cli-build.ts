// A build of the Fathom CLI as the shell benchmarks run it: this checkout's or a baseline's
// `dist/src/cli/main.js`, each with its own environment (socket, cache folder), and one command's
// wall time from spawning the process to its exit, as a user typing it waits.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** This checkout's compiled CLI. */
export const thisMain = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/cli/main.js');

export interface CliBuild {
  label: string;
  main: string;
  env: NodeJS.ProcessEnv;
}

/** One CLI command's wall time (ms), output and exit status; a failing command is reported on stderr unless `reportFailure` is false. */
export function runCli(build: CliBuild, args: string[], options: { reportFailure?: boolean } = {}): { ms: number; stdout: string; status: number | null } {
  const started = performance.now();
  const result = spawnSync(process.execPath, [build.main, ...args], { env: build.env, encoding: 'utf8', maxBuffer: 1 << 28 });
  const ms = performance.now() - started;
  if (result.status !== 0 && options.reportFailure !== false)
    process.stderr.write(`[${build.label}] fathom ${args.join(' ')}: exit ${result.status}: ${result.stderr.slice(-400)}\n`);
  return { ms, stdout: result.stdout, status: result.status };
}
