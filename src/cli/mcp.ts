// `fathom mcp`: an MCP server on stdio (@modelcontextprotocol/sdk) whose tools are the daemon's
// methods, for agents that speak MCP rather than LSP or the CLI. Each tool call is one request
// to the daemon over the client connection the CLI already makes (the user's daemon, or one in
// this process with --no-daemon). Answers are short text for a model to read: a summary and the
// first results; a result larger than `inlineLimit` is written to a JSON file under the cache
// folder and the answer gives its path.
import fs from 'node:fs';
import path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import {
  Methods,
  type AcrossRootsResult,
  type ApplyRewriteResult,
  type CalleesResult,
  type CallersResult,
  type CodeSearchResult,
  type DebugEvaluateResult,
  type DebugStateResult,
  type DefinitionResult,
  type DiscardRewriteResult,
  type EditFileResult,
  type GrepResult,
  type ImpactResult,
  type OutlineResult,
  type ReferencesResult,
  type StatusResult,
  type TeamJoinResult,
  type TeamPushResult,
  type TeamStatusResult,
  type StructuralRewriteResult,
  type StructuralSearchResult,
  type SymbolsResult,
} from '../protocol/methods.js';
import {
  describeDebugState,
  describeWorkspace,
  diagnosticLine,
  joinLine,
  outlineLines,
  pushLine,
  relatedLine,
  symbolLine,
  teamStatusLines,
} from './answer-lines.js';
import { buildingNote } from './building-note.js';
import type { RpcClient } from './rpc-client.js';
import { teamConfigured, teamStoreParams } from './team-settings.js';

/** Answers longer than this (characters) go to a file. */
const inlineLimit = 24_000;
/** Results listed in an answer. */
const shownResults = 60;

/** What an agent needs to know about globs (docs/protocol.md, "Globs"). */
const globHelp =
  'ripgrep -g globs over workspace-relative paths: "*.ts" matches in every folder, "src/**" what is under src, "!test" leaves a folder out; the last matching glob decides';

export interface McpOptions {
  connection: RpcClient;
  /** Rejects when the daemon goes away: calls in flight answer an error, then the server stops and this rejection is serveMcp's. */
  lost: Promise<never>;
  /** The workspace a tool call without `root` is about. */
  defaultRoot: string;
  /** Where large results are written. */
  resultsFolder: string;
  version: string;
}

type ToolAnswer = { content: Array<{ type: 'text'; text: string }>; isError?: boolean };

function text(value: string): ToolAnswer {
  return { content: [{ type: 'text', text: value }] };
}

/** `N new diagnostics`, or why they are unknown (a timeout is NOT a clean result), then the trust notice. */
function diagnosticsState(result: EditFileResult, count: number): string {
  const state = result.status === 'ok' ? `${count} new diagnostics` : `diagnostics unknown: ${result.status}${result.reason ? ` (${result.reason})` : ''}`;
  return `${state}${result.crash ? `; ${result.crash}, restarted` : ''}${result.notice ? `\n${result.notice}` : ''}`;
}

