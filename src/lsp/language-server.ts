// One running language server for one project root: spawned, initialized (rootUri, workspace
// folders, the client capabilities Fathom uses), kept in sync with the documents Fathom shows it
// (full-text didOpen/didChange/didSave), and asked for a document's diagnostics at a version: by
// pull (`textDocument/diagnostic`) when the server offers it; by asking typescript-language-server's
// tsserver directly (its synchronous diagnostics commands, for the text just synced) when the spec
// says so; else by waiting for its push (`textDocument/publishDiagnostics` for that version: the
// answer at once; or, when the server sends no version, the publishes after the change and a
// settle window, since such a server may publish in several bursts).
// "No answer in time" is reported as `timeout`, never as a clean list. Owns the process.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { log } from '../base/logger.js';
import { ConnectionClosed, LspConnection, RequestTimedOut, ResponseFailed } from './lsp-connection.js';
import type { ServerSpec } from './registry.js';

export interface LspDiagnostic {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  severity?: number;
  code?: number | string;
  source?: string;
  message: string;
}

export type DiagnosticsStatus = 'ok' | 'timeout' | 'server-crashed';

export interface DiagnosticsAnswer {
  status: DiagnosticsStatus;
  diagnostics: LspDiagnostic[];
}

export interface Published {
  version: number | undefined;
  diagnostics: LspDiagnostic[];
  /** Order of arrival (a counter). */
  sequence: number;
}

export type ServerState = 'starting' | 'running' | 'exited';

/** How diagnostics are asked for: see the module comment. */
export type DiagnosticsMode = 'pull' | 'tsserver' | 'push';

/** A tsserver diagnostic (1-based line and UTF-16 offset). */
interface TsserverDiagnostic {
  start: { line: number; offset: number };
  end: { line: number; offset: number };
  text: string;
  code?: number;
  category?: string;
  source?: string;
}

/** The tsserver commands whose answers make up what typescript-language-server publishes, in its order. */
const tsserverCommands = ['syntacticDiagnosticsSync', 'semanticDiagnosticsSync', 'suggestionDiagnosticsSync'];

/** As typescript-language-server converts them for its publishes (so both ways give the same ledger keys). */
function fromTsserver(diagnostic: TsserverDiagnostic): LspDiagnostic {
  const severity = diagnostic.category === 'warning' ? 2 : diagnostic.category === 'suggestion' ? 4 : 1;
  return {
    range: {
      start: { line: diagnostic.start.line - 1, character: diagnostic.start.offset - 1 },
      end: { line: diagnostic.end.line - 1, character: diagnostic.end.offset - 1 },
    },
    message: diagnostic.text,
    severity,
    ...(diagnostic.code === undefined ? {} : { code: diagnostic.code }),
    source: diagnostic.source || 'typescript',
  };
}

export interface ServerTimings {
  /** After the first diagnostics for a version, wait this long for more (servers publish in bursts). */
  settleMs: number;
  /** Give up on diagnostics after this long. */
  diagnosticsTimeoutMs: number;
  initializeTimeoutMs: number;
}

export const defaultTimings: ServerTimings = { settleMs: 300, diagnosticsTimeoutMs: 20_000, initializeTimeoutMs: 30_000 };

export class LanguageServer {
  state: ServerState = 'starting';
  readonly startedAt = Date.now();
  lastUsed = Date.now();
  /** Why the process ended, when it did. */
  exit: string | undefined;
  private child: ChildProcess | undefined;
  private connection: LspConnection | undefined;
  private mode: DiagnosticsMode = 'push';
  /** Documents shown to the server; `syncedAt`: the publish sequence when their text last changed. */
  private readonly documents = new Map<string, { version: number; text: string; languageId: string; syncedAt: number; skipPublish?: boolean }>();
  private readonly published = new Map<string, Published>();
  private sequence = 0;
  /** Whether the server puts document versions on its publishes (learned from them). */
  private sendsVersions = false;
  private readonly waiters = new Set<() => void>();
  private readonly exitListeners = new Set<(reason: string) => void>();
  readonly ready: Promise<void>;

