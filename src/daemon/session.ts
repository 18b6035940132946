// One client connection: the LSP handshake, buffer notifications and Fathom's own methods, routed
// to the daemon's services. Every request goes through `handle`, which parses its params with the
// method's schema (protocol/params.ts) for a handler typed by method, and turns any failure into a
// JSON-RPC error for that request alone; nothing a client sends can end the process (in socket
// mode, `exit` ends only this client's connection).
import fs from 'node:fs';
import path from 'node:path';
import { ResponseError, type CancellationToken, type MessageConnection } from 'vscode-jsonrpc/node';
import { differsFromDisk } from '../base/editor-text.js';
import { FathomError, errorMessage } from '../base/errors.js';
import { beginForeground } from '../base/foreground.js';
import { log } from '../base/logger.js';
import { checkGlobs } from '../base/pattern-limits.js';
import { pathFromUriOrPath, pathsWithin, realPathForWrite, toRelative } from '../base/paths.js';
import { ErrorCodes } from '../protocol/errors.js';
import {
  Methods,
  type IndexBuilding,
  type ChunksResult,
  type OutlineResult,
  type SymbolsResult,
  type FilesResult,
  type GrepResult,
  type ProgressToken,
  type ProgressValue,
  type StatusResult,
  type StructuralSearchResult,
  type StructuralRewriteResult,
  type ApplyRewriteResult,
  type DiscardRewriteResult,
  type EditFileResult,
  type ModelPullResult,
  type ModelUseResult,
  type TrustResult,
  type WorkspaceStatus,
} from '../protocol/methods.js';
import {
  isNotificationMethod,
  isRequestMethod,
  notificationSchema,
  requestSchema,
  type NotificationMethod,
  type NotificationParamsOf,
  type ParamsOf,
  type RequestMethod,
} from '../protocol/params.js';
import { globFilter, pathsFilter } from '../base/path-glob.js';
import { outlineOf } from '../index/graph/outline.js';
import { GraphRequests } from './graph-requests.js';
import { buildCannotFinish, paceStepMs } from './build-pace.js';
import { defaultIndexWaitMs, SearchRequests } from './search-requests.js';
import { DebugRequests } from './debug-requests.js';
import { TeamRequests } from './team-requests.js';
import { adapterStates } from '../debug/adapters.js';
import type { CandidateSource, StructuralRequest } from '../structural/structural-search.js';
import { planRewrite } from '../structural/rewrite-planner.js';
import type { EditAnswer } from '../lsp/diagnostics-service.js';
import type { ServerSpec } from '../lsp/registry.js';
import type { BufferOverlay } from '../workspace/overlay.js';
import type { Workspace } from '../workspace/workspace.js';
import { acrossRoots } from './across-roots.js';
import { absentStatus } from './loading.js';
import { parseParams } from './parse-params.js';
import { toResponseError } from './to-wire-error.js';
import {
  toLspDocumentSymbols,
  toLspSymbolInformation,
  toWireChunks,
  toWireOutline,
  toWireSymbols,
  toWireGrep,
  toWireMerkle,
  toWireStatus,
  toWireStructural,
  toWireRewritePlan,
  toWireSyntaxPass,
} from './to-wire.js';
import type { WorkspaceManager } from './workspaces.js';
import type { WorkspaceEngine } from '../engine/workspace-engine.js';

export interface DaemonServices {
  workspaces: WorkspaceManager;
  overlay: BufferOverlay;
  version: string;
  daemonInfo(): StatusResult['daemon'];
  /** Stops the whole daemon (fathom/stop). */
  requestStop(): void;
  readonly stopping: boolean;
}

/** rg's -C/-B/-A as params: `context` for both sides, `beforeContext`/`afterContext` override it. */
function contextParams(params: ParamsOf<'fathom/grep'>): { beforeContext?: number; afterContext?: number } {
  const before = params.beforeContext ?? params.context;
  const after = params.afterContext ?? params.context;
  return { ...(before === undefined ? {} : { beforeContext: before }), ...(after === undefined ? {} : { afterContext: after }) };
}

/** What `readyIndex` answers for each index it can wait for (semantic: undefined when it is off). */
interface ReadyIndex {
  regex: WorkspaceEngine['regex'];
  graph: WorkspaceEngine['graph'];
  ranking: WorkspaceEngine['ranking'];
  semantic: NonNullable<WorkspaceEngine['semantic']>['index'] | undefined;
}

/** Each request's handler, by method: its params as the method's schema parsed them, its answer (or a promise of it). */
type Handlers = { [M in RequestMethod]: (params: ParamsOf<M>, token: CancellationToken) => unknown };

let sessionCounter = 0;

/** How long a question waits, at most, for an index being read back from its saved copy (the kernel's graph: ~10 s). */
const loadWaitMs = 60_000;

/** A full scan that ended this recently makes `fathom/index`'s reconcile redundant (the watcher has run since). */
const freshScanMs = 30_000;

export class Session {
  /** The default new-diagnostics ledger of this connection. */
  private readonly ledgerKey = `connection:${++sessionCounter}`;
  private shutdownRequested = false;
  private readonly openBuffers = new Set<string>();
  private readonly requests: Handlers;

