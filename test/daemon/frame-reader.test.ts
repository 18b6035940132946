// The daemon's reader of one client's frames (src/daemon/frame-reader.ts): a client that leaves
// half way through a large frame leaves nothing held behind it. The frame's bytes are dropped when
// its stream ends or closes, not when the connection object is collected (issue 36 item 7: three
// clients that left a body half sent kept 2.6 GB).
import assert from 'node:assert/strict';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { PassThrough, type Readable } from 'node:stream';
import { once } from 'node:events';
import { test } from 'node:test';
import { FrameReader } from '../../src/daemon/frame-reader.js';

const mib = 1024 * 1024;
const limits = { maxFrameBytes: 64 * mib };
/** A header announcing 32 MiB (under the limit), then 8 MiB of its body in 64 KiB chunks. */
const header = `Content-Length: ${32 * mib}\r\n\r\n{"jsonrpc":"2.0","id":1,"method":"fathom/status","params":{"padding":"`;
const sentBody = 8 * mib;

async function writeHalfFrame(write: (chunk: Buffer | string) => boolean | void, drained: () => Promise<unknown>): Promise<void> {
  if (write(header) === false) await drained();
  for (let sent = 0; sent < sentBody; sent += 64 * 1024) if (write(Buffer.alloc(64 * 1024, 0x78)) === false) await drained();
}

/** Until the reader holds what was sent of the body (it arrives in chunks, read on later turns). */
async function heldOnceSent(reader: FrameReader): Promise<number> {
  for (let attempt = 0; attempt < 500 && reader.heldBytes < sentBody; attempt++) await new Promise((resolve) => setTimeout(resolve, 5));
  return reader.heldBytes;
}

function listening(input: Readable): { reader: FrameReader; closed: Promise<void>; messages: unknown[] } {
  const reader = new FrameReader(input, limits);
  const messages: unknown[] = [];
  const closed = new Promise<void>((resolve) => reader.onClose(() => resolve()));
  reader.listen((message) => messages.push(message));
  return { reader, closed, messages };
}

test('a client that ends its stream half way through a large frame: the reader holds nothing after', async () => {
  const input = new PassThrough();
  const { reader, closed, messages } = listening(input);
  await writeHalfFrame(
    (chunk) => input.write(chunk),
    () => once(input, 'drain'),
  );
  const held = await heldOnceSent(reader);
  assert.ok(held >= sentBody, `${held} bytes held while the frame was being sent`);
  input.end();
  await closed;
  assert.equal(reader.heldBytes, 0);
  assert.deepEqual(messages, []);
});

test('a stream destroyed (no end) half way through a large frame: the reader holds nothing after', async () => {
  const input = new PassThrough();
  const { reader, closed } = listening(input);
  await writeHalfFrame(
    (chunk) => input.write(chunk),
    () => once(input, 'drain'),
  );
  assert.ok((await heldOnceSent(reader)) >= sentBody);
  input.destroy();
  await closed;
  assert.equal(reader.heldBytes, 0);
});

test('a socket client that disconnects half way through a large frame: the reader holds nothing after', async () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-frame-reader-'));
  const socketPath = path.join(folder, 's.sock');
  const accepted = new Promise<net.Socket>((resolve) => {
    const server = net.createServer((socket) => {
      server.close();
      resolve(socket);
    });
    server.listen(socketPath);
  });
  try {
    await new Promise((resolve) => setTimeout(resolve, 10));
    const client = net.connect(socketPath);
    await once(client, 'connect');
    const serverSide = await accepted;
    const { reader, closed } = listening(serverSide);
    await writeHalfFrame(
      (chunk) => client.write(chunk),
      () => once(client, 'drain'),
    );
    assert.ok((await heldOnceSent(reader)) >= sentBody);
    client.destroy();
    await closed;
    assert.equal(reader.heldBytes, 0);
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
});
