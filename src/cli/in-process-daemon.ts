// --no-daemon's daemon: a Daemon inside the CLI's process, spoken to over an in-memory pipe with the
// same JSON-RPC as the socket (the daemon's side vscode-jsonrpc, as always; the CLI's side its own
// client, rpc-client.ts, as over the socket). The one CLI module besides `serve` and `mcp` that loads the daemon
// (and through it every engine): main.ts imports it dynamically, only for --no-daemon, so client
// commands stay thin (test/cli/cli-thin.test.ts).
import { PassThrough } from 'node:stream';
import { StreamMessageWriter } from 'vscode-jsonrpc/node';
import type { DaemonConfig } from '../daemon/config.js';
import { writerOptions } from '../daemon/json-encoder.js';
import { Daemon } from '../daemon/server.js';
import type { Client } from './connect.js';
import { RpcClient } from './rpc-client.js';

/** A daemon in this process, for --no-daemon: the caches it writes serve later daemons too. */
export function inProcessDaemon(config: DaemonConfig): Client {
  const daemon = new Daemon(config);
  const toDaemon = new PassThrough();
  const fromDaemon = new PassThrough();
  daemon.serve(toDaemon, new StreamMessageWriter(fromDaemon, writerOptions), { onExit: () => undefined, oversizedFrames: 'skip' });
  const connection = new RpcClient(fromDaemon, toDaemon);
  return {
    connection,
    // The daemon lives and dies with this process.
    lost: new Promise<never>(() => undefined),
    close: async () => {
      connection.dispose();
      await daemon.stop();
    },
  };
}
