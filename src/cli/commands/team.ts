// `fathom team init|push|status|join`: the team store. init runs here with the owner's connection;
// push, status and join ask the daemon (which holds the workspace's vectors and records).
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Methods, type TeamJoinResult, type TeamPushResult, type TeamStatusResult } from '../../protocol/methods.js';
import { noMoreArguments, print, request, withClient } from '../client.js';
import { clientOptions, type Command } from '../command.js';
import { joinLine, pushLine, teamStatusLines } from '../answer-lines.js';
import { teamSetting, teamStoreParams } from '../team-settings.js';
import { UsageError } from '../usage-error.js';
import { implicitRoot } from '../workspace-root.js';

const options = {
  ...clientOptions,
  'member-role': { type: 'string' },
  grant: { type: 'string', multiple: true },
} as const;

export const command: Command = {
  usage: `  team init [--member-role NAME] [--grant ROLE]...
                                      create or migrate the team store's schema and its member
                                      role (FATHOM_TEAM_URL: the owner's connection)
  team push [PATH] | team status [PATH] | team join [PATH]
                                      upload what the team store lacks of the workspace's vectors
                                      and records (paths masked under FATHOM_TEAM_KEY, no text),
                                      say what it holds for the workspace and the nearest snapshot,
                                      or fill an unindexed workspace's semantic index from it (the
                                      rest is embedded here; fathom index joins first when both
                                      FATHOM_TEAM_URL and FATHOM_TEAM_KEY are set)
                                      (FATHOM_TEAM_URL: a libpq connection string, the password
                                      from ~/.pgpass or PGPASSWORD; FATHOM_TEAM_KEY: the key file)`,
  async run(_name, args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options });
    const [sub, target, ...extra] = positionals;
    noMoreArguments(extra);
    const json = values.json === true;
    if (sub !== 'init' && sub !== 'push' && sub !== 'status' && sub !== 'join')
      throw new UsageError('team needs init, push [PATH], status [PATH] or join [PATH]');
    if (sub !== 'init' && (values['member-role'] !== undefined || values.grant !== undefined))
      throw new UsageError('--member-role and --grant are for team init');
    const url = teamSetting('FATHOM_TEAM_URL');
    const password = process.env.PGPASSWORD;
    if (sub === 'init') {
      if (target !== undefined) throw new UsageError('team init takes no PATH');
      const { initStore } = await import('../../team/schema.js');
      const result = await initStore({
        conninfo: url,
        ...(password ? { password } : {}),
        ...(values['member-role'] === undefined ? {} : { memberRole: values['member-role'] }),
        grant: values.grant ?? [],
      });
      print(
        json
          ? result
          : `${result.store}: schema version ${result.version}${result.applied.length === 0 ? ' (already current)' : ` (applied ${result.applied.map((entry) => `${entry.version} ${entry.name}`).join(', ')})`}; member role ${result.memberRole}${result.granted.length > 0 ? ` granted to ${result.granted.join(', ')}` : ''}`,
      );
      return 0;
    }
    const params = teamStoreParams(target ? path.resolve(target) : implicitRoot(process.cwd()));
    await withClient(values, async ({ connection }) => {
      if (sub === 'join') {
        const result = await request<TeamJoinResult>(connection, Methods.teamJoin, params, true);
        print(json ? result : joinLine(result));
        return;
      }
      if (sub === 'push') {
        const result = await request<TeamPushResult>(connection, Methods.teamPush, params, true);
        print(json ? result : pushLine(result));
        return;
      }
      const result = await request<TeamStatusResult>(connection, Methods.teamStatus, params, true);
      print(json ? result : teamStatusLines(result));
    });
    return 0;
  },
};