  constructor(
    private readonly connection: MessageConnection,
    private readonly services: DaemonServices,
    /** Called on `exit` with the LSP exit code (0 after shutdown, 1 otherwise). */
    private readonly onExit: (code: number) => void,
  ) {
    this.requests = {
      initialize: (params) => this.initialize(params),
      shutdown: () => {
        this.shutdownRequested = true;
        return null;
      },
      [Methods.status]: (params) => this.status(params),
      [Methods.index]: (params, token) => this.index(params, token),
      [Methods.files]: (params, token) => this.files(params, token),
      [Methods.merkle]: (params, token) => this.merkle(params, token),
      [Methods.grep]: (params, token) => acrossRoots(Methods.grep, params, token, this.openRoots, (one, cancel) => this.grep(one, cancel)),
      [Methods.codeSearch]: (params, token) =>
        acrossRoots(Methods.codeSearch, params, token, this.openRoots, (one, cancel) => this.search.codeSearch(one, cancel)),
      [Methods.exportIndex]: (params, token) => this.search.exportIndex(params, token),
      [Methods.teamPush]: (params, token) => this.team.push(params, token),
      [Methods.teamStatus]: (params, token) => this.team.status(params, token),
      [Methods.teamJoin]: (params, token) => this.team.join(params, token),
      [Methods.modelUse]: (params, token) => this.modelUse(params, token),
      [Methods.trust]: (params) => this.trust(params),
      [Methods.modelPull]: (params) => this.modelPull(params),
      [Methods.debugLaunch]: (params, token) => this.debug.launch(params, token),
      [Methods.debugState]: (params) => this.debug.state(params),
      [Methods.debugEvaluate]: (params) => this.debug.evaluate(params),
      [Methods.debugContinue]: (params) => this.debug.move(params),
      [Methods.debugStep]: (params) => this.debug.move(params),
      [Methods.debugSetBreakpoints]: (params) => this.debug.setBreakpoints(params),
      [Methods.debugTerminate]: (params) => this.debug.terminate(params),
      [Methods.chunks]: (params, token) => this.chunks(params, token),
      [Methods.symbols]: (params, token) => acrossRoots(Methods.symbols, params, token, this.openRoots, (one, cancel) => this.symbols(one, cancel)),
      [Methods.outline]: (params, token) => this.outline(params, token),
      [Methods.structuralSearch]: (params, token) => this.structuralSearch(params, token),
      [Methods.structuralRewrite]: (params, token) => this.structuralRewrite(params, token),
      [Methods.applyRewrite]: (params) => this.applyRewrite(params),
      [Methods.discardRewrite]: (params) => this.discardRewrite(params),
      [Methods.editFile]: (params) => this.editFile(params, false),
      [Methods.writeFile]: (params) => this.editFile(params, true),
      [Methods.newDiagnostics]: (params) => this.newDiagnostics(params),
      [Methods.definition]: (params, token) => this.graph.definition(params, token),
      [Methods.references]: (params, token) => this.graph.references(params, token),
      [Methods.callers]: (params, token) => this.graph.callers(params, token),
      [Methods.callees]: (params, token) => this.graph.callees(params, token),
      [Methods.impact]: (params, token) => this.graph.impact(params, token),
      'textDocument/definition': (params, token) => this.graph.lspDefinition(params, token),
      'textDocument/references': (params, token) => this.graph.lspReferences(params, token),
      'workspace/symbol': (params, token) => this.workspaceSymbol(params, token),
      'textDocument/documentSymbol': (params, token) => this.documentSymbol(params, token),
      [Methods.stop]: () => {
        setTimeout(() => this.services.requestStop(), 20);
        return null;
      },
    };
    connection.onRequest((method, params, token) => this.handle(method, params, token));
    connection.onNotification((method, params) => this.notify(method, params));
  }

  /**
   * Answers one request (registered for every method; server.ts also forwards requests held while
   * the session loaded): its params parsed with the method's schema, then its handler.
   */
  async handle(method: string, raw: unknown, token: CancellationToken): Promise<unknown> {
    if (!isRequestMethod(method)) return new ResponseError(ErrorCodes.MethodNotFound, `unknown method: ${method}`);
    if (this.shutdownRequested && method !== 'shutdown')
      return new ResponseError(ErrorCodes.InvalidRequest, `${method}: the client asked for shutdown; only exit is accepted now`);
    if (this.services.stopping) return new ResponseError(ErrorCodes.ShuttingDown, 'the daemon is stopping');
    // Background slices on this thread step aside while it is answered (base/foreground.ts).
    const ended = beginForeground();
    try {
      const handler = this.requests[method] as (params: unknown, token: CancellationToken) => unknown;
      return await handler(parseParams(method, requestSchema(method), raw), token);
    } catch (error) {
      return toResponseError(method, error);
    } finally {
      ended();
    }
  }

  /** Takes one notification (as handle does requests); one that fails is logged, having no answer. */
  notify(method: string, raw: unknown): void {
    // initialized, $/setTrace, textDocument/didSave and the like need nothing from us.
    if (!isNotificationMethod(method)) return;
    try {
      this.notifications[method](parseParams(method, notificationSchema(method), raw) as never);
    } catch (error) {
      log.warn(`notification ${method} ignored: ${errorMessage(error)}`);
    }
  }

  /** Each notification's handler, by method, given its params as the method's schema parsed them. */
  private readonly notifications: { [M in NotificationMethod]: (params: NotificationParamsOf<M>) => void } = {
    exit: () => this.onExit(this.shutdownRequested ? 0 : 1),
    'textDocument/didOpen': ({ textDocument: document }) => {
      const path = this.bufferPath(document.uri);
      // A second didOpen from the same client replaces its buffer; it still holds it once.
      if (this.openBuffers.has(path)) this.services.overlay.close(path);
      this.services.overlay.open({ path, languageId: document.languageId ?? '', version: document.version, text: document.text });
      this.openBuffers.add(path);
    },
    'textDocument/didChange': ({ textDocument: document, contentChanges }) =>
      this.services.overlay.change(this.bufferPath(document.uri), document.version, contentChanges),
    'textDocument/didClose': ({ textDocument: document }) => {
      const path = this.bufferPath(document.uri);
      if (this.openBuffers.delete(path)) this.services.overlay.close(path);
    },
    'workspace/didChangeWorkspaceFolders': ({ event }) => {
      for (const folder of event.added) this.openFolder(folder);
    },
  };

  private bufferPath(uri: string): string {
    if (!uri.startsWith('file://')) throw new FathomError('invalidParams', `only file:// URIs can be opened, got ${uri}`);
    return pathFromUriOrPath(uri);
  }

