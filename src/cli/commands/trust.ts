// `fathom trust [PATH] | untrust [PATH]`: let a workspace run code it ships, or stop.
import { parseArgs } from 'node:util';
import { Methods, type TrustResult } from '../../protocol/methods.js';
import { noMoreArguments, print, request, withClient } from '../client.js';
import { clientOptions, type Command } from '../command.js';
import { rootOf } from '../workspace-root.js';

export const command: Command = {
  usage: `  trust [PATH] | untrust [PATH]       let a workspace run code it ships (its node_modules/.bin
                                      language servers, its TypeScript, build scripts), or stop;
                                      untrusted (the default), only Fathom's own or configured
                                      servers run, and edits say what was declined`,
  async run(name, args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: clientOptions });
    const [target, ...extra] = positionals;
    noMoreArguments(extra);
    const root = rootOf(target);
    await withClient(values, async ({ connection }) => {
      const result = await request<TrustResult>(connection, Methods.trust, { path: root, trusted: name === 'trust' }, true);
      print(
        values.json
          ? result
          : `${result.path}: ${result.trusted ? 'trusted: its own language servers, TypeScript and build scripts may run' : "not trusted: only Fathom's own or your configured language servers run"}${result.trustsAll ? ' (FATHOM_TRUST_ALL=1 trusts every workspace)' : ''}`,
      );
    });
    return 0;
  },
};
