// fathom/teamPush, fathom/teamStatus and fathom/teamJoin for a connection: given the params as their
// schema parsed them (protocol/params.ts), checks the team key file (absolute, refused when others
// may read it), asks
// the engine for the workspace's records or tree facts, and hands them to src/team (push.ts,
// status.ts, join.ts); a join's records go back to the engine, which seeds its semantic index. The store is
// opened (and its schema version checked) before any index work, so a store that is down, slow
// or of another version is answered at once, as a TeamStore error; the indexes go on regardless.
import path from 'node:path';
import type { CancellationToken } from 'vscode-jsonrpc/node';
import { errorMessage, FathomError } from '../base/errors.js';
import { log } from '../base/logger.js';
import { readMaskKey } from '../index/export/mask-keys.js';
import { PathMask } from '../index/export/path-mask.js';
import type { WorkspaceEngine } from '../engine/workspace-engine.js';
import type { ProgressToken, ProgressValue, TeamJoinResult, TeamPushResult, TeamStatusResult } from '../protocol/methods.js';
import type { TeamConnectionOptions } from '../team/connection.js';
import { fetchForJoin } from '../team/join.js';
import { pushToStore } from '../team/push.js';
import { teamStatus } from '../team/status.js';
import { TeamStore } from '../team/team-store.js';
import type { Workspace } from '../workspace/workspace.js';
import type { ParamsOf } from '../protocol/params.js';

export interface TeamRequestContext {
  workspaceFor(params: { root: string }): Workspace;
  engine(workspace: Workspace): WorkspaceEngine;
  /** Waits for the workspace's first build (progress on the token). */
  ready(workspace: Workspace, token: CancellationToken, progressToken: ProgressToken | undefined): Promise<void>;
  sendProgress(token: ProgressToken, value: ProgressValue): void;
}

/** The params every team method takes (one schema, protocol/params.ts). */
type StoreParams = ParamsOf<'fathom/teamPush'>;

/** The store's connection and the team's key, from params shared by the three methods. */
function storeParams(params: StoreParams): { connection: TeamConnectionOptions; mask: PathMask } {
  const { url, keyFile, password, connectTimeoutMs } = params;
  if (keyFile.includes('\0')) throw new FathomError('invalidParams', 'params.keyFile holds a NUL character', { field: 'keyFile' });
  if (!path.isAbsolute(keyFile)) throw new FathomError('invalidParams', `params.keyFile must be an absolute path (got ${keyFile})`, { field: 'keyFile' });
  const mask = new PathMask(readMaskKey(keyFile));
  return {
    connection: { conninfo: url, ...(password === undefined ? {} : { password }), ...(connectTimeoutMs === undefined ? {} : { connectTimeoutMs }) },
    mask,
  };
}

/** What a team request works with once its store is open and its workspace's file set is built. */
interface StoreSession {
  workspace: Workspace;
  engine: WorkspaceEngine;
  store: TeamStore;
  /** The store's connection settings (a join opens a second connection with them). */
  connection: TeamConnectionOptions;
  mask: PathMask;
  /** Starts the request's progress (`$/progress` on its token, when it has one). */
  begin: (title: string) => void;
  /** A progress report, at most every 100 ms; `fraction` of the whole. */
  report: (message: string, fraction: number) => void;
}

export class TeamRequests {
  constructor(private readonly context: TeamRequestContext) {}

  /**
   * Reads the store's params, opens it (so a store that is down, slow or of another version is
   * answered before any index work), waits for the workspace's file set, runs `work`, then ends
   * its progress and closes the store, whatever happened.
   */
  private async withStore<R>(params: StoreParams, token: CancellationToken, work: (session: StoreSession) => Promise<R>): Promise<R> {
    const { connection, mask } = storeParams(params);
    const workspace = this.context.workspaceFor(params);
    const progressToken = params.workDoneToken;
    const store = await TeamStore.open(connection);
    const send = progressToken === undefined ? undefined : (value: ProgressValue): void => this.context.sendProgress(progressToken, value);
    let begun = false;
    let last = 0;
    try {
      await this.context.ready(workspace, token, progressToken);
      return await work({
        workspace,
        engine: this.context.engine(workspace),
        store,
        connection,
        mask,
        begin: (title) => {
          send?.({ kind: 'begin', title, cancellable: true, percentage: 0 });
          begun = true;
        },
        report: (message, fraction) => {
          if (!send || !begun || performance.now() - last < 100) return;
          last = performance.now();
          send({ kind: 'report', message, percentage: Math.floor(100 * fraction) });
        },
      });
    } finally {
      if (begun) send?.({ kind: 'end' });
      await store.close();
    }
  }

