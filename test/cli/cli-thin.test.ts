// The thin client path, at run time: `fathom --version` (answered by bin/fathom.js: nothing of dist/) and client commands (against a running
// daemon, or one they start) load no daemon, engine, structural, LSP, debugger or MCP code and no
// package at all (not vscode-jsonrpc: the CLI speaks JSON-RPC with its own client,
// src/cli/rpc-client.ts); --no-daemon does load the daemon and vscode-jsonrpc (the control that
// shows the recording sees such loads, ES and CommonJS). How a load is seen on Node 20, which lists no loaded ES modules:
// each command runs as `node --import dist/test/helpers/load-recorder.js bin/fathom.js …`, whose
// module.register() resolve hook records every ES import (static or dynamic) and whose exit
// handler records the CommonJS cache (what vscode-jsonrpc and other CommonJS packages require).
// The recorder is not passed on to the daemon a command starts (a process of its own). No
// timings here: bench/cli-bench.ts measures them. test/layers.test.ts checks the same path in
// the sources' static imports.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gitInit, tempDir, writeFixture } from '../helpers/fixture.js';
import { canConnect, socketPathIn } from '../helpers/raw-client.js';

const repository = fileURLToPath(new URL('../../../', import.meta.url));
const bin = path.join(repository, 'bin/fathom.js');
const recorder = fileURLToPath(new URL('../helpers/load-recorder.js', import.meta.url));

/** What a thin command may load: Node's own modules, the shim, the recorder, these folders of ours, these packages. */
const thin = {
  files: [bin, recorder],
  folders: ['dist/src/base/', 'dist/src/protocol/', 'dist/src/cli/'].map((folder) => path.join(repository, folder)),
  notInFolders: ['dist/src/cli/in-process-daemon.js', 'dist/src/cli/mcp.js'].map((file) => path.join(repository, file)),
  packages: [] as string[],
};

