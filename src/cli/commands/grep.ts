// `fathom grep PATTERN [PATH]...`: regex search through the index with ripgrep's flags and output,
// every matching line unless --max (page by page, each printed as it arrives); PATHs narrow one
// workspace or ask several (scope.ts). Exit 1 when nothing matched, as grep and ripgrep.
import { parseArgs } from 'node:util';
import { Methods, type GrepResult } from '../../protocol/methods.js';
import { globParam, openRoots, request, wholeNumber, withClient, workspaceAround } from '../client.js';
import { clientOptions, globOptions, type Command } from '../command.js';
import { GrepPrinter } from '../grep-output.js';
import { eachPage } from '../pages.js';
import { labelled, rootLabel, scopeOf } from '../scope.js';
import { UsageError } from '../usage-error.js';
import { implicitRoot } from '../workspace-root.js';

const options = {
  ...clientOptions,
  ...globOptions,
  all: { type: 'boolean' },
  'fixed-strings': { type: 'boolean', short: 'F' },
  'ignore-case': { type: 'boolean', short: 'i' },
  'word-regexp': { type: 'boolean', short: 'w' },
  multiline: { type: 'boolean', short: 'U' },
  type: { type: 'string', short: 't', multiple: true },
  'after-context': { type: 'string', short: 'A' },
  'before-context': { type: 'string', short: 'B' },
  context: { type: 'string', short: 'C' },
  max: { type: 'string' },
} as const;

export const command: Command = {
  usage: `  grep PATTERN [PATH]... [--all] [-F] [-i] [-w] [-U] [-g GLOB]... [-t LANG]... [-A N] [-B N] [-C N] [--max N]
                                      regex search through the index, ripgrep's output and flags`,
  async run(_name, args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options });
    const [pattern, ...targets] = positionals;
    if (pattern === undefined) throw new UsageError('grep needs a PATTERN');
    // PATH narrows the search inside its workspace rather than opening a workspace of its own;
    // PATHs in several workspaces (or --all) search each, one after the other.
    const where = scopeOf(targets, values.all === true, () => workspaceAround(implicitRoot(process.cwd())));
    const max = wholeNumber('--max', values.max);
    const context = wholeNumber('-C', values.context);
    const before = wholeNumber('-B', values['before-context']);
    const after = wholeNumber('-A', values['after-context']);
    const json = values.json === true;
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
  },
};
