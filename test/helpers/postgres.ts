// A throwaway PostgreSQL cluster for the team-store tests: `initdb` into a fresh temp folder, then
// `pg_ctl start` listening only on a Unix socket in that folder (no TCP port, so clusters of
// parallel runs and the system's own cluster never meet). As root, both run as the `postgres` user
// (`runuser -u postgres --`), or as `nobody` where no `postgres` user exists (the server refuses to
// run as root), which owns the folder; otherwise as the current user. Local connections are
// trusted (the socket's folder is the test's). The binaries come from `FATHOM_PG_BIN`, else
// Debian's postgresql-15 (`/usr/lib/postgresql/15/bin`), else `pg_config --bindir`; without them
// the tests skip, and fail under CI=true (`.ci/run` installs postgresql-15). Nothing here touches
// a system cluster; a cluster is stopped and removed by `destroy()`, or when the process exits.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { tempDir } from './fixture.js';

/** The folder holding initdb, pg_ctl and postgres, or undefined. */
export function postgresBinaries(): string | undefined {
  const candidates = [process.env.FATHOM_PG_BIN, '/usr/lib/postgresql/15/bin'];
  try {
    candidates.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  } catch {
    // no pg_config on PATH
  }
  return candidates.find(
    (folder) => folder !== undefined && folder !== '' && fs.existsSync(path.join(folder, 'initdb')) && fs.existsSync(path.join(folder, 'pg_ctl')),
  );
}

/**
 * Why the PostgreSQL tests cannot run here (for `describe(…, { skip })`), or false when they can.
 * Under CI=true a missing PostgreSQL is an error, not a skip.
 */
export function postgresSkip(): string | false {
  if (postgresBinaries()) return false;
  if (process.env.CI) throw new Error('PostgreSQL is required in CI (apt-get install postgresql-15), or set FATHOM_PG_BIN to its bin folder');
  return 'no PostgreSQL here (initdb not found: apt-get install postgresql-15, or set FATHOM_PG_BIN)';
}

const asRoot = process.getuid?.() === 0;

/** Who runs the server under root: the postgres user where it exists, else nobody. */
const serverUser = ((): string => {
  if (!asRoot) return '';
  return spawnSync('id', ['-u', 'postgres'], { stdio: 'ignore' }).status === 0 ? 'postgres' : 'nobody';
})();

export interface TestCluster {
  /** The socket folder (libpq's `host` for a Unix socket). */
  socketDir: string;
  port: number;
  dataDir: string;
  /** The superuser's name. */
  superuser: string;
  /** A libpq keyword/value connection string for `user` on `database`. */
  conninfo(user: string, database: string): string;
  /** A connected client (the caller ends it). */
  connect(user: string, database: string): Promise<pg.Client>;
  /** Runs SQL as the superuser on `database` (default postgres). */
  sql(text: string, values?: unknown[], database?: string): Promise<pg.QueryResult>;
  /** `pg_ctl stop` (mode immediate: as a crash) and `start` again. */
  stop(mode?: 'fast' | 'immediate'): void;
  start(): void;
  /** Makes `user` (on every database) log in over the socket with a password (SCRAM), others still trusted; reloads. */
  requirePassword(user: string): Promise<void>;
  /** The postmaster's pid (for SIGSTOP: a store that accepts and never answers). */
  pid(): number;
  /** Stops the cluster and removes its folder. */
  destroy(): void;
}

function runAsOwner(binary: string, args: string[]): string {
  const command = asRoot ? 'runuser' : binary;
  const full = asRoot ? ['-u', serverUser, '--', binary, ...args] : args;
  const result = spawnSync(command, full, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${path.basename(binary)} ${args.join(' ')} failed (${result.status}): ${result.stderr}${result.stdout}`);
  return result.stdout;
}

/** Starts a fresh cluster; `destroy()` it when done. */
export function startCluster(): TestCluster {
  const bin = postgresBinaries();
  if (!bin) throw new Error('no PostgreSQL binaries');
  const base = tempDir('fathom-pg-');
  const dataDir = path.join(base, 'data');
  const socketDir = base;
  if (asRoot) execFileSync('chown', [serverUser, base]);
  const superuser = 'postgres';
  runAsOwner(path.join(bin, 'initdb'), ['-D', dataDir, '-U', superuser, '--auth=trust', '-E', 'UTF8', '--no-sync', '--locale=C']);
  const port = 5432;
  const logFile = path.join(base, 'server.log');
  const options = `-k ${socketDir} -p ${port} -c listen_addresses='' -c fsync=off -c max_connections=40 -c shared_buffers=32MB`;
  const start = (): void => void runAsOwner(path.join(bin, 'pg_ctl'), ['-D', dataDir, '-l', logFile, '-o', options, '-w', '-t', '60', 'start']);
  const stop = (mode: 'fast' | 'immediate' = 'fast'): void => void runAsOwner(path.join(bin, 'pg_ctl'), ['-D', dataDir, '-m', mode, '-w', '-t', '60', 'stop']);
  start();
  const conninfo = (user: string, database: string): string => `host=${socketDir} port=${port} user=${user} dbname=${database}`;
  const connect = async (user: string, database: string): Promise<pg.Client> => {
    const client = new pg.Client({ host: socketDir, port, user, database });
    await client.connect();
    return client;
  };
  let destroyed = false;
  // A test process that ends without its `after` (a crash, an uncaught error) still stops its cluster.
  const onExit = (): void => cluster.destroy();
  process.once('exit', onExit);
  const cluster: TestCluster = {
    socketDir,
    port,
    dataDir,
    superuser,
    conninfo,
    connect,
    async sql(text, values, database = 'postgres') {
      const client = await connect(superuser, database);
      try {
        return await client.query(text, values);
      } finally {
        await client.end();
      }
    },
    stop,
    start,
    async requirePassword(user) {
      const hba = path.join(dataDir, 'pg_hba.conf');
      fs.writeFileSync(hba, `local all ${user} scram-sha-256\n${fs.readFileSync(hba, 'utf8')}`);
      const client = await connect(superuser, 'postgres');
      try {
        await client.query('SELECT pg_reload_conf()');
      } finally {
        await client.end();
      }
    },
    pid: () => Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]),
    destroy() {
      if (destroyed) return;
      destroyed = true;
      process.off('exit', onExit);
      try {
        stop('immediate');
      } catch {
        // already down
      }
      fs.rmSync(base, { recursive: true, force: true });
    },
  };
  return cluster;
}
