// `fathom index [PATH]`: indexes or refreshes a workspace, every index ready when it answers
// (a progress bar on a TTY), or at once with --no-wait.
import { parseArgs } from 'node:util';
import { Methods, type WorkspaceStatus } from '../../protocol/methods.js';
import { describeWorkspace } from '../answer-lines.js';
import { noMoreArguments, print, request, withClient } from '../client.js';
import { clientOptions, type Command } from '../command.js';
import { rootOf } from '../workspace-root.js';

export const command: Command = {
  usage: `  index [PATH] [--no-wait]            index or refresh a workspace, waiting with a progress bar`,
  async run(_name, args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { ...clientOptions, 'no-wait': { type: 'boolean' } } });
    const [target, ...extra] = positionals;
    noMoreArguments(extra);
    const root = rootOf(target);
    await withClient(values, async ({ connection }) => {
      const status = await request<WorkspaceStatus>(connection, Methods.index, { root, wait: !values['no-wait'] }, true);
      print(values.json ? status : describeWorkspace(status));
    });
    return 0;
  },
};
