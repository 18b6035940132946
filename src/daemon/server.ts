// The daemon process: serves JSON-RPC with LSP framing over stdio and/or a Unix socket (the
// socket's life is front-door.ts's, which listens before this module loads), one Session per
// client, all sharing one WorkspaceManager and buffer overlay. Builds connections on
// vscode-jsonrpc directly: vscode-languageserver's connection would end the process on one socket
// client's `exit`; reads frames with its own reader (frame-reader.ts: limits vscode-jsonrpc's
// reader lacks) and checks every message before dispatch (message-guard.ts). Serves before it
// loads its engines: the session and everything behind it (~180 modules) load once the socket's
// clients are taken from the door, and until they have, status is answered at once (loading.ts)
// while every other message waits for them.
import type net from 'node:net';
import type { Readable } from 'node:stream';
import {
  createMessageConnection,
  ResponseError,
  SocketMessageWriter,
  StreamMessageWriter,
  type MessageConnection,
  type MessageWriter,
} from 'vscode-jsonrpc/node';
import { FathomError, errorMessage } from '../base/errors.js';
import { log } from '../base/logger.js';
import { defaultConfigDir, readPackageVersion } from '../base/places.js';
import { probePythonSoon } from '../debug/adapters.js';
import { ErrorCodes } from '../protocol/errors.js';
import { Methods } from '../protocol/methods.js';
import { BufferOverlay } from '../workspace/overlay.js';
import { defaultMaxFrameBytes, type DaemonConfig } from './config.js';
import type { FrontDoor } from './front-door.js';
import { FrameReader } from './frame-reader.js';
import { writerOptions } from './json-encoder.js';
import { loadStatusParser, statusWhileLoading } from './loading.js';
import { guardConnection } from './message-guard.js';
import { ownFoldersOf } from './root-param.js';
import { toResponseError } from './to-wire-error.js';
import type { Session, DaemonServices } from './session.js';
import type { WorkspaceManager } from './workspaces.js';

/** How long a connection whose framing broke waits for the answers it owes (a stdio daemon's exit deadline builds on it). */
export { drainMs } from './message-guard.js';

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

/** What the daemon loads once it listens: the session and, through it, every engine. */
interface Loaded {
  Session: typeof Session;
  workspaces: WorkspaceManager;
}

export class Daemon implements DaemonServices {
  readonly overlay = new BufferOverlay();
  readonly version = readPackageVersion();
  private readonly started = Date.now();
  private readonly sessions = new Set<{ dispose(): void }>();
  private door: FrontDoor | undefined;
  private stoppingValue = false;
  private readonly stopListeners: (() => void)[] = [];
  private readonly maxFrameBytes: number;
  private loaded: Loaded | undefined;
  private loading: Promise<Loaded> | undefined;

  constructor(private readonly config: DaemonConfig) {
    this.maxFrameBytes = config.maxFrameBytes ?? defaultMaxFrameBytes;
    // Asked by every status: probed soon, off the daemon's thread, but after its first answers.
    probePythonSoon();
  }

  /** The workspaces of every client (the session's; there are none before it has loaded). */
  get workspaces(): WorkspaceManager {
    if (!this.loaded) throw new Error('the daemon has not loaded its workspaces yet');
    return this.loaded.workspaces;
  }

  /** Loads the session and every engine behind it, once (started by listen, or by the first client). */
  load(): Promise<Loaded> {
    // One import at a time: Node 20's ESM loader can hand a module the exports of a CommonJS
    // package that is not loaded yet when two graphs sharing it are imported at once (seen with a
    // symlinked node_modules: picomatch without makeRe, usearch's `bindings` without getFileName;
    // 5 of 36 starts under Promise.all, 0 of 40 so).
    // The params' schemas and parser first (zod: tens of ms): a status asked meanwhile waits for
    // them alone, not for the ~180 modules behind the session, which then find them loaded.
    this.loading ??= loadStatusParser().then(async () => {
      const session = await import('./session.js');
      const workspaces = await import('./workspaces.js');
      this.loaded = { Session: session.Session, workspaces: new workspaces.WorkspaceManager(this.config, this.overlay) };
      return this.loaded;
    });
    this.loading.catch((error: unknown) => {
      // A module that failed to evaluate stays failed in this process: stop, so that the next
      // client starts a daemon that loads afresh (the held requests are answered with the error first).
      log.error(`the daemon could not load its engines, and stops: ${errorMessage(error)}`);
      setTimeout(() => this.requestStop(), 100).unref();
    });
    return this.loading;
  }

  get stopping(): boolean {
    return this.stoppingValue;
  }

  daemonInfo() {
    return {
      pid: process.pid,
      version: this.version,
      uptimeSeconds: Math.round((Date.now() - this.started) / 1000),
      clients: this.sessions.size,
      buffers: this.overlay.size,
      socket: this.door?.path ?? null,
    };
  }

  onStopped(listener: () => void): void {
    this.stopListeners.push(listener);
  }

