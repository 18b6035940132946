// `fathom export [PATH] --out FILE [--key KEYFILE]`: the chunk ranking with every path masked and
// every term hashed, for a shared store.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Methods, type ExportIndexResult } from '../../protocol/methods.js';
import { humanBytes } from '../answer-lines.js';
import { noMoreArguments, print, request, withClient } from '../client.js';
import { clientOptions, type Command } from '../command.js';
import { UsageError } from '../usage-error.js';
import { rootOf } from '../workspace-root.js';

export const command: Command = {
  usage: `  export [PATH] --out FILE [--key KEYFILE]
                                      the chunk ranking with every path masked and every term
                                      hashed (your own key, or a team's), for a shared store`,
  async run(_name, args) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { ...clientOptions, out: { type: 'string' }, key: { type: 'string' } },
    });
    const [target, ...extra] = positionals;
    noMoreArguments(extra);
    if (values.out === undefined) throw new UsageError('export needs --out FILE');
    const root = rootOf(target);
    const out = path.resolve(values.out);
    await withClient(values, async ({ connection }) => {
      const result = await request<ExportIndexResult>(
        connection,
        Methods.exportIndex,
        { root, out, ...(values.key === undefined ? {} : { keyFile: path.resolve(values.key) }) },
        true,
      );
      print(
        values.json
          ? result
          : `${result.file}: ${result.files} files, ${result.chunks} chunks, ${result.terms} terms (${humanBytes(result.bytes)}), paths masked and terms hashed with key ${result.keyId}`,
      );
    });
    return 0;
  },
};
