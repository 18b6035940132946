// Daemons for the reliability harnesses (test/reliability/), each with its own socket, cache and
// config folders, and a client that trusts nothing it reads: every byte the daemon writes must be a
// `Content-Length: N\r\n\r\n` frame holding one JSON-RPC 2.0 object, and anything else is recorded
// as a violation instead of being skipped. Also: the daemon's resident memory (VmRSS), kills, and
// removal of every process and folder a harness made.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { sleep, tempDir } from './fixture.js';
import { canConnect, cliMain } from './raw-client.js';

export interface WireMessage {
  jsonrpc?: string;
  id?: unknown;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

const madeFolders: string[] = [];
const daemons = new Set<DaemonHandle>();

/** A temp folder removed by cleanupReliability() (kept with FATHOM_RELIABILITY_KEEP=1). */
export function scratchDir(prefix: string): string {
  const folder = tempDir(prefix);
  madeFolders.push(folder);
  return folder;
}

/** Kills every daemon still running and removes the folders made here. */
export async function cleanupReliability(): Promise<void> {
  await Promise.all([...daemons].map((daemon) => daemon.kill()));
  if (process.env.FATHOM_RELIABILITY_KEEP === '1') return;
  for (const folder of madeFolders.splice(0)) {
    try {
      fs.chmodSync(folder, 0o700);
      fs.rmSync(folder, { recursive: true, force: true });
    } catch {
      // Best effort: a folder left in the temp dir is not a test failure.
    }
  }
}

process.on('exit', () => {
  for (const daemon of daemons) daemon.child.kill('SIGKILL');
});

/**
 * A JSON-RPC peer over a byte stream that validates every frame it reads. `violations` lists
 * what was not a well-formed frame or message (the stream is not read further after bytes that are
 * not a frame: nothing after them can be trusted).
 */
export class StrictClient {
  readonly violations: string[] = [];
  /** Messages read, unless constructed with keep: false (then only `frames` counts them). */
  readonly received: WireMessage[] = [];
  frames = 0;
  closed = false;
  private chunks: Buffer[] = [];
  private buffered = 0;
  private broken = false;
  private nextId = 1;
  private readonly waiters = new Set<{
    predicate: (message: WireMessage) => boolean;
    resolve: (message: WireMessage) => void;
    reject: (error: Error) => void;
  }>();
  private readonly listeners = new Set<(message: WireMessage) => void>();
  private readonly closeListeners = new Set<() => void>();

  constructor(
    readable: Readable,
    private readonly writable: Writable,
    readonly label: string,
    private readonly options: { keep?: boolean } = {},
  ) {
    readable.on('data', (chunk: Buffer) => this.onData(chunk));
    const onClosed = (): void => this.markClosed();
    readable.on('close', onClosed);
    readable.on('end', onClosed);
    readable.on('error', onClosed);
    writable.on('error', onClosed);
    writable.on('close', onClosed);
  }

  private markClosed(): void {
    if (this.closed) return;
    this.closed = true;
    for (const waiter of this.waiters) waiter.reject(new Error(`${this.label}: the connection closed`));
    this.waiters.clear();
    for (const listener of this.closeListeners) listener();
  }

  onClose(listener: () => void): void {
    if (this.closed) listener();
    else this.closeListeners.add(listener);
  }

  private onData(chunk: Buffer): void {
    if (this.broken) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    let buffer = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered);
    for (;;) {
      const headerEnd = buffer.indexOf('\r\n\r\n');
      if (headerEnd < 0) {
        if (buffer.length > 1024) this.violate(`bytes that are not a frame header: ${JSON.stringify(buffer.subarray(0, 120).toString('latin1'))}`);
        break;
      }
      const header = buffer.subarray(0, headerEnd).toString('latin1');
      const match = /^Content-Length: (\d+)(?:\r\nContent-Type: [^\r\n]+)?$/.exec(header);
      if (!match) {
        this.violate(`bytes that are not a frame header: ${JSON.stringify(header.slice(0, 120))}`);
        break;
      }
      const length = Number(match[1]);
      if (buffer.length < headerEnd + 4 + length) break;
      const body = buffer.subarray(headerEnd + 4, headerEnd + 4 + length);
      buffer = buffer.subarray(headerEnd + 4 + length);
      this.accept(body);
      if (this.broken) break;
    }
    this.chunks = this.broken || buffer.length === 0 ? [] : [buffer];
    this.buffered = this.broken ? 0 : buffer.length;
  }

  private violate(problem: string): void {
    this.violations.push(`${this.label}: ${problem}`);
    this.broken = true;
  }

