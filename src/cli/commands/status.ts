// `fathom status [PATH] [--all]`: a workspace's file set, skipped files, index states and lag.
import { parseArgs } from 'node:util';
import { Methods, type StatusResult } from '../../protocol/methods.js';
import { describeWorkspace } from '../answer-lines.js';
import { noMoreArguments, print, request, withClient } from '../client.js';
import { clientOptions, type Command } from '../command.js';
import { UsageError } from '../usage-error.js';
import { rootOf } from '../workspace-root.js';

export const command: Command = {
  usage: `  status [PATH] [--all]               a workspace's file set, skipped files, index states, lag`,
  async run(_name, args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { ...clientOptions, all: { type: 'boolean' } } });
    const [target, ...extra] = positionals;
    noMoreArguments(extra);
    if (values.all && target !== undefined) throw new UsageError('--all tells of every workspace the daemon holds: give no PATH with it');
    const params = values.all ? {} : { root: rootOf(target) };
    await withClient(values, async ({ connection }) => {
      const result = await request<StatusResult>(connection, Methods.status, params, false);
      if (values.json) print(values.all ? result : result.workspaces[0]);
      else print(result.workspaces.length === 0 ? 'no open workspaces' : result.workspaces.map(describeWorkspace).join('\n'));
    });
    return 0;
  },
};
