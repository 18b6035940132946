// Bad conditions on disk: files that cannot be read, folders that cannot be listed, files that
// vanish or change kind between a listing and a read, and a daemon killed while it writes its
// cache. Nothing may crash, and the cache is always either the old file or the new one. Then bad
// conditions on the wire: hostile clients, and a daemon killed while its clients wait.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { ErrorCodes } from '../../src/protocol/errors.js';
import { decodeFileSet } from '../../src/workspace/file-set-store.js';
import { inspectFile } from '../../src/workspace/file-content.js';
import { sleep, tempDir, writeFixture } from '../helpers/fixture.js';
import {
  cliMain,
  connectRaw,
  RawClient,
  socketPathIn,
  spawnCli,
  spawnSocketDaemon,
  spawnStdioDaemon,
  streamRepeated,
  type Message,
  type Spawned,
} from '../helpers/raw-client.js';
import { workspaceCacheDir } from '../../src/base/places.js';
import { pool, readyWorkspace } from '../helpers/workspace-harness.js';

after(() => pool.close());

test('content: what inspecting a file says, with and without what is known', () => {
  const folder = tempDir();
  const write = (name: string, content: string | Buffer): string => {
    fs.writeFileSync(path.join(folder, name), content);
    return path.join(folder, name);
  };
  const text = write('a.txt', 'hello\n');
  const stat = fs.statSync(text);
  spawnSync('mkfifo', [path.join(folder, 'fifo')]);
  fs.symlinkSync(text, path.join(folder, 'link'));
  const cases: { name: string; file: string; known?: [number, number, number]; read?: boolean; expected: string }[] = [
    { name: 'text', file: text, expected: 'text' },
    { name: 'empty', file: write('empty.txt', ''), expected: 'text' },
    { name: 'NUL in the first 8 KiB', file: write('b.bin', Buffer.from([65, 0, 66])), expected: 'binary' },
    { name: 'NUL after 8 KiB', file: write('late.txt', Buffer.concat([Buffer.alloc(8192, 97), Buffer.from([0])])), expected: 'text' },
    { name: 'over the limit', file: write('big.txt', 'x'.repeat(20_000)), expected: 'tooLarge' },
    { name: 'a path that vanished', file: path.join(folder, 'gone.txt'), expected: 'vanished' },
    { name: 'a folder where a file was', file: folder, expected: 'notFile' },
    { name: 'a FIFO (never waited on)', file: path.join(folder, 'fifo'), expected: 'notFile' },
    { name: 'a symbolic link (never followed)', file: path.join(folder, 'link'), expected: 'notFile' },
    { name: 'known and unchanged: not read', file: text, known: [stat.size, stat.mtimeMs, stat.ino], expected: 'same' },
    { name: 'known but changed: read', file: text, known: [stat.size + 1, stat.mtimeMs, stat.ino], expected: 'text' },
    { name: 'unknown, stat only', file: text, read: false, expected: 'stat' },
  ];
  for (const { name, file, known, read, expected } of cases) {
    assert.equal(inspectFile({ path: file, known, read: read ?? true }, 10_000).kind, expected, name);
  }
});