function packageOf(file: string): string | undefined {
  const at = file.lastIndexOf('/node_modules/');
  if (at < 0) return undefined;
  const parts = file.slice(at + '/node_modules/'.length).split('/');
  return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

function allowedOnThinPath(loaded: string): boolean {
  if (loaded.startsWith('node:')) return true;
  const name = packageOf(loaded);
  if (name !== undefined) return thin.packages.includes(name);
  return thin.files.includes(loaded) || (thin.folders.some((folder) => loaded.startsWith(folder)) && !thin.notInFolders.includes(loaded));
}

/** Runs `fathom ARGS` with the recorder: its exit code and every module it loaded. */
const records = tempDir('fathom-loads-');
let recordCount = 0;

function recorded(args: string[], env: Record<string, string>): { code: number | null; stderr: string; loaded: string[] } {
  const record = path.join(records, `${++recordCount}.txt`);
  const result = spawnSync(process.execPath, ['--import', recorder, bin, ...args], {
    env: { ...process.env, FATHOM_LOG: 'warn', ...env, FATHOM_LOAD_RECORD: record },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const loaded = fs.existsSync(record) ? [...new Set(fs.readFileSync(record, 'utf8').split('\n').filter(Boolean))].sort() : [];
  return { code: result.status, stderr: result.stderr, loaded };
}

const root = writeFixture(`
  //- src/needle.ts
  export const needle = 'a needle in the fixture';
  //- src/hay.ts
  export const hay = 1;
`);
gitInit(root);
const env = { FATHOM_SOCKET: socketPathIn(), FATHOM_CACHE_DIR: tempDir('fathom-cache-') };

/** In order: the first client command starts the daemon, the next ones find it running. */
/** A thin command loads no package; the control loads the daemon, and vscode-jsonrpc (CommonJS: the recorder's second source is seen working). */
const cases: Array<{ what: string; args: string[]; code: number; thin: boolean }> = [
  { what: '--version', args: ['--version'], code: 0, thin: true },
  { what: 'status, starting the daemon', args: ['status', root, '--json'], code: 0, thin: true },
  { what: 'grep against the running daemon', args: ['grep', '-F', 'needle', root], code: 0, thin: true },
  { what: 'grep --json, nothing found', args: ['grep', '--json', 'absent-from-the-fixture', root], code: 1, thin: true },
  { what: 'files against the running daemon', args: ['files', root], code: 0, thin: true },
  { what: 'grep --no-daemon (the control: the daemon loads in the process)', args: ['grep', '-F', 'needle', root, '--no-daemon'], code: 0, thin: false },
];

test('cli-thin: client commands load only the client path; --no-daemon loads the daemon', async () => {
  try {
    for (const entry of cases) {
      const run = recorded(entry.args, env);
      assert.equal(run.code, entry.code, `${entry.what}: ${run.stderr}`);
      // --version is answered by the shim: nothing of dist/ at all (stricter than the thin path).
      if (entry.args[0] === '--version')
        assert.deepEqual(
          run.loaded.filter((file) => file.startsWith(path.join(repository, 'dist/src/'))),
          [],
          '--version loads no module of the CLI',
        );
      else assert.ok(run.loaded.includes(path.join(repository, 'dist/src/cli/main.js')), `${entry.what}: the recorder saw the CLI load`);
      const packages = [...new Set(run.loaded.map(packageOf).filter((name) => name !== undefined))];
      if (entry.thin) {
        assert.deepEqual(packages, [], `${entry.what} loads no package`);
        assert.deepEqual(
          run.loaded.filter((file) => !allowedOnThinPath(file)),
          [],
          `${entry.what} loads only the client path`,
        );
      } else {
        for (const file of ['dist/src/daemon/server.js', 'dist/src/engine/workspace-engine.js'])
          assert.ok(run.loaded.includes(path.join(repository, file)), `${entry.what}: loads ${file}`);
        assert.ok(
          run.loaded.some((file) => file.endsWith('/node_modules/vscode-jsonrpc/lib/common/connection.js')),
          `${entry.what}: the recorder saw CommonJS requires`,
        );
      }
    }
    assert.ok(await canConnect(env.FATHOM_SOCKET), 'a client command started the daemon');
  } finally {
    spawnSync(process.execPath, [bin, 'stop'], { env: { ...process.env, ...env }, timeout: 30_000 });
    fs.rmSync(records, { recursive: true, force: true });
  }
});

test(
  'cli-thin: run as a command, a client leaves NODE_EXTRA_CA_CERTS out of its own start and gives it to the daemon it starts',
  { skip: process.platform !== 'linux' && 'reads /proc' },
  () => {
    // A bundle that does not exist: a Node started with it says so on stderr ("Ignoring extra certs").
    const bundle = path.join(tempDir('fathom-ca-'), 'absent-bundle.pem');
    const own = { FATHOM_SOCKET: socketPathIn(), FATHOM_CACHE_DIR: tempDir('fathom-cache-') };
    const run = (args: string[]): ReturnType<typeof spawnSync> =>
      // Through its #! line, as a shell runs it.
      spawnSync(bin, args, { env: { ...process.env, ...own, FATHOM_LOG: 'warn', NODE_EXTRA_CA_CERTS: bundle }, encoding: 'utf8', timeout: 60_000 });
    try {
      const status = run(['status', root, '--json']);
      assert.equal(status.status, 0, String(status.stderr));
      assert.doesNotMatch(String(status.stderr), /extra certs/i, 'the client started without the bundle');
      // The daemon serving this socket, found by its command line.
      const pid = fs
        .readdirSync('/proc')
        .filter((entry) => /^\d+$/.test(entry))
        .find((entry) => {
          try {
            return fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(own.FATHOM_SOCKET);
          } catch {
            return false; // gone meanwhile
          }
        });
      assert.ok(pid !== undefined, 'the daemon runs');
      const daemonEnv = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      assert.ok(daemonEnv.includes(`NODE_EXTRA_CA_CERTS=${bundle}`), 'the daemon has the bundle back');
      const grep = run(['grep', '-F', 'needle', root]);
      assert.equal(grep.status, 0, String(grep.stderr));
      assert.match(String(grep.stdout), /needle/);
      // A command that runs the daemon in this process keeps it (Node says it could not read the bundle).
      const inProcess = run(['grep', '-F', 'needle', root, '--no-daemon']);
      assert.equal(inProcess.status, 0, String(inProcess.stderr));
      assert.match(String(inProcess.stderr), /extra certs/i, '--no-daemon started with the bundle');
    } finally {
      spawnSync(process.execPath, [bin, 'stop'], { env: { ...process.env, ...own }, timeout: 30_000 });
    }
  },
);
