// The daemon's Unix socket, from the moment it listens: the socket's folder (0700) and file (0600),
// detection of a live daemon on the same path (it refuses to clobber it), removal of a stale
// socket file, and noticing that another daemon took the path over. It listens before the daemon's
// connection code (vscode-jsonrpc, the message guard: tens of ms) has loaded, so that a CLI that
// started the daemon can connect and ask for status at once: until the daemon admits its clients,
// a client's status request is answered here (`quick`, loading.ts) when it is all the client has
// sent; at anything else (another request, several frames at once, a frame that is not plainly
// one), reading stops and the client waits, its unread bytes kept, to be given whole to the
// daemon (server.ts) when it admits it. What is held is bounded: one frame's header (8 KiB) and a body of 64 KiB.
// Imports nothing but node: and base/ (serve-main.ts loads it before the daemon).
import fs from 'node:fs';
import net from 'node:net';
import { encodeFrame } from '../base/framing.js';
import { log } from '../base/logger.js';
import { checkSocketFolder, isLive } from '../base/socket-folder.js';

export class SocketInUseError extends Error {}

/** What the door answers before admission: a status request's result, or undefined to leave it to the daemon. */
export type QuickStatus = (params: unknown, clients: number) => unknown;

const statusMethod = 'fathom/status';
const maxHeaderBytes = 8 * 1024;
const maxQuickBodyBytes = 64 * 1024;
const headerEnd = Buffer.from('\r\n\r\n', 'ascii');

/** A client before admission: what it sent that the door has not consumed. */
interface Waiting {
  socket: net.Socket;
  unread: Buffer;
  onData: (chunk: Buffer) => void;
}

export class FrontDoor {
  private readonly waiting = new Set<Waiting>();
  private admit: ((socket: net.Socket) => void) | undefined;
  private ownershipTimer: NodeJS.Timeout | undefined;
  private closed = false;

  private readonly server = net.createServer((socket) => this.arrived(socket));

  private constructor(
    readonly path: string,
    private readonly quick: QuickStatus,
  ) {}

  /**
   * Listens on `socketPath`. Throws SocketInUseError if a live daemon already answers there.
   * `onLost`: the path was removed or taken over by another daemon (checked every 2 s); the door
   * is then closed without unlinking it.
   */
  static async open(socketPath: string, quick: QuickStatus, onLost: () => void): Promise<FrontDoor> {
    // A folder made here is private (0700); one that existed keeps its mode (a socket asked for in
    // /tmp must not turn /tmp into 0700), but one another user could write to is refused. The
    // socket itself is 0600 either way.
    checkSocketFolder(socketPath, { create: true });
    if (await isLive(socketPath)) throw new SocketInUseError(`a Fathom daemon is already serving ${socketPath}`);
    fs.rmSync(socketPath, { force: true });
    const door = new FrontDoor(socketPath, quick);
    const { server } = door;
    const previousMask = process.umask(0o177);
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(socketPath, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE' && (await isLive(socketPath)))
        throw new SocketInUseError(`a Fathom daemon is already serving ${socketPath}`);
      throw error;
    } finally {
      process.umask(previousMask);
    }
    fs.chmodSync(socketPath, 0o600);
    server.on('error', (error) => log.error(`socket server: ${error.message}`));
    door.watchOwnership(onLost);
    return door;
  }

  /** Clients not yet admitted. */
  get waitingClients(): number {
    return this.waiting.size;
  }

  /** From now on every client goes to `serve`: those waiting first, each with the bytes it sent that were not answered here. */
  admitTo(serve: (socket: net.Socket) => void): void {
    this.admit = serve;
    for (const client of [...this.waiting]) this.handOver(client);
  }