  private accept(body: Buffer): void {
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(body);
    } catch {
      this.violations.push(`${this.label}: a frame body that is not UTF-8`);
      return;
    }
    let message: WireMessage;
    try {
      message = JSON.parse(text) as WireMessage;
    } catch {
      this.violations.push(`${this.label}: a frame body that is not JSON: ${JSON.stringify(text.slice(0, 120))}`);
      return;
    }
    const problem = messageProblem(message);
    if (problem) {
      this.violations.push(`${this.label}: ${problem}: ${text.slice(0, 200)}`);
      return;
    }
    this.frames++;
    if (this.options.keep !== false) this.received.push(message);
    for (const listener of this.listeners) listener(message);
    for (const waiter of [...this.waiters]) {
      if (waiter.predicate(message)) {
        this.waiters.delete(waiter);
        waiter.resolve(message);
      }
    }
  }

  onMessage(listener: (message: WireMessage) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  waitFor(predicate: (message: WireMessage) => boolean, timeoutMs: number, what = 'a matching message'): Promise<WireMessage> {
    if (this.options.keep !== false) {
      const seen = this.received.find(predicate);
      if (seen) return Promise.resolve(seen);
    }
    if (this.closed) return Promise.reject(new Error(`${this.label}: the connection is closed (waiting for ${what})`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`${this.label}: no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = {
        predicate,
        resolve: (message: WireMessage) => {
          clearTimeout(timer);
          resolve(message);
        },
        reject: (error: Error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.waiters.add(waiter);
    });
  }

  newId(): number {
    return this.nextId++;
  }

  /** Writes bytes, waiting while the peer does not read; false when the stream is closed. */
  write(data: string | Buffer): Promise<boolean> {
    if (this.closed || this.writable.destroyed) return Promise.resolve(false);
    return new Promise((resolve) => {
      let flushed: boolean;
      try {
        flushed = this.writable.write(data);
      } catch {
        resolve(false);
        return;
      }
      if (flushed) {
        resolve(true);
        return;
      }
      const done = (): void => {
        this.writable.off('drain', done);
        this.writable.off('close', done);
        this.writable.off('error', done);
        resolve(!this.closed && !this.writable.destroyed);
      };
      this.writable.on('drain', done);
      this.writable.on('close', done);
      this.writable.on('error', done);
    });
  }

  send(message: Record<string, unknown>): Promise<boolean> {
    return this.write(frame(JSON.stringify({ jsonrpc: '2.0', ...message })));
  }

  /** The whole response (result or error) to a request; rejects on timeout or a closed stream. */
  async request(method: string, params: unknown, timeoutMs = 60_000): Promise<WireMessage> {
    const id = this.newId();
    const answered = this.waitFor((message) => message.id === id && message.method === undefined, timeoutMs, `answer to ${method} (id ${id})`);
    await this.send({ id, method, ...(params === undefined ? {} : { params }) });
    return answered;
  }

  async result<T>(method: string, params: unknown, timeoutMs = 60_000): Promise<T> {
    const response = await this.request(method, params, timeoutMs);
    if (response.error) throw new Error(`${this.label}: ${method} answered ${response.error.code} ${response.error.message}`);
    return response.result as T;
  }

  notify(method: string, params?: unknown): Promise<boolean> {
    return this.send({ method, ...(params === undefined ? {} : { params }) });
  }
}

/** What makes a parsed body not a JSON-RPC 2.0 message a daemon may send, or undefined. */
function messageProblem(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return 'a message that is not a JSON object';
  const candidate = message as WireMessage;
  if (candidate.jsonrpc !== '2.0') return 'a message without jsonrpc "2.0"';
  if (typeof candidate.method === 'string') return undefined;
  if (!('id' in candidate)) return 'a message with neither method nor id';
  const id = candidate.id;
  if (id !== null && typeof id !== 'string' && typeof id !== 'number') return 'a response whose id is not a string, number or null';
  const hasResult = 'result' in candidate;
  const hasError = 'error' in candidate;
  if (hasResult === hasError) return 'a response with both or neither of result and error';
  if (hasError) {
    const error = candidate.error as { code?: unknown; message?: unknown } | null;
    if (typeof error !== 'object' || error === null || !Number.isInteger(error.code) || typeof error.message !== 'string')
      return 'an error without an integer code and a string message';
  }
  return undefined;
}

export function frame(body: string | Buffer): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return Buffer.concat([Buffer.from(`Content-Length: ${bytes.length}\r\n\r\n`, 'ascii'), bytes]);
}

export interface ExitState {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface DaemonHandle {
  label: string;
  child: ChildProcess;
  pid: number;
  cacheDir: string;
  configDir: string;
  socketPath: string;
  /** The daemon's working folder (empty unless prepareCwd filled it). */
  cwd: string;
  /** Over stdio: the client on its stdin/stdout. */
  stdio?: StrictClient;
  exited: Promise<ExitState>;
  /** Set once the process has exited. */
  exit?: ExitState;
  stderrTail(): string;
  /** A new client connection on the socket. */
  connect(label?: string, options?: { keep?: boolean }): Promise<{ client: StrictClient; socket: net.Socket }>;
  /** Resident memory now, in MiB (undefined once it exited). */
  rssMb(): number | undefined;
  /** SIGKILL (or another signal) and the exit. */
  kill(signal?: NodeJS.Signals): Promise<ExitState>;
}

export interface DaemonOptions {
  transport: 'stdio' | 'socket';
  label?: string;
  /** Shared with other daemons to test restarts; a new private folder when absent. */
  cacheDir?: string;
  configDir?: string;
  env?: Record<string, string>;
  /** FATHOM_LOG; default warn. */
  log?: string;
  /** Messages the stdio client keeps (default true). */
  keep?: boolean;
  /** Fills the daemon's working folder before it starts (a relative path must never land there). */
  prepareCwd?: (cwd: string) => void;
}

export function readRssMb(pid: number): number | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1]);
    return Number.isFinite(kib) ? kib / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Spawns `fathom serve` with private folders (socket, cache, config, home) and an empty working folder. */
export async function startDaemon(options: DaemonOptions): Promise<DaemonHandle> {
  const home = scratchDir('fathom-rel-home-');
  const cacheDir = options.cacheDir ?? scratchDir('fathom-rel-cache-');
  const configDir = options.configDir ?? path.join(home, 'config');
  const socketPath = path.join(home, 'run', 'fathom.sock');
  const cwd = path.join(home, 'cwd');
  fs.mkdirSync(cwd);
  options.prepareCwd?.(cwd);
  const label = options.label ?? `daemon(${options.transport})`;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, 'xdg-config'),
    XDG_CACHE_HOME: path.join(home, 'xdg-cache'),
    FATHOM_CACHE_DIR: cacheDir,
    FATHOM_CONFIG_DIR: configDir,
    FATHOM_SOCKET: socketPath,
    FATHOM_LOG: options.log ?? 'warn',
    FATHOM_MODEL_HUB: 'http://127.0.0.1:9/',
    ...options.env,
  };
  const args = options.transport === 'stdio' ? ['serve', '--stdio'] : ['serve', '--socket', socketPath];
  const child = spawn(process.execPath, [cliMain, ...args], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    if (stderr.length > 64_000) stderr = stderr.slice(-32_000);
  });
  const handle: DaemonHandle = {
    label,
    child,
    pid: child.pid!,
    cacheDir,
    configDir,
    socketPath,
    cwd,
    exited: new Promise<ExitState>((resolve) =>
      child.once('exit', (code, signal) => {
        handle.exit = { code, signal };
        daemons.delete(handle);
        resolve(handle.exit);
      }),
    ),
    stderrTail: () => stderr.slice(-4_000),
    connect: (clientLabel = `${label} client`, clientOptions = {}) =>
      new Promise((resolve, reject) => {
        const socket = net.connect(socketPath);
        socket.once('connect', () => resolve({ client: new StrictClient(socket, socket, clientLabel, clientOptions), socket }));
        socket.once('error', reject);
      }),
    rssMb: () => (handle.exit ? undefined : readRssMb(child.pid!)),
    kill: async (signal: NodeJS.Signals = 'SIGKILL') => {
      if (handle.exit) return handle.exit;
      child.kill(signal);
      return handle.exited;
    },
  };
  daemons.add(handle);
  if (options.transport === 'stdio') {
    handle.stdio = new StrictClient(child.stdout!, child.stdin!, label, { keep: options.keep });
    child.stdin!.on('error', () => undefined);
    return handle;
  }
  child.stdout!.on('data', (chunk: Buffer) => {
    stderr += `[stdout of a socket daemon] ${chunk.toString().slice(0, 200)}`;
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (await canConnect(socketPath)) return handle;
    if (handle.exit) throw new Error(`${label} exited before listening (${JSON.stringify(handle.exit)}): ${handle.stderrTail()}`);
    await sleep(20);
  }
  await handle.kill();
  throw new Error(`${label} did not listen within 60 s: ${handle.stderrTail()}`);
}

/** A wait that never keeps the process alive: for racing against an answer that may not come. */
export function idle(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Median and maximum of a list of numbers (0s when empty). */
export function medianMax(values: readonly number[]): { median: number; max: number } {
  if (values.length === 0) return { median: 0, max: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, max: sorted.at(-1)! };
}
