// The `fathom` command. `serve` runs the daemon; every other command is a client of it (over the
// socket, starting a daemon when none runs, or in-process with --no-daemon). Human output by
// default, --json for scripts and agents (shapes in docs/protocol.md), a progress bar on a TTY.
// The thin client path: this file's static imports load no daemon, engine, MCP code or package
// (only connect.ts and the CLI's own JSON-RPC client, base/, the protocol's names); `serve`,
// --no-daemon, `mcp` and `edit --patch` import what they run when they run (test/cli/cli-thin.test.ts,
// test/layers.test.ts).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { makeCacheFolder } from '../base/cache-folder.js';
import { errorMessage } from '../base/errors.js';
import { defaultCacheRoot, defaultSocketPath, readPackageVersion } from '../base/places.js';
import {
  Methods,
  type AcrossRootsResult,
  type CalleesResult,
  type CodeSearchResult,
  type DebugEvaluateResult,
  type DebugStateResult,
  type ExportIndexResult,
  type TeamPushResult,
  type TeamStatusResult,
  type ModelPullResult,
  type ModelUseResult,
  type TrustResult,
  type CallersResult,
  type DefinitionResult,
  type ImpactResult,
  type ReferencesResult,
  type ChunksResult,
  type OutlineResult,
  type SymbolsResult,
  type FilesResult,
  type GrepResult,
  type MerkleResult,
  type ProgressValue,
  type StatusResult,
  type StructuralSearchResult,
  type StructuralRewriteResult,
  type ApplyRewriteResult,
  type EditFileResult,
  type WorkspaceStatus,
} from '../protocol/methods.js';
import { attachStdio, connectToDaemon, type Client } from './connect.js';
import { RpcError, type RpcClient } from './rpc-client.js';
import { describeDebugState, describeWorkspace, diagnosticLine, humanBytes, outlineLines, relatedLine, symbolLine } from './answer-lines.js';
import { buildingNote } from './building-note.js';
import { GrepPrinter } from './grep-output.js';
import { eachPage } from './pages.js';
import { ProgressBar } from './progress-bar.js';
import { labelled, rootLabel, scopeOf, type Scope } from './scope.js';
import { UsageError } from './usage-error.js';
import { implicitRoot, repositoryRoot } from './workspace-root.js';

const usage = `usage: fathom <command> [options]

commands:
  serve [--stdio] [--socket PATH]     run the daemon (default: on the user's socket)
        [--max-file-bytes N] [--reconcile-seconds N]
        [--max-frame-bytes N]         refuse a client's message larger than N bytes (64 MiB)
  attach [--socket PATH]              join stdin/stdout to the user's daemon (started if needed):
                                      an editor's LSP command that shares the one daemon
  index [PATH] [--no-wait]            index or refresh a workspace, waiting with a progress bar
  status [PATH] [--all]               a workspace's file set, skipped files, index states, lag
  files [PATH] [-g GLOB]... [--limit N]   the file set, one path per line
  merkle [PATH] [--path P]            the Merkle root hash, or a path's subtree hashes
  search QUERY [PATH]... [--all] [--mode M] [-g GLOB]... [-t LANG]... [--max N] [-i]
                                      code search: words ranked over whole chunks, an identifier's
                                      definitions then uses, a regex, or code as written (--mode
                                      auto|lexical|regex|literal; semantic|hybrid need a model);
                                      --json: one JSON object per hit
  debug launch PROGRAM [ARGS...] [--break FILE:LINE]... [--stop-on-entry] | debug state [--frames N]
  debug eval EXPR [--frame ID] | debug continue | debug step in|over|out | debug break FILE LINE...
  debug terminate             a debugger session (Python, debugpy) kept by the daemon between
                                      commands: one per workspace (--conversation ID for another)
  model use DIR|ID [PATH] | model off [PATH] | model pull ID
                                      the workspace's embedding model for semantic and hybrid
                                      search (a folder in transformers.js' layout, or a pulled
                                      id); off by default; pull downloads where a network exists
  trust [PATH] | untrust [PATH]       let a workspace run code it ships (its node_modules/.bin
                                      language servers, its TypeScript, build scripts), or stop;
                                      untrusted (the default), only Fathom's own or configured
                                      servers run, and edits say what was declined
  team init [--member-role NAME] [--grant ROLE]...
                                      create or migrate the team store's schema and its member
                                      role (FATHOM_TEAM_URL: the owner's connection)
  team push [PATH] | team status [PATH]
                                      upload what the team store lacks of the workspace's vectors
                                      and records (paths masked under FATHOM_TEAM_KEY, no text), or
                                      say what it holds for the workspace and the nearest snapshot
                                      (FATHOM_TEAM_URL: a libpq connection string, the password
                                      from ~/.pgpass or PGPASSWORD; FATHOM_TEAM_KEY: the key file)
  export [PATH] --out FILE [--key KEYFILE]
                                      the chunk ranking with every path masked and every term
                                      hashed (your own key, or a team's), for a shared store
  grep PATTERN [PATH]... [--all] [-F] [-i] [-w] [-U] [-g GLOB]... [-t LANG]... [-A N] [-B N] [-C N] [--max N]
                                      regex search through the index, ripgrep's output and flags
  chunks FILE [--budget N] [--no-text] the syntax-aware chunks of a file with their context headers
  symbols QUERY [PATH]... [--all] [--kind K]... [-g GLOB]... [--limit N]
                                      workspace symbols by fuzzy name (definitions from tags.scm)
  outline FILE                        a file's definitions as a tree
  def TARGET [PATH]                   where the symbol at TARGET is defined
  refs TARGET [PATH] [--limit N]      every reference to it, with how sure each edge is
  callers TARGET [PATH] [--depth N]   who calls it (transitively to depth N, default 1)
  callees TARGET [PATH] [--depth N]   whom it calls, and the calls that leave the workspace
  impact TARGET [PATH] [--depth N]    its blast radius: what depends on it, nearest first
                                      TARGET: FILE:LINE:COL (a position), FILE:LINE (the definitions
                                      on that line), or a symbol name; --min-confidence
                                      exact|unique|name-only follows only edges that sure
  sg PATTERN [PATH] [--lang L] [-g GLOB]... [--max N] [--rule JSON] [--rewrite T [--apply]]
                                      structural search: code with $X, $_, $$$X metavariables;
                                      --rewrite prints the diff (nothing written), --apply writes it
  diagnostics FILE [--conversation ID]
                                      the diagnostics of FILE this conversation has not been told
                                      (for edits made elsewhere; exit codes as edit)
  mcp [PATH]                          an MCP server on stdio for agents: every mechanism a tool
                                      (search, the graph, staged rewrite, edits, the debugger, status)
  edit FILE [--patch DIFF] [--conversation ID]
                                      write FILE (new content on stdin, or a unified diff applied
                                      to it) and print the diagnostics the edit introduced
  stop                                stop the running daemon

options for client commands:
  --json          machine-readable output (see docs/protocol.md)
  --socket PATH   the daemon's socket (default: ${defaultSocketPath()})
  --no-daemon     run the work in this process instead of the daemon
PATH defaults to the workspace containing the current folder: its git root, else the folder itself,
but never /, a top-level folder (/etc, /usr, /tmp…) or your home folder or above unless named as PATH.
A FILE outside any git repository is answered on its own: nothing else in its folder is indexed.
grep, search and symbols take several PATHs: in one workspace they narrow it; in several (or with
--all, every workspace the daemon holds) they ask each, and print each path after its root's.`;