test('permissions: unreadable files and folders are skipped as unreadable, the rest indexed', () => {
  const root = writeFixture(`
    //- ok.ts
    export {};
    //- locked.ts
    secret
    //- closed/inside.ts
    hidden
    //- open/fine.ts
    fine
  `);
  fs.chmodSync(path.join(root, 'locked.ts'), 0o000);
  fs.chmodSync(path.join(root, 'closed'), 0o000);
  // Root reads everything: run the CLI as an unprivileged user when the tests run as root.
  const asRoot = process.getuid?.() === 0;
  const cache = tempDir('fathom-cache-');
  if (asRoot) {
    for (const folder of [root, cache]) {
      fs.chmodSync(folder, 0o755);
      fs.chownSync(folder, 65534, 65534);
    }
    for (const name of ['ok.ts', 'locked.ts', 'open', 'open/fine.ts']) fs.chownSync(path.join(root, name), 65534, 65534);
  }
  const run = (command: string) =>
    spawnSync(process.execPath, [cliMain, command, root, '--no-daemon', '--json'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, FATHOM_CACHE_DIR: cache, FATHOM_SOCKET: socketPathIn(), HOME: cache, FATHOM_LOG: 'warn' },
      ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
    });
  const files = run('files');
  const indexed = run('index');
  // A root that cannot be read at all is refused with a clear error, not indexed as empty.
  fs.chmodSync(path.join(root, 'open'), 0o000);
  const closedRoot = spawnSync(process.execPath, [cliMain, 'files', path.join(root, 'open'), '--no-daemon'], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, FATHOM_CACHE_DIR: cache, HOME: cache, FATHOM_LOG: 'warn' },
    ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
  });
  fs.chmodSync(path.join(root, 'open'), 0o755);
  fs.chmodSync(path.join(root, 'closed'), 0o755);
  assert.equal(closedRoot.status, 2);
  assert.match(closedRoot.stderr, /cannot be read \(code -32010\)/);
  assert.equal(files.status, 0, files.stderr);
  assert.deepEqual(JSON.parse(files.stdout), ['ok.ts', 'open/fine.ts']);
  assert.equal(indexed.status, 0, indexed.stderr);
  assert.deepEqual(JSON.parse(indexed.stdout).skipped, { unreadable: 2 });
});

test('churn: files vanishing and changing kind during scans never break the workspace', async () => {
  const root = tempDir();
  for (let index = 0; index < 300; index++) fs.writeFileSync(path.join(root, `f${index}.txt`), `${index}\n`);
  let stop = false;
  const churn = (async () => {
    for (let round = 0; !stop; round++) {
      const name = path.join(root, `f${round % 300}.txt`);
      fs.rmSync(name, { force: true, recursive: true });
      if (round % 3 === 0) fs.mkdirSync(name);
      else fs.writeFileSync(name, `again ${round}\n`);
      if (round % 5 === 0) await sleep(0);
    }
  })();
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      const workspace = await readyWorkspace(root);
      await workspace.reconcile();
      await workspace.close();
    }
  } finally {
    stop = true;
    await churn;
  }
});

test('a daemon killed at any moment leaves a cache that is whole or absent, never torn', async () => {
  const root = tempDir();
  for (let folder = 0; folder < 20; folder++) {
    fs.mkdirSync(path.join(root, `d${folder}`));
    for (let file = 0; file < 100; file++) fs.writeFileSync(path.join(root, `d${folder}`, `f${file}.txt`), `${folder} ${file}\n`);
  }
  const cache = tempDir('fathom-cache-');
  for (let round = 0; round < 8; round++) {
    const socketPath = socketPathIn();
    const daemon = await spawnSocketDaemon(socketPath, { FATHOM_CACHE_DIR: cache });
    const { client, socket } = await connectRaw(socketPath);
    // Never answered (the daemon is killed): its 20 s wait must not outlive the test as an unhandled rejection.
    client.request('fathom/index', { root }).catch(() => undefined);
    // Keep the daemon writing: edits make it save the file set again and again.
    for (let edit = 0; edit < 5; edit++) fs.writeFileSync(path.join(root, 'd0', `f${edit}.txt`), `round ${round} edit ${edit}\n`);
    await sleep(40 + ((round * 37) % 200));
    daemon.child.kill('SIGKILL');
    await daemon.exited;
    socket.destroy();
    const workspaces = path.join(cache, 'workspaces');
    for (const folder of fs.existsSync(workspaces) ? fs.readdirSync(workspaces) : []) {
      const file = path.join(workspaces, folder, 'fileset.bin');
      if (fs.existsSync(file)) assert.equal(decodeFileSet(fs.readFileSync(file)).status, 'valid', `round ${round}`);
    }
  }
});

// Hostile and broken clients, over the real protocol: frames too large to hold, headers that never
// end, ids used twice; and a daemon killed while a client waits on it.

/** A process's resident memory in bytes (Linux /proc). */
function rssOf(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
}

