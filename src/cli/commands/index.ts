// `fathom index [PATH]`: indexes or refreshes a workspace, every index ready when it answers
// (a progress bar on a TTY), or at once with --no-wait. With a team store configured
// (team-settings.ts) and unless --no-team, it first fills an unindexed workspace's semantic index
// from the store (fathom/teamJoin); a store that fails is said on stderr and indexing goes on here.
import { parseArgs } from 'node:util';
import { errorMessage } from '../../base/errors.js';
import { Methods, type TeamJoinResult, type WorkspaceStatus } from '../../protocol/methods.js';
import { describeWorkspace, joinLine } from '../answer-lines.js';
import { noMoreArguments, print, request, withClient } from '../client.js';
import { clientOptions, type Command } from '../command.js';
import { teamConfigured, teamStoreParams } from '../team-settings.js';
import { rootOf } from '../workspace-root.js';

export const command: Command = {
  usage: `  index [PATH] [--no-wait] [--no-team] index or refresh a workspace, waiting with a progress bar
                                      (a team store configured: its vectors first, see team join)`,
  async run(_name, args) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { ...clientOptions, 'no-wait': { type: 'boolean' }, 'no-team': { type: 'boolean' } },
    });
    const [target, ...extra] = positionals;
    noMoreArguments(extra);
    const root = rootOf(target);
    await withClient(values, async ({ connection }) => {
      // A join waits for the file set and the store: not what --no-wait asks for (said, not hidden).
      if (teamConfigured() && !values['no-team'] && values['no-wait'])
        process.stderr.write('fathom: --no-wait does not ask the team store (fathom team join does)\n');
      else if (teamConfigured() && !values['no-team']) {
        try {
          const joined = await request<TeamJoinResult>(connection, Methods.teamJoin, teamStoreParams(root), true);
          if (!joined.alreadyIndexed) process.stderr.write(`fathom: ${joinLine(joined)}\n`);
        } catch (error) {
          process.stderr.write(`fathom: the team store gave nothing (${errorMessage(error)}); indexing here\n`);
        }
      }
      const status = await request<WorkspaceStatus>(connection, Methods.index, { root, wait: !values['no-wait'] }, true);
      print(values.json ? status : describeWorkspace(status));
    });
    return 0;
  },
};
