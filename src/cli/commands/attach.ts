// `fathom attach`: joins stdin/stdout to the user's daemon (started if needed), an editor's LSP
// command that shares the one daemon. Nothing but the daemon's frames may go to stdout.
import { parseArgs } from 'node:util';
import { noMoreArguments, socketOf } from '../client.js';
import type { Command } from '../command.js';
import { attachStdio } from '../connect.js';

export const command: Command = {
  usage: `  attach [--socket PATH]              join stdin/stdout to the user's daemon (started if needed):
                                      an editor's LSP command that shares the one daemon`,
  async run(_name, args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { socket: { type: 'string' } } });
    noMoreArguments(positionals);
    await attachStdio(socketOf(values));
    return 0;
  },
};