test('oversized frames: three socket clients announcing 99999999999 bytes are answered with their id and closed, unread; the daemon does not grow', async () => {
  const socketPath = socketPathIn();
  const daemon = await spawnSocketDaemon(socketPath);
  let sampler: NodeJS.Timeout | undefined;
  try {
    const survivor = await connectRaw(socketPath);
    await survivor.client.result('fathom/status', {});
    const before = rssOf(daemon.child.pid!);
    let most = before;
    // Cleared in `finally` too: a sampler left running keeps this test file's process alive.
    sampler = setInterval(() => (most = Math.max(most, rssOf(daemon.child.pid!))), 20);
    const chunk = Buffer.alloc(1024 * 1024, 0x78);
    const hostile = await Promise.all(
      [41, 42, 43].map(async (id) => {
        const { client, socket } = await connectRaw(socketPath);
        socket.on('error', () => undefined);
        client.sendRaw(`Content-Length: 99999999999\r\n\r\n{"jsonrpc":"2.0","id":${id},"method":"fathom/status","params":{"padding":"`);
        // 400 MiB each if the daemon kept reading (1.2 GB held by a daemon without the limit).
        const [sent, answer] = await Promise.all([streamRepeated(socket, chunk, 400 * 1024 * 1024), client.waitFor((message) => message.id === id, 60_000)]);
        return { sent, answer, closed: await new Promise((resolve) => (socket.destroyed ? resolve(true) : socket.once('close', () => resolve(true)))) };
      }),
    );
    clearInterval(sampler);
    for (const { answer, closed, sent } of hostile) {
      assert.equal(answer.error?.code, ErrorCodes.InvalidRequest, JSON.stringify(answer));
      assert.match(
        answer.error!.message,
        /a message of 99999999999 bytes is over the daemon's limit of 67108864 bytes \(FATHOM_MAX_FRAME_BYTES or fathom serve --max-frame-bytes\); the connection is closed/,
      );
      assert.deepEqual(answer.error!.data, { frameBytes: 99999999999, maxFrameBytes: 67108864 });
      assert.equal(closed, true);
      assert.ok(sent < 400 * 1024 * 1024, `the daemon read all ${sent} bytes`);
    }
    assert.ok(most - before < 200 * 1024 * 1024, `RSS grew by ${((most - before) / 2 ** 20).toFixed(0)} MiB`);
    const status = await survivor.client.result<{ daemon: { clients: number } }>('fathom/status', {});
    assert.equal(status.daemon.clients, 1, 'only the well-behaved client is left');
    survivor.socket.destroy();
  } finally {
    clearInterval(sampler);
    daemon.child.kill('SIGKILL');
  }
});

test('oversized frames over stdio: refused with the id and skipped unread; the stream stays in step and a frame under the limit is read', async () => {
  const spawned = spawnCli(['serve', '--stdio', '--max-frame-bytes', String(1024 * 1024)], { FATHOM_CACHE_DIR: tempDir('fathom-cache-') });
  const client = new RawClient(spawned.child.stdout, spawned.child.stdin);
  try {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 51, method: 'fathom/status', params: { padding: 'x'.repeat(3 * 1024 * 1024) } });
    const uri = pathToFileURL(path.join(tempDir(), 'big.ts')).href;
    const underLimit = JSON.stringify({
      jsonrpc: '2.0',
      method: 'textDocument/didOpen',
      params: { textDocument: { uri, languageId: 'typescript', version: 1, text: 'y'.repeat(1000 * 1000) } },
    });
    client.sendRaw(
      RawClient.frame(big) + RawClient.frame(JSON.stringify({ jsonrpc: '2.0', id: 52, method: 'fathom/status', params: {} })) + RawClient.frame(underLimit),
    );
    const refused = await client.waitFor((message) => message.id === 51);
    assert.equal(refused.error?.code, ErrorCodes.InvalidRequest, JSON.stringify(refused));
    assert.match(refused.error!.message, /a message of 3145802 bytes is over the daemon's limit of 1048576 bytes .*; it was not read/);
    assert.ok((await client.waitFor((message) => message.id === 52)).result, 'the next frame is read');
    const status = await client.result<{ daemon: { pid: number; buffers: number } }>('fathom/status', {});
    assert.equal(status.daemon.pid, spawned.child.pid, 'the daemon serves on');
    assert.equal(status.daemon.buffers, 1, 'the frame under the limit was read');
  } finally {
    spawned.child.kill('SIGKILL');
  }
});

