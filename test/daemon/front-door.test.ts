// The front door (daemon/front-door.ts): before the daemon admits its clients, a status request
// that is all a client sent is answered by the door; anything else waits, and reaches the daemon
// byte for byte when it admits the client. Each case: what a client sends before admission, what
// the door answers, and the bytes the daemon then reads.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { test } from 'node:test';
import { FrontDoor, SocketInUseError } from '../../src/daemon/front-door.js';
import { socketPathIn } from '../helpers/raw-client.js';

const frame = (message: unknown): string => {
  const body = JSON.stringify(message);
  return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
};
const status = (id: number | string, params: unknown = {}): string => frame({ jsonrpc: '2.0', id, method: 'fathom/status', params });
const other = (id: number): string => frame({ jsonrpc: '2.0', id, method: 'fathom/files', params: {} });

/** What the door's quick status gives back: the params it was asked with (undefined for a root it leaves to the daemon). */
const quick = (params: unknown): unknown => ((params as { root?: unknown } | null)?.root === '/refused' ? undefined : { asked: params ?? null });

/** A client's socket and everything it has received, as text. */
async function connect(socketPath: string): Promise<{ socket: net.Socket; received: () => string }> {
  const socket = net.connect(socketPath);
  await new Promise((resolve) => socket.once('connect', resolve));
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
  return { socket, received: () => received };
}

const settle = (ms = 100): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const cases: { name: string; writes: string[]; answered: unknown[]; daemonReads: string }[] = [
  { name: 'a status alone is answered by the door', writes: [status(1, { root: '/x' })], answered: [{ asked: { root: '/x' } }], daemonReads: '' },
  { name: 'params left out', writes: [frame({ jsonrpc: '2.0', id: 'a', method: 'fathom/status' })], answered: [{ asked: null }], daemonReads: '' },
  { name: 'a status split across writes', writes: [status(2).slice(0, 10), status(2).slice(10)], answered: [{ asked: {} }], daemonReads: '' },
  { name: 'two statuses one after the other', writes: [status(3), status(4)], answered: [{ asked: {} }, { asked: {} }], daemonReads: '' },
  { name: 'another request waits for the daemon', writes: [other(5)], answered: [], daemonReads: other(5) },
  { name: 'a status then another request in one write', writes: [status(6) + other(7)], answered: [], daemonReads: status(6) + other(7) },
  { name: 'a status after another request waits too', writes: [other(8), status(9)], answered: [], daemonReads: other(8) + status(9) },
  { name: 'a root the door leaves to the daemon', writes: [status(10, { root: '/refused' })], answered: [], daemonReads: status(10, { root: '/refused' }) },
  { name: 'a header that is not Content-Length', writes: ['Bogus: 1\r\n\r\n{}'], answered: [], daemonReads: 'Bogus: 1\r\n\r\n{}' },
  { name: 'a body that is not JSON', writes: ['Content-Length: 3\r\n\r\n{x}'], answered: [], daemonReads: 'Content-Length: 3\r\n\r\n{x}' },
  {
    name: 'a notification named status',
    writes: [frame({ jsonrpc: '2.0', method: 'fathom/status' })],
    answered: [],
    daemonReads: frame({ jsonrpc: '2.0', method: 'fathom/status' }),
  },
];

for (const { name, writes, answered, daemonReads } of cases) {
  test(`front door: ${name}`, async () => {
    const socketPath = socketPathIn();
    const door = await FrontDoor.open(socketPath, quick, () => undefined);
    try {
      const client = await connect(socketPath);
      for (const write of writes) {
        client.socket.write(write);
        await settle(30);
      }
      await settle();
      const bodies = client
        .received()
        .split(/Content-Length: \d+\r\n\r\n/)
        .filter((body) => body !== '')
        .map((body) => JSON.parse(body) as { result: unknown });
      assert.deepEqual(
        bodies.map((body) => body.result),
        answered,
      );
      // Admitted: the daemon reads what the door left, and what the client sends afterwards.
      let read = '';
      door.admitTo((socket) => socket.on('data', (chunk: Buffer) => (read += chunk.toString('utf8'))));
      await settle();
      assert.equal(read, daemonReads);
      client.socket.write(other(99));
      await settle();
      assert.equal(read, daemonReads + other(99));
      client.socket.destroy();
    } finally {
      door.close();
    }
  });
}

test('front door: clients that come after admission go straight to the daemon; one that left before is not served', async () => {
  const socketPath = socketPathIn();
  const door = await FrontDoor.open(socketPath, quick, () => undefined);
  try {
    const gone = await connect(socketPath);
    gone.socket.write(other(1));
    gone.socket.destroy();
    await settle();
    assert.equal(door.waitingClients, 0);
    const served: string[] = [];
    door.admitTo((socket) => socket.on('data', (chunk: Buffer) => served.push(chunk.toString('utf8'))));
    const late = await connect(socketPath);
    late.socket.write(status(2));
    await settle();
    assert.deepEqual(served, [status(2)], 'after admission even a status is the daemon’s');
    assert.equal(late.received(), '');
    late.socket.destroy();
  } finally {
    door.close();
  }
});

test('front door: a live daemon on the path is refused, a stale socket file replaced; close removes the file', async () => {
  const socketPath = socketPathIn();
  const first = await FrontDoor.open(socketPath, quick, () => undefined);
  await assert.rejects(
    FrontDoor.open(socketPath, quick, () => undefined),
    SocketInUseError,
  );
  first.close();
  assert.equal(fs.existsSync(socketPath), false);
  // A socket file nobody listens on (as a killed daemon leaves): the next door takes the path.
  execFileSync('python3', ['-c', 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])', socketPath]);
  assert.equal(fs.statSync(socketPath).isSocket(), true);
  const second = await FrontDoor.open(socketPath, quick, () => undefined);
  assert.equal(fs.statSync(socketPath).mode & 0o777, 0o600);
  second.close();
});
