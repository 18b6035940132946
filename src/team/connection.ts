// How Fathom reaches a team store: a libpq connection string (FATHOM_TEAM_URL: keyword/value
// `host=/run/pg dbname=fathom user=alice`, or a URI `postgresql://alice@db.internal/fathom`) read
// into the `pg` client's settings, with time limits, and every failure turned into a FathomError
// of kind `teamStore` that says which store and what went wrong. The password comes from the
// string itself, else the caller's environment (PGPASSWORD, passed in by the CLI), else this
// process's PGPASSWORD, else the password file (PGPASSFILE or ~/.pgpass, libpq's format and
// rules: ignored unless only its owner may read it), read only when the server asks for one. *Invariant*: no message or log
// line holds a password or the connection string: stores are named by `describe` (user@host:port/db).
// Used by schema.ts (the owner's connection) and team-store.ts (a member's).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
// Loaded on the first connection: `pg` (and the fetch machinery its streams probe for) costs ~50 ms
// of every daemon's start otherwise, and most daemons never meet a team store.
import type pg from 'pg';
import { FathomError, errorMessage } from '../base/errors.js';

export interface TeamConnectionOptions {
  /** The libpq connection string (keyword/value or URI). */
  conninfo: string;
  /** A password for when the string has none (the CLI's PGPASSWORD). */
  password?: string;
  /** How long connecting may take (ms). Default 5,000, or the string's connect_timeout. */
  connectTimeoutMs?: number;
  /** How long one statement may take (ms), on the client and the server. Default 120,000. */
  statementTimeoutMs?: number;
}

/** The settings `pg` takes, and the store's name for messages. */
export interface ParsedConninfo {
  config: pg.ClientConfig;
  description: string;
}

const supported = new Set(['host', 'port', 'dbname', 'user', 'password', 'connect_timeout', 'sslmode', 'application_name']);

/** Reads a libpq connection string; an unknown or malformed part is an error naming it (never its value). */
export function parseConninfo(conninfo: string): ParsedConninfo {
  const fields = /^postgres(ql)?:\/\//.test(conninfo) ? uriFields(conninfo) : keywordFields(conninfo);
  for (const key of Object.keys(fields))
    if (!supported.has(key))
      throw new FathomError('invalidParams', `FATHOM_TEAM_URL: the connection parameter "${key}" is not supported (use ${[...supported].join(', ')})`);
  const config: pg.ClientConfig = {};
  if (fields.host !== undefined) config.host = fields.host;
  if (fields.port !== undefined) {
    const port = Number(fields.port);
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      throw new FathomError('invalidParams', 'FATHOM_TEAM_URL: port must be a number between 1 and 65535');
    config.port = port;
  }
  if (fields.dbname !== undefined) config.database = fields.dbname;
  if (fields.user !== undefined) config.user = fields.user;
  if (fields.password !== undefined) config.password = fields.password;
  if (fields.application_name !== undefined) config.application_name = fields.application_name;
  if (fields.connect_timeout !== undefined) {
    const seconds = Number(fields.connect_timeout);
    if (!Number.isFinite(seconds) || seconds < 0) throw new FathomError('invalidParams', 'FATHOM_TEAM_URL: connect_timeout must be a number of seconds');
    if (seconds > 0) config.connectionTimeoutMillis = seconds * 1000;
  }
  const sslmode = fields.sslmode ?? 'disable';
  if (sslmode === 'require' || sslmode === 'prefer') config.ssl = { rejectUnauthorized: false };
  else if (sslmode === 'verify-ca' || sslmode === 'verify-full') config.ssl = { rejectUnauthorized: true };
  else if (sslmode !== 'disable' && sslmode !== 'allow')
    throw new FathomError('invalidParams', `FATHOM_TEAM_URL: sslmode must be disable, allow, prefer, require, verify-ca or verify-full (got ${sslmode})`);
  const user = config.user ?? process.env.PGUSER ?? process.env.USER ?? '';
  const host = config.host ?? process.env.PGHOST ?? 'localhost';
  const description = `${user}@${host}:${config.port ?? process.env.PGPORT ?? 5432}/${config.database ?? process.env.PGDATABASE ?? user}`;
  return { config, description };
}

/** `key=value` pairs separated by spaces; a value may be single-quoted, with \' and \\ inside. */
function keywordFields(conninfo: string): Record<string, string> {
  const fields: Record<string, string> = {};
  let at = 0;
  const text = conninfo.trim();
  while (at < text.length) {
    const key = /^([A-Za-z_]+)\s*=\s*/.exec(text.slice(at));
    if (!key) throw new FathomError('invalidParams', `FATHOM_TEAM_URL: expected key=value at character ${at + 1}`);
    at += key[0].length;
    let value = '';
    if (text[at] === "'") {
      at++;
      while (at < text.length && text[at] !== "'") {
        if (text[at] === '\\' && at + 1 < text.length) at++;
        value += text[at++];
      }
      if (text[at] !== "'") throw new FathomError('invalidParams', `FATHOM_TEAM_URL: an unterminated quoted value for ${key[1]}`);
      at++;
    } else {
      while (at < text.length && !/\s/.test(text[at]!)) {
        if (text[at] === '\\' && at + 1 < text.length) at++;
        value += text[at++];
      }
    }
    fields[key[1]!] = value;
    while (at < text.length && /\s/.test(text[at]!)) at++;
  }
  return fields;
}