test('a header that never ends: the client is answered and closed after 8 KiB; another client is served while it streams', async () => {
  const socketPath = socketPathIn();
  const daemon = await spawnSocketDaemon(socketPath);
  try {
    const survivor = await connectRaw(socketPath);
    await survivor.client.result('fathom/status', {});
    // The hostile client streams garbage with no blank line, reconnecting whenever it is dropped,
    // 48 MiB in all (or 3 s); the survivor asks for status all the while.
    const garbage = Buffer.alloc(64 * 1024, 0x61);
    let streaming = true;
    const refusals: string[] = [];
    const hostile = (async () => {
      const deadline = Date.now() + 3_000;
      let sent = 0;
      while (sent < 48 * 1024 * 1024 && Date.now() < deadline) {
        const { client, socket } = await connectRaw(socketPath);
        socket.on('error', () => undefined);
        sent += await streamRepeated(socket, garbage, 48 * 1024 * 1024 - sent);
        const answer = await client.waitFor((message) => message.error !== undefined, 1_000).catch(() => undefined);
        if (answer) refusals.push(answer.error!.message);
        socket.destroy();
      }
      streaming = false;
    })();
    const latencies: number[] = [];
    while (streaming) {
      const started = Date.now();
      await survivor.client.result('fathom/status', {});
      latencies.push(Date.now() - started);
    }
    await hostile;
    assert.ok(refusals.length >= 1, 'the hostile client was refused');
    for (const refusal of refusals) assert.match(refusal, /bad frame: a header longer than 8192 bytes/);
    assert.ok(latencies.length >= 3, `${latencies.length} status answers while the hostile client streamed`);
    // A generous ceiling (the goal, 100 ms, is bench/hostile-client-bench.ts's): without the header limit one took 6 s.
    assert.ok(Math.max(...latencies) < 2_000, `status took ${Math.max(...latencies)} ms`);
    survivor.socket.destroy();
  } finally {
    daemon.child.kill('SIGKILL');
  }
});

test('the same id twice: every request gets its own answer (a duplicate of one in flight: InvalidRequest)', async () => {
  const socketPath = socketPathIn();
  const daemon = await spawnSocketDaemon(socketPath);
  const { client, socket } = await connectRaw(socketPath);
  const request = (id: number | string, method = 'fathom/status'): string => RawClient.frame(JSON.stringify({ jsonrpc: '2.0', id, method, params: {} }));
  /** Waits until `count` answers for `id` came, then one more round trip: no answer may follow late. */
  const answersFor = async (id: number | string, count: number): Promise<Message[]> => {
    for (let attempt = 0; attempt < 500 && client.received.filter((message) => message.id === id).length < count; attempt++) await sleep(10);
    await client.result('fathom/status', {});
    return client.received.filter((message) => message.id === id && !('method' in message));
  };
  const cases: { name: string; send: () => Promise<void>; id: number | string; answers: ('result' | 'duplicate')[] }[] = [
    {
      name: 'two requests with one id in one write',
      id: 905,
      send: async () => client.sendRaw(request(905) + request(905, 'fathom/files')),
      answers: ['result', 'duplicate'],
    },
    {
      name: 'three in one write',
      id: 906,
      send: async () => client.sendRaw(request(906) + request(906) + request(906)),
      answers: ['result', 'duplicate', 'duplicate'],
    },
    { name: 'a string id', id: 'twice', send: async () => client.sendRaw(request('twice') + request('twice')), answers: ['result', 'duplicate'] },
    // JSON-RPC: 1 and "1" are two ids (vscode-jsonrpc's queue alone would take them for one and drop the first).
    {
      name: 'a number and a string of the same digits in one write',
      id: 908,
      send: async () => client.sendRaw(request(908) + request('908')),
      answers: ['result'],
    },
    { name: 'the string of the same digits', id: '908', send: async () => undefined, answers: ['result'] },
    {
      name: 'a string and a number, the string first',
      id: '909',
      send: async () => client.sendRaw(request('909') + request(909) + request('909')),
      answers: ['result', 'duplicate'],
    },
    { name: 'the number after the string', id: 909, send: async () => undefined, answers: ['result'] },
    {
      name: 'an id used again after its answer',
      id: 907,
      send: async () => {
        client.sendRaw(request(907));
        await client.waitFor((message) => message.id === 907);
        client.sendRaw(request(907));
      },
      answers: ['result', 'result'],
    },
  ];
  try {
    for (const { name, send, id, answers } of cases) {
      await send();
      const got = await answersFor(id, answers.length);
      const kinds = got.map((message) =>
        message.error
          ? message.error.code === ErrorCodes.InvalidRequest && /already in use/.test(message.error.message)
            ? 'duplicate'
            : `error ${message.error.code}`
          : 'result',
      );
      assert.deepEqual(kinds.sort(), [...answers].sort(), `${name}: ${JSON.stringify(got)}`);
    }
  } finally {
    socket.destroy();
    daemon.child.kill('SIGKILL');
  }
});

