// The daemon process: serves JSON-RPC with LSP framing over stdio and/or a Unix socket, one Session
// per client, all sharing one WorkspaceManager and buffer overlay. Owns the socket's life: a private
// folder (0700) and socket (0600), detection of a live daemon on the same path (it refuses to
// clobber it) and removal of a stale socket file. Builds connections on vscode-jsonrpc directly:
// vscode-languageserver's connection would end the process on one socket client's `exit`; reads
// frames with its own reader (frame-reader.ts: limits vscode-jsonrpc's reader lacks) and checks
// every message before dispatch (message-guard.ts).
import fs from 'node:fs';
import net from 'node:net';
import type { Readable } from 'node:stream';
import { createMessageConnection, SocketMessageWriter, StreamMessageWriter, type MessageWriter } from 'vscode-jsonrpc/node';
import { errorMessage } from '../base/errors.js';
import { log } from '../base/logger.js';
import { readPackageVersion } from '../base/places.js';
import { checkSocketFolder, isLive } from '../base/socket-folder.js';
import { findPython } from '../debug/adapters.js';
import { BufferOverlay } from '../workspace/overlay.js';
import { defaultMaxFrameBytes, type DaemonConfig } from './config.js';
import { FrameReader } from './frame-reader.js';
import { writerOptions } from './json-encoder.js';
import { guardConnection } from './message-guard.js';
import { Session, type DaemonServices } from './session.js';
import { WorkspaceManager } from './workspaces.js';

/** How long a connection whose framing broke waits for the answers it owes (a stdio daemon's exit deadline builds on it). */
export { drainMs } from './message-guard.js';

export class SocketInUseError extends Error {}

/** How long a closed client's connection may take to read what it was sent before it is cut. */
const closeGraceMs = 2_000;

/**
 * Closes a client's socket ended, not destroyed at once: what was written (the answer to a refused
 * frame) reaches the client before the connection goes. A client still streaming into it would
 * otherwise hit a broken pipe first, and its socket would drop the answer unread. What it sends
 * meanwhile is read and thrown away; one that never closes is cut off after the grace period.
 */
function endGently(socket: net.Socket): void {
  if (socket.destroyed) return;
  socket.resume();
  socket.end();
  setTimeout(() => socket.destroy(), closeGraceMs).unref();
}

export class Daemon implements DaemonServices {
  readonly workspaces: WorkspaceManager;
  readonly overlay = new BufferOverlay();
  readonly version = readPackageVersion();
  private readonly started = Date.now();
  private readonly sessions = new Set<{ dispose(): void }>();
  private server: net.Server | undefined;
  private socketPath: string | null = null;
  private stoppingValue = false;
  private ownershipTimer: NodeJS.Timeout | undefined;
  private readonly stopListeners: (() => void)[] = [];
  private readonly maxFrameBytes: number;

  constructor(config: DaemonConfig) {
    this.workspaces = new WorkspaceManager(config, this.overlay);
    this.maxFrameBytes = config.maxFrameBytes ?? defaultMaxFrameBytes;
    // Asked by every status: probed now, off the daemon's thread, so the first status finds it known.
    void findPython();
  }

  get stopping(): boolean {
    return this.stoppingValue;
  }

  daemonInfo() {
    return { pid: process.pid, version: this.version, uptimeSeconds: Math.round((Date.now() - this.started) / 1000), clients: this.sessions.size, buffers: this.overlay.size, socket: this.socketPath };
  }

  onStopped(listener: () => void): void {
    this.stopListeners.push(listener);
  }

