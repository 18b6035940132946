// `fathom chunks FILE`: the syntax-aware chunks of a file with their context headers.
import { parseArgs } from 'node:util';
import { Methods, type ChunksResult } from '../../protocol/methods.js';
import { chunkLines } from '../answer-lines.js';
import { existingFile, fileParams, noMoreArguments, print, request, withClient } from '../client.js';
import { clientOptions, type Command } from '../command.js';
import { UsageError } from '../usage-error.js';

export const command: Command = {
  usage: `  chunks FILE [--budget N] [--no-text] the syntax-aware chunks of a file with their context headers`,
  async run(_name, args) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { ...clientOptions, budget: { type: 'string' }, 'no-text': { type: 'boolean' } },
    });
    const [file, ...extra] = positionals;
    if (file === undefined) throw new UsageError('chunks needs a FILE');
    noMoreArguments(extra);
    const absolute = existingFile(file);
    const budget = values.budget === undefined ? undefined : Number(values.budget);
    if (budget !== undefined && !(Number.isInteger(budget) && budget >= 64)) throw new UsageError('--budget takes a whole number of bytes (at least 64)');
    await withClient(values, async ({ connection }) => {
      const result = await request<ChunksResult>(
        connection,
        Methods.chunks,
        { ...fileParams(absolute), includeText: !values['no-text'], ...(budget === undefined ? {} : { budgetBytes: budget }) },
        true,
      );
      if (values.json) return print(result);
      for (const line of chunkLines(result)) print(line);
    });
    return 0;
  },
};
