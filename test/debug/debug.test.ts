// The debugger over the Debug Adapter Protocol with a real adapter (Debian's python3-debugpy):
// a Python program with a bug, launched with a breakpoint; where it stopped, its locals, an
// expression evaluated in the frame, a step, a continue to the end; one live session per client
// (a second launch refused, naming the first); the time to live kills the debuggee (by pid); a
// closed connection takes its session; clear errors for bad input and programs no adapter runs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { ErrorCodes } from '../../src/protocol/errors.js';
import type { DebugEvaluateResult, DebugStateResult, StatusResult } from '../../src/protocol/methods.js';
import { tempDir, writeFixture } from '../helpers/fixture.js';
import { socketPathIn, spawnCli, spawnSocketDaemon, spawnStdioDaemon } from '../helpers/raw-client.js';

const program = `
  //- average.py
  def average(values):
  total = 0
  for value in values:
  total += value
  return total / len(values) - 1  # the bug: off by one
  @@
  def main():
  scores = [3, 4, 5]
  result = average(scores)
  print("average", result)
  @@
  main()
`;

/** Python needs indentation the fixture format strips: rebuild it from a tiny marker language. */
function writeProgram(): string {
  const root = tempDir('fathom-debug-');
  const lines = [
    'def average(values):',
    '    total = 0',
    '    for value in values:',
    '        total += value',
    '    return total / len(values) - 1  # the bug: off by one',
    '',
    '',
    'def main():',
    '    scores = [3, 4, 5]',
    '    result = average(scores)',
    '    print("average", result)',
    '',
    '',
    'main()',
    '',
  ];
  void program;
  void writeFixture;
  fs.writeFileSync(path.join(root, 'average.py'), lines.join('\n'));
  return root;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('debugging a Python program through debugpy', () => {
  const root = writeProgram();
  const daemon = spawnStdioDaemon({ FATHOM_DEBUG_TTL_SECONDS: '8' });
  const client = daemon.client;
  after(() => daemon.child.kill());

  test('launch stops at the breakpoint with the locals; evaluate; step; continue to the end', async () => {
    const stopped = await client.result<DebugStateResult>('fathom/debugLaunch', {
      program: path.join(root, 'average.py'),
      breakpoints: [{ path: 'average.py', line: 5 }],
    });
    assert.equal(stopped.phase, 'stopped');
    assert.equal(stopped.stop?.reason, 'breakpoint');
    assert.equal(stopped.frames[0]?.name, 'average');
    assert.equal(stopped.frames[0]?.line, 5);
    assert.equal(stopped.frames[0]?.path, path.join(root, 'average.py'));
    const locals = Object.fromEntries((stopped.frames[0]?.locals ?? []).map((variable) => [variable.name, variable.value]));
    assert.equal(locals.total, '12');
    assert.equal(locals.values, '[3, 4, 5]');
    assert.deepEqual(
      stopped.breakpoints.map((entry) => [entry.line, entry.verified]),
      [[5, true]],
    );
    assert.ok(stopped.remainingSeconds > 0);
    const evaluated = await client.result<DebugEvaluateResult>('fathom/debugEvaluate', { expression: 'total / len(values)' });
    assert.equal(evaluated.value, '4.0');
    const bad = await client.request('fathom/debugEvaluate', { expression: 'no_such_name + 1' });
    assert.equal(bad.error?.code, ErrorCodes.InvalidParams);
    assert.match(bad.error?.message ?? '', /NameError|not defined/);
    const out = await client.result<DebugStateResult>('fathom/debugStep', { kind: 'out' });
    assert.equal(out.phase, 'stopped');
    assert.equal(out.frames[0]?.name, 'main');
    const ended = await client.result<DebugStateResult>('fathom/debugContinue', {});
    assert.equal(ended.phase, 'ended');
    assert.equal(ended.exitCode, 0);
    assert.ok(
      ended.output.some((line) => line.includes('average 3.0')),
      ended.output.join('\n'),
    );
    const done = await client.result<{ terminated: boolean }>('fathom/debugTerminate', {});
    assert.equal(done.terminated, true);
  });

  test('one live session per client: a second launch is refused and names the first', async () => {
    const first = await client.result<DebugStateResult>('fathom/debugLaunch', { program: path.join(root, 'average.py'), stopOnEntry: true });
    assert.equal(first.phase, 'stopped');
    const second = await client.request('fathom/debugLaunch', { program: path.join(root, 'average.py') });
    assert.equal(second.error?.code, ErrorCodes.Conflict);
    assert.match(second.error?.message ?? '', new RegExp(`a debug session is live for this client: ${first.session}`));
    // Another conversation may have its own.
    const other = await client.result<DebugStateResult>('fathom/debugLaunch', {
      program: path.join(root, 'average.py'),
      stopOnEntry: true,
      conversation: 'agent-7',
    });
    assert.notEqual(other.session, first.session);
    const status = await client.result<StatusResult>('fathom/status', {});
    assert.deepEqual(status.debug?.sessions.map((entry) => entry.id).sort(), [first.session, other.session].sort());
    assert.equal(status.debug?.adapters.find((entry) => entry.adapter === 'python')?.state, 'available');
    await client.result('fathom/debugTerminate', { conversation: 'agent-7' });
    await client.result('fathom/debugTerminate', {});
  });

  test('the time to live ends the session and kills the debuggee', async () => {
    const waiting = path.join(root, 'wait.py');
    fs.writeFileSync(waiting, 'import os, time\nprint("pid", os.getpid(), flush=True)\ntime.sleep(600)\n');
    const running = await client.result<DebugStateResult>('fathom/debugLaunch', { program: waiting, timeoutMs: 1500 });
    assert.equal(running.phase, 'running');
    let pid: number | undefined;
    for (let attempt = 0; attempt < 50 && pid === undefined; attempt++) {
      const state = await client.result<DebugStateResult>('fathom/debugState', {});
      const line = state.output.find((entry) => entry.startsWith('pid '));
      if (line) pid = Number(line.split(' ')[1]);
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(pid && alive(pid), 'the debuggee runs');
    for (let attempt = 0; attempt < 150 && alive(pid); attempt++) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(alive(pid), false, 'the time to live killed it');
    const gone = await client.request('fathom/debugState', {});
    assert.match(gone.error?.message ?? '', /no live debug session/);
  });

  const errors = [
    { name: 'no program', method: 'fathom/debugLaunch', params: {}, message: /params\.program/ },
    { name: 'a program that does not exist', method: 'fathom/debugLaunch', params: { program: '/no/such/file.py' }, message: /no program at/ },
    { name: 'a program no adapter runs', method: 'fathom/debugLaunch', params: { program: '__SCRIPT__' }, message: /cannot debug .*Node\.js debug adapter/ },
    { name: 'state without a session', method: 'fathom/debugState', params: { conversation: 'nobody' }, message: /no live debug session for this client/ },
    {
      name: 'a step of an unknown kind',
      method: 'fathom/debugStep',
      params: { kind: 'sideways', conversation: 'nobody' },
      message: /no live debug session|params\.kind/,
    },
  ];
  for (const entry of errors) {
    test(`InvalidParams: ${entry.name}`, async () => {
      const script = path.join(tempDir('fathom-debug-js-'), 'a.js');
      fs.writeFileSync(script, 'console.log(1)\n');
      const params = JSON.parse(JSON.stringify(entry.params).replace('__SCRIPT__', script)) as Record<string, unknown>;
      const response = await client.request(entry.method, params);
      assert.equal(response.error?.code, ErrorCodes.InvalidParams);
      assert.match(response.error?.message ?? '', entry.message);
    });
  }
});

describe('a closed connection takes its debug session', () => {
  test('the debuggee is gone after the client disconnects', async () => {
    const root = writeProgram();
    const waiting = path.join(root, 'wait.py');
    fs.writeFileSync(waiting, 'import os, time\nprint("pid", os.getpid(), flush=True)\ntime.sleep(600)\n');
    const daemon = spawnStdioDaemon();
    const cache = tempDir('fathom-debug-sock-');
    void cache;
    try {
      await daemon.client.result<DebugStateResult>('fathom/debugLaunch', { program: waiting, timeoutMs: 1500 });
      let pid: number | undefined;
      for (let attempt = 0; attempt < 50 && pid === undefined; attempt++) {
        const state = await daemon.client.result<DebugStateResult>('fathom/debugState', {});
        const line = state.output.find((entry) => entry.startsWith('pid '));
        if (line) pid = Number(line.split(' ')[1]);
        else await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.ok(pid && alive(pid));
      daemon.child.stdin!.end(); // the editor closes the connection: the stdio daemon stops
      for (let attempt = 0; attempt < 100 && alive(pid); attempt++) await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(alive(pid), false, 'no debuggee outlives its client');
    } finally {
      daemon.child.kill();
    }
  });
});

describe('fathom debug (CLI): one session across commands, kept by the daemon', () => {
  test('launch, eval, step, terminate as separate commands', async () => {
    const root = writeProgram();
    const socket = socketPathIn();
    const daemon = await spawnSocketDaemon(socket);
    const run = async (...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> => {
      const child = spawnCli([...args, '--socket', socket]);
      let stdout = '';
      child.child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const code = await child.exited;
      return { code, stdout, stderr: child.stderr() };
    };
    try {
      const launched = await run('debug', 'launch', path.join(root, 'average.py'), '--break', `${path.join(root, 'average.py')}:5`, '--json');
      assert.equal(launched.code, 0, launched.stderr);
      assert.equal((JSON.parse(launched.stdout) as DebugStateResult).frames[0]?.line, 5);
      const evaluated = await run('debug', 'eval', 'total', '*', '2');
      assert.deepEqual([evaluated.code, evaluated.stdout.trim()], [0, '24']);
      const state = await run('debug', 'state');
      assert.match(state.stdout, /stopped \(breakpoint\)[\s\S]*average at .*average\.py:5[\s\S]*total = 12/);
      const stepped = await run('debug', 'step', 'out', '--json');
      assert.equal((JSON.parse(stepped.stdout) as DebugStateResult).frames[0]?.name, 'main');
      const refused = await run('debug', 'launch', path.join(root, 'average.py'));
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /a debug session is live/);
      const ended = await run('debug', 'terminate');
      assert.match(ended.stdout, /terminated/);
    } finally {
      daemon.child.kill();
    }
  });
});

/** A C program built with -g, and a Go module: the same bug as the Python one. */
function writeNative(): { c: string; cSource: string; go: string } {
  const root = tempDir('fathom-debug-native-');
  const cSource = path.join(root, 'bug.c');
  fs.writeFileSync(
    cSource,
    [
      '#include <stdio.h>',
      '',
      'int average(int *values, int count) {',
      '    int total = 0;',
      '    for (int i = 0; i < count; i++) total += values[i];',
      '    return total / count - 1;',
      '}',
      '',
      'int main(void) {',
      '    int scores[3] = {3, 4, 5};',
      '    int result = average(scores, 3);',
      '    printf("average %d\\n", result);',
      '    return 0;',
      '}',
      '',
    ].join('\n'),
  );
  const built = spawnSync('gcc', ['-g', '-O0', '-o', path.join(root, 'bug'), cSource]);
  assert.equal(built.status, 0, `gcc: ${built.stderr.toString()}`);
  const goFolder = path.join(root, 'go');
  fs.mkdirSync(goFolder);
  fs.writeFileSync(path.join(goFolder, 'go.mod'), 'module example.com/bug\n\ngo 1.19\n');
  fs.writeFileSync(
    path.join(goFolder, 'main.go'),
    [
      'package main',
      '',
      'import "fmt"',
      '',
      'func average(values []int) int {',
      '\ttotal := 0',
      '\tfor _, value := range values {',
      '\t\ttotal += value',
      '\t}',
      '\treturn total/len(values) - 1',
      '}',
      '',
      'func main() {',
      '\tscores := []int{3, 4, 5}',
      '\tresult := average(scores)',
      '\tfmt.Println("average", result)',
      '}',
      '',
    ].join('\n'),
  );
  return { c: path.join(root, 'bug'), cSource, go: path.join(goFolder, 'main.go') };
}

describe('debugging C (lldb-vscode) and Go (delve)', () => {
  const native = writeNative();
  const daemon = spawnStdioDaemon();
  const client = daemon.client;
  after(() => daemon.child.kill());

  const cases = [
    { name: 'C through lldb-vscode', program: () => native.c, source: () => native.cSource, line: 6, frame: 'average', caller: 'main', output: 'average 3' },
    { name: 'Go through delve', program: () => native.go, source: () => native.go, line: 10, frame: 'main.average', caller: 'main.main', output: 'average 3' },
  ];
  for (const entry of cases) {
    test(`${entry.name}: stop at the breakpoint, locals, evaluate, step out, continue to the end`, async () => {
      const stopped = await client.result<DebugStateResult>('fathom/debugLaunch', {
        program: entry.program(),
        breakpoints: [{ path: entry.source(), line: entry.line }],
        timeoutMs: 120_000,
      });
      assert.equal(stopped.phase, 'stopped', JSON.stringify(stopped));
      assert.equal(stopped.frames[0]?.name, entry.frame);
      assert.equal(stopped.frames[0]?.line, entry.line);
      const locals = Object.fromEntries((stopped.frames[0]?.locals ?? []).map((variable) => [variable.name, variable.value]));
      assert.equal(locals.total, '12');
      const evaluated = await client.result<DebugEvaluateResult>('fathom/debugEvaluate', { expression: 'total' });
      assert.equal(evaluated.value, '12');
      const out = await client.result<DebugStateResult>('fathom/debugStep', { kind: 'out' });
      assert.equal(out.frames[0]?.name, entry.caller);
      const ended = await client.result<DebugStateResult>('fathom/debugContinue', {});
      assert.equal(ended.phase, 'ended');
      assert.ok(
        ended.output.some((line) => line.includes(entry.output)),
        ended.output.join('\n'),
      );
      await client.result('fathom/debugTerminate', {});
    });
  }

  test('status lists every adapter as available here', async () => {
    const status = await client.result<StatusResult>('fathom/status', {});
    assert.deepEqual(
      status.debug?.adapters.map((entry) => `${entry.adapter} ${entry.state}`),
      ['python available', 'go available', 'c available', 'node missing'],
    );
  });
});

describe('detection that notices installs', () => {
  test(
    'a python3 that cannot import debugpy is asked again after the back-off: installed meanwhile, it is found without a restart',
    { timeout: 60_000 },
    async () => {
      const folder = tempDir('fathom-debug-python-');
      const installed = path.join(folder, 'installed');
      const python = path.join(folder, 'python3');
      // debugpy "installed" once the marker exists: then it is Debian's python3.
      fs.writeFileSync(python, `#!/bin/sh\n[ -e ${installed} ] || exit 1\nexec /usr/bin/python3 "$@"\n`, { mode: 0o755 });
      const daemon = spawnStdioDaemon({ FATHOM_DEBUG_PYTHON: python });
      try {
        const pythonState = async (): Promise<string | undefined> =>
          (await daemon.client.result<StatusResult>('fathom/status', {})).debug?.adapters.find((entry) => entry.adapter === 'python')?.state;
        // A fresh daemon is still probing (`checking`: status never waits on the child); then the miss.
        let first = await pythonState();
        for (let waited = 0; first === 'checking' && waited < 20_000; waited += 50) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          first = await pythonState();
        }
        assert.equal(first, 'missing');
        const program = path.join(folder, 'hello.py');
        fs.writeFileSync(program, 'print("hello")\n');
        const refused = await daemon.client.request('fathom/debugLaunch', { program });
        assert.match(refused.error?.message ?? '', /no python3 here can import debugpy/);
        fs.writeFileSync(installed, '');
        let state = await pythonState();
        for (let waited = 0; state !== 'available' && waited < 20_000; waited += 250) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          state = await pythonState();
        }
        assert.equal(state, 'available', 'found after the back-off, no restart');
      } finally {
        daemon.child.kill();
      }
    },
  );
});

describe('adapters that crash or never answer', () => {
  test('an adapter killed mid-session ends the session with a clear answer, not a hang', async () => {
    const root = writeProgram();
    const daemon = spawnStdioDaemon();
    try {
      const stopped = await daemon.client.result<DebugStateResult>('fathom/debugLaunch', { program: path.join(root, 'average.py'), stopOnEntry: true });
      assert.equal(stopped.phase, 'stopped');
      // The adapter is the daemon's child running debugpy.adapter.
      const children = spawnSync('ps', ['-o', 'pid=,args=', '--ppid', String(daemon.child.pid)], { encoding: 'utf8' }).stdout;
      const adapter = children.split('\n').find((line) => line.includes('debugpy.adapter'));
      assert.ok(adapter, children);
      process.kill(Number(adapter.trim().split(/\s+/)[0]), 'SIGKILL');
      let state: DebugStateResult | undefined;
      for (let attempt = 0; attempt < 50; attempt++) {
        state = await daemon.client.result<DebugStateResult>('fathom/debugState', {});
        if (state.phase === 'ended') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(state?.phase, 'ended');
      const evaluated = await daemon.client.request('fathom/debugEvaluate', { expression: '1 + 1' });
      assert.match(evaluated.error?.message ?? '', /the debuggee is finished, not stopped/);
      // And the next launch is not refused: an ended session makes room.
      const again = await daemon.client.result<DebugStateResult>('fathom/debugLaunch', { program: path.join(root, 'average.py'), stopOnEntry: true });
      assert.equal(again.phase, 'stopped');
      await daemon.client.result('fathom/debugTerminate', {});
    } finally {
      daemon.child.kill();
    }
  });

  test('a process that never answers DAP: the request times out with its name', async () => {
    const { DapConnection, DapTimedOut } = await import('../../src/debug/dap-connection.js');
    const { spawn } = await import('node:child_process');
    const silent = spawn(process.execPath, ['-e', 'process.stdin.resume(); setInterval(() => {}, 1000)'], { stdio: ['pipe', 'pipe', 'ignore'] });
    try {
      const connection = new DapConnection(silent.stdout!, silent.stdin!);
      await assert.rejects(
        connection.request('initialize', {}, 300),
        (error: unknown) => error instanceof DapTimedOut && /initialize: the debug adapter did not answer within 300 ms/.test((error as Error).message),
      );
      silent.kill();
      await new Promise((resolve) => silent.once('exit', resolve));
      await assert.rejects(connection.request('threads', {}, 300), /connection closed/);
    } finally {
      silent.kill();
    }
  });
});