  constructor(
    readonly spec: ServerSpec,
    readonly projectRoot: string,
    readonly command: string,
    private readonly timings: ServerTimings = defaultTimings,
  ) {
    this.ready = this.start();
    this.ready.catch(() => undefined);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  onExit(listener: (reason: string) => void): void {
    this.exitListeners.add(listener);
  }

  private async start(): Promise<void> {
    const child = spawn(this.command, this.spec.args, { cwd: this.projectRoot, stdio: ['pipe', 'pipe', 'pipe'], env: process.env });
    this.child = child;
    child.stderr!.on('data', (chunk: Buffer) => log.debug(`${this.spec.name}: ${chunk.toString('utf8').trimEnd().slice(0, 500)}`));
    const exited = new Promise<never>((_, reject) => {
      child.on('error', (error) => this.ended(`could not start: ${error.message}`));
      child.on('exit', (code, signal) => this.ended(signal ? `killed by ${signal}` : `exited with code ${code}`));
      this.onExit((reason) => reject(new Error(`${this.spec.name} ${reason}`)));
    });
    exited.catch(() => undefined);
    this.connection = new LspConnection(
      child.stdout!,
      child.stdin!,
      {
        notification: (method, params) => this.notification(method, params),
        request: (method, params) => this.serverRequest(method, params),
      },
      (line) => log.debug(`${this.spec.name}: ${line}`),
    );
    const rootUri = pathToFileURL(this.projectRoot).href;
    const initialize = this.connection.request<{ capabilities?: { diagnosticProvider?: unknown } }>(
      'initialize',
      {
        processId: process.pid,
        clientInfo: { name: 'fathom' },
        rootUri,
        rootPath: this.projectRoot,
        workspaceFolders: [{ uri: rootUri, name: this.projectRoot.split('/').pop() || this.projectRoot }],
        initializationOptions: this.spec.initializationOptions?.() ?? {},
        capabilities: {
          workspace: { configuration: true, workspaceFolders: true, didChangeConfiguration: { dynamicRegistration: false } },
          textDocument: {
            synchronization: { didSave: true, dynamicRegistration: false },
            publishDiagnostics: { relatedInformation: false, versionSupport: true },
            diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false },
          },
          window: { workDoneProgress: false },
        },
      },
      this.timings.initializeTimeoutMs,
    );
    const result = await Promise.race([initialize, exited]);
    const pulls = result?.capabilities?.diagnosticProvider !== undefined && result.capabilities.diagnosticProvider !== null;
    this.mode = pulls ? 'pull' : this.spec.diagnosticsRequest === 'tsserver' ? 'tsserver' : 'push';
    this.connection.notify('initialized', {});
    if (this.spec.settings) this.connection.notify('workspace/didChangeConfiguration', { settings: this.spec.settings });
    if (this.state === 'starting') this.state = 'running';
  }

  private ended(reason: string): void {
    if (this.state === 'exited') return;
    this.state = 'exited';
    this.exit = reason;
    this.connection?.close();
    for (const listener of this.exitListeners) listener(reason);
    for (const wake of this.waiters) wake();
  }

  private notification(method: string, params: unknown): void {
    if (method !== 'textDocument/publishDiagnostics') return;
    const { uri, version, diagnostics } = params as { uri: string; version?: number; diagnostics: LspDiagnostic[] };
    if (version !== undefined && version !== null) this.sendsVersions = true;
    const document = this.documents.get(uri);
    if (document?.skipPublish && (version === undefined || version === null)) {
      // The (unversioned) publish that answers our didClose of a reopened document: about the old text.
      document.skipPublish = false;
      return;
    }
    this.published.set(uri, { version: version ?? undefined, diagnostics: Array.isArray(diagnostics) ? diagnostics : [], sequence: ++this.sequence });
    for (const wake of this.waiters) wake();
  }

