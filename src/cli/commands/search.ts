// `fathom search QUERY [PATH]...`: code search (words ranked over whole chunks, an identifier's
// definitions then uses, a regex, or code as written); PATHs narrow one workspace or ask several,
// their hits interleaved by rank. Exit 1 when nothing was found.
import { parseArgs } from 'node:util';
import { Methods, type CodeSearchResult } from '../../protocol/methods.js';
import { buildingNote } from '../building-note.js';
import { ask, globParam, wholeNumber, withClient, workspaceAround } from '../client.js';
import { clientOptions, globOptions, type Command } from '../command.js';
import { labelled, rootLabel, scopeOf } from '../scope.js';
import { UsageError } from '../usage-error.js';
import { implicitRoot } from '../workspace-root.js';

const options = {
  ...clientOptions,
  ...globOptions,
  all: { type: 'boolean' },
  mode: { type: 'string' },
  type: { type: 'string', short: 't', multiple: true },
  max: { type: 'string' },
  'ignore-case': { type: 'boolean', short: 'i' },
} as const;

/** Ranked lists of several roots as one: each root's first, then each root's second, and so on (ranks, unlike scores, compare across corpora). */
function byRank<T>(lists: T[][]): T[] {
  const out: T[] = [];
  for (let rank = 0; lists.some((list) => rank < list.length); rank++) for (const list of lists) if (rank < list.length) out.push(list[rank]!);
  return out;
}

export const command: Command = {
  usage: `  search QUERY [PATH]... [--all] [--mode M] [-g GLOB]... [-t LANG]... [--max N] [-i]
                                      code search: words ranked over whole chunks, an identifier's
                                      definitions then uses, a regex, or code as written (--mode
                                      auto|lexical|regex|literal; semantic|hybrid need a model);
                                      --json: one JSON object per hit`,
  async run(_name, args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options });
    const [query, ...targets] = positionals;
    if (query === undefined) throw new UsageError('search needs a QUERY');
    // PATH narrows the search inside its workspace (and -g globs narrow it further); PATHs in
    // several workspaces (or --all) ask each, the hits interleaved by rank.
    const where = scopeOf(targets, values.all === true, () => workspaceAround(implicitRoot(process.cwd())));
    const max = wholeNumber('--max', values.max, 1);
    let found = false;
    await withClient(values, async ({ connection }) => {
      const params = {
        query,
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
      if (values.json) {
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
  },
};
