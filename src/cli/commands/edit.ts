// `fathom edit FILE [--patch DIFF]` and `fathom diagnostics FILE`: write a file through the daemon
// (new content on stdin, or a unified diff applied to it) and print the diagnostics the edit
// introduced; or the diagnostics of FILE this conversation has not been told. Exit codes: 0
// nothing new, 1 new diagnostics, 3 diagnostics unknown, 2 an error.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Methods, type EditFileResult } from '../../protocol/methods.js';
import { diagnosticLine } from '../answer-lines.js';
import { existingFile, fileParams, noMoreArguments, print, request, withClient } from '../client.js';
import { clientOptions, type Command } from '../command.js';
import { UsageError } from '../usage-error.js';

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

export const command: Command = {
  usage: `  diagnostics FILE [--conversation ID]
                                      the diagnostics of FILE this conversation has not been told
                                      (for edits made elsewhere; exit codes as edit)
  edit FILE [--patch DIFF] [--conversation ID]
                                      write FILE (new content on stdin, or a unified diff applied
                                      to it) and print the diagnostics the edit introduced`,
  async run(name, args) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { ...clientOptions, conversation: { type: 'string' }, ...(name === 'edit' ? { patch: { type: 'string' } } : {}) },
    });
    const [file, ...extra] = positionals;
    if (file === undefined) throw new UsageError(`${name} needs a FILE`);
    noMoreArguments(extra);
    const json = values.json === true;
    let code = 0;
    if (name === 'diagnostics') {
      const where = fileParams(existingFile(file));
      await withClient(values, async ({ connection }) => {
        const result = await request<EditFileResult>(
          connection,
          Methods.newDiagnostics,
          { ...where, conversation: values.conversation ?? `cli:${where.root ?? where.path}` },
          true,
        );
        code = printDiagnostics(result, json, result.path);
      });
      return code;
    }
    const absolute = path.resolve(file);
    let newText: string;
    const patch = values.patch;
    if (typeof patch === 'string') {
      const current = fs.readFileSync(absolute, 'utf8');
      const { applyPatch } = await import('diff');
      const patched = applyPatch(current, fs.readFileSync(patch, 'utf8'));
      if (patched === false) throw new UsageError(`the patch ${patch} does not apply to ${file}`);
      newText = patched;
    } else {
      if (process.stdin.isTTY) throw new UsageError('edit reads the new content on stdin (or give --patch DIFF)');
      newText = fs.readFileSync(0, 'utf8');
    }
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
    return code;
  },
};
