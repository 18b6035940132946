// `fathom team init`: creates or migrates a team store's schema and its member role, over the
// owner's connection. One transaction under an advisory lock (two inits at once take turns): the
// schema `fathom` and fathom.schema_version made if missing, every migration newer than the
// recorded version applied in order and recorded, then the member role made (NOLOGIN: teammates'
// login roles are granted it) and given USAGE on the schema and EXECUTE on the member functions
// alone; PUBLIC loses every privilege on the schema, its tables, sequences and functions. Running
// it again changes nothing. A store newer than this Fathom is refused, untouched.
// *Invariant*: the member role holds no privilege on any table or sequence of the schema (the
// team-store tests check it by trying).
import type pg from 'pg';
import { FathomError } from '../base/errors.js';
import { connectTeamStore, storeError, type TeamConnectionOptions } from './connection.js';
import { memberFunctions, migrations, schemaVersion } from './migrations.js';

export const defaultMemberRole = 'fathom_member';

export interface InitOptions extends TeamConnectionOptions {
  /** The member role's name (default fathom_member). */
  memberRole?: string;
  /** Login roles to grant the member role to (they must exist). */
  grant?: string[];
}

export interface InitResult {
  store: string;
  /** The schema version before (0: none) and now. */
  from: number;
  version: number;
  applied: Array<{ version: number; name: string }>;
  memberRole: string;
  granted: string[];
}

/** An advisory lock key of its own ("fathom" in ASCII). */
const lockKey = 0x666174686f6d;

function checkRoleName(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name))
    throw new FathomError('invalidParams', `role names are lower-case letters, digits and _ (got ${JSON.stringify(name)})`);
  return name;
}

export async function initStore(options: InitOptions): Promise<InitResult> {
  const memberRole = checkRoleName(options.memberRole ?? defaultMemberRole);
  const grant = (options.grant ?? []).map(checkRoleName);
  const { client, description } = await connectTeamStore(options);
  try {
    await client.query('BEGIN');
    try {
      const result = await migrate(client, description, memberRole, grant);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } catch (error) {
    throw storeError(description, 'init', error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function migrate(client: pg.Client, description: string, memberRole: string, grant: string[]): Promise<InitResult> {
  await client.query('SELECT pg_advisory_xact_lock($1)', [lockKey]);
  await client.query('CREATE SCHEMA IF NOT EXISTS fathom');
  await client.query(
    'CREATE TABLE IF NOT EXISTS fathom.schema_version (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), applied_by text NOT NULL DEFAULT session_user)',
  );
  const from = Number((await client.query<{ version: number | null }>('SELECT max(version) AS version FROM fathom.schema_version')).rows[0]?.version ?? 0);
  if (from > schemaVersion)
    throw new FathomError(
      'teamStore',
      `team store ${description} has schema version ${from}, newer than this Fathom's ${schemaVersion}: upgrade Fathom (nothing was changed)`,
      { store: description, version: from, expected: schemaVersion },
    );
  const applied: InitResult['applied'] = [];
  for (const migration of migrations.filter((entry) => entry.version > from)) {
    await client.query(migration.sql);
    await client.query('INSERT INTO fathom.schema_version (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
    applied.push({ version: migration.version, name: migration.name });
  }
  // The member role and its privileges, set again on every init (a grant lost by hand comes back).
  const exists = (await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [memberRole])).rowCount === 1;
  if (!exists) await client.query(`CREATE ROLE ${memberRole} NOLOGIN`);
  await client.query('REVOKE ALL ON SCHEMA fathom FROM PUBLIC');
  await client.query('REVOKE ALL ON ALL TABLES IN SCHEMA fathom FROM PUBLIC');
  await client.query('REVOKE ALL ON ALL SEQUENCES IN SCHEMA fathom FROM PUBLIC');
  await client.query('REVOKE ALL ON ALL FUNCTIONS IN SCHEMA fathom FROM PUBLIC');
  await client.query(`REVOKE ALL ON ALL TABLES IN SCHEMA fathom FROM ${memberRole}`);
  await client.query(`REVOKE ALL ON ALL SEQUENCES IN SCHEMA fathom FROM ${memberRole}`);
  await client.query(`REVOKE ALL ON ALL FUNCTIONS IN SCHEMA fathom FROM ${memberRole}`);
  await client.query('ALTER DEFAULT PRIVILEGES IN SCHEMA fathom REVOKE ALL ON FUNCTIONS FROM PUBLIC');
  await client.query(`GRANT USAGE ON SCHEMA fathom TO ${memberRole}`);
  for (const signature of memberFunctions) await client.query(`GRANT EXECUTE ON FUNCTION ${signature} TO ${memberRole}`);
  for (const role of grant) {
    if ((await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role])).rowCount !== 1)
      throw new FathomError('invalidParams', `no role ${role} on ${description} to grant ${memberRole} to (create it first: CREATE ROLE ${role} LOGIN)`);
    await client.query(`GRANT ${memberRole} TO ${role}`);
  }
  return { store: description, from, version: schemaVersion, applied, memberRole, granted: grant };
}
