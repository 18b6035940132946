// `fathom sg PATTERN [PATH]`: structural search (code with $X, $_, $$$X metavariables, or a
// --rule), every match unless --max; with --rewrite, the diff of a staged rewrite, written only
// with --apply. Exit 1 when nothing matched.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { errorMessage } from '../../base/errors.js';
import { Methods, type ApplyRewriteResult, type StructuralRewriteResult, type StructuralSearchResult } from '../../protocol/methods.js';
import { globParam, noMoreArguments, print, request, wholeNumber, withClient, workspaceAround } from '../client.js';
import { clientOptions, globOptions, type Command } from '../command.js';
import { eachPage } from '../pages.js';
import { UsageError } from '../usage-error.js';
import { repositoryRoot, rootOf } from '../workspace-root.js';

const options = {
  ...clientOptions,
  ...globOptions,
  lang: { type: 'string', short: 'l' },
  max: { type: 'string' },
  rule: { type: 'string' },
  rewrite: { type: 'string' },
  apply: { type: 'boolean' },
} as const;

export const command: Command = {
  usage: `  sg PATTERN [PATH] [--lang L] [-g GLOB]... [--max N] [--rule JSON] [--rewrite T [--apply]]
                                      structural search: code with $X, $_, $$$X metavariables;
                                      --rewrite prints the diff (nothing written), --apply writes it`,
  async run(_name, args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options });
    const rest = [...positionals];
    // The pattern comes first unless a --rule says what to find.
    const pattern = values.rule === undefined ? rest.shift() : undefined;
    if (values.rule === undefined && pattern === undefined) throw new UsageError('sg needs a PATTERN');
    const [target, ...extra] = rest;
    noMoreArguments(extra);
    // PATH (a file or folder) narrows the search inside its workspace, as for grep; a FILE in no
    // repository is searched on its own (no root: the daemon answers it alone).
    const scope = rootOf(target);
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
    const max = wholeNumber('--max', values.max);
    if (values.apply && values.rewrite === undefined) throw new UsageError('--apply needs --rewrite TEMPLATE');
    const json = values.json === true;
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
      const rewrite = values.rewrite;
      await withClient(values, async ({ connection }) => {
        const plan = await request<StructuralRewriteResult>(
          connection,
          Methods.structuralRewrite,
          { ...params, ...(max === undefined ? {} : { maxResults: max }), rewrite },
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
  },
};