export async function serveMcp(options: McpOptions): Promise<void> {
  const { connection, defaultRoot } = options;
  const server = new McpServer({ name: 'fathom', version: options.version });
  let written = 0;

  /** The summary and first lines; the whole result in a file when the answer would be long. */
  const answer = (tool: string, summary: string, lines: string[], result: unknown): ToolAnswer => {
    const shown = lines.slice(0, shownResults);
    let body = [summary, ...shown, ...(lines.length > shown.length ? [`… ${lines.length - shown.length} more`] : [])].join('\n');
    const whole = JSON.stringify(result);
    if (lines.length > shown.length || body.length > inlineLimit) {
      fs.mkdirSync(options.resultsFolder, { recursive: true, mode: 0o700 });
      const file = path.join(options.resultsFolder, `${tool}-${process.pid}-${Date.now()}-${++written}.json`);
      fs.writeFileSync(file, whole, { mode: 0o600 });
      if (body.length > inlineLimit) body = `${body.slice(0, inlineLimit)}\n…`;
      body += `\nThe whole result (JSON, as in docs/protocol.md): ${file}`;
    }
    return text(body);
  };

  const inFlight = new Set<Promise<ToolAnswer>>();
  /** One daemon request; a daemon error becomes an error answer (the adapter goes on). */
  const call = <R>(method: string, params: Record<string, unknown>, render: (result: R) => ToolAnswer): Promise<ToolAnswer> => {
    const answer = (async (): Promise<ToolAnswer> => {
      try {
        return render(await Promise.race([connection.sendRequest<R>(method, params), options.lost]));
      } catch (error) {
        return { ...text(`${method} failed: ${error instanceof Error ? error.message : String(error)}`), isError: true };
      }
    })();
    inFlight.add(answer);
    void answer.finally(() => inFlight.delete(answer));
    return answer;
  };

  const root = z.string().optional().describe(`The workspace root (default: ${defaultRoot})`);
  const roots = z
    .union([z.array(z.string()).min(1).max(64), z.literal('all')])
    .optional()
    .describe('Ask several workspaces at once instead of root: their roots, or "all" (every workspace the daemon holds); each line starts with its root');
  /**
   * A search tool's request for `root`, or for each of `roots` (one request: AcrossRootsResult):
   * `render` words one root's answer; across roots each summary is prefixed by its root, each line
   * by its root's path.
   */
  const searchCall = <R extends { root: string }>(
    tool: string,
    method: string,
    params: Record<string, unknown>,
    where: { root?: string | undefined; roots?: string[] | 'all' | undefined },
    render: (result: R) => { summary: string; lines: string[] },
  ): Promise<ToolAnswer> => {
    if (where.roots === undefined)
      return call<R>(method, { root: where.root ?? defaultRoot, ...params }, (result) => {
        const { summary, lines } = render(result);
        return answer(tool, summary, lines, result);
      });
    if (where.root !== undefined) return Promise.resolve({ ...text('give root or roots, not both'), isError: true });
    return call<AcrossRootsResult<R>>(method, { ...params, ...(where.roots === 'all' ? { allWorkspaces: true } : { roots: where.roots }) }, (across) => {
      const summaries: string[] = [];
      const lines: string[] = [];
      for (const entry of across.answers) {
        if (entry.error !== undefined) {
          summaries.push(`${entry.root}: ${entry.error.message}`);
          continue;
        }
        const one = render(entry.result);
        summaries.push(`${entry.root}: ${one.summary}`);
        for (const line of one.lines) lines.push(`${entry.root}/${line}`);
      }
      return answer(tool, summaries.join('\n'), lines, across);
    });
  };
  /** What a graph tool is about: a symbol by name, or the symbol at (or the definitions on) a line of a file. */
  const target = {
    symbol: z.string().optional().describe('A name, or Container.name (or give path and line instead)'),
    path: z.string().optional().describe('A file, absolute or relative to the root: with line (and column), the symbol there'),
    line: z.number().int().positive().optional().describe('1-based; without column: the definitions on that line, else the one around it'),
    column: z.number().int().positive().optional().describe('1-based UTF-16 column: the symbol (a reference means what it refers to) at line:column'),
    root,
  };
  const targetParams = (args: {
    symbol?: string | undefined;
    path?: string | undefined;
    line?: number | undefined;
    column?: number | undefined;
    root?: string | undefined;
  }): Record<string, unknown> | string => {
    const workspaceRoot = args.root ?? defaultRoot;
    if (args.line !== undefined) {
      if (args.path === undefined) return 'line needs path';
      const where = { root: workspaceRoot, path: path.resolve(workspaceRoot, args.path) };
      return args.column !== undefined
        ? { ...where, position: { line: args.line, column: args.column } }
        : { ...where, range: { start: { line: args.line, column: 1 }, end: { line: args.line, column: 1 } } };
    }
    if (args.symbol === undefined || args.symbol === '') return 'give symbol, or path and line';
    return { root: workspaceRoot, symbol: args.symbol, ...(args.path === undefined ? {} : { path: path.resolve(workspaceRoot, args.path) }) };
  };
  /** A graph request, or an error answer when its target is not named well. */
  const graphCall = <R>(
    method: string,
    args: Parameters<typeof targetParams>[0],
    extra: Record<string, unknown>,
    render: (result: R) => ToolAnswer,
  ): Promise<ToolAnswer> => {
    const params = targetParams(args);
    if (typeof params === 'string') return Promise.resolve({ ...text(params), isError: true });
    return call<R>(method, { ...params, ...extra }, render);
  };
  const confidence = z.enum(['exact', 'unique', 'name-only']).optional().describe('follow only edges at least this sure');
  const symbolsOf = (result: { symbols: Array<{ name: string; container: string[] }> }): string =>
    result.symbols.map((symbol) => [...symbol.container, symbol.name].join('.')).join(', ');
  const grepLines = (result: GrepResult) => result.matches.map((match) => `${match.path}:${match.line}:${match.column}:${match.text}`);

  server.registerTool(
    'grep',
    {
      description: 'Regex search (JavaScript syntax) over the workspace, like ripgrep, fresh to unsaved editor buffers. Answers path:line:column:text lines.',
      inputSchema: {
        pattern: z.string().describe('The regex (or a literal with fixed_strings)'),
        fixed_strings: z.boolean().optional(),
        ignore_case: z.boolean().optional(),
        glob: z.array(z.string()).optional().describe(globHelp),
        max_results: z.number().int().positive().optional().describe('per root (default 1000)'),
        root,
        roots,
      },
    },
    (args) =>
      searchCall<GrepResult>(
        'grep',
        Methods.grep,
        {
          pattern: args.pattern,
          ...(args.fixed_strings ? { fixedStrings: true } : {}),
          ...(args.ignore_case ? { ignoreCase: true } : {}),
          ...(args.glob ? { glob: args.glob } : {}),
          maxResults: args.max_results ?? 1000,
        },
        args,
        (result) => ({
          summary: `${result.total} matches in ${result.files} files${result.truncated ? ` (the first ${result.matches.length} kept)` : ''}`,
          lines: grepLines(result),
        }),
      ),
  );

  server.registerTool(
    'code_search',
    {
      description:
        'Search the code for a question in words ("where are expired sessions dropped"), an identifier (its definitions first, then where it is written), a regex or a fragment of code. Words are ranked over whole functions/classes (lexical BM25F; no embedding model yet). Answers path:start-end lines with a snippet.',
      inputSchema: {
        query: z.string(),
        mode: z.enum(['auto', 'lexical', 'regex', 'literal']).optional().describe('default auto: chosen from the shape of the query'),
        glob: z.array(z.string()).optional().describe(globHelp),
        max_results: z.number().int().positive().optional().describe('per root (default 20)'),
        root,
        roots,
      },
    },
    (args) =>
      searchCall<CodeSearchResult>(
        'code_search',
        Methods.codeSearch,
        {
          query: args.query,
          ...(args.mode ? { mode: args.mode } : {}),
          ...(args.glob ? { glob: args.glob } : {}),
          maxResults: args.max_results ?? 20,
          maxInlineBytes: 0,
        },
        args,
        (result) => ({
          summary: `${result.total} hits (${result.route}: ${result.reason})${result.truncated ? ' (truncated)' : ''}${buildingNote(result.building) ? `; ${buildingNote(result.building)}` : ''}`,
          lines: result.hits.map((hit) =>
            hit.start === hit.end && hit.column !== undefined
              ? `${hit.path}:${hit.start}:${hit.column}:${hit.snippet}`
              : `${hit.path}:${hit.start}-${hit.end}${hit.symbol ? ` ${hit.symbol.kind} ${[...hit.symbol.container, hit.symbol.name].join('.')}` : ''}\n${hit.snippet
                  .split('\n')
                  .map((line, at) => `  ${hit.snippetStart + at}  ${line}`)
                  .join('\n')}`,
          ),
        }),
      ),
  );

  server.registerTool(
    'structural_search',
    {
      description:
        'Structural search: code in the target language with metavariables ($X one node, $$$X any number), matched on the syntax tree (whitespace, comments and strings do not confuse it).',
      inputSchema: {
        pattern: z.string(),
        language: z.string().describe('typescript, python, go, rust, c, … or an extension'),
        max_results: z.number().int().positive().optional(),
        root,
      },
    },
    (args) =>
      call<StructuralSearchResult>(
        Methods.structuralSearch,
        { root: args.root ?? defaultRoot, pattern: args.pattern, language: args.language, maxResults: args.max_results ?? 500 },
        (result) =>
          answer(
            'structural_search',
            `${result.matches.length} matches${result.truncated ? ' (truncated)' : ''}`,
            result.matches.map((match) => `${match.path}:${match.range.start.line}:${match.range.start.column}:${match.lineText}`),
            result,
          ),
      ),
  );

  server.registerTool(
    'edit_file',
    {
      description:
        "Write a file (its whole new text, or a unified diff applied to it) and answer only the diagnostics the edit introduced, from the project's language server.",
      inputSchema: {
        path: z.string().describe('Absolute, or relative to the workspace root'),
        new_text: z.string().optional().describe('The whole new content'),
        patch: z.string().optional().describe('A unified diff to apply instead'),
        conversation: z.string().optional().describe('Diagnostics already reported in this conversation are not reported again'),
        root,
      },
    },
    async (args) => {
      const workspaceRoot = args.root ?? defaultRoot;
      const absolute = path.resolve(workspaceRoot, args.path);
      let newText = args.new_text;
      if (args.patch !== undefined) {
        const { applyPatch } = await import('diff');
        let current: string;
        try {
          current = fs.readFileSync(absolute, 'utf8');
        } catch {
          current = '';
        }
        const patched = applyPatch(current, args.patch);
        if (patched === false) return { ...text(`the patch does not apply to ${args.path}`), isError: true };
        newText = patched;
      }
      if (newText === undefined) return { ...text('give new_text or patch'), isError: true };
      return call<EditFileResult>(
        Methods.writeFile,
        { root: workspaceRoot, path: absolute, text: newText, conversation: args.conversation ?? 'mcp' },
        (result) => {
          const lines = result.newDiagnostics.flatMap((entry) => entry.diagnostics.map((diagnostic) => diagnosticLine(entry.path, diagnostic)));
          return answer('edit_file', `${result.path} written (version ${result.version}); ${diagnosticsState(result, lines.length)}`, lines, result);
        },
      );
    },
  );

  server.registerTool(
    'definition',
    {
      description:
        'Where a symbol is defined, through the code graph (a reference at path:line:column resolves through scope and imports), with how sure each answer is.',
      inputSchema: target,
    },
    (args) =>
      graphCall<DefinitionResult>(Methods.definition, args, {}, (result) =>
        answer(
          'definition',
          `${result.definitions.length} definitions`,
          result.definitions.map((symbol) => `${symbolLine(symbol)}  ${symbol.signature}${symbol.confidence === 'exact' ? '' : `  (${symbol.confidence})`}`),
          result,
        ),
      ),
  );

  server.registerTool(
    'symbols',
    {
      description: 'Definitions by fuzzy name across the workspace (exact, prefix, initials like gU for getUser, substring), from the code graph.',
      inputSchema: {
        query: z.string().describe('The name, or part of it; empty lists all'),
        kinds: z.array(z.string()).optional().describe('only these kinds: function, method, class, interface, type, constant, macro, …'),
        glob: z.array(z.string()).optional().describe(globHelp),
        limit: z.number().int().positive().max(10_000).optional().describe('per root (default 100)'),
        root,
        roots,
      },
    },
    (args) =>
      searchCall<SymbolsResult>(
        'symbols',
        Methods.symbols,
        { query: args.query, ...(args.kinds ? { kinds: args.kinds } : {}), ...(args.glob ? { glob: args.glob } : {}), limit: args.limit ?? 100 },
        args,
        (result) => ({
          summary: `${result.symbols.length} symbols${result.truncated ? ' (truncated)' : ''}${buildingNote(result.building) ? `; ${buildingNote(result.building)}` : ''}`,
          lines: result.symbols.map((symbol) => `${symbolLine(symbol)}  ${symbol.signature}`),
        }),
      ),
  );

  server.registerTool(
    'outline',
    {
      description: "A file's definitions as a tree (fresh to unsaved editor buffers).",
      inputSchema: { path: z.string().describe('Absolute, or relative to the workspace root'), root },
    },
    (args) =>
      call<OutlineResult>(Methods.outline, { root: args.root ?? defaultRoot, path: path.resolve(args.root ?? defaultRoot, args.path) }, (result) =>
        answer(
          'outline',
          `${result.path} (${result.language ?? 'no grammar'}): ${result.symbols.length} top-level definitions`,
          outlineLines(result.path, result.symbols),
          result,
        ),
      ),
  );

  for (const [tool, method, what] of [
    ['callers', Methods.callers, 'Who calls a symbol'],
    ['callees', Methods.callees, 'What a symbol calls'],
  ] as const) {
    server.registerTool(
      tool,
      {
        description: `${what}, through the code graph, breadth first to a depth, each with the weakest edge's confidence and its call sites.`,
        inputSchema: {
          ...target,
          depth: z.number().int().min(1).max(10).optional().describe('steps to follow (default 1)'),
          limit: z.number().int().positive().optional(),
          min_confidence: confidence,
        },
      },
      (args) =>
        graphCall<CallersResult | CalleesResult>(
          method,
          args,
          {
            ...(args.depth ? { depth: args.depth } : {}),
            ...(args.limit ? { limit: args.limit } : {}),
            ...(args.min_confidence ? { minConfidence: args.min_confidence } : {}),
          },
          (result) => {
            const entries = 'callers' in result ? result.callers : result.callees;
            const unresolved =
              'unresolved' in result && result.unresolved.length > 0
                ? [`outside the workspace: ${result.unresolved.map((entry) => `${entry.name} ×${entry.count}`).join(', ')}`]
                : [];
            const summary =
              result.symbols.length === 0
                ? `nothing found for ${args.symbol ?? `${args.path}:${args.line}`}`
                : `${entries.length} ${tool} of ${symbolsOf(result)}${result.truncated ? ' (stopped at the limit: nothing further was followed)' : ''}`;
            return answer(tool, summary, [...entries.map(relatedLine), ...unresolved], result);
          },
        ),
    );
  }

  server.registerTool(
    'references',
    {
      description: 'Every reference to a symbol through the code graph, each with how sure the edge is (exact: scope or import; unique; name-only).',
      inputSchema: { ...target, min_confidence: confidence },
    },
    (args) =>
      graphCall<ReferencesResult>(Methods.references, args, { ...(args.min_confidence ? { minConfidence: args.min_confidence } : {}) }, (result) =>
        answer(
          'references',
          `${result.references.length} references to ${result.symbols.length} definitions${result.truncated ? ' (truncated)' : ''}`,
          result.references.map(
            (reference) =>
              `${reference.path}:${reference.range.start.line}:${reference.range.start.column}: ${reference.text} (${reference.kind}, ${reference.confidence})`,
          ),
          result,
        ),
      ),
  );

  server.registerTool(
    'impact',
    {
      description: 'The blast radius of a symbol: what depends on it through the code graph, nearest first, with counts by distance.',
      inputSchema: { ...target, depth: z.number().int().min(1).max(10).optional() },
    },
    (args) =>
      graphCall<ImpactResult>(Methods.impact, args, { depth: args.depth ?? 3 }, (result) =>
        answer(
          'impact',
          `${result.impacted.length} dependents (${result.byDistance.map((level) => `distance ${level.distance}: ${level.symbols} symbols in ${level.files} files`).join('; ')})${result.truncated ? ' (truncated)' : ''}`,
          result.impacted.map(
            (entry) =>
              `${entry.distance} ${entry.path}${entry.symbol ? `:${entry.symbol.selectionRange.start.line} ${[...entry.symbol.container, entry.symbol.name].join('.')}` : ' (top level)'} (${entry.confidence})`,
          ),
          result,
        ),
      ),
  );

  server.registerTool(
    'structural_rewrite',
    {
      description:
        'Step 1 of a structural rewrite: stage it and preview it. Matches the pattern (metavariables $X, $$$X) and replaces each match with the rewrite (using the same metavariables); nothing is written. Answers a plan id and the unified diff; apply_rewrite writes it (refused if a file changed meanwhile), discard_rewrite drops it.',
      inputSchema: {
        pattern: z.string(),
        rewrite: z.string().describe("The replacement, with the pattern's metavariables"),
        language: z.string().describe('typescript, python, go, rust, c, … or an extension'),
        glob: z.array(z.string()).optional().describe(globHelp),
        root,
      },
    },
    (args) =>
      call<StructuralRewriteResult>(
        Methods.structuralRewrite,
        { root: args.root ?? defaultRoot, pattern: args.pattern, rewrite: args.rewrite, language: args.language, ...(args.glob ? { glob: args.glob } : {}) },
        (result) => {
          const skipped = result.skipped.map((entry) => `skipped ${entry.path}: ${entry.reason}`);
          const summary =
            result.token === null
              ? `nothing would change (${result.count} matches)`
              : `plan ${result.token}: ${result.count} changes in ${result.files.length} files (until ${result.expiresAt}); apply_rewrite with this plan writes them`;
          return answer('structural_rewrite', summary, [...skipped, ...result.diff.split('\n')], result);
        },
      ),
  );

  server.registerTool(
    'apply_rewrite',
    {
      description:
        'Step 2 of a structural rewrite: write a staged plan (its id from structural_rewrite). Refused, writing nothing, when any of its files changed since it was staged.',
      inputSchema: { plan: z.string() },
    },
    (args) =>
      call<ApplyRewriteResult>(Methods.applyRewrite, { token: args.plan }, (result) =>
        text(`${result.written.length} files written: ${result.written.join(', ')}`),
      ),
  );

  server.registerTool(
    'discard_rewrite',
    { description: 'Drop a staged structural rewrite without writing anything.', inputSchema: { plan: z.string() } },
    (args) =>
      call<DiscardRewriteResult>(Methods.discardRewrite, { token: args.plan }, (result) =>
        text(result.discarded ? 'discarded' : 'no such plan (applied, discarded or expired)'),
      ),
  );

  server.registerTool(
    'diagnostics',
    {
      description:
        "The file's diagnostics from the project's language server that this conversation has not been told of yet (after an edit made elsewhere, for instance).",
      inputSchema: {
        path: z.string().describe('Absolute, or relative to the workspace root'),
        conversation: z.string().optional().describe('default: mcp'),
        root,
      },
    },
    (args) =>
      call<EditFileResult>(
        Methods.newDiagnostics,
        { root: args.root ?? defaultRoot, path: path.resolve(args.root ?? defaultRoot, args.path), conversation: args.conversation ?? 'mcp' },
        (result) => {
          const lines = result.newDiagnostics.flatMap((entry) => entry.diagnostics.map((diagnostic) => diagnosticLine(entry.path, diagnostic)));
          return answer('diagnostics', `${result.path}: ${diagnosticsState(result, lines.length)}`, lines, result);
        },
      ),
  );

  registerDebugTools();
  if (teamConfigured()) registerTeamTools();

  server.registerTool(
    'status',
    {
      description:
        "The workspace's file set and each index's state, size, build time and lag (files still to do while one builds), as `fathom status` prints it.",
      inputSchema: { root },
    },
    (args) =>
      call<StatusResult>(Methods.status, { root: args.root ?? defaultRoot }, (result) =>
        text(result.workspaces.map(describeWorkspace).join('\n\n') || 'no open workspace'),
      ),
  );

  /**
   * The team store (fathom/team*), registered when the server was started with FATHOM_TEAM_URL and
   * FATHOM_TEAM_KEY (as the CLI's team commands read them; the password from PGPASSWORD or
   * ~/.pgpass): what the store holds of a workspace, a push, a join.
   */
  function registerTeamTools(): void {
    const teamCall = <R>(method: string, args: { root?: string | undefined }, render: (result: R) => string): Promise<ToolAnswer> =>
      call<R>(method, teamStoreParams(args.root ?? defaultRoot), (result) => text(render(result)));
    server.registerTool(
      'team_status',
      {
        description:
          "What the team store holds of the workspace's files, its nearest snapshot (Hamming distance of the trees' simhashes), and what of its semantic index came from the store.",
        inputSchema: { root },
      },
      (args) => teamCall<TeamStatusResult>(Methods.teamStatus, args, teamStatusLines),
    );
    server.registerTool(
      'team_push',
      {
        description:
          "Upload what the team store lacks of the workspace's semantic index: vectors and files' records, paths masked under the team key, no source text (builds the index first when it is not built).",
        inputSchema: { root },
      },
      (args) => teamCall<TeamPushResult>(Methods.teamPush, args, pushLine),
    );
    server.registerTool(
      'team_join',
      {
        description:
          "Fill the workspace's semantic index, when it holds nothing yet, from the team store: the records and vectors of the files whose content this clone holds; the rest is embedded here in the background.",
        inputSchema: { root },
      },
      (args) => teamCall<TeamJoinResult>(Methods.teamJoin, args, joinLine),
    );
  }

  /**
   * The debugger (fathom/debug*): one live session per conversation (default `mcp`), living in the
   * daemon between calls. Paths are absolute or relative to the workspace root.
   */
  function registerDebugTools(): void {
    const conversation = z.string().optional().describe('The session belongs to this conversation (default: mcp); one live session each');
    const owner = (args: { conversation?: string | undefined }): { conversation: string } => ({ conversation: args.conversation ?? 'mcp' });
    const state = (result: DebugStateResult): ToolAnswer => text(describeDebugState(result));
    server.registerTool(
      'debug_launch',
      {
        description:
          'Start a program under a real debugger (Python: debugpy; C/C++ built with -g: lldb; Go: delve) and answer its first stop: frames with locals, output. One live session per conversation; debug_terminate ends it.',
        inputSchema: {
          program: z.string().describe('A .py file, an ELF binary, a .go file or package folder; absolute or relative to the root'),
          args: z.array(z.string()).optional(),
          cwd: z.string().optional().describe("default: the program's folder"),
          breakpoints: z.array(z.object({ path: z.string(), line: z.number().int().positive(), condition: z.string().optional() })).optional(),
          stop_on_entry: z.boolean().optional(),
          conversation,
        },
      },
      (args) =>
        call<DebugStateResult>(
          Methods.debugLaunch,
          {
            program: path.resolve(defaultRoot, args.program),
            ...(args.args ? { args: args.args } : {}),
            ...(args.cwd ? { cwd: path.resolve(defaultRoot, args.cwd) } : {}),
            breakpoints: (args.breakpoints ?? []).map((entry) => ({ ...entry, path: path.resolve(defaultRoot, entry.path) })),
            stopOnEntry: args.stop_on_entry ?? false,
            ...owner(args),
          },
          state,
        ),
    );
    server.registerTool(
      'debug_state',
      {
        description: "The session's state now: phase, frames (with the top frame's locals), output.",
        inputSchema: { frames: z.number().int().positive().optional(), conversation },
      },
      (args) => call<DebugStateResult>(Methods.debugState, { ...(args.frames ? { frames: args.frames } : {}), ...owner(args) }, state),
    );
    server.registerTool(
      'debug_eval',
      {
        description: 'Evaluate an expression in the stopped program (default: the top frame).',
        inputSchema: { expression: z.string(), frame_id: z.number().int().optional(), conversation },
      },
      (args) =>
        call<DebugEvaluateResult>(
          Methods.debugEvaluate,
          { expression: args.expression, ...(args.frame_id === undefined ? {} : { frameId: args.frame_id }), ...owner(args) },
          (result) => text(`${result.value}${result.type ? `  (${result.type})` : ''}${result.truncated ? ' (truncated)' : ''}`),
        ),
    );
    server.registerTool(
      'debug_step',
      { description: 'Step in, over or out, and answer the next stop.', inputSchema: { kind: z.enum(['in', 'over', 'out']), conversation } },
      (args) => call<DebugStateResult>(Methods.debugStep, { kind: args.kind, ...owner(args) }, state),
    );
    server.registerTool(
      'debug_continue',
      { description: 'Run to the next breakpoint or the end, and answer that stop (or the exit code and output).', inputSchema: { conversation } },
      (args) => call<DebugStateResult>(Methods.debugContinue, owner(args), state),
    );
    server.registerTool(
      'debug_break',
      {
        description: "Set a file's breakpoints (replacing its others; no lines clears them).",
        inputSchema: { path: z.string(), lines: z.array(z.number().int().positive()), conversation },
      },
      (args) =>
        call<DebugStateResult>(
          Methods.debugSetBreakpoints,
          { path: path.resolve(defaultRoot, args.path), breakpoints: args.lines.map((line) => ({ line })), ...owner(args) },
          state,
        ),
    );
    server.registerTool('debug_terminate', { description: 'End the session and its program.', inputSchema: { conversation } }, (args) =>
      call<{ session: string; terminated: boolean }>(Methods.debugTerminate, owner(args), (result) => text(`${result.session} terminated`)),
    );
  }

  await server.connect(new StdioServerTransport());
  // Until the agent closes the connection (or stdin), or the daemon goes away.
  try {
    await Promise.race([
      new Promise<void>((resolve) => {
        server.server.onclose = () => resolve();
        process.stdin.once('end', () => resolve());
      }),
      options.lost,
    ]);
  } catch (error) {
    // The calls that were waiting answer the error first; their answers are written before the server closes.
    await Promise.allSettled([...inFlight]);
    await new Promise((resolve) => setImmediate(resolve));
    throw error;
  } finally {
    await server.close();
  }
}