  /** The client went away: its unsaved buffers, its diagnostics ledger and its debug session go with it. */
  dispose(): void {
    for (const path of this.openBuffers) this.services.overlay.close(path);
    this.openBuffers.clear();
    this.services.workspaces.ledger.forget(this.ledgerKey);
    void this.services.workspaces.debug.release(this.ledgerKey);
  }

  /** The debugger requests; a session without a `conversation` belongs to this connection. */
  private get debug(): DebugRequests {
    this.debugRequests ??= new DebugRequests({ sessions: this.services.workspaces.debug, connectionOwner: this.ledgerKey });
    return this.debugRequests;
  }

  private debugRequests: DebugRequests | undefined;

  /** Opens a workspace folder a client named (one it named oddly, undefined, is skipped). */
  private openFolder(folder: string | { uri: string } | undefined): void {
    const uri = typeof folder === 'string' ? folder : folder?.uri;
    if (uri === undefined) return;
    try {
      this.services.workspaces.open(this.services.workspaces.resolveRoot(uri));
    } catch (error) {
      log.warn(`cannot open workspace folder ${uri}: ${errorMessage(error)}`);
    }
  }

  /** The roots of the open folder workspaces (a question with allWorkspaces asks each). */
  private readonly openRoots = (): string[] => this.services.workspaces.folderRoots();

