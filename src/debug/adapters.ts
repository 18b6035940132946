// The debug adapters Fathom knows and whether one can run for a program, detected like language
// servers: the program's kind in the checkout AND the adapter's binary found. Python runs
// `python3 -m debugpy.adapter` (Debian's python3-debugpy), with the first python3 that can import
// debugpy. Go (delve's `dlv dap`, which speaks DAP over TCP, not stdio) and C/C++ (lldb-vscode) are
// listed with why they are not launched yet; Node has no adapter that installs by name.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface AdapterCommand {
  adapter: 'python';
  command: string;
  args: string[];
  /** The interpreter the debuggee runs under (the adapter's). */
  python: string;
}

export interface AdapterState {
  adapter: string;
  state: 'available' | 'missing';
  reason?: string;
}

const pythonCandidates = ['python3', '/usr/bin/python3'];
let pythonWithDebugpy: string | null | undefined;

/** The first python3 that imports debugpy (checked once per process). */
function findPython(): string | undefined {
  if (pythonWithDebugpy === undefined) {
    pythonWithDebugpy = null;
    for (const candidate of pythonCandidates) {
      const probe = spawnSync(candidate, ['-c', 'import debugpy'], { stdio: 'ignore', timeout: 10_000 });
      if (probe.status === 0) {
        pythonWithDebugpy = candidate;
        break;
      }
    }
  }
  return pythonWithDebugpy ?? undefined;
}

function onPath(binary: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((folder) => folder !== '' && fs.existsSync(path.join(folder, binary)));
}

/** Which adapter debugs `program` (an absolute path), or why none can. */
export function adapterFor(program: string): AdapterCommand | { missing: string } {
  const extension = path.extname(program).toLowerCase();
  if (extension === '.py') {
    const python = findPython();
    if (!python) return { missing: 'no python3 here can import debugpy (Debian: apt-get install python3-debugpy)' };
    return { adapter: 'python', command: python, args: ['-m', 'debugpy.adapter'], python };
  }
  if (extension === '.go') return { missing: 'Go programs are not launched yet (delve speaks DAP over TCP; Fathom speaks it over stdio for now)' };
  if (['.c', '.cc', '.cpp', ''].includes(extension)) return { missing: 'C and C++ programs are not launched yet (lldb-vscode is detected but not driven)' };
  if (['.js', '.mjs', '.cjs', '.ts'].includes(extension)) return { missing: 'no Node.js debug adapter installs by name from npm or Debian' };
  return { missing: `no debug adapter for ${extension || 'files without an extension'}` };
}

/** Every adapter's state, for status. */
export function adapterStates(): AdapterState[] {
  const python = findPython();
  return [
    python ? { adapter: 'python', state: 'available' } : { adapter: 'python', state: 'missing', reason: 'no python3 can import debugpy (apt-get install python3-debugpy)' },
    { adapter: 'go', state: 'missing', reason: onPath('dlv') ? 'dlv found, but Go sessions are not launched yet' : 'dlv not found (apt-get install delve); Go sessions are not launched yet' },
    { adapter: 'c', state: 'missing', reason: onPath('lldb-vscode-14') || onPath('lldb-vscode') ? 'lldb-vscode found, but C sessions are not launched yet' : 'lldb-vscode not found (apt-get install lldb-14); C sessions are not launched yet' },
    { adapter: 'node', state: 'missing', reason: 'no Node.js debug adapter installs by name from npm or Debian' },
  ];
}