test('a daemon killed while a client waits: the CLI, attach and mcp say so on stderr and exit non-zero', async () => {
  const root = writeFixture(`
    //- a.txt
    needle
  `);
  const cases: { name: string; args: string[]; send?: (child: Spawned['child']) => Promise<void>; stdout?: (out: string) => void }[] = [
    { name: 'grep', args: ['grep', 'needle', root] },
    { name: 'status', args: ['status', root] },
    { name: 'files', args: ['files', root] },
    {
      name: 'attach',
      args: ['attach'],
      send: async (child) => void child.stdin.write(RawClient.frame(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'fathom/status', params: {} }))),
    },
    {
      name: 'mcp',
      args: ['mcp', root],
      send: async (child) => {
        const line = (message: unknown): boolean => child.stdin.write(`${JSON.stringify(message)}\n`);
        line({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '0' } },
        });
        line({ jsonrpc: '2.0', method: 'notifications/initialized' });
        line({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'grep', arguments: { pattern: 'needle' } } });
      },
      // The call in flight is answered with the error before the server stops.
      stdout: (out) => {
        const answer = out
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { id?: number; result?: { content: { text: string }[]; isError?: boolean } })
          .find((message) => message.id === 2);
        assert.equal(answer?.result?.isError, true, out);
        assert.match(answer!.result!.content[0]!.text, /^fathom\/grep failed: the daemon closed the connection before answering/);
      },
    },
  ];
  /** Whether a process holds a socket besides its stdio (which Node makes of socket pairs): it connected. */
  const connected = (pid: number): boolean =>
    fs.readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return Number(fd) > 2 && fs.readlinkSync(`/proc/${pid}/fd/${fd}`, { encoding: 'utf8' }).startsWith('socket:');
      } catch {
        return false; // closed since the listing
      }
    });
  for (const { name, args, send, stdout } of cases) {
    const socketPath = socketPathIn();
    const cache = tempDir('fathom-cache-');
    const daemon = await spawnSocketDaemon(socketPath, { FATHOM_CACHE_DIR: cache });
    // Stopped, the daemon accepts no connection and answers nothing; the kernel still queues both.
    daemon.child.kill('SIGSTOP');
    const cli = spawnCli([...args, '--socket', socketPath], { FATHOM_CACHE_DIR: cache });
    try {
      let out = '';
      cli.child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      for (let attempt = 0; attempt < 1_000 && !connected(cli.child.pid!); attempt++) await sleep(10);
      assert.ok(connected(cli.child.pid!), `${name}: connected`);
      await send?.(cli.child);
      await sleep(300);
      daemon.child.kill('SIGKILL');
      await daemon.exited;
      const code = await cli.exited;
      assert.equal(code, 2, `${name}: exit code (stderr: ${cli.stderr()})`);
      assert.match(
        cli.stderr(),
        /^fathom: the daemon closed the connection before (answering|the editor sent exit) \(it may have crashed; see .*daemon\.log\)\n$/,
        name,
      );
      stdout?.(out);
    } finally {
      daemon.child.kill('SIGKILL');
      cli.child.kill('SIGKILL');
    }
  }
});

