// The team store as the CLI is told of it: FATHOM_TEAM_URL (a libpq connection string), FATHOM_TEAM_KEY
// (the team key file) and PGPASSWORD, sent with fathom/teamPush, teamStatus and teamJoin (the
// daemon reads the key file and connects; the password is never logged).
import path from 'node:path';
import { UsageError } from './usage-error.js';

/** A team-store setting from the environment, or a usage error saying what it is. */
export function teamSetting(name: 'FATHOM_TEAM_URL' | 'FATHOM_TEAM_KEY'): string {
  const value = process.env[name];
  if (value === undefined || value === '')
    throw new UsageError(
      name === 'FATHOM_TEAM_URL'
        ? 'set FATHOM_TEAM_URL to the team store (a libpq connection string: "host=… dbname=… user=…" or postgresql://user@host/db; the password from ~/.pgpass or PGPASSWORD)'
        : 'set FATHOM_TEAM_KEY to the team key file (at least 16 bytes, hex or raw, mode 0600)',
    );
  return value;
}

/** The store params of a workspace's team request (the settings must be there). */
export function teamStoreParams(root: string): { root: string; url: string; keyFile: string; password?: string } {
  const url = teamSetting('FATHOM_TEAM_URL');
  const keyFile = path.resolve(teamSetting('FATHOM_TEAM_KEY'));
  const password = process.env.PGPASSWORD;
  return { root, url, keyFile, ...(password ? { password } : {}) };
}

/** Whether a team store is configured (both settings given): `fathom index` then joins it first. */
export function teamConfigured(): boolean {
  return Boolean(process.env.FATHOM_TEAM_URL) && Boolean(process.env.FATHOM_TEAM_KEY);
}
