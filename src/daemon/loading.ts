// What the daemon answers before its engines are loaded. `fathom serve` listens first and loads the
// session and every engine behind it afterwards (~180 modules, a few hundred ms of the daemon's
// start); meanwhile nothing can be open, so `fathom/status` is answered here at once: the daemon,
// no open workspaces, and a root asked about as absent (with its saved file set, when one is on
// disk). Its params are checked by the session's schema and parser, loaded first (zod, not the
// engines). Every other message waits for the session (server.ts). The loaded session answers an
// unopened root's status with the same absentStatus.
import fs from 'node:fs';
import { fileSetFile, workspaceCacheDir } from '../base/places.js';
import { adapterStates } from '../debug/adapters.js';
import { Methods, type StatusResult, type WorkspaceStatus } from '../protocol/methods.js';
import type { RequestSchema } from '../protocol/params.js';
import type { parseParams } from './parse-params.js';
import { resolveRootParam, type OwnFolder } from './root-param.js';

/** A root no workspace of this daemon has open: nothing known but its saved file set, if one is on disk. */
export function absentStatus(root: string, cacheRoot: string): WorkspaceStatus {
  const saved = fileSetFile(workspaceCacheDir(cacheRoot, root));
  return {
    root,
    state: 'absent',
    git: false,
    files: 0,
    bytes: 0,
    skipped: {},
    merkleRoot: null,
    indexes: { fileSet: 'absent', merkle: 'absent', regex: 'absent' },
    watcher: { state: 'off', folders: 0 },
    lag: { pendingChanges: 0, oldestPendingMs: 0, lastChangeAppliedAt: null },
    lastScan: null,
    cache: { path: fs.existsSync(saved) ? saved : '', loaded: 'none' },
  };
}

/** What status needs to check its params: its schema and the parser (zod and the schemas, not the engines). */
interface StatusParser {
  schema: RequestSchema<typeof Methods.status>;
  parseParams: typeof parseParams;
}

let statusParser: Promise<StatusParser> | undefined;

/**
 * Loads the params' schemas and their parser, once: server.ts starts it first when the daemon
 * listens (it loads zod, a few tens of ms, not the engines), and a status asked meanwhile waits for it.
 */
export function loadStatusParser(): Promise<StatusParser> {
  // One import at a time, as server.ts loads the engines.
  statusParser ??= import('../protocol/params.js').then(async (protocol) => ({
    schema: protocol.requestSchema(Methods.status),
    parseParams: (await import('./parse-params.js')).parseParams,
  }));
  return statusParser;
}

/** fathom/status while the engines load: the same params, checks and errors as the session's. */
export async function statusWhileLoading(
  raw: unknown,
  daemon: () => StatusResult['daemon'],
  cacheRoot: string,
  ownFolders: readonly OwnFolder[],
): Promise<StatusResult> {
  const { schema, parseParams } = await loadStatusParser();
  const { root } = parseParams(Methods.status, schema, raw);
  const workspaces = root === undefined ? [] : [absentStatus(resolveRootParam(root, 'root', ownFolders), cacheRoot)];
  return { daemon: daemon(), workspaces, debug: { sessions: [], adapters: adapterStates() } };
}
