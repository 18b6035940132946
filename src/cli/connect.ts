// How the CLI reaches a daemon: over its Unix socket, starting one in the background when none
// answers (`fathom serve`, a process of its own), with the CLI's own JSON-RPC client
// (rpc-client.ts). Part of the thin client path: it loads base/ and rpc-client.ts, never the
// daemon (--no-daemon's daemon in this process is in-process-daemon.ts, imported only then) nor a
// package. A daemon that goes away mid-request (killed, crashed) is a DaemonClosedError, never a
// request left waiting forever.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FrameDecoder } from '../base/framing.js';
import { defaultCacheRoot } from '../base/places.js';
import { checkSocketToConnect, isLive, UnsafeSocketError } from '../base/socket-folder.js';
import { RpcClient } from './rpc-client.js';

export interface Client {
  connection: RpcClient;
  /** Rejects with DaemonClosedError when the daemon's side closes before close() is called; else never settles. */
  lost: Promise<never>;
  close(): Promise<void>;
}

/** The daemon closed this client's connection while the client still expected something of it. */
export class DaemonClosedError extends Error {
  constructor(before = 'before answering') {
    const logFile = path.join(defaultCacheRoot(), 'daemon.log');
    const home = os.homedir();
    const shown = home && logFile.startsWith(`${home}/`) ? `~${logFile.slice(home.length)}` : logFile;
    super(`the daemon closed the connection ${before} (it may have crashed; see ${shown})`);
    this.name = 'DaemonClosedError';
  }
}

/**
 * Connects to the daemon's socket, once it is known to be this user's (socket-folder.ts): an
 * UnsafeSocketError is thrown before anything is sent, and no daemon is started in its place.
 */
function connectSocket(socketPath: string): Promise<net.Socket> {
  checkSocketToConnect(socketPath);
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Starts `fathom serve --socket PATH` detached, logging to the cache folder, and waits for it. */
async function startDaemon(socketPath: string, cacheRoot: string): Promise<void> {
  fs.mkdirSync(cacheRoot, { recursive: true, mode: 0o700 });
  const logFile = path.join(cacheRoot, 'daemon.log');
  const logFd = fs.openSync(logFile, 'a', 0o600);
  // The daemon's own entry: it loads none of the client commands before it listens.
  const entry = fileURLToPath(new URL('./serve-main.js', import.meta.url));
  // Loaded only here: a command that finds its daemon running spawns nothing (~4 ms of its start).
  const { spawn } = await import('node:child_process');
  // bin/fathom.js ran this client without NODE_EXTRA_CA_CERTS (a start without that bundle is
  // ~35 ms faster); the daemon, which may speak TLS to a team store, gets it back.
  const extraCa = process.env.FATHOM_EXTRA_CA_CERTS;
  const env = extraCa && !process.env.NODE_EXTRA_CA_CERTS ? { ...process.env, NODE_EXTRA_CA_CERTS: extraCa } : process.env;
  const child = spawn(process.execPath, [entry, '--socket', socketPath], { detached: true, stdio: ['ignore', 'ignore', logFd], env });
  child.unref();
  fs.closeSync(logFd);
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (await isLive(socketPath)) return;
    if (child.exitCode !== null && !(await isLive(socketPath))) throw new Error(`the daemon exited with code ${child.exitCode}; see ${logFile}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`the daemon did not start within 15 s; see ${logFile}`);
}

export async function connectToDaemon(socketPath: string, options: { autoStart: boolean }): Promise<Client | undefined> {
  let socket: net.Socket;
  try {
    socket = await connectSocket(socketPath);
  } catch (error) {
    if (error instanceof UnsafeSocketError) throw error;
    if (!options.autoStart) return undefined;
    await startDaemon(socketPath, defaultCacheRoot());
    socket = await connectSocket(socketPath);
  }
  let closing = false;
  const lost = new Promise<never>((_, reject) => {
    socket.once('close', () => {
      if (!closing) reject(new DaemonClosedError());
    });
  });
  // Nobody may be waiting on it when it rejects (between requests): that is no error.
  lost.catch(() => undefined);
  const connection = new RpcClient(socket, socket, () => new DaemonClosedError());
  // A socket error (the daemon reset it) is its close: the client and `lost` report it.
  socket.on('error', () => undefined);
  return {
    connection,
    lost,
    close: async () => {
      closing = true;
      connection.dispose();
      socket.end();
      // Every answer is in: the command's exit need not wait for the daemon's end of the socket
      // (a daemon still loading its engines sends it late).
      socket.unref();
    },
  };
}

/**
 * `fathom attach`: this process's stdin and stdout joined to the user's daemon socket (started
 * when none answers), byte for byte: an editor that can only spawn a command (`vim.lsp`,
 * jsonrpc.el) shares the one daemon instead of starting its own. Resolves when the editor ends
 * it (its `exit` notification, or closing stdin) and the daemon's side has closed; rejects with
 * DaemonClosedError when the daemon closes first (killed, crashed, stopped, or it dropped the
 * connection), so that the editor sees a server that failed rather than one that quit.
 */
export async function attachStdio(socketPath: string): Promise<void> {
  let socket: net.Socket;
  try {
    socket = await connectSocket(socketPath);
  } catch (error) {
    if (error instanceof UnsafeSocketError) throw error;
    await startDaemon(socketPath, defaultCacheRoot());
    socket = await connectSocket(socketPath);
  }
  // The editor's frames are watched (not changed) for its `exit`. An exit notification is a few
  // bytes: larger bodies are skipped unread, and a stream that breaks is the daemon's to refuse.
  let editorDone = false;
  const watcher = new FrameDecoder(
    (message) => {
      if ((message as { method?: unknown } | null)?.method === 'exit') editorDone = true;
    },
    () => undefined,
    { strayBytes: 'fatal', maxBodyBytes: 4_096 },
  );
  const watch = (chunk: Buffer): void => watcher.push(chunk);
  try {
    await new Promise<void>((resolve, reject) => {
      const ended = (): void => (editorDone ? resolve() : reject(new DaemonClosedError('before the editor sent exit')));
      process.stdin.on('data', watch);
      process.stdin.pipe(socket);
      socket.pipe(process.stdout);
      socket.once('close', ended);
      socket.once('error', () => socket.destroy());
      process.stdin.once('end', () => {
        editorDone = true;
        socket.end();
      });
    });
  } finally {
    watcher.dispose();
    process.stdin.off('data', watch);
    process.stdin.unpipe(socket);
    process.stdin.destroy();
  }
}