  private initialize(params: ParamsOf<'initialize'>): unknown {
    const folders = params.workspaceFolders;
    if (folders !== undefined && folders.length > 0) for (const folder of folders) this.openFolder(folder);
    else if (params.rootUri !== undefined) this.openFolder(params.rootUri);
    else if (params.rootPath !== undefined) this.openFolder(params.rootPath);
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: 2 },
        workspaceSymbolProvider: true,
        documentSymbolProvider: true,
        definitionProvider: true,
        referencesProvider: true,
        workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
        experimental: { fathom: { version: this.services.version, methods: Object.values(Methods) } },
      },
      serverInfo: { name: 'fathom', version: this.services.version },
    };
  }

  /** The workspace of a request's `root` (its schema requires one, or across-roots.ts gave one), opened. */
  private workspaceFor(params: { root: string }): Workspace {
    const workspaces = this.services.workspaces;
    return workspaces.open(workspaces.resolveRoot(params.root));
  }

  /** Waits for a workspace's first build; cancels the build if every waiter gave up on it. */
  private async ready(workspace: Workspace, token: CancellationToken, progressToken: ProgressToken | undefined): Promise<void> {
    const progress =
      progressToken === undefined || workspace.state === 'ready' ? undefined : this.progress(progressToken, `Indexing ${workspace.root}`, workspace);
    try {
      await workspace.whenReady(token);
    } catch (error) {
      if (error instanceof FathomError && error.kind === 'cancelled' && workspace.waiterCount === 0 && workspace.state === 'scanning') {
        await this.services.workspaces.discard(workspace);
      }
      throw error;
    } finally {
      progress?.end(workspace.state === 'ready' ? `${workspace.status().files} files` : undefined);
    }
  }

  private progress(token: ProgressToken, title: string, workspace: Workspace): { end(message?: string): void; stopFollowing(): void } {
    const send = (value: ProgressValue): void => this.sendProgress(token, value);
    send({ kind: 'begin', title, cancellable: true, percentage: 0 });
    let last = 0;
    const subscription = workspace.onProgress((report) => {
      const now = performance.now();
      if (now - last < 100) return;
      last = now;
      send({ kind: 'report', message: report.message, ...(report.percentage === undefined ? {} : { percentage: report.percentage }) });
    });
    return {
      end: (message) => {
        subscription.dispose();
        send({ kind: 'end', ...(message ? { message } : {}) });
      },
      stopFollowing: () => subscription.dispose(),
    };
  }

  private sendProgress(token: ProgressToken, value: ProgressValue): void {
    // A closed client gets no progress: vscode-jsonrpc throws at once on a disposed connection
    // (not a rejected promise), and the work it reports on must not fail for that.
    try {
      void this.connection.sendNotification('$/progress', { token, value }).catch(() => undefined);
    } catch {
      // disposed: nobody to tell
    }
  }

  private async status(params: ParamsOf<'fathom/status'>): Promise<StatusResult> {
    const rootParam = params.root;
    const workspaces = this.services.workspaces;
    let statuses: WorkspaceStatus[];
    if (rootParam === undefined) {
      statuses = workspaces.all().map((workspace) => this.fullStatus(workspace));
    } else {
      const root = workspaces.resolveRoot(rootParam);
      const workspace = workspaces.get(root);
      statuses = [workspace ? this.fullStatus(workspace) : absentStatus(root, workspaces.cacheRoot)];
    }
    return { daemon: this.services.daemonInfo(), workspaces: statuses, debug: { sessions: this.services.workspaces.debug.list(), adapters: adapterStates() } };
  }

  private fullStatus(workspace: Workspace): WorkspaceStatus {
    const workspaces = this.services.workspaces;
    const engine = workspaces.engine(workspace);
    const states = engine.states();
    const indexes = { regex: states.regex, graph: states.graph, ranking: states.ranking, semantic: states.semantic, trees: states.trees };
    return {
      ...toWireStatus(workspace.status(), indexes, engine.facts()),
      syntaxPass: toWireSyntaxPass(engine.syntax),
      search: workspaces.searchStatus(workspace),
      languageServers: workspaces.languageServerStates(workspace),
    };
  }

  /**
   * fathom/index: the file set (built, or reconciled against the disk when it is), then every index
   * the engine has, with one `$/progress` across the phases; each index is on disk when it answers.
   */
  private async index(params: ParamsOf<'fathom/index'>, token: CancellationToken): Promise<WorkspaceStatus> {
    const wait = params.wait ?? true;
    const progressToken = params.workDoneToken;
    const workspace = this.workspaceFor(params);
    if (!wait) return toWireStatus(workspace.status());
    const engine = this.services.workspaces.engine(workspace);
    const progress = progressToken === undefined ? undefined : this.progress(progressToken, `Indexing ${workspace.root}`, workspace);
    let ended = false;
    try {
      if (workspace.state === 'ready') {
        // Already built: refresh, i.e. reconcile against the disk now, unless a scan just did (a
        // join built the file set seconds ago: on the kernel a reconcile is seconds of this thread).
        await workspace.settle();
        if (!workspace.scannedWithin(freshScanMs)) await workspace.reconcile();
        engine.recheck();
      } else {
        await this.ready(workspace, token, undefined);
      }
      await workspace.settle();
      // The file set is a fifth of the bar; the engine's phases share the rest.
      progress?.stopFollowing();
      let last = 0;
      await engine.build(token, (report) => {
        if (!progressToken || (!report.boundary && performance.now() - last < 100)) return;
        last = performance.now();
        this.sendProgress(progressToken, { kind: 'report', message: report.message, percentage: 20 + Math.floor((report.percentage * 80) / 100) });
      });
      progress?.end(`${workspace.status().files} files, every index ready`);
      ended = true;
    } finally {
      if (!ended) progress?.end();
    }
    return this.fullStatus(workspace);
  }

  /** fathom/trust: trusts a folder, stops trusting it, or says whether it is trusted. */
  private trust(params: ParamsOf<'fathom/trust'>): TrustResult {
    const folder = this.services.workspaces.resolveRoot(params.path, 'path');
    const trusted = params.trusted;
    const store = this.services.workspaces.trust;
    const folders = trusted === undefined ? store.folders() : store.set(folder, trusted);
    return { path: folder, trusted: store.isTrusted(folder), folders, trustsAll: store.trustsAll };
  }

  private async modelUse(params: ParamsOf<'fathom/modelUse'>, token: CancellationToken): Promise<ModelUseResult> {
    const workspace = this.workspaceFor(params);
    await this.ready(workspace, token, undefined);
    const { model } = params;
    const used = await this.services.workspaces.models.use(workspace, model !== null && model.startsWith('file://') ? pathFromUriOrPath(model) : model);
    return { root: workspace.root, model: used };
  }

  private async modelPull({ id }: ParamsOf<'fathom/modelPull'>): Promise<ModelPullResult> {
    return { id, dir: await this.services.workspaces.models.pull(id) };
  }

  private async files(params: ParamsOf<'fathom/files'>, token: CancellationToken): Promise<FilesResult> {
    const globs = params.glob ?? [];
    const limit = params.limit;
    // A glob past the limits is answered before any index is built.
    checkGlobs(globs);
    const workspace = this.workspaceFor(params);
    await this.ready(workspace, token, params.workDoneToken);
    await workspace.settle();
    const files = workspace.files(globs);
    const shown = limit === undefined ? files : files.slice(0, limit);
    return { root: workspace.root, total: files.length, truncated: shown.length < files.length, files: shown };
  }

  private async grep(params: ParamsOf<'fathom/grep'> & { root: string }, token: CancellationToken): Promise<GrepResult> {
    const request = {
      pattern: params.pattern,
      fixedStrings: params.fixedStrings,
      ignoreCase: params.ignoreCase,
      wordRegexp: params.wordRegexp,
      multiline: params.multiline,
      globs: params.glob,
      maxResults: params.maxResults,
      languages: params.languages,
      ...contextParams(params),
      after: params.after,
      paged: params.paged,
    };
    const workspace = this.workspaceFor(params);
    const paths = pathsWithin(workspace.root, params.paths ?? []);
    const index = await this.readyLexical(workspace, token, params.workDoneToken);
    return toWireGrep(workspace.root, await index.search({ ...request, ...(paths.length > 0 ? { paths } : {}) }, token));
  }

  /** A workspace's regex index, built before it answers: the first query says how far it is. */
  private async readyLexical(workspace: Workspace, token: CancellationToken, progressToken: ProgressToken | undefined) {
    // Made now: its saved tables are read off this thread while the file set is checked.
    void this.services.workspaces.engine(workspace).regex;
    await this.ready(workspace, token, progressToken);
    await workspace.settle();
    return this.readyIndex(workspace, 'regex', `Indexing ${workspace.root} for regex search`, progressToken, token);
  }

  /**
   * A workspace's chunk ranking, built (chunking every file the first time) and settled; past
   * `waitMs` of a build, as it is, with how far the build is.
   */
  private async readyRanking(workspace: Workspace, token: CancellationToken, progressToken: ProgressToken | undefined, waitMs = Number.POSITIVE_INFINITY) {
    await this.ready(workspace, token, progressToken);
    await workspace.settle();
    const ready = await this.readyIndexWithin(workspace, 'ranking', `Chunking ${workspace.root} for code search`, progressToken, token, waitMs);
    if (!ready.building) await ready.index.settle();
    return ready;
  }

  /** fathom/codeSearch, sharing this session's readiness helpers. */
  private readonly search = new SearchRequests({
    workspaceFor: (params) => this.workspaceFor(params),
    readyLexical: (workspace, token, progressToken) => this.readyLexical(workspace, token, progressToken),
    readySymbols: (workspace, token, progressToken, waitMs) => this.readySymbolsWithin(workspace, token, progressToken, waitMs),
    readyRanking: (workspace, token, progressToken, waitMs) => this.readyRanking(workspace, token, progressToken, waitMs),
    resultsDir: () => this.services.workspaces.resultsDir,
    configDir: () => this.services.workspaces.configDir,
    semantic: (workspace) => this.services.workspaces.engine(workspace).semantic,
    semanticOffReason: (workspace) => this.services.workspaces.engine(workspace).semanticOffReason(),
    readySemantic: async (workspace, progressToken, token, waitMs) =>
      (await this.readyIndexWithin(workspace, 'semantic', `Embedding ${workspace.root} for semantic search`, progressToken, token, waitMs)).building,
  });

  /** fathom/teamPush and fathom/teamStatus. */
  private readonly team = new TeamRequests({
    workspaceFor: (params) => this.workspaceFor(params),
    engine: (workspace) => this.services.workspaces.engine(workspace),
    ready: (workspace, token, progressToken) => this.ready(workspace, token, progressToken),
    sendProgress: (token, value) => this.sendProgress(token, value),
  });

  /** The request shared by structural search and rewrite (the rule is checked by the engine). */
  private structuralRequest(method: string, params: ParamsOf<'fathom/structuralSearch'>, workspace: Workspace): StructuralRequest {
    const { language, pattern, constraints, maxResults, after } = params;
    const rule = params.rule ?? {};
    if (pattern === undefined && params.rule === undefined) throw new FathomError('invalidParams', `${method}: give a pattern or a rule`, { field: 'pattern' });
    if (pattern !== undefined && rule.pattern !== undefined)
      throw new FathomError('invalidParams', `${method}: give the pattern once (params.pattern or params.rule.pattern)`, { field: 'rule.pattern' });
    if (after !== undefined && method !== Methods.structuralSearch)
      throw new FathomError('invalidParams', `${method}: a rewrite takes every match (no after)`, { field: 'after' });
    const globs = params.glob;
    const byGlob = globs && globs.length > 0 ? globFilter(globs) : () => true;
    const inPaths = pathsFilter(pathsWithin(workspace.root, params.paths ?? []));
    return {
      language,
      rule: { ...rule, ...(pattern === undefined ? {} : { pattern }) },
      ...(constraints ? { constraints } : {}),
      accepts: (file: string) => byGlob(file) && inPaths(file),
      ...(maxResults === undefined ? {} : { maxResults }),
      ...(after === undefined ? {} : { after }),
      ...(params.paged ? { paged: true } : {}),
    };
  }

  /**
   * Runs structural work over a workspace once its file set and regex index are ready, with
   * `$/progress` (files done of the candidates) on the client's token.
   */
  private async withCandidates<T>(
    workspace: Workspace,
    progressToken: ProgressToken | undefined,
    token: CancellationToken,
    title: string,
    work: (source: CandidateSource, progress: (done: number, total: number) => void) => Promise<T>,
  ): Promise<T> {
    await this.ready(workspace, token, progressToken);
    await workspace.settle();
    const index = await this.readyIndex(workspace, 'regex', `Indexing ${workspace.root} for regex search`, progressToken, token);
    const send = progressToken === undefined ? undefined : (value: ProgressValue): void => this.sendProgress(progressToken, value);
    send?.({ kind: 'begin', title, cancellable: true, percentage: 0 });
    let last = 0;
    try {
      return await work({ root: workspace.root, candidateFiles: (query, accepts, signal) => index.candidateFiles(query, accepts, signal) }, (done, total) => {
        if (!send || performance.now() - last < 100) return;
        last = performance.now();
        send({ kind: 'report', message: `${done}/${total} files`, percentage: Math.floor((100 * done) / Math.max(1, total)) });
      });
    } finally {
      send?.({ kind: 'end' });
    }
  }

  /**
   * The workspace of a structural search or rewrite: its root; without one, `paths` must name one
   * absolute file, answered by the workspace holding it or on its own (as chunks are).
   */
  private structuralWorkspace(params: ParamsOf<'fathom/structuralSearch'>): Workspace {
    if (params.root !== undefined) return this.workspaceFor({ root: params.root });
    const paths = params.paths ?? [];
    if (paths.length !== 1)
      throw new FathomError(
        'invalidParams',
        'params.root must be given, unless params.paths names one file (searched on its own when no open workspace holds it)',
        { field: 'root' },
      );
    return this.fileIn({ path: paths[0]! }).workspace;
  }

  private async structuralSearch(params: ParamsOf<'fathom/structuralSearch'>, token: CancellationToken): Promise<StructuralSearchResult> {
    const workspace = this.structuralWorkspace(params);
    const request = this.structuralRequest(Methods.structuralSearch, params, workspace);
    const structural = this.services.workspaces.structural;
    // A bad pattern is answered before any index is built.
    await structural.compile(request);
    const result = await this.withCandidates(workspace, params.workDoneToken, token, 'Structural search', (source, progress) =>
      structural.search(source, request, token, progress),
    );
    return toWireStructural(workspace.root, result);
  }

  private async structuralRewrite(params: ParamsOf<'fathom/structuralRewrite'>, token: CancellationToken): Promise<StructuralRewriteResult> {
    const workspace = this.structuralWorkspace(params);
    const request = { ...this.structuralRequest(Methods.structuralRewrite, params, workspace), rewrite: params.rewrite };
    const workspaces = this.services.workspaces;
    await workspaces.structural.compile(request);
    const plan = await this.withCandidates(workspace, params.workDoneToken, token, 'Staging a structural rewrite', (source, progress) =>
      planRewrite(workspaces.structural, workspaces.rewritePlans, source, request, token, progress),
    );
    return toWireRewritePlan(workspace.root, plan);
  }

  private applyRewrite({ token: planToken }: ParamsOf<'fathom/applyRewrite'>): ApplyRewriteResult {
    const plans = this.services.workspaces.rewritePlans;
    const root = plans.rootOf(planToken);
    const { written } = plans.apply(planToken, (relative) => this.hasUnsavedChanges(`${root}/${relative}`));
    return { root: root!, written };
  }

  private discardRewrite({ token }: ParamsOf<'fathom/discardRewrite'>): DiscardRewriteResult {
    return { discarded: this.services.workspaces.rewritePlans.discard(token) };
  }

  /**
   * Files that may import this one (for diagnostics an edit causes elsewhere), of the same
   * server's languages, at most 16: from the code graph when it is built (imports resolved to
   * files), else the files whose text names the module, found through the regex index.
   */
  private async dependentsOf(workspace: Workspace, relative: string, spec: ServerSpec): Promise<string[]> {
    // The code graph, when it is built, knows the importers exactly (imports resolved to files);
    // an edit does not start a build of it.
    const engine = this.services.workspaces.engine(workspace);
    const graph = engine.graph;
    if (graph.state === 'ready') {
      await graph.settle();
      const languages = new Set(Object.keys(spec.languages));
      const importers = await engine.graphQueries.importersOf(relative);
      return importers
        .filter((file) => languages.has(this.services.workspaces.languageOf(file) ?? ''))
        .slice(0, 16)
        .map((file) => `${workspace.root}/${file}`);
    }
    const base = relative.slice(relative.lastIndexOf('/') + 1).replace(/\.[^.]+$/, '');
    if (!/^[\w.-]+$/.test(base) || base === 'index' || base === '__init__') return [];
    const name = base.replace(/[.]/g, '\\.');
    const pattern = spec.id === 'pyright' ? `\\b(import|from)\\s+[\\w.]*\\b${name}\\b` : `['"][^'"]*\\b${name}(\\.[cm]?[jt]sx?)?['"]`;
    // An edit waits at most 2 s for a first index build (a small workspace); past that it goes on
    // without dependents, and the build finishes for the next edit.
    if (workspace.state !== 'ready') return [];
    const index = engine.regex;
    if (index.state !== 'ready') {
      const built = engine.ready('regex').catch(() => undefined);
      await Promise.race([built, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
      if ((index.state as string) !== 'ready') return [];
    }
    const result = await index.search({ pattern, languages: Object.keys(spec.languages), maxResults: 200 });
    return [...new Set(result.matches.map((match) => match.path))]
      .filter((file) => file !== relative)
      .slice(0, 16)
      .map((file) => `${workspace.root}/${file}`);
  }

  private toWireEdit(workspace: Workspace, relative: string, answer: EditAnswer): EditFileResult {
    const rel = (absolute: string): string => toRelative(workspace.root, absolute) ?? absolute;
    return {
      root: workspace.root,
      path: relative,
      applied: answer.applied,
      version: answer.version,
      status: answer.status,
      ...(answer.reason ? { reason: answer.reason } : {}),
      ...(answer.server ? { server: answer.server } : {}),
      ...(answer.crash ? { crash: answer.crash } : {}),
      ...(answer.notice ? { notice: answer.notice } : {}),
      newDiagnostics: answer.newDiagnostics.map((entry) => ({ path: rel(entry.path), diagnostics: entry.diagnostics })),
    };
  }

  /**
   * Whether an editor holds the file open with text other than the disk's (a file not yet on disk
   * counts as empty; a byte-order mark is no change): a rewrite never writes over such changes.
   */
  private hasUnsavedChanges(absolute: string): boolean {
    const buffer = this.services.overlay.get(absolute);
    return buffer !== undefined && differsFromDisk(buffer.text, absolute);
  }

  /** fathom/editFile and fathom/writeFile (which may create the file): apply, then the new diagnostics. */
  private async editFile(params: ParamsOf<'fathom/writeFile'>, create: boolean): Promise<EditFileResult> {
    const method = create ? Methods.writeFile : Methods.editFile;
    // A write lands in a workspace the client named (root) or holds open; a file no workspace holds
    // is written only when the client says so (`loose`: `fathom edit` of a file outside any
    // repository), never because a path was sent alone.
    const { workspace, relative, absolute } = this.fileIn(params, { mayCreate: create, write: params.loose === true ? 'loose' : 'inWorkspace' });
    const { edits, expectedVersion, conversation } = params;
    // writeFile's content is `text` (or `newText`); editFile's `text`, not in its schema, is never read.
    const newText = params.newText ?? (create ? params.text : undefined);
    if (create && edits) throw new FathomError('invalidParams', `${method} takes text (the whole content), not edits`, { field: 'edits' });
    if (!create && (newText === undefined) === (edits === undefined))
      throw new FathomError('invalidParams', `${method}: give either edits or newText`, { field: 'edits' });
    const language = this.services.workspaces.languageOf(relative);
    const edited = this.services.workspaces.diagnostics.edit(
      {
        workspaceRoot: workspace.root,
        absolutePath: absolute,
        language,
        ...(newText === undefined ? {} : { newText }),
        ...(edits ? { edits } : {}),
        ...(expectedVersion === undefined ? {} : { expectedVersion }),
        ledgerKey: conversation === undefined ? this.ledgerKey : `conversation:${conversation}`,
        trusted: this.services.workspaces.trust.isTrusted(workspace.root),
        includeHints: params.includeHints ?? false,
        dependents: (spec) => this.dependentsOf(workspace, relative, spec),
        languageOf: (file) => this.services.workspaces.languageOf(toRelative(workspace.root, file) ?? file),
        // An editor holding unsaved changes refuses the edit (the buffer and the file would each lack the other's changes).
        editorText: () => this.services.overlay.get(absolute)?.text,
      },
      create,
    );
    const answer = await edited.catch((error: unknown) => {
      if (error instanceof FathomError && error.kind === 'conflict')
        throw new FathomError('conflict', error.message.replace(absolute, relative), { path: relative, reason: 'unsaved' });
      throw error;
    });
    return this.toWireEdit(workspace, relative, answer);
  }

  /** The diagnostics of a file (as on disk) that this ledger has not reported: for edits made elsewhere. */
  private async newDiagnostics(params: ParamsOf<'fathom/newDiagnostics'>): Promise<EditFileResult> {
    const { workspace, relative, absolute } = this.fileIn(params);
    const conversation = params.conversation;
    const answer = await this.services.workspaces.diagnostics.check({
      workspaceRoot: workspace.root,
      absolutePath: absolute,
      language: this.services.workspaces.languageOf(relative),
      ledgerKey: conversation === undefined ? this.ledgerKey : `conversation:${conversation}`,
      trusted: this.services.workspaces.trust.isTrusted(workspace.root),
      includeHints: params.includeHints ?? false,
    });
    return this.toWireEdit(workspace, relative, answer);
  }

  private async chunks(params: ParamsOf<'fathom/chunks'>, token: CancellationToken): Promise<ChunksResult> {
    const budgetBytes = params.budgetBytes;
    const includeText = params.includeText ?? true;
    const workspaces = this.services.workspaces;
    const { workspace, relative } = this.fileIn(params);
    await this.ready(workspace, token, params.workDoneToken);
    await workspace.settle();
    const answer = await workspaces.chunksOf(workspace, relative, budgetBytes === undefined ? {} : { budgetBytes });
    return toWireChunks(workspace.root, answer, { includeText });
  }

  /**
   * One index of a workspace's engine, made ready before it answers: when it must build, `done/total
   * files` goes as `$/progress` on the client's token (when it gave one).
   */
  private async readyIndex<Name extends 'regex' | 'graph' | 'ranking' | 'semantic'>(
    workspace: Workspace,
    name: Name,
    title: string,
    progressToken: ProgressToken | undefined,
    token: CancellationToken,
  ): Promise<ReadyIndex[Name]> {
    return (await this.readyIndexWithin(workspace, name, title, progressToken, token, Number.POSITIVE_INFINITY)).index;
  }

  /**
   * `readyIndex`, waiting at most `waitMs` for a build: past it, the index as it is now, with how
   * far its build is (`building`); the build goes on (a question never waits minutes unsaid).
   */
  private async readyIndexWithin<Name extends 'regex' | 'graph' | 'ranking' | 'semantic'>(
    workspace: Workspace,
    name: Name,
    title: string,
    progressToken: ProgressToken | undefined,
    token: CancellationToken,
    waitMs: number,
  ): Promise<{ index: ReadyIndex[Name]; building?: IndexBuilding }> {
    const engine = this.services.workspaces.engine(workspace);
    const indexOf = (): ReadyIndex[Name] =>
      (name === 'regex' ? engine.regex : name === 'graph' ? engine.graph : name === 'ranking' ? engine.ranking : engine.semantic?.index) as ReadyIndex[Name];
    const index = indexOf();
    if (index === undefined || index.state === 'ready') return { index };
    const send = progressToken === undefined ? undefined : (value: ProgressValue): void => this.sendProgress(progressToken, value);
    send?.({ kind: 'begin', title, cancellable: true, percentage: 0 });
    let last = 0;
    let answered = false;
    const seen = { done: 0, total: 0 };
    try {
      const build = engine.ready(name, token, (done, total, message) => {
        seen.done = done;
        seen.total = total;
        if (answered || !send || performance.now() - last < 100) return;
        last = performance.now();
        send({ kind: 'report', message, percentage: Math.floor((100 * done) / Math.max(1, total)) });
      });
      if (Number.isFinite(waitMs) && name !== 'regex') {
        // Settled either way, so that a build failing after the answer is logged, not unhandled.
        const settled = build.then(
          () => ({ failed: false as const }),
          (error: unknown) => ({ failed: true as const, error }),
        );
        let timer: NodeJS.Timeout | undefined;
        const within = (ms: number) =>
          Promise.race([settled, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]).finally(() => clearTimeout(timer));
        const started = performance.now();
        const doneAtStart = seen.done;
        let first = await within(Math.min(paceStepMs, waitMs));
        // Waited for in steps: a build whose pace cannot end it within the wait is answered at once, as it is.
        for (let elapsed = performance.now() - started; first === undefined && elapsed < waitMs; elapsed = performance.now() - started) {
          if (!engine.loading(name) && buildCannotFinish(seen, doneAtStart, elapsed, waitMs, workspace.fileCount)) break;
          first = await within(Math.min(paceStepMs, waitMs - elapsed));
        }
        // An index read back from disk (a restart) is seconds from whole, not minutes: the
        // question waits for it (its progress on the token) rather than answering from part of it.
        while (first === undefined && engine.loading(name) && performance.now() - started < loadWaitMs) first = await within(250);
        if (first === undefined) {
          void settled.then((outcome) => outcome.failed && log.warn(`${workspace.root}: ${name} build: ${errorMessage(outcome.error)}`));
          return {
            index: indexOf(),
            building: { index: name as IndexBuilding['index'], done: seen.done, total: seen.total, ...(engine.loading(name) ? { loading: true } : {}) },
          };
        }
        if (first.failed) throw first.error;
      } else await build;
    } finally {
      answered = true;
      send?.({ kind: 'end' });
    }
    return { index: indexOf() };
  }

  /** The code-graph requests, sharing this session's path and readiness helpers. */
  private readonly graph = new GraphRequests({
    workspaceFor: (params) => this.workspaceFor(params),
    fileIn: (params) => this.fileIn(params),
    readyGraph: async (workspace, token, progressToken, path) => {
      const graph = await this.readySymbols(workspace, token, progressToken);
      if (path !== undefined) this.services.workspaces.requireInFileSet(workspace, path);
      const queries = this.services.workspaces.engine(workspace).graphQueries;
      // The first question starts the warm-up of the rest (in slices; later questions are faster).
      void queries.warm().catch(() => undefined);
      return { graph, queries };
    },
  });

  /** A workspace's code graph, built (with $/progress on the token) before it answers. */
  private async readySymbols(workspace: Workspace, token: CancellationToken, progressToken: ProgressToken | undefined) {
    return (await this.readySymbolsWithin(workspace, token, progressToken, Number.POSITIVE_INFINITY)).index;
  }

  /** `readySymbols`, waiting at most `waitMs` for a build (then the graph as it is, with how far its build is). */
  private async readySymbolsWithin(workspace: Workspace, token: CancellationToken, progressToken: ProgressToken | undefined, waitMs: number) {
    // Its saved copy is opened (checked, its index read) while the file set is checked.
    this.services.workspaces.engine(workspace).graph.prefetch();
    await this.ready(workspace, token, progressToken);
    await workspace.settle();
    const ready = await this.readyIndexWithin(workspace, 'graph', `Indexing the code graph of ${workspace.root}`, progressToken, token, waitMs);
    if (!ready.building) await ready.index.settle();
    return ready;
  }

  private async symbols(params: ParamsOf<'fathom/symbols'> & { root: string }, token: CancellationToken): Promise<SymbolsResult> {
    const { query, kinds } = params;
    const globs = params.glob;
    const limit = params.limit ?? 100;
    const accepts = globs && globs.length > 0 ? globFilter(globs) : undefined;
    const waitMs = params.waitMs ?? defaultIndexWaitMs;
    const workspace = this.workspaceFor(params);
    const ready = await this.readySymbolsWithin(workspace, token, params.workDoneToken, waitMs);
    const answer = toWireSymbols(workspace.root, ready.index.search({ query, ...(kinds ? { kinds } : {}), ...(accepts ? { accepts } : {}), limit }));
    return ready.building ? { ...answer, building: [ready.building] } : answer;
  }

  /**
   * Resolves `path` (and optional `root`) to a workspace and a relative path inside it. Without
   * `root`, `path` must be absolute (or a file:// URI): the open workspace holding it answers, else
   * a one-file workspace of just that file (a file outside any repository needs nothing else). The
   * file must exist then, unless the request may create it.
   */
  private fileIn(
    params: { path: string; root?: string | undefined },
    options: { mayCreate?: boolean; write?: 'inWorkspace' | 'loose' } = {},
  ): { workspace: Workspace; relative: string; absolute: string } {
    const { path: pathParam, root: rootParam } = params;
    const workspaces = this.services.workspaces;
    let workspace: Workspace | undefined;
    let absolute: string;
    if (rootParam !== undefined) {
      workspace = workspaces.open(workspaces.resolveRoot(rootParam));
      absolute = realPathForWrite(pathFromUriOrPath(pathParam, workspace.root));
    } else {
      if (!pathParam.startsWith('file:') && !path.isAbsolute(pathParam)) {
        throw new FathomError(
          'invalidParams',
          `params.path must be an absolute path or a file:// URI when params.root is not given (got the relative path ${JSON.stringify(pathParam)})`,
          { field: 'path' },
        );
      }
      absolute = realPathForWrite(pathFromUriOrPath(pathParam));
      workspace = workspaces.containing(absolute);
      // A one-file workspace a read opened (outline, diagnostics of a loose file) is no permission
      // to write there: a write outside every folder workspace needs `loose` each time.
      if (workspace?.onlyFile !== undefined && options.write === 'inWorkspace') workspace = undefined;
      if (!workspace && options.write === 'inWorkspace') {
        throw new FathomError(
          'workspaceNotFound',
          `no open workspace holds ${absolute}: pass root (the workspace to write in), or loose: true to write a file outside any workspace; nothing was written`,
          { path: pathParam },
        );
      }
      workspace ??= this.looseFile(absolute, pathParam, options.mayCreate === true);
    }
    const relative = toRelative(workspace.root, absolute);
    if (relative === undefined || relative === '')
      throw new FathomError('pathOutsideWorkspace', `path ${pathParam} is outside the workspace ${workspace.root}`, { path: pathParam });
    return { workspace, relative, absolute: `${workspace.root}/${relative}` };
  }

  /** The one-file workspace of a file no open workspace holds; it must be a file (or, to be created, absent). */
  private looseFile(absolute: string, pathParam: string, mayCreate: boolean): Workspace {
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(absolute, { throwIfNoEntry: false });
    } catch (error) {
      throw new FathomError('io', `${pathParam}: ${errorMessage(error)}`, { path: pathParam });
    }
    if (stat === undefined && !mayCreate) throw new FathomError('invalidParams', `${pathParam}: no such file`, { path: pathParam });
    if (stat?.isDirectory()) throw new FathomError('invalidParams', `${pathParam} is a folder, not a file`, { path: pathParam });
    return this.services.workspaces.openFile(absolute);
  }

  private async outline(params: ParamsOf<'fathom/outline'>, token: CancellationToken): Promise<OutlineResult> {
    const { workspace, relative } = this.fileIn(params);
    await this.ready(workspace, token, params.workDoneToken);
    await workspace.settle();
    const { tags, source } = await this.services.workspaces.tagsOf(workspace, relative);
    return toWireOutline(workspace.root, tags, source, outlineOf(tags));
  }

  /** LSP workspace/symbol over every open workspace (built on first use). */
  private async workspaceSymbol(params: ParamsOf<'workspace/symbol'>, token: CancellationToken): Promise<unknown[]> {
    const query = params.query ?? '';
    const results: unknown[] = [];
    for (const workspace of this.services.workspaces.all()) {
      const index = await this.readySymbols(workspace, token, params.workDoneToken);
      results.push(...toLspSymbolInformation(workspace.root, index.search({ query, limit: 500 }).matches));
    }
    return results;
  }

  /** LSP textDocument/documentSymbol: the outline as DocumentSymbol[]. */
  private async documentSymbol(params: ParamsOf<'textDocument/documentSymbol'>, token: CancellationToken): Promise<unknown[]> {
    const { workspace, relative } = this.fileIn({ path: params.textDocument.uri });
    await this.ready(workspace, token, undefined);
    await workspace.settle();
    const { tags } = await this.services.workspaces.tagsOf(workspace, relative);
    return toLspDocumentSymbols(outlineOf(tags));
  }

  private async merkle(params: ParamsOf<'fathom/merkle'>, token: CancellationToken) {
    const workspace = this.workspaceFor(params);
    const pathParam = params.path ?? '';
    const relative = pathParam === '' ? '' : toRelative(workspace.root, pathFromUriOrPath(pathParam, workspace.root));
    if (relative === undefined)
      throw new FathomError('pathOutsideWorkspace', `path ${pathParam} is outside the workspace ${workspace.root}`, { path: pathParam });
    await this.ready(workspace, token, params.workDoneToken);
    await workspace.settle();
    return toWireMerkle(workspace.root, workspace.rootHash(), workspace.merkleAt(relative));
  }
}