/** Prints an edit's (or a check's) new diagnostics; answers the exit code: 0 none, 1 some, 3 unknown. */
function printDiagnostics(result: EditFileResult, json: boolean, what: string): number {
  const count = result.newDiagnostics.reduce((sum, entry) => sum + entry.diagnostics.length, 0);
  const code = result.status !== 'ok' ? 3 : count > 0 ? 1 : 0;
  if (json) {
    print(result);
    return code;
  }
  if (result.notice) process.stderr.write(`fathom: ${result.notice}\n`);
  process.stderr.write(
    `fathom: ${what}; ${result.status === 'ok' ? `${count} new diagnostic${count === 1 ? '' : 's'}` : `diagnostics unknown: ${result.status}${result.reason ? ` (${result.reason})` : ''}`}${result.crash ? `; ${result.crash}, restarted` : ''}\n`,
  );
  for (const entry of result.newDiagnostics) {
    for (const diagnostic of entry.diagnostics) print(diagnosticLine(entry.path, diagnostic));
  }
  return code;
}

const graphCommands = {
  def: Methods.definition,
  refs: Methods.references,
  callers: Methods.callers,
  callees: Methods.callees,
  impact: Methods.impact,
} as const;

/**
 * The params that name a graph command's target: a position, the definition around a line, or a
 * symbol name. FILE:LINE[:COL] always names a position (no symbol name ends in :digits): a FILE
 * that does not exist is an error, not a name to look up.
 */
function graphTargetParams(target: string, pathArgument: string | undefined): Record<string, unknown> {
  const position = /^(.+?):(\d+)(?::(\d+))?$/.exec(target);
  if (position) {
    const absolute = existingFile(position[1]!);
    const line = Number(position[2]);
    const where = fileParams(absolute);
    if (position[3] !== undefined) return { ...where, position: { line, column: Number(position[3]) } };
    // A whole line: the definitions starting on it, else the one around it.
    return { ...where, range: { start: { line, column: 1 }, end: { line, column: 1 } } };
  }
  return { root: pathArgument ? workspaceAround(path.resolve(pathArgument)) : implicitRoot(process.cwd()), symbol: target };
}

async function graphCommand(
  command: keyof typeof graphCommands,
  target: string,
  pathArgument: string | undefined,
  values: Record<string, unknown>,
): Promise<number> {
  const json = values.json === true;
  const number = (name: string): number | undefined => {
    if (values[name] === undefined) return undefined;
    const value = Number(values[name]);
    if (!Number.isInteger(value) || value < 1) throw new UsageError(`--${name} takes a whole number ≥ 1`);
    return value;
  };
  const depth = number('depth');
  const limit = number('limit');
  const params = {
    ...graphTargetParams(target, pathArgument),
    ...(depth === undefined || command === 'def' || command === 'refs' ? {} : { depth }),
    ...(limit === undefined || command === 'def' ? {} : { limit }),
    ...(values['min-confidence'] === undefined || command === 'def' ? {} : { minConfidence: values['min-confidence'] }),
  };
  let found = false;
  if (command === 'refs') {
    // Every reference unless --limit, page after page (offsets), each printed as it arrives.
    const { limit: _limit, ...rest } = params;
    await withClient(values, async ({ connection }) => {
      let merged: ReferencesResult | undefined;
      const done = await eachPage<ReferencesResult, number>({
        max: limit,
        fetch: (page) =>
          request<ReferencesResult>(
            connection,
            Methods.references,
            { ...rest, limit: page.maxResults, paged: true, ...(page.after === undefined ? {} : { offset: page.after }) },
            true,
          ),
        paths: (result) => ({ count: result.references.length }),
        print: (result) => {
          if (!merged) merged = { ...result, references: [...result.references] };
          else merged.references.push(...result.references);
          if (json) return;
          const lines = result.references.map(
            (reference) =>
              `${reference.path}:${reference.range.start.line}:${reference.range.start.column}: ${reference.text}  (${reference.kind}${reference.confidence === 'exact' ? '' : `, ${reference.confidence}`})`,
          );
          if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
        },
      });
      found = done.shown > 0;
      if (done.capped) process.stderr.write(`fathom: stopped after ${done.shown} reference${done.shown === 1 ? '' : 's'} (--limit ${limit}); there are more\n`);
      if (json && merged) {
        const { next: _next, ...whole } = merged;
        print({ ...whole, truncated: done.capped });
      }
    });
    return found ? 0 : 1;
  }
  await withClient(values, async ({ connection }) => {
    const result = await request<DefinitionResult | ReferencesResult | CallersResult | CalleesResult | ImpactResult>(
      connection,
      graphCommands[command],
      params,
      true,
    );
    if ('definitions' in result) {
      found = result.definitions.length > 0;
      if (json) return print(result);
      for (const symbol of result.definitions)
        print(`${symbolLine(symbol)}  ${symbol.signature}${symbol.confidence === 'exact' ? '' : `  (${symbol.confidence})`}`);
      return;
    }
    if ('references' in result) {
      found = result.references.length > 0;
      if (json) return print(result);
      for (const reference of result.references)
        print(
          `${reference.path}:${reference.range.start.line}:${reference.range.start.column}: ${reference.text}  (${reference.kind}${reference.confidence === 'exact' ? '' : `, ${reference.confidence}`})`,
        );
      return;
    }
    const entries = 'callers' in result ? result.callers : 'callees' in result ? result.callees : result.impacted;
    found = entries.length > 0 || ('unresolved' in result && result.unresolved.length > 0);
    // A breadth-first answer full at its limit goes no deeper: said, with or without --json.
    if (result.truncated)
      process.stderr.write(
        `fathom: stopped at ${entries.length} symbols, the limit (${limit === undefined ? 'the default' : `--limit ${limit}`}): nothing further was followed; raise --limit for more\n`,
      );
    if (json) return print(result);
    if (result.symbols.length === 0) return print(`nothing found for ${target}`);
    print(`${command} of ${result.symbols.map((symbol) => [...symbol.container, symbol.name].join('.')).join(', ')}:`);
    for (const entry of entries) print(relatedLine(entry));
    if ('unresolved' in result && result.unresolved.length > 0)
      print(`outside the workspace: ${result.unresolved.map((call) => `${call.name} ×${call.count}`).join(', ')}`);
    if ('byDistance' in result)
      print(`\n${result.byDistance.map((level) => `distance ${level.distance}: ${level.symbols} symbols in ${level.files} files`).join('\n')}`);
  });
  return found ? 0 : 1;
}