  /** Stops listening and drops waiting clients; the socket file is removed unless `keepPath` (another daemon's now). */
  close(keepPath = false): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.ownershipTimer);
    for (const client of this.waiting) client.socket.destroy();
    this.waiting.clear();
    if (keepPath) return;
    this.server.close();
    fs.rmSync(this.path, { force: true });
  }

  private arrived(socket: net.Socket): void {
    if (this.closed) return void socket.destroy();
    if (this.admit) return this.admit(socket);
    const client: Waiting = { socket, unread: Buffer.alloc(0), onData: (chunk) => this.read(client, chunk) };
    this.waiting.add(client);
    socket.on('data', client.onData);
    socket.on('error', (error) => log.debug(`socket client: ${error.message}`));
    socket.once('close', () => this.waiting.delete(client));
  }

  /**
   * Answers a status request when it is all the client has sent so far; stops reading at anything
   * else. Several frames sent at once are the daemon's to read together (its message guard judges
   * them as a whole: one id used twice among them is refused).
   */
  private read(client: Waiting, chunk: Buffer): void {
    client.unread = client.unread.length === 0 ? chunk : Buffer.concat([client.unread, chunk]);
    const frame = nextFrame(client.unread);
    if (frame === 'incomplete') return;
    const answer = frame === 'other' || frame.bytes < client.unread.length ? undefined : this.answer(frame.message);
    if (answer === undefined) {
      // Not the door's to answer: it and what follows wait, unread, for the daemon.
      client.socket.off('data', client.onData);
      client.socket.pause();
      return;
    }
    client.socket.write(answer);
    client.unread = Buffer.alloc(0);
  }

  /** The frame of a status's answer, or undefined when the message is anything else or its params need the daemon's checks. */
  private answer(message: unknown): Buffer | undefined {
    if (typeof message !== 'object' || message === null) return undefined;
    const { jsonrpc, id, method, params } = message as Record<string, unknown>;
    if (jsonrpc !== '2.0' || method !== statusMethod || (typeof id !== 'number' && typeof id !== 'string')) return undefined;
    const result = this.quick(params, this.waiting.size);
    return result === undefined ? undefined : encodeFrame({ jsonrpc: '2.0', id, result });
  }

  private handOver(client: Waiting): void {
    this.waiting.delete(client);
    const { socket } = client;
    socket.off('data', client.onData);
    socket.pause();
    if (client.unread.length > 0) socket.unshift(client.unread);
    this.admit!(socket);
    socket.resume();
  }

  private watchOwnership(onLost: () => void): void {
    // Two daemons started at the same moment can both find no live socket; the later one's socket
    // file replaces the earlier one's. The earlier one notices here and leaves rather than run on
    // unreachable. Closing the server would unlink the path, which is now the other daemon's.
    const ino = fs.statSync(this.path).ino;
    this.ownershipTimer = setInterval(() => {
      if (fs.statSync(this.path, { throwIfNoEntry: false })?.ino === ino) return;
      log.warn(`${this.path} was removed or replaced by another daemon; stopping`);
      this.close(true);
      onLost();
    }, 2_000);
    this.ownershipTimer.unref();
  }
}

/**
 * The frame at the start of `bytes`: its message and length, 'incomplete' while more bytes may
 * make it one the door reads, 'other' when it is not (a header that is not plain
 * `Content-Length`, a body over 64 KiB, not JSON): the daemon's own reader judges those.
 */
function nextFrame(bytes: Buffer): { message: unknown; bytes: number } | 'incomplete' | 'other' {
  const end = bytes.indexOf(headerEnd);
  if (end < 0) return bytes.length >= maxHeaderBytes ? 'other' : 'incomplete';
  let length: number | undefined;
  for (const line of bytes.toString('ascii', 0, end).split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon < 0) return 'other';
    const name = line.slice(0, colon).trim().toLowerCase();
    if (name !== 'content-length') continue;
    const value = line.slice(colon + 1).trim();
    if (!/^\d{1,9}$/.test(value) || length !== undefined) return 'other';
    length = Number(value);
  }
  if (length === undefined || length > maxQuickBodyBytes) return 'other';
  const start = end + headerEnd.length;
  if (bytes.length < start + length) return 'incomplete';
  try {
    return { message: JSON.parse(bytes.toString('utf8', start, start + length)) as unknown, bytes: start + length };
  } catch {
    return 'other';
  }
}
