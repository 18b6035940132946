// `fathom stop`: stops the running daemon (never starts one to stop it).
import { parseArgs } from 'node:util';
import { Methods } from '../../protocol/methods.js';
import { noMoreArguments, print, socketOf } from '../client.js';
import type { Command } from '../command.js';
import { connectToDaemon } from '../connect.js';

export const command: Command = {
  usage: `  stop                                stop the running daemon`,
  async run(_name, args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' }, socket: { type: 'string' } } });
    noMoreArguments(positionals);
    const client = await connectToDaemon(socketOf(values), { autoStart: false });
    if (!client) {
      print(values.json ? { stopped: false, reason: 'no daemon running' } : 'no daemon running');
      return 0;
    }
    await client.connection.sendRequest(Methods.stop);
    await client.close();
    print(values.json ? { stopped: true } : 'stopped');
    return 0;
  },
};
