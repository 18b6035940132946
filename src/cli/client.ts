// What the client commands share: a connection to the daemon (or one in this process with
// --no-daemon), a request with Ctrl-C cancel and a progress bar, a question asked of one root or
// several, and the arguments every command reads the same way (a FILE that must exist, the
// workspace around a folder, globs, whole numbers).
import fs from 'node:fs';
import path from 'node:path';
import { makeCacheFolder } from '../base/cache-folder.js';
import { errorMessage } from '../base/errors.js';
import { defaultCacheRoot, defaultSocketPath } from '../base/places.js';
import { Methods, type AcrossRootsResult, type ProgressValue, type StatusResult } from '../protocol/methods.js';
import { connectToDaemon, type Client } from './connect.js';
import { ProgressBar } from './progress-bar.js';
import type { RpcClient } from './rpc-client.js';
import type { Scope } from './scope.js';
import { UsageError } from './usage-error.js';
import { repositoryRoot } from './workspace-root.js';

/** What the connection is chosen by (clientOptions in command.ts). */
export interface ConnectionValues {
  socket?: string | undefined;
  'no-daemon'?: boolean | undefined;
}

export function print(value: unknown): void {
  process.stdout.write(typeof value === 'string' ? `${value}\n` : `${JSON.stringify(value, null, 2)}\n`);
}

/** --socket as given, else the user's socket. */
export function socketOf(values: ConnectionValues): string {
  return values.socket === undefined ? defaultSocketPath() : path.resolve(values.socket);
}

let progressCounter = 0;

/** Sends a request; Ctrl-C cancels it ($/cancelRequest); progress is drawn on a TTY. */
export async function request<R>(connection: RpcClient, method: string, params: Record<string, unknown>, withProgress: boolean): Promise<R> {
  const bar = new ProgressBar();
  const cancel = new AbortController();
  const token = `fathom-cli-${process.pid}-${++progressCounter}`;
  const subscription = connection.onNotification('$/progress', (params) => {
    const message = params as { token: unknown; value: ProgressValue };
    if (message.token === token) bar.update(message.value);
  });
  const onInterrupt = (): void => {
    cancel.abort();
    bar.clear();
    process.stderr.write('fathom: cancelled\n');
    process.exit(130);
  };
  process.once('SIGINT', onInterrupt);
  try {
    return await connection.sendRequest<R>(method, withProgress && bar.enabled ? { ...params, workDoneToken: token } : params, { signal: cancel.signal });
  } finally {
    bar.clear();
    subscription.dispose();
    process.off('SIGINT', onInterrupt);
  }
}

/** Runs `work` with a connection: the user's daemon (started if none runs), or one in this process (--no-daemon). */
export async function withClient(values: ConnectionValues, work: (client: Client) => Promise<void>): Promise<void> {
  // A daemon started here logs into the cache root: whatever is in its way (a file) is set aside first.
  makeCacheFolder(defaultCacheRoot());
  const client = values['no-daemon'] ? await inProcessClient() : await connectToDaemon(socketOf(values), { autoStart: true });
  try {
    // A daemon that dies mid-request ends the command with an error, not a request left waiting.
    await Promise.race([work(client!), client!.lost]);
  } finally {
    await client!.close();
  }
}

/** --no-daemon: a daemon in this process, loaded only now (with every engine it brings). */
async function inProcessClient(): Promise<Client> {
  // One import at a time (see daemon/server.ts load: Node 20's loader races on concurrent imports).
  const { defaultConfig } = await import('../daemon/config.js');
  const { inProcessDaemon } = await import('./in-process-daemon.js');
  return inProcessDaemon(defaultConfig());
}

/** The roots of the folder workspaces the daemon holds (`--all`). */
export async function openRoots(connection: RpcClient): Promise<string[]> {
  const status = await request<StatusResult>(connection, Methods.status, {}, false);
  const roots = status.workspaces.map((workspace) => workspace.root).filter((root) => fs.statSync(root, { throwIfNoEntry: false })?.isDirectory() === true);
  if (roots.length === 0) throw new Error('the daemon holds no workspace yet: name one as PATH, or run fathom index PATH');
  return roots.sort();
}

/**
 * Asks a question of a scope (scope.ts): one root (narrowed to its paths), or several in one
 * request (`roots` / `allWorkspaces`); each root's answer, a root that failed told on stderr.
 */
export async function ask<R extends { root: string }>(
  connection: RpcClient,
  method: string,
  where: Scope,
  params: Record<string, unknown>,
): Promise<Array<{ root: string; result: R }>> {
  if (where.kind === 'one') {
    const result = await request<R>(connection, method, { root: where.root, ...params, ...(where.paths.length > 0 ? { paths: where.paths } : {}) }, true);
    return [{ root: result.root, result }];
  }
  const across = await request<AcrossRootsResult<R>>(
    connection,
    method,
    { ...params, ...(where.kind === 'all' ? { allWorkspaces: true } : { roots: where.roots }) },
    true,
  );
  const answers: Array<{ root: string; result: R }> = [];
  for (const answer of across.answers) {
    if (answer.error === undefined) answers.push({ root: answer.root, result: answer.result });
    else process.stderr.write(`fathom: ${answer.root}: ${answer.error.message}\n`);
  }
  if (answers.length === 0) throw new Error('no workspace answered');
  return answers;
}

/** The workspace a named PATH narrows: the git repository around it, else the PATH itself (as named). */
export function workspaceAround(folder: string): string {
  return repositoryRoot(folder) ?? folder;
}

/** A FILE argument that must exist (chunks, outline, diagnostics, a graph position): its absolute path. */
export function existingFile(file: string): string {
  const absolute = path.resolve(file);
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(absolute, { throwIfNoEntry: false });
  } catch (error) {
    throw new Error(`${file}: ${errorMessage(error)}`, { cause: error });
  }
  if (!stat) throw new Error(`${file}: no such file`);
  if (stat.isDirectory()) throw new Error(`${file} is a folder, not a file`);
  return absolute;
}

/**
 * The params that name a FILE: its path, and the git repository holding it as root. A file in no
 * repository gets no root: the daemon answers it on its own (or from an open workspace holding it).
 */
export function fileParams(absolute: string): { root?: string; path: string } {
  const root = repositoryRoot(path.dirname(absolute));
  return root === undefined ? { path: absolute } : { root, path: absolute };
}

/** The command's globs as a request's `glob` param (absent when none): -g/--glob, and --glob-filter, its older long name. */
export function globParam(values: { glob?: string[] | undefined; 'glob-filter'?: string[] | undefined }): { glob?: string[] } {
  const globs = [...(values.glob ?? []), ...(values['glob-filter'] ?? [])];
  return globs.length > 0 ? { glob: globs } : {};
}

/** An option's whole number (at least `least`), or undefined when it was not given; anything else is a usage error. */
export function wholeNumber(flag: string, value: string | undefined, least = 0): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!(Number.isInteger(number) && number >= least)) throw new UsageError(`${flag} takes a whole number${least > 0 ? ` ≥ ${least}` : ''}`);
  return number;
}

/** Refuses arguments past those a command takes. */
export function noMoreArguments(extra: readonly string[]): void {
  if (extra.length > 0) throw new UsageError(`unexpected argument: ${extra[0]}`);
}
