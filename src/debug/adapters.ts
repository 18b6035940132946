// The debug adapters Fathom knows and whether one can run for a program, detected like language
// servers: the program's kind AND the adapter's binary found.
//   Python   `python3 -m debugpy.adapter` (Debian python3-debugpy) over stdio, with the first
//            python3 that imports debugpy (FATHOM_DEBUG_PYTHON names one); the program is a .py
//            file. Probed off the daemon's thread; a miss is probed again after 5 s, so an
//            install while the daemon runs is found without a restart.
//   C, C++   `lldb-vscode` (Debian lldb-14) over stdio; the program is an ELF binary built with -g
//   Go       `dlv dap` (Debian delve; the go toolchain builds the program) over TCP: delve listens
//            on a port it prints; the program is a .go file or a package folder
//   Node     no adapter installs by name from npm or Debian: listed as missing
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface LaunchInput {
  program: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  stopOnEntry: boolean;
}

export interface AdapterCommand {
  adapter: 'python' | 'c' | 'go';
  command: string;
  args: string[];
  /** stdio, or a TCP port the adapter prints on its stdout (`listening at: HOST:PORT`). */
  transport: 'stdio' | 'tcp';
  /** The `launch` request's arguments for this adapter. */
  launchArguments(input: LaunchInput): Record<string, unknown>;
  /** The `evaluate` context that evaluates an expression (not an adapter command). */
  evaluateContext: 'repl' | 'watch';
  /** The folder the adapter itself runs in, when it must not be the program's (see `python`). */
  cwd?: string;
}

export interface AdapterState {
  adapter: string;
  /** `checking`: python3 is being probed for debugpy right now (status never waits on a child process). */
  state: 'available' | 'missing' | 'checking';
  reason?: string;
}

/** The python3 to debug with: FATHOM_DEBUG_PYTHON when set (read when probed), else the first of PATH's and Debian's that imports debugpy. */
function pythonCandidates(): string[] {
  const chosen = process.env.FATHOM_DEBUG_PYTHON;
  return chosen ? [chosen] : ['python3', '/usr/bin/python3'];
}
/** How long a miss is believed: asked after that, python3 is probed again (debugpy installed meanwhile is found). */
export const adapterMissRetryMs = 5_000;
let pythonFound: { path: string | undefined; at: number } | undefined;
let firstProbe: NodeJS.Timeout | undefined;

/**
 * Schedules the first probe `delayMs` from now: a starting daemon's first answers come in its
 * first second, and a python3 behind a version manager's shims costs a few hundred ms of CPU they
 * need more. A status before then says `checking`; a debug launch probes at once (findPython).
 */
export function probePythonSoon(delayMs = 1_500): void {
  if (pythonFound || pythonProbe || firstProbe) return;
  firstProbe = setTimeout(() => void findPython(), delayMs).unref();
}
let pythonProbe: Promise<string | undefined> | undefined;

/** Whether `candidate -c 'import debugpy'` succeeds (asynchronously: the daemon's thread never waits on a child). */
function importsDebugpy(candidate: string): Promise<boolean> {
  return new Promise((resolve) => {
    // In `/` (no one else's folder): `-c` puts the working folder first on sys.path, and the
    // daemon's may be a repository with a debugpy/ of its own.
    const child = spawn(candidate, ['-c', 'import debugpy'], { stdio: 'ignore', cwd: '/', timeout: 10_000 });
    child.on('error', () => resolve(false));
    child.on('exit', (code) => resolve(code === 0));
  });
}

/**
 * The first python3 that imports debugpy. A hit is kept; a miss is probed again once it is
 * `adapterMissRetryMs` old, so an install while the daemon runs is noticed on the next ask.
 */
export function findPython(): Promise<string | undefined> {
  if (pythonFound && (pythonFound.path !== undefined || Date.now() - pythonFound.at < adapterMissRetryMs)) return Promise.resolve(pythonFound.path);
  pythonProbe ??= (async () => {
    let found: string | undefined;
    for (const candidate of pythonCandidates()) {
      if (await importsDebugpy(candidate)) {
        found = candidate;
        break;
      }
    }
    pythonFound = { path: found, at: Date.now() };
    pythonProbe = undefined;
    return found;
  })();
  return pythonProbe;
}

function findBinary(names: string[], extraFolders: string[] = []): string | undefined {
  const folders = [...(process.env.PATH ?? '').split(path.delimiter), ...extraFolders].filter((folder) => folder !== '');
  for (const name of names) for (const folder of folders) if (fs.existsSync(path.join(folder, name))) return path.join(folder, name);
  return undefined;
}

const lldbNames = ['lldb-vscode', 'lldb-vscode-14', 'lldb-vscode-15', 'lldb-vscode-16', 'lldb-dap'];
const lldbFolders = ['/usr/lib/llvm-14/bin', '/usr/lib/llvm-15/bin', '/usr/lib/llvm-16/bin'];

function isElf(file: string): boolean {
  try {
    const handle = fs.openSync(file, 'r');
    try {
      const head = Buffer.alloc(4);
      fs.readSync(handle, head, 0, 4, 0);
      return head.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
    } finally {
      fs.closeSync(handle);
    }
  } catch {
    return false;
  }
}

