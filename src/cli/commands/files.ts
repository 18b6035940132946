// `fathom files [PATH]`: the workspace's file set, one path per line (narrowed by -g globs).
import { parseArgs } from 'node:util';
import { Methods, type FilesResult } from '../../protocol/methods.js';
import { globParam, noMoreArguments, print, request, wholeNumber, withClient } from '../client.js';
import { clientOptions, globOptions, type Command } from '../command.js';
import { rootOf } from '../workspace-root.js';

export const command: Command = {
  usage: `  files [PATH] [-g GLOB]... [--limit N]   the file set, one path per line`,
  async run(_name, args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { ...clientOptions, ...globOptions, limit: { type: 'string' } } });
    const [target, ...extra] = positionals;
    noMoreArguments(extra);
    const root = rootOf(target);
    const limit = wholeNumber('--limit', values.limit);
    await withClient(values, async ({ connection }) => {
      const result = await request<FilesResult>(connection, Methods.files, { root, ...globParam(values), ...(limit === undefined ? {} : { limit }) }, true);
      if (values.json) print(result.files);
      else if (result.files.length > 0) process.stdout.write(`${result.files.join('\n')}\n`);
    });
    return 0;
  },
};
