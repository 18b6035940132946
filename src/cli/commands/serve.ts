// `fathom serve`: runs the daemon on the user's socket and/or stdio until it is stopped. Its own
// entry (serve-main.ts) runs it, as bin/fathom.js and connect.ts start it, so that a daemon loads
// none of the client's commands before it listens; main.ts runs it too (`node dist/src/cli/main.js serve`).
import path from 'node:path';
import { parseArgs } from 'node:util';
import { errorMessage } from '../../base/errors.js';
import { log } from '../../base/logger.js';
import { defaultConfigDir, defaultSocketPath, readPackageVersion } from '../../base/places.js';
import type { DaemonConfig } from '../../daemon/config.js';
import type { FrontDoor } from '../../daemon/front-door.js';
import type { Daemon } from '../../daemon/server.js';
import type { Command } from '../command.js';
import { UsageError } from '../usage-error.js';

/** serve's options (parseArgs): any other is refused. */
export const serveOptions = {
  stdio: { type: 'boolean' },
  socket: { type: 'string' },
  'max-file-bytes': { type: 'string' },
  'reconcile-seconds': { type: 'string' },
  'max-frame-bytes': { type: 'string' },
} as const;

/** What serve reads of the parsed command line. */
export interface ServeValues {
  stdio?: boolean | undefined;
  socket?: string | boolean | undefined;
  'max-file-bytes'?: string | undefined;
  'reconcile-seconds'?: string | undefined;
  'max-frame-bytes'?: string | undefined;
  [option: string]: unknown;
}

export async function serve(values: ServeValues): Promise<void> {
  const { daemonHeapGrowingPercent, defaultConfig } = await import('../../daemon/config.js');
  const config = defaultConfig();
  if (values['max-file-bytes'] !== undefined) config.maxFileBytes = Number(values['max-file-bytes']);
  if (values['reconcile-seconds'] !== undefined) config.reconcileIntervalMs = Number(values['reconcile-seconds']) * 1000;
  if (!Number.isFinite(config.maxFileBytes) || !Number.isFinite(config.reconcileIntervalMs))
    throw new UsageError('--max-file-bytes and --reconcile-seconds take numbers');
  if (values['max-frame-bytes'] !== undefined) {
    const bytes = Number(values['max-frame-bytes']);
    if (!Number.isSafeInteger(bytes) || bytes < 1) throw new UsageError('--max-frame-bytes takes a whole number of bytes (at least 1)');
    config.maxFrameBytes = bytes;
  }
  process.on('unhandledRejection', (reason) => log.error(`unhandled rejection: ${errorMessage(reason)}`));
  process.on('uncaughtException', (error) => log.error(`uncaught exception: ${error.stack ?? error.message}`));
  // Set as each comes to be: a stop before the daemon exists closes the door alone.
  const running: { daemon?: Daemon; door?: FrontDoor | undefined } = {};
  let exiting = false;
  const exit = (code: number): void => {
    if (exiting) return;
    exiting = true;
    if (!running.daemon) {
      // Stopped before the daemon's module loaded: nothing was open.
      running.door?.close();
      process.exit(code);
    }
    // Replies still queued on a pipe are lost by process.exit: let stdout drain first (an empty
    // write's callback never came on a pipe: a stdio daemon whose framing broke stayed, deaf).
    void running.daemon.stop().finally(() => {
      if (process.stdout.writableLength === 0) process.exit(code);
      process.stdout.once('drain', () => process.exit(code));
      setTimeout(() => process.exit(code), 2_000).unref();
    });
  };
  process.on('SIGTERM', () => exit(0));
  process.on('SIGINT', () => exit(0));
  const socketWanted = values.socket !== undefined || !values.stdio;
  if (socketWanted) {
    // The socket first, before the daemon's connection code and engines load: a CLI that started
    // this daemon connects and has its status answered by the door meanwhile.
    running.door = await openDoor(typeof values.socket === 'string' ? path.resolve(values.socket) : defaultSocketPath(), config, () => exit(0));
    if (!running.door) process.exit(values.stdio ? 1 : 0);
  }
  const [{ Daemon: DaemonClass, drainMs }, { setFlagsFromString }] = await Promise.all([import('../../daemon/server.js'), import('node:v8')]);
  setFlagsFromString(`--heap-growing-percent=${daemonHeapGrowingPercent}`);
  const daemon = new DaemonClass(config);
  running.daemon = daemon;
  daemon.onStopped(() => exit(0));
  if (running.door) daemon.adopt(running.door);
  // stdio: the editor that spawned us owns our life; when it exits or closes stdin, we stop.
  // A stdio stream whose framing broke can never be read again: exit (cleanly) once the requests read before
  // the break are answered, so that the editor sees its server gone (and restarts it) instead of one alive and deaf.
  // The parse error and those answers are written first (the close that follows them stops the daemon); the
  // deadline only bounds a writer stuck behind them.
  const exitWithin = (code: number, ms: number): void => void setTimeout(() => process.exit(code), ms).unref();
  if (values.stdio)
    daemon.serveStdio(
      (code) => (socketWanted ? undefined : exit(code)),
      () => (socketWanted ? undefined : exitWithin(0, drainMs + 1_000)),
    );
}

/**
 * Listens on the socket (front-door.ts), its early status answered by loading.ts's quickStatus;
 * undefined, said on stderr, when a live daemon already serves it.
 */
async function openDoor(socketPath: string, config: DaemonConfig, onLost: () => void): Promise<FrontDoor | undefined> {
  const [{ FrontDoor, SocketInUseError }, { quickStatus }, { ownFoldersOf }] = await Promise.all([
    import('../../daemon/front-door.js'),
    import('../../daemon/loading.js'),
    import('../../daemon/root-param.js'),
  ]);
  const ownFolders = ownFoldersOf(config.cacheRoot, config.configDir ?? defaultConfigDir());
  const version = readPackageVersion();
  const info = (clients: number) => ({
    pid: process.pid,
    version,
    uptimeSeconds: Math.round(process.uptime()),
    clients,
    buffers: 0,
    socket: socketPath,
  });
  try {
    return await FrontDoor.open(socketPath, (params, clients) => quickStatus(params, info(clients), config.cacheRoot, ownFolders), onLost);
  } catch (error) {
    if (!(error instanceof SocketInUseError)) throw error;
    process.stderr.write(`fathom: ${error.message}\n`);
    return undefined;
  }
}

export const usage = `  serve [--stdio] [--socket PATH]     run the daemon (default: on the user's socket)
        [--max-file-bytes N] [--reconcile-seconds N]
        [--max-frame-bytes N]         refuse a client's message larger than N bytes (64 MiB)`;

export const command: Command = {
  usage,
  async run(_name, args) {
    const { values, positionals } = parseArgs({ args, options: serveOptions, allowPositionals: true });
    if (positionals.length > 0) throw new UsageError(`serve takes no arguments (got ${positionals.join(' ')})`);
    await serve(values);
    return -1; // keep running
  },
};