  /**
   * Serves one client (stdio, a socket, or an in-process pipe): its frames read from `input`, the
   * answers written by `writer`. `oversizedFrames`: what a frame over the limit costs the
   * connection (message-guard.ts).
   */
  serve(input: Readable, writer: MessageWriter, options: { onExit: (code: number) => void; onClose?: () => void; onBrokenFraming?: () => void; oversizedFrames: 'close' | 'skip' }): void {
    let closed = false;
    const guarded = guardConnection(new FrameReader(input, { maxFrameBytes: this.maxFrameBytes }), writer, {
      close: () => close(),
      oversizedFrames: options.oversizedFrames,
      limitSource: 'FATHOM_MAX_FRAME_BYTES or fathom serve --max-frame-bytes',
      ...(options.onBrokenFraming ? { onBrokenFraming: options.onBrokenFraming } : {}),
    });
    const connection = createMessageConnection(guarded.reader, guarded.writer, {
      error: (m) => log.debug(`jsonrpc: ${m}`),
      warn: (m) => log.debug(`jsonrpc: ${m}`),
      info: () => undefined,
      log: () => undefined,
    });
    const session = new Session(connection, this, (code) => {
      options.onExit(code);
      close();
    });
    const entry = { dispose: () => close() };
    const close = (): void => {
      if (closed) return;
      closed = true;
      this.sessions.delete(entry);
      session.dispose();
      connection.dispose();
      options.onClose?.();
    };
    connection.onClose(() => close());
    connection.onError(([error]) => log.debug(`connection error: ${errorMessage(error)}`));
    this.sessions.add(entry);
    connection.listen();
  }

  /** `onBroken`: the editor's stream broke (its framing): nothing more can be read from it. */
  serveStdio(onEnd: (code: number) => void, onBroken: () => void = () => onEnd(1)): void {
    // The editor that spawned the daemon owns it: an oversized frame is refused, not the editor.
    this.serve(process.stdin, new StreamMessageWriter(process.stdout, writerOptions), { onExit: onEnd, onClose: () => onEnd(0), onBrokenFraming: onBroken, oversizedFrames: 'skip' });
  }

  /** Listens on a Unix socket. Throws SocketInUseError if a live daemon already answers there. */
  async listen(socketPath: string): Promise<void> {
    // A folder made here is private (0700); one that existed keeps its mode (a socket asked for in
    // /tmp must not turn /tmp into 0700), but one another user could write to is refused. The
    // socket itself is 0600 either way.
    checkSocketFolder(socketPath, { create: true });
    if (await isLive(socketPath)) throw new SocketInUseError(`a Fathom daemon is already serving ${socketPath}`);
    fs.rmSync(socketPath, { force: true });
    const server = net.createServer((socket) => {
      const writer = new SocketMessageWriter(socket, writerOptions);
      // Its own dispose destroys the socket: the connection's close must end it gently instead.
      const gentle: MessageWriter = { onError: writer.onError, onClose: writer.onClose, write: (message) => writer.write(message), end: () => writer.end(), dispose: () => endGently(socket) };
      this.serve(socket, gentle, { onExit: () => undefined, onClose: () => endGently(socket), oversizedFrames: 'close' });
      socket.on('error', (error) => log.debug(`socket client: ${error.message}`));
    });
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
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE' && (await isLive(socketPath))) throw new SocketInUseError(`a Fathom daemon is already serving ${socketPath}`);
      throw error;
    } finally {
      process.umask(previousMask);
    }
    fs.chmodSync(socketPath, 0o600);
    server.on('error', (error) => log.error(`socket server: ${error.message}`));
    this.server = server;
    this.socketPath = socketPath;
    // Two daemons started at the same moment can both find no live socket; the later one's socket
    // file replaces the earlier one's. The earlier one notices here and leaves rather than run on
    // unreachable.
    const ino = fs.statSync(socketPath).ino;
    this.ownershipTimer = setInterval(() => {
      if (fs.statSync(socketPath, { throwIfNoEntry: false })?.ino === ino) return;
      log.warn(`${socketPath} was removed or replaced by another daemon; stopping`);
      // Closing the server would unlink the path, which is now the other daemon's socket: leave it
      // open and let the process exit.
      this.socketPath = null;
      this.server = undefined;
      void this.stop();
    }, 2_000);
    this.ownershipTimer.unref();
    log.info(`fathom ${this.version} serving ${socketPath} (pid ${process.pid})`);
  }

  requestStop(): void {
    void this.stop();
  }

  /** Closes every client and workspace (saving their caches) and the socket. */
  async stop(): Promise<void> {
    if (this.stoppingValue) return;
    this.stoppingValue = true;
    clearInterval(this.ownershipTimer);
    for (const session of [...this.sessions]) session.dispose();
    this.server?.close();
    if (this.socketPath) fs.rmSync(this.socketPath, { force: true });
    await this.workspaces.closeAll();
    for (const listener of this.stopListeners) listener();
  }
}
