// A deliberately raw JSON-RPC client for protocol tests: it frames and parses Content-Length
// messages itself, so tests can also send what a well-behaved library never would (bad JSON, bad
// frames), and spawns real daemons over stdio or a Unix socket.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { isLive } from '../../src/base/socket-folder.js';
import { sleep, tempDir } from './fixture.js';
import type { RunAs } from './unprivileged.js';

export const cliMain = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

export interface Message {
  jsonrpc?: string;
  id?: number | string | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export class RawClient {
  private buffer = Buffer.alloc(0);
  readonly received: Message[] = [];
  private readonly waiters: { predicate: (message: Message) => boolean; resolve: (message: Message) => void; reject: (error: Error) => void }[] = [];
  private nextId = 1;
  closed = false;
  private readEnded = false;

  constructor(
    readable: Readable,
    private readonly writable: Writable,
  ) {
    readable.on('data', (chunk: Buffer) => this.onData(chunk));
    readable.on('close', () => this.ended());
    readable.on('end', () => this.ended());
    writable.on('error', () => (this.closed = true));
  }

  /** The stream ended: a message still awaited will never come (said now, not by a test cancelled later). */
  private ended(): void {
    this.closed = true;
    this.readEnded = true;
    for (const waiter of this.waiters.splice(0)) waiter.reject(new Error('the stream ended before a matching message came'));
  }

  private onData(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const headerEnd = this.buffer.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const length = Number(/Content-Length: (\d+)/i.exec(this.buffer.subarray(0, headerEnd).toString())?.[1]);
      if (this.buffer.length < headerEnd + 4 + length) return;
      const body = this.buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString('utf8');
      this.buffer = this.buffer.subarray(headerEnd + 4 + length);
      const message = JSON.parse(body) as Message;
      this.received.push(message);
      for (const waiter of [...this.waiters]) {
        if (waiter.predicate(message)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(message);
        }
      }
    }
  }

  static frame(body: string): string {
    return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  }

  sendRaw(bytes: string): void {
    this.writable.write(bytes);
  }

  send(message: Message): void {
    this.sendRaw(RawClient.frame(JSON.stringify({ jsonrpc: '2.0', ...message })));
  }

  waitFor(predicate: (message: Message) => boolean, timeoutMs = 20_000): Promise<Message> {
    const seen = this.received.find(predicate);
    if (seen) return Promise.resolve(seen);
    if (this.readEnded) return Promise.reject(new Error('the stream ended before a matching message came'));
    return new Promise((resolve, reject) => {
      const waiter = { predicate, resolve, reject };
      this.waiters.push(waiter);
      setTimeout(() => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) {
          this.waiters.splice(index, 1);
          reject(new Error(`no matching message within ${timeoutMs} ms`));
        }
      }, timeoutMs).unref();
    });
  }

  newId(): number {
    return this.nextId++;
  }

  /** Sends a request and resolves with the whole response message (result or error). */
  request(method: string, params?: unknown): Promise<Message> {
    const id = this.newId();
    this.send({ id, method, ...(params === undefined ? {} : { params }) });
    return this.waitFor((message) => message.id === id && !('method' in message));
  }

  notify(method: string, params?: unknown): void {
    this.send({ method, ...(params === undefined ? {} : { params }) });
  }

  async result<T>(method: string, params?: unknown): Promise<T> {
    const response = await this.request(method, params);
    if (response.error) throw new Error(`${method}: ${response.error.code} ${response.error.message}`);
    return response.result as T;
  }
}

export interface Spawned {
  child: ChildProcessWithoutNullStreams;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Runs the CLI; `as`: as that user (test/helpers/unprivileged.ts), in its environment with `env` on top. */
export function spawnCli(args: string[], env: Record<string, string> = {}, as?: RunAs): Spawned {
  const options = as ? as.spawnOptions({ FATHOM_LOG: 'warn', ...env }) : { env: { ...process.env, FATHOM_LOG: 'warn', ...env } };
  const child = spawn(process.execPath, [as?.cliMain ?? cliMain, ...args], { ...options, stdio: 'pipe' });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stderr: () => stderr, exited };
}

/** A daemon over stdio with a private cache folder (`as`: run as that user, the folder its). */
export function spawnStdioDaemon(env: Record<string, string> = {}, as?: RunAs): Spawned & { client: RawClient } {
  const spawned = spawnCli(['serve', '--stdio'], { FATHOM_CACHE_DIR: (as?.tempDir ?? tempDir)('fathom-cache-'), ...env }, as);
  return { ...spawned, client: new RawClient(spawned.child.stdout, spawned.child.stdin) };
}

export function socketPathIn(folder: string = tempDir('fathom-sock-')): string {
  return path.join(folder, 'run', 'fathom.sock');
}

/** A daemon on a Unix socket; resolves once it accepts connections (`as`: run as that user). */
export async function spawnSocketDaemon(socketPath: string, env: Record<string, string> = {}, as?: RunAs): Promise<Spawned> {
  const spawned = spawnCli(['serve', '--socket', socketPath], { FATHOM_CACHE_DIR: (as?.tempDir ?? tempDir)('fathom-cache-'), ...env }, as);
  for (let attempt = 0; attempt < 400; attempt++) {
    if (await canConnect(socketPath)) return spawned;
    if (spawned.child.exitCode !== null) throw new Error(`daemon exited: ${spawned.stderr()}`);
    await sleep(25);
  }
  throw new Error(`daemon did not listen: ${spawned.stderr()}`);
}

/** Whether a daemon accepts connections on the socket (the daemon's own check). */
export const canConnect = isLive;

export function connectRaw(socketPath: string): Promise<{ client: RawClient; socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    socket.once('connect', () => resolve({ client: new RawClient(socket, socket), socket }));
    socket.once('error', reject);
  });
}

/** Writes `chunk` again and again until the socket closes or `total` bytes went out; answers the bytes written (a hostile client's stream). */
export async function streamRepeated(socket: net.Socket, chunk: Buffer, total: number): Promise<number> {
  let sent = 0;
  while (sent < total && !socket.destroyed) {
    const ok = await new Promise<boolean>((resolve) => socket.write(chunk, (error) => resolve(!error)));
    if (!ok) break;
    sent += chunk.length;
  }
  return sent;
}