/** postgresql://user:password@host:port/dbname?key=value (a socket folder as host, percent-encoded, or ?host=). */
function uriFields(conninfo: string): Record<string, string> {
  let url: URL;
  try {
    url = new URL(conninfo);
  } catch {
    throw new FathomError('invalidParams', 'FATHOM_TEAM_URL: not a valid postgresql:// URI');
  }
  const fields: Record<string, string> = {};
  const decodeURIComponent = (text: string): string => {
    try {
      return globalThis.decodeURIComponent(text);
    } catch {
      throw new FathomError('invalidParams', 'FATHOM_TEAM_URL: a bad percent-encoding in the URI');
    }
  };
  if (url.hostname !== '') fields.host = decodeURIComponent(url.hostname);
  if (url.port !== '') fields.port = url.port;
  if (url.username !== '') fields.user = decodeURIComponent(url.username);
  if (url.password !== '') fields.password = decodeURIComponent(url.password);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (database !== '') fields.dbname = database;
  for (const [key, value] of url.searchParams) fields[key] = value;
  return fields;
}

/** A connected client with the time limits set, or a `teamStore` error naming the store. */
export async function connectTeamStore(options: TeamConnectionOptions): Promise<{ client: pg.Client; description: string }> {
  const { config, description } = parseConninfo(options.conninfo);
  const statementTimeoutMs = options.statementTimeoutMs ?? 120_000;
  const known = (typeof config.password === 'string' ? config.password : undefined) ?? options.password ?? process.env.PGPASSWORD;
  const { default: postgres } = await import('pg');
  const client = new postgres.Client({
    ...config,
    // Asked for only when the server wants a password; an empty answer fails the login, as in libpq.
    password: () => Promise.resolve(known ?? passwordFromFile(config) ?? ''),
    connectionTimeoutMillis: options.connectTimeoutMs ?? config.connectionTimeoutMillis ?? 5_000,
    query_timeout: statementTimeoutMs,
    statement_timeout: statementTimeoutMs,
    application_name: config.application_name ?? 'fathom',
  });
  // An error after connecting (the server gone) must not be an unhandled 'error' event: the next query fails instead.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw storeError(description, 'could not connect', error);
  }
  return { client, description };
}

/**
 * The password file's entry for this connection (hostname:port:database:username:password, `*`
 * for any, `\:` and `\\` escaped), or undefined: no file, a file others may read (libpq ignores it
 * too), or no line that matches.
 */
export function passwordFromFile(config: pg.ClientConfig, file = process.env.PGPASSFILE ?? path.join(os.homedir(), '.pgpass')): string | undefined {
  let text: string;
  try {
    if ((fs.statSync(file).mode & 0o077) !== 0) return undefined;
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const host = config.host ?? process.env.PGHOST ?? 'localhost';
  const wanted = [
    host === '/var/run/postgresql' || host === '/run/postgresql' ? 'localhost' : host,
    String(config.port ?? process.env.PGPORT ?? 5432),
    config.database ?? process.env.PGDATABASE ?? config.user ?? '',
    config.user ?? process.env.PGUSER ?? os.userInfo().username,
  ];
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const fields: string[] = [''];
    for (let at = 0; at < line.length; at++) {
      if (line[at] === '\\' && at + 1 < line.length) fields[fields.length - 1] += line[++at];
      else if (line[at] === ':' && fields.length < 5) fields.push('');
      else fields[fields.length - 1] += line[at];
    }
    if (fields.length === 5 && wanted.every((value, index) => fields[index] === '*' || fields[index] === value)) return fields[4]!.replace(/\r$/, '');
  }
  return undefined;
}

/** A failure talking to the store, as a `teamStore` error: what was done, which store, the cause (never a password). */
export function storeError(description: string, doing: string, error: unknown): FathomError {
  if (error instanceof FathomError) return error;
  const cause = errorMessage(error);
  const timedOut = /timeout|timed out/i.test(cause) ? ' (the store did not answer in time: is it down, overloaded or stopped?)' : '';
  const code = (error as { code?: unknown } | undefined)?.code;
  return new FathomError('teamStore', `team store ${description}: ${doing}: ${cause}${timedOut}`, {
    store: description,
    ...(typeof code === 'string' ? { code } : {}),
  });
}