  private serverRequest(method: string, params: unknown): unknown {
    switch (method) {
      case 'workspace/configuration': {
        const items = ((params as { items?: { section?: string }[] })?.items ?? []) as { section?: string }[];
        return items.map((item) => (item.section !== undefined ? (this.spec.settings?.[item.section] ?? {}) : {}));
      }
      case 'client/registerCapability':
      case 'client/unregisterCapability':
      case 'window/workDoneProgress/create':
        return null;
      case 'workspace/workspaceFolders': {
        const uri = pathToFileURL(this.projectRoot).href;
        return [{ uri, name: this.projectRoot }];
      }
      default:
        throw new Error(`unsupported request ${method}`);
    }
  }

  /** Shows the server a document's text; answers the version it now has. */
  sync(uri: string, languageId: string, text: string): number {
    this.lastUsed = Date.now();
    const known = this.documents.get(uri);
    if (known && known.text === text) return known.version;
    const version = (known?.version ?? 0) + 1;
    // A server that publishes without versions may also stay silent when a document's diagnostics
    // stay empty (typescript-language-server does): then nothing would tell Fathom the check is
    // done. Reopening the document makes it publish whatever it finds.
    const silentWhenClean = known !== undefined && this.mode === 'push' && !this.sendsVersions && this.published.get(uri)?.diagnostics.length === 0;
    if (silentWhenClean) this.connection!.notify('textDocument/didClose', { textDocument: { uri } });
    // On a close, typescript-language-server publishes an empty list at once: not an answer.
    this.documents.set(uri, { version, text, languageId, syncedAt: this.sequence, ...(silentWhenClean ? { skipPublish: true } : {}) });
    if (!known || silentWhenClean) this.connection!.notify('textDocument/didOpen', { textDocument: { uri, languageId, version, text } });
    else this.connection!.notify('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] });
    this.connection!.notify('textDocument/didSave', { textDocument: { uri }, text });
    return version;
  }

  /**
   * Closes and reopens a document with the text it has (a new version): a push server then
   * publishes what it finds, also when that is nothing new. Answers the version.
   */
  private reopen(uri: string): number {
    const known = this.documents.get(uri)!;
    const version = known.version + 1;
    this.connection!.notify('textDocument/didClose', { textDocument: { uri } });
    this.documents.set(uri, { ...known, version, syncedAt: this.sequence, skipPublish: true });
    this.connection!.notify('textDocument/didOpen', { textDocument: { uri, languageId: known.languageId, version, text: known.text } });
    return version;
  }

  /** Any other request to the server (references, definition, …), once it runs. */
  async request<T>(method: string, params: unknown, timeoutMs = 30_000): Promise<T> {
    await this.ready;
    this.lastUsed = Date.now();
    if (!this.connection || this.state === 'exited') throw new Error(`${this.spec.id} is not running`);
    return this.connection.request<T>(method, params, timeoutMs);
  }

  /** Forgets a document (didClose). */
  close(uri: string): void {
    if (!this.documents.delete(uri)) return;
    this.connection?.notify('textDocument/didClose', { textDocument: { uri } });
  }

  /** The diagnostics of a document at the version `sync` answered. */
  async diagnostics(uri: string, version: number): Promise<DiagnosticsAnswer> {
    this.lastUsed = Date.now();
    if (this.state === 'exited') return { status: 'server-crashed', diagnostics: [] };
    if (this.mode === 'tsserver' && this.documents.has(uri)) {
      const answer = await this.askTsserver(uri);
      if (answer) return answer;
      // Not answered that way (see askTsserver): its publishes, after a reopen, since in this mode
      // a clean document was not reopened when it changed and may get none.
      if ((this.state as ServerState) === 'exited') return { status: 'server-crashed', diagnostics: [] };
      version = this.reopen(uri);
    }
    if (this.mode === 'pull') {
      try {
        const report = await this.connection!.request<{ kind?: string; items?: LspDiagnostic[] }>(
          'textDocument/diagnostic',
          { textDocument: { uri } },
          this.timings.diagnosticsTimeoutMs,
        );
        return { status: 'ok', diagnostics: report?.items ?? [] };
      } catch (error) {
        if (error instanceof RequestTimedOut) return { status: 'timeout', diagnostics: [] };
        if (error instanceof ConnectionClosed || (this.state as ServerState) === 'exited') return { status: 'server-crashed', diagnostics: [] };
        throw error;
      }
    }
    return this.waitForPush(uri, version, this.documents.get(uri)?.syncedAt ?? -1);
  }

  /**
   * The diagnostics of an open document that did not itself change (an importer of an edited
   * file): pulled when the server offers it; else the next publish after `since` if one comes within
   * `waitMs` (servers re-check open dependents, but stay silent when nothing changed), else the
   * last one published.
   */
  async current(uri: string, since: number, waitMs: number): Promise<DiagnosticsAnswer> {
    if (this.state === 'exited') return { status: 'server-crashed', diagnostics: [] };
    if (this.mode === 'pull' || (this.mode === 'tsserver' && this.documents.has(uri))) return this.diagnostics(uri, this.documents.get(uri)?.version ?? 0);
    const answer = await this.awaitPublish(uri, (entry) => entry.sequence > since, waitMs);
    return answer ?? { status: 'ok', diagnostics: this.published.get(uri)?.diagnostics ?? [] };
  }

  /** How this server is asked for diagnostics (known once it runs). */
  get diagnosticsMode(): DiagnosticsMode {
    return this.mode;
  }

  /**
   * A document's diagnostics straight from typescript-language-server's tsserver, for the text last
   * synced (typescript-language-server passes the change on to tsserver before the request, and
   * tsserver handles requests in order). Undefined when not answered that way: the server does not
   * take the command (another server, an older version: it is then waited for by its publishes from
   * now on), or tsserver failed on this file (this answer only). A tsserver that died under a live
   * typescript-language-server (which then answers `noServer` for ever) ends the process, so that it
   * is restarted and the crash reported.
   */
  private async askTsserver(uri: string): Promise<DiagnosticsAnswer | undefined> {
    const file = fileURLToPath(uri);
    type Response = { type?: string; success?: boolean; body?: unknown; message?: string } | null | undefined;
    let responses: Response[];
    try {
      responses = await Promise.all(
        tsserverCommands.map((command) =>
          this.connection!.request<Response>(
            'workspace/executeCommand',
            { command: 'typescript.tsserverRequest', arguments: [command, { file }] },
            this.timings.diagnosticsTimeoutMs,
          ),
        ),
      );
    } catch (error) {
      if (error instanceof RequestTimedOut) return { status: 'timeout', diagnostics: [] };
      if (error instanceof ConnectionClosed || (this.state as ServerState) === 'exited') return { status: 'server-crashed', diagnostics: [] };
      if (error instanceof ResponseFailed && error.code === -32601) return this.noTsserverRequests(error.message);
      log.warn(`${this.spec.name}: tsserver gave no diagnostics for ${file} (${(error as Error).message}); waiting for its publishes instead`);
      return undefined;
    }
    // An unknown command is answered with nothing by typescript-language-server.
    if (responses.some((response) => response === null || response === undefined)) return this.noTsserverRequests('the command is unknown');
    if (responses.some((response) => response!.type === 'noServer')) {
      log.warn(`${this.spec.name}: its tsserver is gone; restarting it`);
      const gone = new Promise<void>((resolve) => this.onExit(() => resolve()));
      this.kill();
      await Promise.race([gone, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
      return { status: 'server-crashed', diagnostics: [] };
    }
    const failed = responses.find((response) => response!.success === false || !Array.isArray(response!.body));
    if (failed) {
      log.warn(
        `${this.spec.name}: tsserver gave no diagnostics for ${file} (${failed.message ?? 'no diagnostics in its answer'}); waiting for its publishes instead`,
      );
      return undefined;
    }
    // Codes the user's settings hide (as typescript-language-server drops them from its publishes).
    const ignored = new Set((this.spec.settings?.diagnostics as { ignoredCodes?: unknown } | undefined)?.ignoredCodes as number[] | undefined);
    const diagnostics = responses.flatMap((response) =>
      (response!.body as TsserverDiagnostic[]).filter((diagnostic) => !ignored.has(diagnostic.code as number)).map(fromTsserver),
    );
    return { status: 'ok', diagnostics };
  }

  private noTsserverRequests(why: string): undefined {
    log.warn(`${this.spec.name} does not take tsserver requests (${why}); waiting for its publishes instead`);
    this.mode = 'push';
    return undefined;
  }

  /** The latest publish for a document (benchmarks). */
  publishedFor(uri: string): Published | undefined {
    return this.published.get(uri);
  }

  /** Calls `wake` on each publish (and on exit) until the returned function is called (benchmarks). */
  watch(wake: () => void): () => void {
    this.waiters.add(wake);
    return () => this.waiters.delete(wake);
  }

  /** The sequence number of the latest publish: pass it to `diagnostics` to see only later ones. */
  get mark(): number {
    return this.sequence;
  }

  private async waitForPush(uri: string, version: number, since: number): Promise<DiagnosticsAnswer> {
    // A publish that names the version answers for that version; one without counts if it came after the change.
    const fresh = (entry: Published): boolean => (entry.version !== undefined ? entry.version === version : entry.sequence > since);
    return (await this.awaitPublish(uri, fresh, this.timings.diagnosticsTimeoutMs)) ?? { status: 'timeout', diagnostics: [] };
  }

  /**
   * Waits for a publish of `uri` that `fresh` accepts: a versioned one answers at once; an
   * unversioned one may be the first of a burst (typescript-language-server publishes per kind of
   * check), so it answers after the settle window with the latest. Undefined when none came within
   * `waitMs` (a settle window under way runs to its end).
   */
  private awaitPublish(uri: string, fresh: (entry: Published) => boolean, waitMs: number): Promise<DiagnosticsAnswer | undefined> {
    return new Promise((resolve) => {
      let settleTimer: NodeJS.Timeout | undefined;
      let lastSequence = -1;
      const finish = (answer: DiagnosticsAnswer | undefined): void => {
        clearTimeout(deadline);
        clearTimeout(settleTimer);
        this.waiters.delete(check);
        resolve(answer);
      };
      const check = (): void => {
        if (this.state === 'exited') return finish({ status: 'server-crashed', diagnostics: [] });
        const entry = this.published.get(uri);
        if (!entry || !fresh(entry) || entry.sequence === lastSequence) return;
        lastSequence = entry.sequence;
        clearTimeout(settleTimer);
        if (entry.version !== undefined) return finish({ status: 'ok', diagnostics: entry.diagnostics });
        settleTimer = setTimeout(() => finish({ status: 'ok', diagnostics: this.published.get(uri)?.diagnostics ?? entry.diagnostics }), this.timings.settleMs);
      };
      const deadline = setTimeout(() => (lastSequence >= 0 ? undefined : finish(undefined)), waitMs);
      this.waiters.add(check);
      check();
    });
  }

  /** Asks the server to shut down, then ends the process. */
  async stop(): Promise<void> {
    if (this.state === 'exited') return;
    try {
      await this.connection?.request('shutdown', null, 2_000);
      this.connection?.notify('exit', null);
    } catch {
      // It is going away either way.
    }
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          resolve();
        }, 2_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    this.ended('stopped');
  }

  /** Kills the process (tests: a crash). */
  kill(): void {
    this.child?.kill('SIGKILL');
  }
}