/** What a probe put where a cache folder belongs: each is set aside (kept, renamed), warned about, and the cache rebuilt. */
const cacheObstacles: { name: string; place: (cache: string, workspaceFolder: string) => string }[] = [
  { name: 'the cache root itself is a file', place: (cache) => cache },
  { name: '<cache>/workspaces is a file', place: (cache) => path.join(cache, 'workspaces') },
  { name: "a workspace's cache folder is a file", place: (_cache, workspaceFolder) => workspaceFolder },
  { name: "a workspace's cache folder is a broken symbolic link", place: (_cache, workspaceFolder) => workspaceFolder },
];

for (const obstacle of cacheObstacles) {
  test(`cache: ${obstacle.name}: set aside with a warning, rebuilt, and requests work`, async () => {
    const root = writeFixture(`
      //- a.ts
      export const a = 1;
    `);
    const cache = path.join(tempDir('fathom-cache-'), 'cache');
    const blocked = obstacle.place(cache, workspaceCacheDir(cache, root));
    fs.mkdirSync(path.dirname(blocked), { recursive: true });
    if (obstacle.name.includes('symbolic link')) fs.symlinkSync(path.join(cache, 'nowhere'), blocked);
    else fs.writeFileSync(blocked, 'not a folder\n');
    const daemon = spawnStdioDaemon({ FATHOM_CACHE_DIR: cache });
    try {
      for (let round = 0; round < 2; round++) {
        const files = await daemon.client.request('fathom/files', { root });
        assert.deepEqual(files.result, { root, total: 1, truncated: false, files: ['a.ts'] }, JSON.stringify(files.error));
        const grep = await daemon.client.request('fathom/grep', { root, pattern: 'const' });
        assert.equal((grep.result as { total: number } | undefined)?.total, 1, JSON.stringify(grep.error));
      }
      assert.match(daemon.stderr(), /warn the cache folder .* was not a folder .*: set aside as .*\.broken-/);
      const asides = fs.readdirSync(path.dirname(blocked)).filter((name) => name.startsWith(`${path.basename(blocked)}.broken-`));
      assert.equal(asides.length, 1, 'set aside once, not deleted');
      if (!obstacle.name.includes('symbolic link')) assert.equal(fs.readFileSync(path.join(path.dirname(blocked), asides[0]!), 'utf8'), 'not a folder\n');
      assert.ok(fs.statSync(workspaceCacheDir(cache, root)).isDirectory(), 'the cache is rebuilt in its place');
    } finally {
      daemon.child.kill();
      await daemon.exited;
    }
  });
}

test('cache: the CLI sets aside a cache root that is a file before it starts a daemon there', () => {
  const root = writeFixture(`
    //- a.ts
    export const a = 1;
  `);
  const cache = path.join(tempDir('fathom-cache-'), 'cache');
  fs.writeFileSync(cache, 'not a folder\n');
  const env = { ...process.env, FATHOM_LOG: 'warn', FATHOM_SOCKET: socketPathIn(), FATHOM_CACHE_DIR: cache };
  try {
    const files = spawnSync(process.execPath, [cliMain, 'files', root], { env, encoding: 'utf8', timeout: 60_000 });
    assert.equal(files.status, 0, files.stderr);
    assert.equal(files.stdout, 'a.ts\n');
    assert.match(files.stderr, /set aside as .*\.broken-/);
    assert.ok(fs.statSync(cache).isDirectory());
  } finally {
    spawnSync(process.execPath, [cliMain, 'stop'], { env, encoding: 'utf8', timeout: 60_000 });
  }
});