  /**
   * Serves one client (stdio, a socket, or an in-process pipe): its frames read from `input`, the
   * answers written by `writer`. `oversizedFrames`: what a frame over the limit costs the
   * connection (message-guard.ts).
   */
  serve(
    input: Readable,
    writer: MessageWriter,
    options: { onExit: (code: number) => void; onClose?: () => void; onBrokenFraming?: () => void; oversizedFrames: 'close' | 'skip' },
  ): void {
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
    let session: Session | undefined;
    const entry = { dispose: () => close() };
    const close = (): void => {
      if (closed) return;
      closed = true;
      this.sessions.delete(entry);
      session?.dispose();
      connection.dispose();
      options.onClose?.();
    };
    const start = (loaded: Loaded): Session =>
      new loaded.Session(connection, this, (code) => {
        options.onExit(code);
        close();
      });
    connection.onClose(() => close());
    connection.onError(([error]) => log.debug(`connection error: ${errorMessage(error)}`));
    this.sessions.add(entry);
    if (this.loaded) session = start(this.loaded);
    else this.holdUntilLoaded(connection, (loaded) => (closed ? undefined : (session = start(loaded))));
    connection.listen();
  }

  /**
   * Until the session has loaded: status answered at once (when nothing of this client's is
   * held), every other request and notification held and then given to the session in the order
   * they came (the session's own handlers replace these as it is made). A load, or a session, that
   * fails answers the held requests with its error.
   */
  private holdUntilLoaded(connection: MessageConnection, start: (loaded: Loaded) => Session | undefined): void {
    // Each held message, in arrival order: given the session (undefined: the load failed or the client left).
    const held: ((session: Session | undefined) => void)[] = [];
    // Set once the load has ended: what came in meanwhile goes on at once (a session that failed to start).
    let ended: { session: Session | undefined } | undefined;
    const whenLoaded = (take: (session: Session | undefined) => void): void => {
      if (ended) take(ended.session);
      else held.push(take);
    };
    // A client that left before the load ended is no bug of the daemon's: nothing is logged for it.
    let failure: unknown = new FathomError('io', 'the connection closed while the daemon was loading');
    const end = (session: Session | undefined): void => {
      ended = { session };
      for (const take of held.splice(0)) take(session);
    };
    this.load().then(
      (loaded) => {
        let session: Session | undefined;
        try {
          session = start(loaded);
        } catch (error) {
          failure = error;
        }
        end(session);
      },
      (error: unknown) => {
        failure = new FathomError(
          'internal',
          `the daemon could not load its engines (${errorMessage(error)}); it stops, and the next command starts a fresh one`,
        );
        end(undefined);
      },
    );
    connection.onRequest((method, params, token) => {
      // Status at once, unless this client sent something before it (a didOpen it would count).
      if (method === Methods.status && held.length === 0 && !ended) {
        if (this.stoppingValue) return new ResponseError(ErrorCodes.ShuttingDown, 'the daemon is stopping');
        return statusWhileLoading(params, () => this.daemonInfo(), this.config.cacheRoot, this.ownFolders).catch((error: unknown) =>
          toResponseError(method, error),
        );
      }
      return new Promise<unknown>((resolve) =>
        whenLoaded((session) => resolve(session ? session.handle(method, params, token) : toResponseError(method, failure))),
      );
    });
    connection.onNotification((method, params) => whenLoaded((session) => session?.notify(method, params)));
  }

  /** Fathom's cache and settings folders: roots inside them are refused, before the load as after. */
  private get ownFolders() {
    this.ownFoldersValue ??= ownFoldersOf(this.config.cacheRoot, this.config.configDir ?? defaultConfigDir());
    return this.ownFoldersValue;
  }

  private ownFoldersValue: ReturnType<typeof ownFoldersOf> | undefined;

  /** `onBroken`: the editor's stream broke (its framing): nothing more can be read from it. */
  serveStdio(onEnd: (code: number) => void, onBroken: () => void = () => onEnd(1)): void {
    // The editor that spawned the daemon owns it: an oversized frame is refused, not the editor.
    this.serve(process.stdin, new StreamMessageWriter(process.stdout, writerOptions), {
      onExit: onEnd,
      onClose: () => onEnd(0),
      onBrokenFraming: onBroken,
      oversizedFrames: 'skip',
    });
  }

  /**
   * Takes the socket's clients from the front door (front-door.ts, which listens before this
   * module loads and answers status meanwhile) and starts loading the engines. The door admits
   * its clients once the params' parser has loaded, so that a status is answered at once after
   * it too (holdUntilLoaded).
   */
  adopt(door: FrontDoor): void {
    this.door = door;
    const admit = (): void =>
      door.admitTo((socket) => {
        const writer = new SocketMessageWriter(socket, writerOptions);
        // Its own dispose destroys the socket: the connection's close must end it gently instead.
        const gentle: MessageWriter = {
          onError: writer.onError,
          onClose: writer.onClose,
          write: (message) => writer.write(message),
          end: () => writer.end(),
          dispose: () => endGently(socket),
        };
        this.serve(socket, gentle, { onExit: () => undefined, onClose: () => endGently(socket), oversizedFrames: 'close' });
        socket.on('error', (error) => log.debug(`socket client: ${error.message}`));
      });
    loadStatusParser().then(admit, admit);
    log.info(`fathom ${this.version} serving ${door.path} (pid ${process.pid})`);
    // A failure is logged and answered to each request.
    this.load().catch(() => undefined);
  }

  requestStop(): void {
    void this.stop();
  }

  /** Closes every client and workspace (saving their caches) and the socket. */
  async stop(): Promise<void> {
    if (this.stoppingValue) return;
    this.stoppingValue = true;
    for (const session of [...this.sessions]) session.dispose();
    this.door?.close();
    // A load under way finishes first: what it opens is then closed (and saved) like the rest.
    const loaded = this.loading ? await this.loading.catch(() => undefined) : undefined;
    await loaded?.workspaces.closeAll();
    for (const listener of this.stopListeners) listener();
  }
}