  push(params: StoreParams, token: CancellationToken): Promise<TeamPushResult> {
    return this.withStore(params, token, async ({ workspace, engine, store, mask, begin, report }) => {
      begin(`Pushing ${workspace.root} to ${store.description}`);
      const input = await engine.semanticRecords(token, (done, total, message) => report(`embedding: ${message}`, (0.5 * done) / Math.max(1, total)));
      if (!input) throw new FathomError('invalidParams', `semantic search is off for ${workspace.root} (${engine.semanticOffReason()}): nothing to push`);
      const summary = await pushToStore(store, mask, input, { onProgress: (message, fraction) => report(message, 0.5 + fraction / 2) });
      return { root: workspace.root, ...summary };
    });
  }

  /**
   * Fills the workspace's semantic index, when it holds nothing yet, from the store: the records
   * and vectors of the files it holds; the files the store lacks are embedded in the background.
   * Answers what came (the index answers from it at once).
   */
  join(params: StoreParams, token: CancellationToken): Promise<TeamJoinResult> {
    return this.withStore(params, token, async ({ workspace, engine, store, connection, mask, begin, report }) => {
      const input = await engine.joinInput();
      // Timed from here: the store's part (the file set's first build, before, is the workspace's).
      const started = performance.now();
      if (!input) throw semanticOff(workspace, engine);
      const answer = { root: workspace.root, store: store.description, teamKeyId: mask.keyId, modelId: input.modelId };
      // An index that holds something already (or is being seeded) takes nothing: nothing is fetched for it.
      const seeding = engine.beginSeed(`team store ${store.description}`);
      if (!seeding) {
        const nothing = { nearest: null, distinctFiles: 0, fetchedFiles: 0, seeded: { files: 0, chunks: 0 }, vectorBytes: 0 };
        return { ...answer, ...nothing, alreadyIndexed: true, ms: Math.round(performance.now() - started) };
      }
      begin(`Fetching ${workspace.root}'s vectors from ${store.description}`);
      let fetched: Awaited<ReturnType<typeof fetchForJoin>>;
      try {
        // A second connection: the store reads one round while this thread unpacks and seeds the
        // other (one connection is enough when a second cannot be had).
        const second = await TeamStore.open(connection).catch((error: unknown) => {
          log.debug(`team join of ${workspace.root}: one connection (${errorMessage(error)})`);
          return undefined;
        });
        fetched = await fetchForJoin(
          second ? [store, second] : [store],
          mask,
          input,
          (files) => seeding.add(files),
          (done, total) => report(`${done}/${total} files asked`, done / Math.max(1, total)),
        ).finally(() => second?.close());
        if (token.isCancellationRequested) throw new FathomError('cancelled', 'the join was cancelled');
      } catch (error) {
        // What came is kept whatever stopped the fetch; the local build embeds the rest.
        const kept = seeding.end();
        log.info(`team join of ${workspace.root} stopped (${errorMessage(error)}): the ${kept.files} files seeded before are kept`);
        throw error;
      }
      const seeded = seeding.end();
      const { distinctFiles, fetchedFiles, vectorBytes } = fetched;
      const ms = Math.round(performance.now() - started);
      log.info(`team join of ${workspace.root}: ${fetchedFiles} of ${distinctFiles} contents fetched and ${seeded.files} files seeded in ${ms} ms`);
      return { ...answer, nearest: fetched.nearest ?? null, distinctFiles, fetchedFiles, seeded, alreadyIndexed: false, vectorBytes, ms };
    });
  }

  status(params: StoreParams, token: CancellationToken): Promise<TeamStatusResult> {
    return this.withStore(params, token, async ({ workspace, engine, store, mask }) => {
      const tree = await engine.treeFacts();
      if (tree.modelId === undefined) throw semanticOff(workspace, engine);
      const seeded = engine.semantic?.index.status().seeded ?? null;
      return { root: workspace.root, ...(await teamStatus(store, mask, { ...tree, modelId: tree.modelId })), seeded };
    });
  }
}

function semanticOff(workspace: Workspace, engine: WorkspaceEngine): FathomError {
  return new FathomError('invalidParams', `semantic search is off for ${workspace.root} (${engine.semanticOffReason()}): the store keeps vectors by model`);
}
