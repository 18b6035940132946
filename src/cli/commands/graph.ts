// `fathom def|refs|callers|callees|impact TARGET [PATH]`: the code graph around a symbol named by
// a position, a line, or its name. refs prints every reference unless --limit (page by page);
// the others one answer, said on stderr when the walk stopped at its limit. Exit 1 when none.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Methods, type CalleesResult, type CallersResult, type DefinitionResult, type ImpactResult, type ReferencesResult } from '../../protocol/methods.js';
import { referenceLine, relatedLine, symbolLine } from '../answer-lines.js';
import { existingFile, fileParams, noMoreArguments, print, request, wholeNumber, withClient, workspaceAround } from '../client.js';
import { clientOptions, type Command } from '../command.js';
import { eachPage } from '../pages.js';
import { UsageError } from '../usage-error.js';
import { implicitRoot } from '../workspace-root.js';

const methods = {
  def: Methods.definition,
  refs: Methods.references,
  callers: Methods.callers,
  callees: Methods.callees,
  impact: Methods.impact,
} as const;

type GraphCommand = keyof typeof methods;

const options = {
  ...clientOptions,
  depth: { type: 'string' },
  limit: { type: 'string' },
  'min-confidence': { type: 'string' },
} as const;

/**
 * The params that name a graph command's target: a position, the definition around a line, or a
 * symbol name. FILE:LINE[:COL] always names a position (no symbol name ends in :digits): a FILE
 * that does not exist is an error, not a name to look up.
 */
function targetParams(target: string, pathArgument: string | undefined): Record<string, unknown> {
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

export const command: Command = {
  usage: `  def TARGET [PATH]                   where the symbol at TARGET is defined
  refs TARGET [PATH] [--limit N]      every reference to it, with how sure each edge is
  callers TARGET [PATH] [--depth N]   who calls it (transitively to depth N, default 1)
  callees TARGET [PATH] [--depth N]   whom it calls, and the calls that leave the workspace
  impact TARGET [PATH] [--depth N]    its blast radius: what depends on it, nearest first
                                      TARGET: FILE:LINE:COL (a position), FILE:LINE (the definitions
                                      on that line), or a symbol name; --min-confidence
                                      exact|unique|name-only follows only edges that sure`,
  async run(name, args) {
    const command = name as GraphCommand;
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options });
    const [target, pathArgument, ...extra] = positionals;
    if (target === undefined) throw new UsageError(`${command} needs a TARGET (FILE:LINE:COL, FILE:LINE or a symbol name)`);
    noMoreArguments(extra);
    if (command === 'def' && (values.depth !== undefined || values.limit !== undefined || values['min-confidence'] !== undefined))
      throw new UsageError('def takes no --depth, --limit or --min-confidence');
    if (command === 'refs' && values.depth !== undefined) throw new UsageError('refs takes no --depth (references are one step)');
    const json = values.json === true;
    const depth = wholeNumber('--depth', values.depth, 1);
    const limit = wholeNumber('--limit', values.limit, 1);
    const params = {
      ...targetParams(target, pathArgument),
      ...(depth === undefined ? {} : { depth }),
      ...(limit === undefined ? {} : { limit }),
      ...(values['min-confidence'] === undefined ? {} : { minConfidence: values['min-confidence'] }),
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
            const lines = result.references.map(referenceLine);
            if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
          },
        });
        found = done.shown > 0;
        if (done.capped)
          process.stderr.write(`fathom: stopped after ${done.shown} reference${done.shown === 1 ? '' : 's'} (--limit ${limit}); there are more\n`);
        if (json && merged) {
          const { next: _next, ...whole } = merged;
          print({ ...whole, truncated: done.capped });
        }
      });
      return found ? 0 : 1;
    }
    await withClient(values, async ({ connection }) => {
      const result = await request<DefinitionResult | CallersResult | CalleesResult | ImpactResult>(connection, methods[command], params, true);
      if ('definitions' in result) {
        found = result.definitions.length > 0;
        if (json) return print(result);
        for (const symbol of result.definitions)
          print(`${symbolLine(symbol)}  ${symbol.signature}${symbol.confidence === 'exact' ? '' : `  (${symbol.confidence})`}`);
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
  },
};
