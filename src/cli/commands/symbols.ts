// `fathom symbols QUERY [PATH]...`: workspace symbols by fuzzy name, the best first across the
// roots asked (a limit always applies: a fuzzy query may match most names). Exit 1 when none.
import { parseArgs } from 'node:util';
import { Methods, type SymbolsResult } from '../../protocol/methods.js';
import { symbolLine } from '../answer-lines.js';
import { buildingNote } from '../building-note.js';
import { ask, globParam, print, wholeNumber, withClient, workspaceAround } from '../client.js';
import { clientOptions, globOptions, type Command } from '../command.js';
import { labelled, rootLabel, scopeOf } from '../scope.js';
import { UsageError } from '../usage-error.js';
import { implicitRoot } from '../workspace-root.js';

const options = {
  ...clientOptions,
  ...globOptions,
  all: { type: 'boolean' },
  kind: { type: 'string', multiple: true },
  limit: { type: 'string' },
} as const;

export const command: Command = {
  usage: `  symbols QUERY [PATH]... [--all] [--kind K]... [-g GLOB]... [--limit N]
                                      workspace symbols by fuzzy name (definitions from tags.scm)`,
  async run(_name, args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options });
    const [query, ...targets] = positionals;
    if (query === undefined) throw new UsageError('symbols needs a QUERY');
    const where = scopeOf(targets, values.all === true, () => workspaceAround(implicitRoot(process.cwd())));
    const limit = wholeNumber('--limit', values.limit, 1);
    let found = false;
    await withClient(values, async ({ connection }) => {
      const params = { query, ...(values.kind ? { kinds: values.kind } : {}), ...globParam(values), ...(limit === undefined ? {} : { limit }) };
      const answers = await ask<SymbolsResult>(connection, Methods.symbols, where, params);
      // The best-scored first across roots (a name's score does not depend on its workspace).
      const symbols = answers
        .flatMap(({ root, result }) => result.symbols.map((symbol) => ({ ...symbol, root, label: where.kind === 'one' ? '' : rootLabel(root) })))
        .sort((a, b) => (b.score ?? 0) - (a.score ?? 0) || a.name.length - b.name.length)
        .slice(0, limit ?? 100);
      found = symbols.length > 0;
      if (answers.some(({ result }) => result.truncated) || symbols.length < answers.reduce((sum, { result }) => sum + result.symbols.length, 0))
        process.stderr.write(
          `fathom: the best ${symbols.length} symbols (${limit === undefined ? 'the default limit' : `--limit ${limit}`}); more match: raise --limit (at most 10000) or narrow the query\n`,
        );
      if (values.json) return print(where.kind === 'one' ? answers[0]!.result : { answers: answers.map(({ root, result }) => ({ root, result })) });
      for (const { result } of answers) {
        const note = buildingNote(result.building);
        if (note) process.stderr.write(`fathom: ${note}\n`);
      }
      for (const symbol of symbols) print(`${symbolLine({ ...symbol, path: labelled(symbol.label, symbol.path) })}  ${symbol.signature}`);
    });
    return found ? 0 : 1;
  },
};
