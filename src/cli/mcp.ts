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
import { Methods, type CodeSearchResult, type EditFileResult, type GrepResult, type ImpactResult, type ReferencesResult, type StatusResult, type StructuralSearchResult } from '../protocol/methods.js';
import { buildingNote } from './building-note.js';
import type { RpcClient } from './rpc-client.js';

/** Answers longer than this (characters) go to a file. */
const inlineLimit = 24_000;
/** Results listed in an answer. */
const shownResults = 60;

/** What an agent needs to know about globs (docs/protocol.md, "Globs"). */
const globHelp = 'ripgrep -g globs over workspace-relative paths: "*.ts" matches in every folder, "src/**" what is under src, "!test" leaves a folder out; the last matching glob decides';

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
        max_results: z.number().int().positive().optional(),
        root,
      },
    },
    (args) =>
      call<GrepResult>(
        Methods.grep,
        { root: args.root ?? defaultRoot, pattern: args.pattern, ...(args.fixed_strings ? { fixedStrings: true } : {}), ...(args.ignore_case ? { ignoreCase: true } : {}), ...(args.glob ? { glob: args.glob } : {}), maxResults: args.max_results ?? 1000 },
        (result) => answer('grep', `${result.total} matches in ${result.files} files${result.truncated ? ` (the first ${result.matches.length} kept)` : ''}`, grepLines(result), result),
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
        max_results: z.number().int().positive().optional(),
        root,
      },
    },
    (args) =>
      call<CodeSearchResult>(
        Methods.codeSearch,
        { root: args.root ?? defaultRoot, query: args.query, ...(args.mode ? { mode: args.mode } : {}), ...(args.glob ? { glob: args.glob } : {}), maxResults: args.max_results ?? 20, maxInlineBytes: 0 },
        (result) =>
          answer(
            'code_search',
            `${result.total} hits (${result.route}: ${result.reason})${result.truncated ? ' (truncated)' : ''}${buildingNote(result.building) ? `; ${buildingNote(result.building)}` : ''}`,
            result.hits.map((hit) =>
              hit.start === hit.end && hit.column !== undefined
                ? `${hit.path}:${hit.start}:${hit.column}:${hit.snippet}`
                : `${hit.path}:${hit.start}-${hit.end}${hit.symbol ? ` ${hit.symbol.kind} ${[...hit.symbol.container, hit.symbol.name].join('.')}` : ''}\n${hit.snippet
                    .split('\n')
                    .map((line, at) => `  ${hit.snippetStart + at}  ${line}`)
                    .join('\n')}`,
            ),
            result,
          ),
      ),
  );

  server.registerTool(
    'structural_search',
    {
      description: 'Structural search: code in the target language with metavariables ($X one node, $$$X any number), matched on the syntax tree (whitespace, comments and strings do not confuse it).',
      inputSchema: { pattern: z.string(), language: z.string().describe('typescript, python, go, rust, c, … or an extension'), max_results: z.number().int().positive().optional(), root },
    },
    (args) =>
      call<StructuralSearchResult>(Methods.structuralSearch, { root: args.root ?? defaultRoot, pattern: args.pattern, language: args.language, maxResults: args.max_results ?? 500 }, (result) =>
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
      description: 'Write a file (its whole new text, or a unified diff applied to it) and answer only the diagnostics the edit introduced, from the project\'s language server.',
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
        let current = '';
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
      return call<EditFileResult>(Methods.writeFile, { root: workspaceRoot, path: absolute, text: newText, conversation: args.conversation ?? 'mcp' }, (result) => {
        const lines = result.newDiagnostics.flatMap((entry) => entry.diagnostics.map((diagnostic) => `${entry.path}:${diagnostic.range.start.line + 1}:${diagnostic.range.start.character + 1}: ${diagnostic.message.split('\n')[0]}`));
        const state = result.status === 'ok' ? `${lines.length} new diagnostics` : `diagnostics unknown: ${result.status}${result.reason ? ` (${result.reason})` : ''}`;
        return answer('edit_file', `${result.path} written (version ${result.version}); ${state}${result.notice ? `\n${result.notice}` : ''}`, lines, result);
      });
    },
  );

  server.registerTool(
    'references',
    {
      description: 'Every reference to a symbol through the code graph, each with how sure the edge is (exact: scope or import; unique; name-only).',
      inputSchema: { symbol: z.string().describe('A name, or Container.name'), min_confidence: z.enum(['exact', 'unique', 'name-only']).optional(), root },
    },
    (args) =>
      call<ReferencesResult>(Methods.references, { root: args.root ?? defaultRoot, symbol: args.symbol, ...(args.min_confidence ? { minConfidence: args.min_confidence } : {}) }, (result) =>
        answer(
          'references',
          `${result.references.length} references to ${result.symbols.length} definitions${result.truncated ? ' (truncated)' : ''}`,
          result.references.map((reference) => `${reference.path}:${reference.range.start.line}:${reference.range.start.column}: ${reference.text} (${reference.kind}, ${reference.confidence})`),
          result,
        ),
      ),
  );

  server.registerTool(
    'impact',
    {
      description: 'The blast radius of a symbol: what depends on it through the code graph, nearest first, with counts by distance.',
      inputSchema: { symbol: z.string(), depth: z.number().int().min(1).max(10).optional(), root },
    },
    (args) =>
      call<ImpactResult>(Methods.impact, { root: args.root ?? defaultRoot, symbol: args.symbol, depth: args.depth ?? 3 }, (result) =>
        answer(
          'impact',
          `${result.impacted.length} dependents (${result.byDistance.map((level) => `distance ${level.distance}: ${level.symbols} symbols in ${level.files} files`).join('; ')})${result.truncated ? ' (truncated)' : ''}`,
          result.impacted.map((entry) => `${entry.distance} ${entry.path}${entry.symbol ? `:${entry.symbol.selectionRange.start.line} ${[...entry.symbol.container, entry.symbol.name].join('.')}` : ' (top level)'} (${entry.confidence})`),
          result,
        ),
      ),
  );

  server.registerTool(
    'status',
    { description: "The workspace's file set, index states and language servers.", inputSchema: { root } },
    (args) =>
      call<StatusResult>(Methods.status, { root: args.root ?? defaultRoot }, (result) =>
        text(result.workspaces.map((workspace) => `${workspace.root}: ${workspace.state}, ${workspace.files} files; indexes ${Object.entries(workspace.indexes).map(([name, state]) => `${name} ${state}`).join(', ')}`).join('\n') || 'no open workspace'),
      ),
  );

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