/** A team-store setting from the environment, or a usage error saying what it is. */
function teamSetting(name: 'FATHOM_TEAM_URL' | 'FATHOM_TEAM_KEY'): string {
  const value = process.env[name];
  if (value === undefined || value === '')
    throw new UsageError(
      name === 'FATHOM_TEAM_URL'
        ? 'set FATHOM_TEAM_URL to the team store (a libpq connection string: "host=… dbname=… user=…" or postgresql://user@host/db; the password from ~/.pgpass or PGPASSWORD)'
        : 'set FATHOM_TEAM_KEY to the team key file (at least 16 bytes, hex or raw, mode 0600)',
    );
  return value;
}

/** `fathom team init|push|status`. */
async function teamCommand(rest: string[], values: Record<string, unknown>): Promise<number> {
  const [sub, target, ...extra] = rest;
  const json = values.json === true;
  if (extra.length > 0) throw new UsageError(`unexpected argument: ${extra[0]}`);
  const url = teamSetting('FATHOM_TEAM_URL');
  const password = process.env.PGPASSWORD;
  if (sub === 'init') {
    if (target !== undefined) throw new UsageError('team init takes no PATH');
    const { initStore } = await import('../team/schema.js');
    const result = await initStore({
      conninfo: url,
      ...(password ? { password } : {}),
      ...(typeof values['member-role'] === 'string' ? { memberRole: values['member-role'] } : {}),
      grant: (values.grant as string[] | undefined) ?? [],
    });
    print(
      json
        ? result
        : `${result.store}: schema version ${result.version}${result.applied.length === 0 ? ' (already current)' : ` (applied ${result.applied.map((entry) => `${entry.version} ${entry.name}`).join(', ')})`}; member role ${result.memberRole}${result.granted.length > 0 ? ` granted to ${result.granted.join(', ')}` : ''}`,
    );
    return 0;
  }
  if (sub !== 'push' && sub !== 'status') throw new UsageError('team needs init, push [PATH] or status [PATH]');
  const keyFile = path.resolve(teamSetting('FATHOM_TEAM_KEY'));
  const scope = target ? path.resolve(target) : implicitRoot(process.cwd());
  const params = { root: scope, url, keyFile, ...(password ? { password } : {}) };
  await withClient(values, async ({ connection }) => {
    if (sub === 'push') {
      const result = await request<TeamPushResult>(connection, Methods.teamPush, params, true);
      print(
        json
          ? result
          : `${result.root} → ${result.store}: ${result.uploaded.vectors} vectors and ${result.uploaded.files} files' records sent (${result.files} files checked, ${humanBytes(result.bytesSent)}, ${(result.ms / 1000).toFixed(1)} s); snapshot ${result.snapshot.id}${result.snapshot.created ? '' : ' (already there)'}${result.skippedFiles > 0 ? `; ${result.skippedFiles} files left for the next push (their vectors are being embedded again)` : ''}`,
      );
      return;
    }
    const result = await request<TeamStatusResult>(connection, Methods.teamStatus, params, true);
    if (json) return print(result);
    const nearest = result.nearest[0];
    print(
      [
        `${result.root}: team store ${result.store} (schema ${result.schemaVersion}), team key ${result.teamKeyId}, model ${result.modelId}`,
        `  the store holds ${result.held.files} of this workspace's ${result.held.distinctFiles} distinct files (${result.held.chunks} chunks)`,
        nearest
          ? `  nearest snapshot: #${nearest.id} of ${nearest.createdAt}, ${nearest.fileCount} files, ${nearest.distance} bits from this tree${nearest.sameTree ? ' (this very tree)' : ''}`
          : '  no snapshot of this model yet: fathom team push',
      ].join('\n'),
    );
  });
  return 0;
}

/** `fathom debug …`: one conversation per workspace (of the current folder) unless --conversation names another. */
async function debugCommand(rest: string[], values: Record<string, unknown>): Promise<number> {
  const [sub, ...args] = rest;
  const json = values.json === true;
  if (values['no-daemon']) throw new UsageError('debug needs the daemon (the session lives there between commands): drop --no-daemon');
  const conversation = typeof values.conversation === 'string' ? values.conversation : `cli:${repositoryRoot(process.cwd()) ?? process.cwd()}`;
  const number = (name: string): number | undefined => {
    if (values[name] === undefined) return undefined;
    const value = Number(values[name]);
    if (!Number.isInteger(value) || value < 0) throw new UsageError(`--${name} takes a whole number`);
    return value;
  };
  let method: string;
  let params: Record<string, unknown>;
  switch (sub) {
    case 'launch': {
      const [program, ...programArgs] = args;
      if (!program) throw new UsageError('debug launch needs a PROGRAM');
      const breakpoints = ((values.break as string[] | undefined) ?? []).map((spec) => {
        const match = /^(.+):(\d+)$/.exec(spec);
        if (!match) throw new UsageError(`--break takes FILE:LINE (got ${spec})`);
        return { path: path.resolve(match[1]!), line: Number(match[2]) };
      });
      method = Methods.debugLaunch;
      params = { program: path.resolve(program), args: programArgs, cwd: process.cwd(), breakpoints, stopOnEntry: values['stop-on-entry'] === true };
      break;
    }
    case 'state':
      method = Methods.debugState;
      params = { ...(number('frames') === undefined ? {} : { frames: number('frames') }) };
      break;
    case 'eval':
      if (args.length === 0) throw new UsageError('debug eval needs an EXPR');
      method = Methods.debugEvaluate;
      params = { expression: args.join(' '), ...(number('frame') === undefined ? {} : { frameId: number('frame') }) };
      break;
    case 'continue':
      method = Methods.debugContinue;
      params = {};
      break;
    case 'step':
      if (!['in', 'over', 'out'].includes(args[0] ?? '')) throw new UsageError('debug step needs in, over or out');
      method = Methods.debugStep;
      params = { kind: args[0] };
      break;
    case 'break': {
      const [file, ...lines] = args;
      if (!file || lines.some((line) => !/^\d+$/.test(line))) throw new UsageError('debug break needs FILE and LINE numbers (none clears the file)');
      method = Methods.debugSetBreakpoints;
      params = { path: path.resolve(file), breakpoints: lines.map((line) => ({ line: Number(line) })) };
      break;
    }
    case 'terminate':
      method = Methods.debugTerminate;
      params = {};
      break;
    default:
      throw new UsageError('debug needs launch, state, eval, continue, step, break or terminate');
  }
  await withClient(values, async ({ connection }) => {
    const result = await request<DebugStateResult | DebugEvaluateResult | { session: string; terminated: boolean }>(
      connection,
      method,
      { ...params, conversation },
      false,
    );
    if (json) return print(result);
    if ('value' in result) return print(result.value);
    if ('terminated' in result) return print(`${result.session} terminated`);
    print(describeDebugState(result));
  });
  return 0;
}

