// What the daemon answers before its engines are loaded. `fathom serve` listens first and loads the
// session and every engine behind it afterwards (~180 modules, a few hundred ms of the daemon's
// start); meanwhile nothing can be open, so `fathom/status` is answered here at once: the daemon,
// no open workspaces, and a root asked about as absent (with its saved file set, when one is on
// disk). Two moments: before the daemon's connection code has loaded, the front door
// (front-door.ts) answers with quickStatus, for params plainly of the schema's shape; after it, the
// params are checked by the session's schema and parser, loaded first (zod, not the engines).
// Every other message waits for the session (server.ts). The loaded session answers an unopened
// root's status with the same absentStatus.
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
  return statusOf(root, daemon(), cacheRoot, ownFolders);
}

/**
 * fathom/status before even the params' parser has loaded (the front door's answer, the first a
 * CLI that started the daemon gets): only for params that are plainly what the schema takes (none,
 * or an object whose root is absent or a string); for any other, and for a root the checks
 * refuse, undefined: the daemon answers those, its errors and all, once it admits the client.
 */
export function quickStatus(raw: unknown, daemon: StatusResult['daemon'], cacheRoot: string, ownFolders: readonly OwnFolder[]): StatusResult | undefined {
  if (raw !== undefined && raw !== null && (typeof raw !== 'object' || Array.isArray(raw))) return undefined;
  const root = (raw as { root?: unknown } | null | undefined)?.root;
  if (root !== undefined && typeof root !== 'string') return undefined;
  try {
    return statusOf(root, daemon, cacheRoot, ownFolders);
  } catch {
    return undefined;
  }
}

function statusOf(root: string | undefined, daemon: StatusResult['daemon'], cacheRoot: string, ownFolders: readonly OwnFolder[]): StatusResult {
  const workspaces = root === undefined ? [] : [absentStatus(resolveRootParam(root, 'root', ownFolders), cacheRoot)];
  return { daemon, workspaces, debug: { sessions: [], adapters: adapterStates() } };
}
