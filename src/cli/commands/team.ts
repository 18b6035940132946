// `fathom team init|push|status`: the team store. init runs here with the owner's connection;
// push and status ask the daemon (which holds the workspace's vectors and records).
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Methods, type TeamPushResult, type TeamStatusResult } from '../../protocol/methods.js';
import { humanBytes } from '../answer-lines.js';
import { noMoreArguments, print, request, withClient } from '../client.js';
import { clientOptions, type Command } from '../command.js';
import { UsageError } from '../usage-error.js';
import { implicitRoot } from '../workspace-root.js';

const options = {
  ...clientOptions,
  'member-role': { type: 'string' },
  grant: { type: 'string', multiple: true },
} as const;

/** A team-store setting from the environment, or a usage error saying what it is. */
function teamSetting(name: 'FATHOM_TEAM_URL' | 'FATHOM_TEAM_KEY'): string {
  const value = process.env[name];
  if (value === undefined || value === '')
    throw new UsageError(
      name === 'FATHOM_TEAM_URL'
        ? 'set FATHOM_TEAM_URL to the team store (a libpq connection string: "host=… dbname=… user=…" or postgresql://user@host/db; the password from ~/.pgpass or PGPASSWORD)'
        : 'set FATHOM_TEAM_KEY to the team key file (at least 16 bytes, hex or raw, mode 0600)',
    );
  return value;
}

export const command: Command = {
  usage: `  team init [--member-role NAME] [--grant ROLE]...
                                      create or migrate the team store's schema and its member
                                      role (FATHOM_TEAM_URL: the owner's connection)
  team push [PATH] | team status [PATH]
                                      upload what the team store lacks of the workspace's vectors
                                      and records (paths masked under FATHOM_TEAM_KEY, no text), or
                                      say what it holds for the workspace and the nearest snapshot
                                      (FATHOM_TEAM_URL: a libpq connection string, the password
                                      from ~/.pgpass or PGPASSWORD; FATHOM_TEAM_KEY: the key file)`,
  async run(_name, args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options });
    const [sub, target, ...extra] = positionals;
    noMoreArguments(extra);
    const json = values.json === true;
    if (sub !== 'init' && sub !== 'push' && sub !== 'status') throw new UsageError('team needs init, push [PATH] or status [PATH]');
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
    const keyFile = path.resolve(teamSetting('FATHOM_TEAM_KEY'));
    const root = target ? path.resolve(target) : implicitRoot(process.cwd());
    const params = { root, url, keyFile, ...(password ? { password } : {}) };
    await withClient(values, async ({ connection }) => {
      if (sub === 'push') {
        const result = await request<TeamPushResult>(connection, Methods.teamPush, params, true);
        print(
          json
            ? result
            : `${result.root} → ${result.store}: ${result.uploaded.vectors} vectors and ${result.uploaded.files} files' records sent (${result.files} files checked, ${humanBytes(result.bytesSent)}, ${(result.ms / 1000).toFixed(1)} s); snapshot ${result.snapshot.id}${result.snapshot.created ? '' : ' (already there)'}${result.skippedFiles > 0 ? `; ${result.skippedFiles} files left for the next push (their vectors are being embedded again)` : ''}`,
        );
        return;
      }
      const result = await request<TeamStatusResult>(connection, Methods.teamStatus, params, true);
      if (json) return print(result);
      const nearest = result.nearest[0];
      print(
        [
          `${result.root}: team store ${result.store} (schema ${result.schemaVersion}), team key ${result.teamKeyId}, model ${result.modelId}`,
          `  the store holds ${result.held.files} of this workspace's ${result.held.distinctFiles} distinct files (${result.held.chunks} chunks)`,
          nearest
            ? `  nearest snapshot: #${nearest.id} of ${nearest.createdAt}, ${nearest.fileCount} files, ${nearest.distance} bits from this tree${nearest.sameTree ? ' (this very tree)' : ''}`
            : '  no snapshot of this model yet: fathom team push',
        ].join('\n'),
      );
    });
    return 0;
  },
};