/** The workspace a named PATH narrows: the git repository around it, else the PATH itself (as named). */
function workspaceAround(folder: string): string {
  return repositoryRoot(folder) ?? folder;
}

/** A FILE argument that must exist (chunks, outline, diagnostics, a graph position): its absolute path. */
function existingFile(file: string): string {
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
function fileParams(absolute: string): { root?: string; path: string } {
  const root = repositoryRoot(path.dirname(absolute));
  return root === undefined ? { path: absolute } : { root, path: absolute };
}

let progressCounter = 0;

/** Sends a request; Ctrl-C cancels it ($/cancelRequest); progress is drawn on a TTY. */
async function request<R>(connection: RpcClient, method: string, params: Record<string, unknown>, withProgress: boolean): Promise<R> {
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

async function withClient(values: Record<string, unknown>, work: (client: Client) => Promise<void>): Promise<void> {
  // A daemon started here logs into the cache root: whatever is in its way (a file) is set aside first.
  makeCacheFolder(defaultCacheRoot());
  const client = values['no-daemon']
    ? await inProcessClient()
    : await connectToDaemon(typeof values.socket === 'string' ? path.resolve(values.socket) : defaultSocketPath(), { autoStart: true });
  try {
    // A daemon that dies mid-request ends the command with an error, not a request left waiting.
    await Promise.race([work(client!), client!.lost]);
  } finally {
    await client!.close();
  }
}

/** --no-daemon: a daemon in this process, loaded only now (with every engine it brings). */
async function inProcessClient(): Promise<Client> {
  const [{ defaultConfig }, { inProcessDaemon }] = await Promise.all([import('../daemon/config.js'), import('./in-process-daemon.js')]);
  return inProcessDaemon(defaultConfig());
}

/** The command's globs as a request's `glob` param (absent when none): -g/--glob, and --glob-filter, its older long name. */
function globParam(values: { glob?: string[] | undefined; 'glob-filter'?: string[] | undefined }): { glob?: string[] } {
  const globs = [...(values.glob ?? []), ...(values['glob-filter'] ?? [])];
  return globs.length > 0 ? { glob: globs } : {};
}

/** The roots of the folder workspaces the daemon holds (`--all`). */
async function openRoots(connection: RpcClient): Promise<string[]> {
  const status = await request<StatusResult>(connection, Methods.status, {}, false);
  const roots = status.workspaces.map((workspace) => workspace.root).filter((root) => fs.statSync(root, { throwIfNoEntry: false })?.isDirectory() === true);
  if (roots.length === 0) throw new Error('the daemon holds no workspace yet: name one as PATH, or run fathom index PATH');
  return roots.sort();
}

/**
 * Asks a question of a scope (scope.ts): one root (narrowed to its paths), or several in one
 * request (`roots` / `allWorkspaces`); each root's answer, a root that failed told on stderr.
 */
async function ask<R extends { root: string }>(
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

/** Ranked lists of several roots as one: each root's first, then each root's second, and so on (ranks, unlike scores, compare across corpora). */
function byRank<T>(lists: T[][]): T[] {
  const out: T[] = [];
  for (let rank = 0; lists.some((list) => rank < list.length); rank++) for (const list of lists) if (rank < list.length) out.push(list[rank]!);
  return out;
}

function print(value: unknown): void {
  process.stdout.write(typeof value === 'string' ? `${value}\n` : `${JSON.stringify(value, null, 2)}\n`);
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      stdio: { type: 'boolean' },
      socket: { type: 'string' },
      'no-daemon': { type: 'boolean' },
      'no-wait': { type: 'boolean' },
      json: { type: 'boolean' },
      all: { type: 'boolean' },
      // -g/--glob: ripgrep's globs (base/path-glob.ts), the same in every command.
      glob: { type: 'string', short: 'g', multiple: true },
      limit: { type: 'string' },
      path: { type: 'string' },
      'max-file-bytes': { type: 'string' },
      'max-frame-bytes': { type: 'string' },
      'fixed-strings': { type: 'boolean', short: 'F' },
      'ignore-case': { type: 'boolean', short: 'i' },
      'word-regexp': { type: 'boolean', short: 'w' },
      multiline: { type: 'boolean', short: 'U' },
      'glob-filter': { type: 'string', multiple: true },
      max: { type: 'string' },
      budget: { type: 'string' },
      kind: { type: 'string', multiple: true },
      'after-context': { type: 'string', short: 'A' },
      'before-context': { type: 'string', short: 'B' },
      context: { type: 'string', short: 'C' },
      type: { type: 'string', short: 't', multiple: true },
      lang: { type: 'string', short: 'l' },
      mode: { type: 'string' },
      break: { type: 'string', multiple: true },
      'stop-on-entry': { type: 'boolean' },
      frames: { type: 'string' },
      frame: { type: 'string' },
      out: { type: 'string' },
      key: { type: 'string' },
      'member-role': { type: 'string' },
      grant: { type: 'string', multiple: true },
      rule: { type: 'string' },
      rewrite: { type: 'string' },
      apply: { type: 'boolean' },
      patch: { type: 'string' },
      conversation: { type: 'string' },
      depth: { type: 'string' },
      'min-confidence': { type: 'string' },
      'no-text': { type: 'boolean' },
      'reconcile-seconds': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.version) return (print(readPackageVersion()), 0);
  if (values.help || !command) return (print(usage), command || values.help ? 0 : 2);
  // grep, sg and symbols take their pattern first: `fathom grep PATTERN [PATH]`.
  const takesPattern = command === 'grep' || command === 'symbols' || command === 'search' || (command === 'sg' && values.rule === undefined);
  const pattern = takesPattern ? rest.shift() : undefined;
  if (takesPattern && pattern === undefined) throw new UsageError(`${command} needs a ${command === 'symbols' || command === 'search' ? 'QUERY' : 'PATTERN'}`);
  // The graph commands take a target first: FILE:LINE:COL, FILE:LINE or a symbol name.
  const takesTarget = command !== undefined && Object.hasOwn(graphCommands, command);
  const graphTarget = takesTarget ? rest.shift() : undefined;
  if (takesTarget && graphTarget === undefined) throw new UsageError(`${command} needs a TARGET (FILE:LINE:COL, FILE:LINE or a symbol name)`);
  // debug takes a subcommand and its arguments; the session lives in the daemon between commands.
  if (command === 'debug') return debugCommand(rest, values);
  // team takes a subcommand: init (the owner's connection, run here), push and status (the daemon's).
  if (command === 'team') return teamCommand(rest, values);
  // model takes a subcommand and (use, pull) a model: `fathom model use DIR [PATH]`.
  const modelCommand = command === 'model' ? rest.shift() : undefined;
  if (command === 'model' && !['use', 'off', 'pull'].includes(modelCommand ?? '')) throw new UsageError('model needs use DIR|ID, off, or pull ID');
  const modelArgument = modelCommand === 'use' || modelCommand === 'pull' ? rest.shift() : undefined;
  if ((modelCommand === 'use' || modelCommand === 'pull') && modelArgument === undefined)
    throw new UsageError(`model ${modelCommand} needs ${modelCommand === 'use' ? 'a model folder or id' : 'a model id'}`);
  // chunks, outline and edit take a file, not a workspace: `fathom chunks FILE`.
  const takesFile = command === 'chunks' || command === 'outline' || command === 'edit' || command === 'diagnostics';
  const file = takesFile ? rest.shift() : undefined;
  if (takesFile && file === undefined) throw new UsageError(`${command} needs a FILE`);
  const [target, ...extra] = rest;
  // grep, search and symbols take several PATHs (scope.ts); the others one.
  const manyPaths = command === 'grep' || command === 'search' || command === 'symbols';
  if (extra.length > 0 && !manyPaths) throw new UsageError(`unexpected argument: ${extra[0]}`);
  const scope = (): Scope => scopeOf(rest, values.all === true, () => workspaceAround(root()));
  // The folder a command is about: PATH as named, else the workspace around the current folder
  // (worked out only by the commands that take one: `serve` or `stop` run anywhere).
  const root = (): string => (target ? path.resolve(target) : implicitRoot(process.cwd()));
  const json = values.json === true;

  switch (command) {
    case 'serve': {
      const { serve } = await import('./commands/serve.js');
      await serve(values);
      return -1; // keep running
    }
    case 'index': {
      const scope = root();
      await withClient(values, async ({ connection }) => {
        const status = await request<WorkspaceStatus>(connection, Methods.index, { root: scope, wait: !values['no-wait'] }, true);
        print(json ? status : describeWorkspace(status));
      });
      return 0;
    }
    case 'status': {
      const params = values.all ? {} : { root: root() };
      await withClient(values, async ({ connection }) => {
        const result = await request<StatusResult>(connection, Methods.status, params, false);
        if (json) print(values.all ? result : result.workspaces[0]);
        else print(result.workspaces.length === 0 ? 'no open workspaces' : result.workspaces.map(describeWorkspace).join('\n'));
      });
      return 0;
    }
    case 'files': {
      const scope = root();
      await withClient(values, async ({ connection }) => {
        const limit = values.limit === undefined ? undefined : Number(values.limit);
        if (limit !== undefined && !(Number.isInteger(limit) && limit >= 0)) throw new UsageError('--limit takes a whole number');
        const result = await request<FilesResult>(
          connection,
          Methods.files,
          { root: scope, ...globParam(values), ...(limit === undefined ? {} : { limit }) },
          true,
        );
        if (json) print(result.files);
        else if (result.files.length > 0) process.stdout.write(`${result.files.join('\n')}\n`);
      });
      return 0;
    }
    case 'merkle': {
      const scope = root();
      await withClient(values, async ({ connection }) => {
        const result = await request<MerkleResult>(connection, Methods.merkle, { root: scope, ...(values.path ? { path: values.path } : {}) }, true);
        if (json) print(result);
        else {
          print(`${result.path || '.'} ${result.kind} ${result.hash ?? '-'}`);
          for (const child of result.children ?? []) print(`  ${child.hash} ${child.kind === 'dir' ? `${child.name}/` : child.name}`);
        }
      });
      return 0;
    }
    case 'grep': {
      // PATH narrows the search inside its workspace rather than opening a workspace of its own;
      // PATHs in several workspaces (or --all) search each, one after the other.
      const where = scope();
      const max = values.max === undefined ? undefined : Number(values.max);
      if (max !== undefined && !(Number.isInteger(max) && max >= 0)) throw new UsageError('--max takes a whole number');
      const count = (flag: string, value: string | undefined): number | undefined => {
        if (value === undefined) return undefined;
        const number = Number(value);
        if (!(Number.isInteger(number) && number >= 0)) throw new UsageError(`${flag} takes a whole number`);
        return number;
      };
      const context = count('-C', values.context);
      const before = count('-B', values['before-context']);
      const after = count('-A', values['after-context']);
      const params = {
        pattern,
        fixedStrings: values['fixed-strings'] === true,
        ignoreCase: values['ignore-case'] === true,
        wordRegexp: values['word-regexp'] === true,
        multiline: values.multiline === true,
        ...globParam(values),
        ...(values.type ? { languages: values.type } : {}),
        ...(context === undefined ? {} : { context }),
        ...(before === undefined ? {} : { beforeContext: before }),
        ...(after === undefined ? {} : { afterContext: after }),
      };
      let matched = false;
      await withClient(values, async ({ connection }) => {
        const roots = where.kind === 'one' ? [where.root] : where.kind === 'across' ? where.roots : await openRoots(connection);
        const timedOut = new Set<string>();
        const totals = { shown: 0, total: 0, files: 0, capped: false, candidates: 0, elapsedMs: 0 };
        for (const workspaceRoot of roots) {
          const left = max === undefined ? undefined : max - totals.shown;
          const label = where.kind === 'one' ? '' : rootLabel(workspaceRoot);
          // Every matching line unless --max, page by page, each printed as it arrives.
          const printer = new GrepPrinter({
            json,
            withContext: (context ?? before ?? after ?? 0) > 0,
            ...(where.kind === 'one' ? {} : { root: workspaceRoot, label }),
          });
          let first: GrepResult | undefined;
          const done = await eachPage<GrepResult>({
            max: left,
            fetch: async (page) =>
              request<GrepResult>(
                connection,
                Methods.grep,
                { root: workspaceRoot, ...params, ...(where.kind === 'one' && where.paths.length > 0 ? { paths: where.paths } : {}), ...page },
                true,
              ),
            paths: (result) => ({ count: result.matches.length, first: result.matches[0]?.path, last: result.matches.at(-1)?.path }),
            print: (result) => {
              first ??= result;
              totals.elapsedMs += result.stats.elapsedMs;
              for (const file of result.timedOut) timedOut.add(labelled(label, file));
              printer.page(result);
            },
          });
          totals.shown += done.shown;
          totals.total += done.total;
          totals.files += done.files;
          totals.candidates += first?.stats.candidates ?? 0;
          // Past --max, the roots left are still asked, for their counts (maxResults 0: no lines).
          if (done.capped) totals.capped = true;
        }
        matched = totals.shown > 0;
        const given = [...timedOut].sort();
        if (given.length > 0)
          process.stderr.write(
            `fathom: gave up on ${given.length} file${given.length === 1 ? '' : 's'} where the regex ran past 2 s (not searched to the end): ${given.slice(0, 10).join(', ')}${given.length > 10 ? ', …' : ''}\n`,
          );
        if (totals.capped)
          process.stderr.write(
            `fathom: stopped after ${totals.shown} matching line${totals.shown === 1 ? '' : 's'} (--max ${max}); ${totals.total} in all, in ${totals.files} file${totals.files === 1 ? '' : 's'}\n`,
          );
        if (json) {
          // JSON Lines: one object per matching line, then a summary (like rg --json's).
          const summary = {
            total: totals.total,
            files: totals.files,
            truncated: totals.capped,
            timedOut: given,
            candidates: totals.candidates,
            elapsedMs: Math.round(totals.elapsedMs * 100) / 100,
            ...(where.kind === 'one' ? {} : { roots }),
          };
          process.stdout.write(`${JSON.stringify({ summary })}\n`);
        }
      });
      // Like grep and ripgrep: exit 1 when nothing matched.
      return matched ? 0 : 1;
    }
    case 'search': {
      // PATH narrows the search inside its workspace (and -g globs narrow it further); PATHs in
      // several workspaces (or --all) ask each, the hits interleaved by rank.
      const where = scope();
      const max = values.max === undefined ? undefined : Number(values.max);
      if (max !== undefined && !(Number.isInteger(max) && max >= 1)) throw new UsageError('--max takes a whole number ≥ 1');
      let found = false;
      await withClient(values, async ({ connection }) => {
        const params = {
          query: pattern,
          ...(values.mode === undefined ? {} : { mode: values.mode }),
          ...globParam(values),
          ...(values.type ? { languages: values.type } : {}),
          ...(max === undefined ? {} : { maxResults: max }),
          ...(values['ignore-case'] ? { ignoreCase: true } : {}),
          // The CLI prints every hit itself: never a result file.
          maxInlineBytes: 0,
        };
        const answers = await ask<CodeSearchResult>(connection, Methods.codeSearch, where, params);
        const hits = byRank(
          answers.map(({ root, result }) => result.hits.map((hit) => ({ ...hit, root, label: where.kind === 'one' ? '' : rootLabel(root) }))),
        ).slice(0, max ?? Number.POSITIVE_INFINITY);
        found = hits.length > 0;
        if (json) {
          if (found)
            process.stdout.write(
              `${hits.map(({ label: _label, ...hit }) => JSON.stringify(where.kind === 'one' ? { ...hit, root: undefined } : hit)).join('\n')}\n`,
            );
          return;
        }
        for (const { root, result } of answers) {
          process.stderr.write(
            `fathom: ${where.kind === 'one' ? '' : `${rootLabel(root) || '.'}: `}${result.route} search (${result.reason}): ${result.total} hit${result.total === 1 ? '' : 's'}${result.truncated ? ', more with --max' : ''}\n`,
          );
          const note = buildingNote(result.building);
          if (note) process.stderr.write(`fathom: ${note}\n`);
        }
        const out: string[] = [];
        for (const hit of hits) {
          const file = labelled(hit.label, hit.path);
          if (hit.column !== undefined && hit.start === hit.end) {
            out.push(`${file}:${hit.start}:${hit.column}:${hit.snippet}`);
            continue;
          }
          const what = hit.symbol
            ? `${hit.symbol.kind} ${[...hit.symbol.container, hit.symbol.name].join('.')}`
            : `score ${hit.score}${hit.matched ? `  (${hit.matched.join(' ')})` : ''}`;
          out.push(`${file}:${hit.start}-${hit.end}  ${what}`);
          hit.snippet.split('\n').forEach((line, at) => out.push(`  ${String(hit.snippetStart + at).padStart(5)}  ${line}`));
        }
        if (out.length > 0) process.stdout.write(`${out.join('\n')}\n`);
      });
      return found ? 0 : 1;
    }
    case 'model': {
      const scope = modelCommand === 'pull' ? undefined : root();
      await withClient(values, async ({ connection }) => {
        if (modelCommand === 'pull') {
          const result = await request<ModelPullResult>(connection, Methods.modelPull, { id: modelArgument }, true);
          print(json ? result : `${result.id} is in ${result.dir}; use it with: fathom model use ${result.id}`);
          return;
        }
        const model = modelCommand === 'off' ? null : fs.existsSync(modelArgument!) ? path.resolve(modelArgument!) : modelArgument!;
        const result = await request<ModelUseResult>(connection, Methods.modelUse, { root: scope, model }, true);
        print(
          json
            ? result
            : result.model
              ? `${result.root}: semantic search with ${result.model.dir} (${result.model.dimensions}-d, ${result.model.dtype}, id ${result.model.id}${result.model.hybridWeight === undefined ? '; no measured hybrid weight: auto ranks words lexically' : `; hybrid weight ${result.model.hybridWeight}`})`
              : `${result.root}: semantic search off`,
        );
      });
      return 0;
    }
    case 'trust':
    case 'untrust': {
      const scope = root();
      await withClient(values, async ({ connection }) => {
        const result = await request<TrustResult>(connection, Methods.trust, { path: scope, trusted: command === 'trust' }, true);
        print(
          json
            ? result
            : `${result.path}: ${result.trusted ? 'trusted: its own language servers, TypeScript and build scripts may run' : "not trusted: only Fathom's own or your configured language servers run"}${result.trustsAll ? ' (FATHOM_TRUST_ALL=1 trusts every workspace)' : ''}`,
        );
      });
      return 0;
    }
    case 'export': {
      if (typeof values.out !== 'string') throw new UsageError('export needs --out FILE');
      const scope = root();
      await withClient(values, async ({ connection }) => {
        const result = await request<ExportIndexResult>(
          connection,
          Methods.exportIndex,
          { root: scope, out: path.resolve(values.out as string), ...(typeof values.key === 'string' ? { keyFile: path.resolve(values.key) } : {}) },
          true,
        );
        print(
          json
            ? result
            : `${result.file}: ${result.files} files, ${result.chunks} chunks, ${result.terms} terms (${humanBytes(result.bytes)}), paths masked and terms hashed with key ${result.keyId}`,
        );
      });
      return 0;
    }
    case 'sg': {
      // PATH (a file or folder) narrows the search inside its workspace, as for grep; a FILE in no
      // repository is searched on its own (no root: the daemon answers it alone).
      const scope = root();
      const isFile = fs.existsSync(scope) && fs.statSync(scope).isFile();
      const workspaceRoot = isFile ? repositoryRoot(path.dirname(scope)) : workspaceAround(scope);
      const within = workspaceRoot === undefined ? scope : path.relative(workspaceRoot, scope).split(path.sep).join('/');
      let language = values.lang;
      if (language === undefined) {
        const extension = path.extname(scope).slice(1);
        if (extension === '' || !isFile) throw new UsageError('sg needs --lang LANGUAGE (typescript, python, go, rust, java, c, cpp, …) unless PATH is a file');
        language = extension;
      }
      let rule: unknown;
      if (values.rule !== undefined) {
        try {
          rule = JSON.parse(values.rule);
        } catch (error) {
          throw new UsageError(`--rule takes a JSON rule object: ${errorMessage(error)}`);
        }
      }
      const max = values.max === undefined ? undefined : Number(values.max);
      if (max !== undefined && !(Number.isInteger(max) && max >= 0)) throw new UsageError('--max takes a whole number');
      if (values.apply && values.rewrite === undefined) throw new UsageError('--apply needs --rewrite TEMPLATE');
      const params = {
        ...(workspaceRoot === undefined ? {} : { root: workspaceRoot }),
        language,
        ...(pattern === undefined ? {} : { pattern }),
        ...(rule === undefined ? {} : { rule }),
        ...globParam(values),
        ...(within ? { paths: [within] } : {}),
      };
      let matched = false;
      if (values.rewrite !== undefined) {
        await withClient(values, async ({ connection }) => {
          const plan = await request<StructuralRewriteResult>(
            connection,
            Methods.structuralRewrite,
            { ...params, ...(max === undefined ? {} : { maxResults: max }), rewrite: values.rewrite },
            true,
          );
          matched = plan.count > 0;
          let applied: ApplyRewriteResult | undefined;
          if (values.apply && plan.token) applied = await request<ApplyRewriteResult>(connection, Methods.applyRewrite, { token: plan.token }, false);
          if (json) return print(applied ? { ...plan, applied } : plan);
          process.stdout.write(plan.diff);
          for (const entry of plan.skipped) process.stderr.write(`fathom: skipped ${entry.path}: ${entry.reason}\n`);
          for (const problem of plan.errors) process.stderr.write(`fathom: ${problem.path}: ${problem.message}\n`);
          const summary = `${plan.count} change${plan.count === 1 ? '' : 's'} in ${plan.files.length} file${plan.files.length === 1 ? '' : 's'}`;
          if (applied) process.stderr.write(`fathom: applied ${summary}\n`);
          else if (plan.token) process.stderr.write(`fathom: ${summary}, nothing written (add --apply to write)\n`);
        });
        return matched ? 0 : 1;
      }
      await withClient(values, async ({ connection }) => {
        // Every match unless --max, page by page (printed as each arrives; --json: one result of them all).
        let merged: StructuralSearchResult | undefined;
        const done = await eachPage<StructuralSearchResult>({
          max,
          fetch: (page) =>
            request<StructuralSearchResult>(
              connection,
              Methods.structuralSearch,
              { ...params, maxResults: page.maxResults, paged: true, ...(page.after ? { after: page.after } : {}) },
              true,
            ),
          paths: (result) => ({ count: result.matches.length, first: result.matches[0]?.path, last: result.matches.at(-1)?.path }),
          print: (result) => {
            if (!merged) merged = { ...result, matches: [...result.matches], errors: [...result.errors], stats: { ...result.stats } };
            else {
              merged.matches.push(...result.matches);
              merged.errors.push(...result.errors);
              merged.stats.parsed += result.stats.parsed;
              merged.stats.reused += result.stats.reused;
              merged.stats.elapsedMs = Math.round((merged.stats.elapsedMs + result.stats.elapsedMs) * 100) / 100;
            }
            if (json) return;
            const lines = result.matches.map((match) => `${match.path}:${match.range.start.line}:${match.range.start.column}:${match.lineText}`);
            if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
            for (const problem of result.errors) process.stderr.write(`fathom: ${problem.path}: ${problem.message}\n`);
          },
        });
        matched = done.shown > 0;
        if (done.capped) process.stderr.write(`fathom: stopped after ${done.shown} match${done.shown === 1 ? '' : 'es'} (--max ${max}); there are more\n`);
        if (json && merged) {
          const { next: _next, ...whole } = merged;
          print({ ...whole, files: done.files, truncated: done.capped });
        }
      });
      return matched ? 0 : 1;
    }
    case 'chunks': {
      const absolute = existingFile(file!);
      const budget = values.budget === undefined ? undefined : Number(values.budget);
      if (budget !== undefined && !(Number.isInteger(budget) && budget >= 64)) throw new UsageError('--budget takes a whole number of bytes (at least 64)');
      await withClient(values, async ({ connection }) => {
        const result = await request<ChunksResult>(
          connection,
          Methods.chunks,
          { ...fileParams(absolute), includeText: !values['no-text'], ...(budget === undefined ? {} : { budgetBytes: budget }) },
          true,
        );
        if (json) return print(result);
        const problems = result.problems.length > 0 ? ` (${result.problems.join('; ')})` : '';
        print(
          `${result.path}: ${result.languageName ?? 'no grammar'}, ${result.chunks.length} chunks, ${result.byteLength} bytes${result.parseErrors ? ', has syntax errors' : ''}${problems}`,
        );
        for (const chunk of result.chunks) {
          const flags = [chunk.method === 'lines' ? 'lines' : '', chunk.parseError ? 'parse error' : '', chunk.oversized ? 'oversized' : ''].filter(Boolean);
          print(
            `\n── ${result.path}:${chunk.start.line}-${chunk.end.column === 1 ? chunk.end.line - 1 : chunk.end.line} [${chunk.startByte}, ${chunk.endByte})${flags.length > 0 ? ` (${flags.join(', ')})` : ''}`,
          );
          print(
            chunk.header
              .split('\n')
              .map((line) => `│ ${line}`)
              .join('\n'),
          );
          if (chunk.text !== undefined) print(chunk.text);
        }
      });
      return 0;
    }
    case 'symbols': {
      const where = scope();
      const limit = values.limit === undefined ? undefined : Number(values.limit);
      if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1)) throw new UsageError('--limit takes a whole number');
      let found = false;
      await withClient(values, async ({ connection }) => {
        const params = { query: pattern, ...(values.kind ? { kinds: values.kind } : {}), ...globParam(values), ...(limit === undefined ? {} : { limit }) };
        const answers = await ask<SymbolsResult>(connection, Methods.symbols, where, params);
        // The best-scored first across roots (a name's score does not depend on its workspace).
        const symbols = answers
          .flatMap(({ root, result }) => result.symbols.map((symbol) => ({ ...symbol, root, label: where.kind === 'one' ? '' : rootLabel(root) })))
          .sort((a, b) => (b.score ?? 0) - (a.score ?? 0) || a.name.length - b.name.length)
          .slice(0, limit ?? 100);
        found = symbols.length > 0;
        // A fuzzy query may match most names, so a limit always applies (default 100).
        if (answers.some(({ result }) => result.truncated) || symbols.length < answers.reduce((sum, { result }) => sum + result.symbols.length, 0))
          process.stderr.write(
            `fathom: the best ${symbols.length} symbols (${limit === undefined ? 'the default limit' : `--limit ${limit}`}); more match: raise --limit (at most 10000) or narrow the query\n`,
          );
        if (json) return print(where.kind === 'one' ? answers[0]!.result : { answers: answers.map(({ root, result }) => ({ root, result })) });
        for (const { result } of answers) {
          const note = buildingNote(result.building);
          if (note) process.stderr.write(`fathom: ${note}\n`);
        }
        for (const symbol of symbols) {
          print(
            `${labelled(symbol.label, symbol.path)}:${symbol.selectionRange.start.line}:${symbol.selectionRange.start.column}: ${symbol.kind} ${[...symbol.container, symbol.name].join('.')}  ${symbol.signature}`,
          );
        }
      });
      return found ? 0 : 1;
    }
    case 'def':
    case 'refs':
    case 'callers':
    case 'callees':
    case 'impact':
      return graphCommand(command, graphTarget!, target, values);
    case 'outline': {
      const absolute = existingFile(file!);
      await withClient(values, async ({ connection }) => {
        const result = await request<OutlineResult>(connection, Methods.outline, fileParams(absolute), true);
        if (json) return print(result);
        for (const line of outlineLines(result.path, result.symbols)) print(line);
      });
      return 0;
    }
    case 'edit': {
      const absolute = path.resolve(file!);
      let newText: string;
      if (values.patch !== undefined) {
        const current = fs.readFileSync(absolute, 'utf8');
        const { applyPatch } = await import('diff');
        const patched = applyPatch(current, fs.readFileSync(values.patch, 'utf8'));
        if (patched === false) throw new UsageError(`the patch ${values.patch} does not apply to ${file}`);
        newText = patched;
      } else {
        if (process.stdin.isTTY) throw new UsageError('edit reads the new content on stdin (or give --patch DIFF)');
        newText = fs.readFileSync(0, 'utf8');
      }
      let code = 0;
      const where = fileParams(absolute);
      await withClient(values, async ({ connection }) => {
        const result = await request<EditFileResult>(
          connection,
          Methods.writeFile,
          // A file in no repository is written because the user named it (loose), on its own.
          {
            ...where,
            ...(where.root === undefined ? { loose: true } : {}),
            text: newText,
            conversation: values.conversation ?? `cli:${where.root ?? absolute}`,
          },
          true,
        );
        code = printDiagnostics(result, json, `${result.path} written (version ${result.version})`);
      });
      // 0: written, nothing new; 1: written, new diagnostics; 3: written, diagnostics unknown; 2: error.
      return code;
    }
    case 'diagnostics': {
      const absolute = existingFile(file!);
      let code = 0;
      await withClient(values, async ({ connection }) => {
        const where = fileParams(absolute);
        const result = await request<EditFileResult>(
          connection,
          Methods.newDiagnostics,
          { ...where, conversation: values.conversation ?? `cli:${where.root ?? absolute}` },
          true,
        );
        code = printDiagnostics(result, json, result.path);
      });
      // As edit: 0 nothing new, 1 new diagnostics, 3 unknown, 2 error.
      return code;
    }
    case 'attach':
      // Nothing but the daemon's frames may go to stdout.
      await attachStdio(typeof values.socket === 'string' ? path.resolve(values.socket) : defaultSocketPath());
      return 0;
    case 'mcp': {
      const defaultRoot = workspaceAround(root());
      // The MCP SDK (and zod) load only for this command.
      const { serveMcp } = await import('./mcp.js');
      // Nothing but MCP may go to stdout: the agent reads it.
      await withClient(values, async ({ connection, lost }) =>
        serveMcp({ connection, lost, defaultRoot, resultsFolder: path.join(defaultCacheRoot(), 'mcp-results'), version: readPackageVersion() }),
      );
      return 0;
    }
    case 'stop': {
      const socketPath = typeof values.socket === 'string' ? path.resolve(values.socket) : defaultSocketPath();
      const client = await connectToDaemon(socketPath, { autoStart: false });
      if (!client) {
        print(json ? { stopped: false, reason: 'no daemon running' } : 'no daemon running');
        return 0;
      }
      await client.connection.sendRequest(Methods.stop);
      await client.close();
      print(json ? { stopped: true } : 'stopped');
      return 0;
    }
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}

// `fathom … | head`: a closed pipe ends the command quietly, as it does for grep.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    const code = (error as { code?: unknown }).code;
    if (error instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))) {
      process.stderr.write(`fathom: ${(error as Error).message}\n\n${usage}\n`);
      process.exitCode = 2;
    } else {
      const detail = error instanceof RpcError ? `${error.message} (code ${error.code})` : errorMessage(error);
      process.stderr.write(`fathom: ${detail}\n`);
      // As ripgrep: 1 means "nothing found", 2 an error (here and for usage errors).
      process.exitCode = 2;
    }
  },
);