function python(pythonPath: string): AdapterCommand {
  return {
    adapter: 'python',
    command: pythonPath,
    args: ['-m', 'debugpy.adapter'],
    transport: 'stdio',
    evaluateContext: 'repl',
    // `-m` puts the working folder first on sys.path: in the program's folder, a repository's own
    // debugpy/ would be imported instead of the real one (and run before anything is debugged).
    cwd: '/',
    launchArguments: (input) => ({
      request: 'launch',
      type: 'python',
      name: 'fathom',
      program: input.program,
      args: input.args,
      cwd: input.cwd,
      env: input.env,
      stopOnEntry: input.stopOnEntry,
      console: 'internalConsole',
      justMyCode: true,
      python: [pythonPath],
      redirectOutput: true,
    }),
  };
}

function lldb(binary: string): AdapterCommand {
  return {
    adapter: 'c',
    command: binary,
    args: [],
    transport: 'stdio',
    evaluateContext: 'watch',
    launchArguments: (input) => ({
      request: 'launch',
      name: 'fathom',
      program: input.program,
      args: input.args,
      cwd: input.cwd,
      env: Object.entries(input.env).map(([key, value]) => `${key}=${value}`),
      stopOnEntry: input.stopOnEntry,
    }),
  };
}

function delve(binary: string): AdapterCommand {
  return {
    adapter: 'go',
    command: binary,
    args: ['dap', '--listen=127.0.0.1:0'],
    transport: 'tcp',
    evaluateContext: 'repl',
    launchArguments: (input) => ({
      request: 'launch',
      name: 'fathom',
      mode: 'debug',
      program: input.program,
      args: input.args,
      cwd: input.cwd,
      env: input.env,
      stopOnEntry: input.stopOnEntry,
    }),
  };
}

/** Which adapter debugs `program` (an absolute path), or why none can. */
export async function adapterFor(program: string): Promise<AdapterCommand | { missing: string }> {
  const extension = path.extname(program).toLowerCase();
  if (extension === '.py') {
    const found = await findPython();
    return found ? python(found) : { missing: 'no python3 here can import debugpy (Debian: apt-get install python3-debugpy)' };
  }
  if (extension === '.go' || (fs.existsSync(program) && fs.statSync(program).isDirectory() && fs.readdirSync(program).some((name) => name.endsWith('.go')))) {
    const dlv = findBinary(['dlv']);
    if (!dlv) return { missing: 'dlv not found (Debian: apt-get install delve)' };
    if (!findBinary(['go'])) return { missing: 'the go toolchain is not found (Debian: apt-get install golang-go): delve builds the program with it' };
    return delve(dlv);
  }
  if (['.js', '.mjs', '.cjs', '.ts'].includes(extension)) return { missing: 'no Node.js debug adapter installs by name from npm or Debian' };
  if (isElf(program)) {
    const binary = findBinary(lldbNames, lldbFolders);
    return binary ? lldb(binary) : { missing: 'lldb-vscode not found (Debian: apt-get install lldb-14)' };
  }
  if (['.c', '.cc', '.cpp', '.cxx', '.h'].includes(extension)) return { missing: 'give the built program (an ELF binary built with -g), not its source' };
  return { missing: `no debug adapter for ${extension || 'this file (not an ELF binary)'}` };
}

/** What the last finished probe found (a stale miss starts another), or `checking` while the first one runs. */
function pythonKnown(): { path: string | undefined } | 'checking' {
  const known = pythonFound;
  if (known) {
    // A stale miss is probed again after the answer at hand is written (a spawn costs the thread ms).
    if (known.path === undefined && Date.now() - known.at >= adapterMissRetryMs) setImmediate(() => void findPython());
    return known;
  }
  // Unless a starting daemon has the first probe scheduled (probePythonSoon), it starts now, after
  // the answer at hand is written.
  if (firstProbe === undefined) setImmediate(() => void findPython());
  return 'checking';
}

/** Every adapter's state, for status: answered at once, never after a probe (a fresh daemon's first status says python is `checking`). */
export function adapterStates(): AdapterState[] {
  const python = pythonKnown();
  const dlv = findBinary(['dlv']);
  const go = findBinary(['go']);
  const lldbBinary = findBinary(lldbNames, lldbFolders);
  return [
    python === 'checking'
      ? { adapter: 'python', state: 'checking', reason: 'probing python3 for debugpy' }
      : python.path
        ? { adapter: 'python', state: 'available' }
        : { adapter: 'python', state: 'missing', reason: 'no python3 can import debugpy (apt-get install python3-debugpy)' },
    dlv && go
      ? { adapter: 'go', state: 'available' }
      : {
          adapter: 'go',
          state: 'missing',
          reason: !dlv ? 'dlv not found (apt-get install delve)' : 'the go toolchain is not found (apt-get install golang-go)',
        },
    lldbBinary ? { adapter: 'c', state: 'available' } : { adapter: 'c', state: 'missing', reason: 'lldb-vscode not found (apt-get install lldb-14)' },
    { adapter: 'node', state: 'missing', reason: 'no Node.js debug adapter installs by name from npm or Debian' },
  ];
}
