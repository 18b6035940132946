// `fathom outline FILE`: a file's definitions as a tree.
import { parseArgs } from 'node:util';
import { Methods, type OutlineResult } from '../../protocol/methods.js';
import { outlineLines } from '../answer-lines.js';
import { existingFile, fileParams, noMoreArguments, print, request, withClient } from '../client.js';
import { clientOptions, type Command } from '../command.js';
import { UsageError } from '../usage-error.js';

export const command: Command = {
  usage: `  outline FILE                        a file's definitions as a tree`,
  async run(_name, args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: clientOptions });
    const [file, ...extra] = positionals;
    if (file === undefined) throw new UsageError('outline needs a FILE');
    noMoreArguments(extra);
    const absolute = existingFile(file);
    await withClient(values, async ({ connection }) => {
      const result = await request<OutlineResult>(connection, Methods.outline, fileParams(absolute), true);
      if (values.json) return print(result);
      for (const line of outlineLines(result.path, result.symbols)) print(line);
    });
    return 0;
  },
};
