// fathom/teamPush and fathom/teamStatus over the real protocol: a real daemon with Fathom's own
// model pushes two clones of the fixture repository (the second differs in a few files) to a
// throwaway PostgreSQL (test/helpers/postgres.ts) as a member role. A second push sends nothing
// new; the second clone sends only what it adds; status finds the nearest snapshot by simhash.
// Everything the store holds (every table's rows, and the tables' own files on disk) is searched
// for the fixture's identifiers and path segments: none is there. 1,000 random probes of the pushed
// data get nothing. A push stopped midway (the daemon killed, or the store crashed, while a batch
// of records is being written) leaves the store consistent, and the next push completes it. A store
// that is down or stopped (SIGSTOP) is a clear TeamStore error, within the connect time limit, and
// the daemon goes on answering; a key file others may read is refused; a password never shows up
// in an answer or the daemon's log. `fathom team init|push|status` from the CLI. A third clone on
// another daemon (its own caches: a teammate's machine) joins: its semantic index is filled from the
// store with the files it holds, answers at once, never shows a file only the others hold, and
// embeds only its own changes; `fathom index` joins first when a store is configured. The MCP
// server's team tools, called with the SDK's client.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ErrorCodes } from '../../src/protocol/errors.js';
import type { CodeSearchResult, GrepResult, StatusResult, TeamJoinResult, TeamPushResult, TeamStatusResult } from '../../src/protocol/methods.js';
import { schemaVersion } from '../../src/team/migrations.js';
import { initStore } from '../../src/team/schema.js';
import { hammingDistance } from '../../src/team/simhash.js';
import { TeamStore } from '../../src/team/team-store.js';
import { git, sleep, tempDir } from '../helpers/fixture.js';
import { postgresSkip, startCluster, type TestCluster } from '../helpers/postgres.js';
import { cliMain, spawnCli, spawnStdioDaemon } from '../helpers/raw-client.js';
import { searchFixtureRepo } from '../helpers/search-fixture.js';

const skip = postgresSkip();

function keyFile(mode = 0o600): string {
  const file = path.join(tempDir('fathom-team-key-'), 'team.key');
  fs.writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode });
  fs.chmodSync(file, mode);
  return file;
}

/** Every word of 5+ characters in the repository's files, and every segment of its paths (and the root's name). */
function plaintextNeedles(root: string): string[] {
  const needles = new Set<string>([path.basename(root)]);
  for (const file of git(root, 'ls-files', '--cached', '--others', '--exclude-standard').split('\n').filter(Boolean)) {
    for (const segment of file.split('/')) {
      needles.add(segment);
      const stem = segment.replace(/\.[^.]+$/, '');
      if (stem.length >= 4) needles.add(stem);
    }
    for (const word of fs.readFileSync(path.join(root, file), 'utf8').match(/[A-Za-z_][A-Za-z0-9_]{4,}/g) ?? []) needles.add(word);
  }
  return [...needles].filter((needle) => needle.length >= 4);
}

/** What the store's consistency means: every file's chunks all there, every chunk's vector there, no path without its file. */
async function assertConsistent(cluster: TestCluster): Promise<{ embeddings: number; files: number; chunks: number; snapshots: number }> {
  const client = await cluster.connect(cluster.superuser, 'fathom');
  try {
    const incomplete = await client.query(
      'SELECT f.file_hash FROM fathom.files f LEFT JOIN fathom.file_chunks c USING (team_id, model_id, file_hash) GROUP BY f.team_id, f.model_id, f.file_hash, f.chunk_count HAVING count(c.ordinal) <> f.chunk_count',
    );
    assert.equal(incomplete.rowCount, 0, 'a file with chunks missing');
    const orphans = await client.query(
      'SELECT 1 FROM fathom.file_chunks c LEFT JOIN fathom.embeddings e USING (team_id, model_id, chunk_hash) WHERE e.chunk_hash IS NULL',
    );
    assert.equal(orphans.rowCount, 0, 'a chunk without its vector');
    const counts = await client.query<{ embeddings: number; files: number; chunks: number; snapshots: number }>(
      'SELECT (SELECT count(*)::int FROM fathom.embeddings) AS embeddings, (SELECT count(*)::int FROM fathom.files) AS files, (SELECT count(*)::int FROM fathom.file_chunks) AS chunks, (SELECT count(*)::int FROM fathom.snapshots) AS snapshots',
    );
    return counts.rows[0]!;
  } finally {
    await client.end();
  }
}

/**
 * Waits until a member's statement waits on a lock; answers its backend's pid. Asked outside any
 * transaction (pg_stat_activity is read once per transaction).
 */
async function waitForLockedBackend(cluster: TestCluster): Promise<number> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const waiting = await cluster.sql("SELECT pid FROM pg_stat_activity WHERE usename = 'alice' AND wait_event_type = 'Lock'");
    if (waiting.rows[0]) return (waiting.rows[0] as { pid: number }).pid;
    await sleep(50);
  }
  throw new Error('no push got as far as writing records');
}

describe('team push and status over the protocol', { skip }, () => {
  let cluster: TestCluster;
  let url: string;
  const key = keyFile();
  const first = skip ? '' : searchFixtureRepo('fathom-push-a-');
  const second = skip ? '' : searchFixtureRepo('fathom-push-b-');
  const daemon = skip ? undefined : spawnStdioDaemon();
  const client = daemon?.client;

  before(async () => {
    // The second clone: one file changed, one removed, one added.
    fs.appendFileSync(
      path.join(second, 'src/net/retry.go'),
      '\n// jitter keeps clients from retrying in lockstep after an outage\nfunc jitterDelay(base int) int { return base + base/3 }\n',
    );
    fs.rmSync(path.join(second, 'src/storage/cache.rs'));
    fs.mkdirSync(path.join(second, 'src/report'), { recursive: true });
    fs.writeFileSync(
      path.join(second, 'src/report/ledger_summary.py'),
      'def quarterly_ledger_totals(entries):\n    """Sums the ledger entries of each quarter."""\n    return {quarter: sum(values) for quarter, values in entries.items()}\n',
    );
    cluster = startCluster();
    await cluster.sql('CREATE ROLE team_owner LOGIN CREATEROLE');
    await cluster.sql('CREATE DATABASE fathom OWNER team_owner');
    await cluster.sql('CREATE ROLE alice LOGIN');
    await initStore({ conninfo: cluster.conninfo('team_owner', 'fathom'), grant: ['alice'] });
    url = cluster.conninfo('alice', 'fathom');
  });
  after(() => {
    daemon?.child.kill();
    cluster?.destroy();
  });

  let pushed: TeamPushResult;

  test('a first push sends every vector and record once; a second sends nothing new', async () => {
    pushed = await client!.result<TeamPushResult>('fathom/teamPush', { root: first, url, keyFile: key });
    assert.ok(pushed.files >= 6, `files ${pushed.files}`);
    assert.ok(pushed.uploaded.vectors > 0);
    assert.equal(pushed.uploaded.files, pushed.files, 'each file distinct');
    assert.equal(pushed.skippedFiles, 0);
    assert.equal(pushed.snapshot.created, true);
    assert.match(pushed.store, /^alice@.*\/fathom$/);
    const counts = await assertConsistent(cluster);
    assert.deepEqual([counts.files, counts.embeddings, counts.snapshots], [pushed.files, pushed.uploaded.vectors, 1]);
    assert.equal(pushed.upToDate, false);
    const again = await client!.result<TeamPushResult>('fathom/teamPush', { root: first, url, keyFile: key });
    assert.deepEqual(again.uploaded, { vectors: 0, files: 0, paths: 0 }, 'nothing new the second time');
    assert.deepEqual([again.snapshot.id, again.snapshot.created], [pushed.snapshot.id, false]);
    assert.deepEqual(
      [again.upToDate, again.files, again.snapshot.simhash],
      [true, pushed.files, pushed.snapshot.simhash],
      'the complete snapshot: no file checked',
    );
  });

  test('status of a second clone: what the store holds of it, and the first clone as the nearest snapshot', async () => {
    const status = await client!.result<TeamStatusResult>('fathom/teamStatus', { root: second, url, keyFile: key });
    assert.equal(status.teamKeyId, pushed.teamKeyId);
    assert.equal(status.held.distinctFiles, status.local.files);
    assert.equal(status.held.files, status.local.files - 2, 'all but the changed and the added file');
    assert.equal(status.nearest[0]?.id, pushed.snapshot.id);
    assert.equal(status.nearest[0]?.sameTree, false);
    assert.equal(status.nearest[0]?.distance, hammingDistance(status.local.simhash, pushed.snapshot.simhash));
    assert.ok(status.nearest[0]!.distance < 32, `distance ${status.nearest[0]!.distance}`);
  });

  test('the second clone sends only what it adds; then its own tree is the nearest', async () => {
    const before = await assertConsistent(cluster);
    const result = await client!.result<TeamPushResult>('fathom/teamPush', { root: second, url, keyFile: key });
    assert.equal(result.uploaded.files, 2, 'the changed file and the added one');
    assert.ok(result.uploaded.vectors > 0 && result.uploaded.vectors <= 4, `vectors ${result.uploaded.vectors}: the new chunks only`);
    const after = await assertConsistent(cluster);
    assert.deepEqual([after.files - before.files, after.embeddings - before.embeddings, after.snapshots], [2, result.uploaded.vectors, 2]);
    const status = await client!.result<TeamStatusResult>('fathom/teamStatus', { root: second, url, keyFile: key });
    assert.equal(status.held.files, status.local.files);
    assert.deepEqual([status.nearest[0]?.id, status.nearest[0]?.sameTree, status.nearest[0]?.distance], [result.snapshot.id, true, 0]);
  });

  test("no source text and no real path anywhere in the store: every row, and the tables' files on disk", async () => {
    const needles = [...new Set([...plaintextNeedles(first), ...plaintextNeedles(second)])];
    assert.ok(needles.length > 100, `${needles.length} identifiers and path segments`);
    assert.ok(needles.includes('invoice') && needles.includes('payments') && needles.includes('quarterly_ledger_totals'));
    const superuser = await cluster.connect(cluster.superuser, 'fathom');
    try {
      const tables = await superuser.query<{ name: string }>(
        "SELECT format('%I.%I', n.nspname, c.relname) AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'fathom' AND c.relkind = 'r'",
      );
      let dump = '';
      const raw: Buffer[] = [];
      for (const { name } of tables.rows) {
        const rows = await superuser.query(`SELECT t::text AS row FROM ${name} t`);
        dump += rows.rows.map((row: { row: string }) => row.row).join('\n');
        // bytea as raw bytes too: text hidden in a vector or a hash column would not show in hex.
        const columns = await superuser.query<{ attname: string }>(
          "SELECT attname FROM pg_attribute WHERE attrelid = $1::regclass AND atttypid = 'bytea'::regtype AND attnum > 0",
          [name],
        );
        for (const { attname } of columns.rows)
          for (const row of (await superuser.query(`SELECT ${attname} AS value FROM ${name}`)).rows as Array<{ value: Buffer }>) raw.push(row.value);
      }
      assert.ok(dump.length > 10_000, `${dump.length} characters of rows`);
      await superuser.query('CHECKPOINT');
      const files = await superuser.query<{ file: string }>(
        "SELECT pg_relation_filepath(c.oid) AS file FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname IN ('fathom', 'pg_toast') AND c.relkind IN ('r', 't') AND (n.nspname = 'fathom' OR c.relname IN (SELECT 'pg_toast_' || r.oid FROM pg_class r JOIN pg_namespace rn ON rn.oid = r.relnamespace WHERE rn.nspname = 'fathom'))",
      );
      let diskBytes = 0;
      for (const { file } of files.rows) {
        const full = path.join(cluster.dataDir, file);
        if (!fs.existsSync(full)) continue;
        const bytes = fs.readFileSync(full);
        diskBytes += bytes.length;
        raw.push(bytes);
      }
      assert.ok(diskBytes > 16_384, `${diskBytes} bytes of table files`);
      const rawBytes = Buffer.concat(raw);
      const lowerDump = dump.toLowerCase();
      const found = needles.filter((needle) => lowerDump.includes(needle.toLowerCase()) || rawBytes.includes(needle));
      assert.deepEqual(found, [], 'no identifier or path segment in the store');
      assert.ok(dump.includes(pushed.teamKeyId), 'the dump holds the pushed rows');
    } finally {
      await superuser.end();
    }
  });

  test('1,000 random probes of the pushed data as the member get zero rows; the pushed hashes get their records', async () => {
    const store = await TeamStore.open({ conninfo: url });
    const superuser = await cluster.connect(cluster.superuser, 'fathom');
    try {
      const model = pushed.modelId;
      const team = pushed.teamKeyId;
      let rows = 0;
      for (let probe = 0; probe < 100; probe++) {
        const hashes = Array.from({ length: 10 }, () => randomBytes(32).toString('hex'));
        rows +=
          (await store.fileRecords(team, model, hashes)).length +
          (await store.fileVectors(team, model, 384, hashes)).size +
          (await store.filePacks(team, model, 384, hashes)).length +
          (await store.heldFiles(team, model, hashes)).files;
      }
      assert.equal(rows, 0);
      const held = (await superuser.query<{ hash: Buffer }>('SELECT file_hash AS hash FROM fathom.files LIMIT 3')).rows.map((row) => row.hash.toString('hex'));
      const records = await store.fileRecords(team, model, held);
      assert.equal(records.length, 3);
      for (const record of records)
        assert.ok(
          record.maskedPaths.every((masked) => /^[a-z2-7]{8}(\/[a-z2-7]{8})*(\.[a-z2-7]{3})?$/.test(masked)),
          `masked: ${record.maskedPaths.join(', ')}`,
        );
    } finally {
      await store.close();
      await superuser.end();
    }
  });

  test('a push whose daemon is killed while it writes records leaves the store consistent; the next push completes it', async () => {
    const otherKey = keyFile();
    const root = searchFixtureRepo('fathom-push-kill-');
    const locker = await cluster.connect(cluster.superuser, 'fathom');
    locker.on('error', () => undefined);
    const victim = spawnStdioDaemon();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE fathom.file_chunks IN ACCESS EXCLUSIVE MODE');
      // Its answer never comes: the daemon is killed first.
      void victim.client.request('fathom/teamPush', { root, url, keyFile: otherKey }).catch(() => undefined);
      const backend = await waitForLockedBackend(cluster);
      victim.child.kill('SIGKILL');
      await victim.exited;
      // The connection is gone; the server ends its backend as it would on a broken socket.
      await cluster.sql('SELECT pg_terminate_backend($1)', [backend]);
      await locker.query('ROLLBACK');
      const counts = await assertConsistent(cluster);
      const stranded = await cluster.sql(
        'SELECT (SELECT count(*)::int FROM fathom.embeddings WHERE team_id = $1) AS vectors, (SELECT count(*)::int FROM fathom.files WHERE team_id = $1) AS files, (SELECT count(*)::int FROM fathom.snapshots WHERE team_id = $1) AS snapshots',
        [new (await import('../../src/index/export/path-mask.js')).PathMask(Buffer.from(fs.readFileSync(otherKey, 'utf8').trim(), 'hex')).keyId],
        'fathom',
      );
      assert.ok(stranded.rows[0].vectors > 0, 'the vectors went in before the records');
      assert.deepEqual([stranded.rows[0].files, stranded.rows[0].snapshots], [0, 0], 'no file record and no snapshot of the killed push');
      const done = await client!.result<TeamPushResult>('fathom/teamPush', { root, url, keyFile: otherKey });
      assert.equal(done.uploaded.vectors, 0, 'the vectors the killed push sent are not sent again');
      assert.equal(done.uploaded.files, done.files);
      assert.equal(done.snapshot.created, true);
      const after = await assertConsistent(cluster);
      assert.equal(after.files, counts.files + done.files);
    } finally {
      victim.child.kill('SIGKILL');
      await locker.end().catch(() => undefined);
    }
  });

  test('a store that crashes while a push writes records: a TeamStore error, the store consistent after restart, the daemon answering', async () => {
    const otherKey = keyFile();
    const root = searchFixtureRepo('fathom-push-crash-');
    const locker = await cluster.connect(cluster.superuser, 'fathom');
    locker.on('error', () => undefined);
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE fathom.file_chunks IN ACCESS EXCLUSIVE MODE');
    const pending = client!.request('fathom/teamPush', { root, url, keyFile: otherKey });
    await waitForLockedBackend(cluster);
    cluster.stop('immediate');
    const response = await pending;
    await locker.end().catch(() => undefined);
    assert.equal(response.error?.code, ErrorCodes.TeamStore);
    assert.match(response.error?.message ?? '', /^team store alice@.*\/fathom: put_files: /);
    cluster.start();
    await assertConsistent(cluster);
    const grep = await client!.result<GrepResult>('fathom/grep', { root, pattern: 'backoff' });
    assert.ok(grep.files > 0, 'local search goes on');
    const done = await client!.result<TeamPushResult>('fathom/teamPush', { root, url, keyFile: otherKey });
    assert.equal(done.uploaded.files, done.files);
    await assertConsistent(cluster);
  });

  test('a store that is down or stopped is a clear error within the time limit; the daemon goes on; no password is shown', async () => {
    const down = await client!.request('fathom/teamPush', {
      root: first,
      url: `postgresql://alice:sekrit-pass-42@${encodeURIComponent(cluster.socketDir)}:1/fathom`,
      keyFile: key,
    });
    assert.equal(down.error?.code, ErrorCodes.TeamStore);
    assert.match(down.error?.message ?? '', /^team store alice@.*:1\/fathom: could not connect: /);
    assert.doesNotMatch(JSON.stringify(down), /sekrit/);
    const pid = cluster.pid();
    process.kill(pid, 'SIGSTOP');
    try {
      const started = performance.now();
      const stopped = await client!.request('fathom/teamStatus', { root: first, url, keyFile: key, connectTimeoutMs: 1000, password: 'sekrit-pass-43' });
      const took = performance.now() - started;
      assert.equal(stopped.error?.code, ErrorCodes.TeamStore);
      assert.match(stopped.error?.message ?? '', /could not connect: .*timeout.*did not answer in time/i);
      assert.ok(took < 5_000, `answered in ${Math.round(took)} ms`);
      const grep = await client!.result<GrepResult>('fathom/grep', { root: first, pattern: 'backoff' });
      assert.ok(grep.files > 0, 'local search goes on while the store hangs');
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    assert.doesNotMatch(daemon!.stderr(), /sekrit/);
  });

  test('a key file others may read is refused; so is a missing url', async () => {
    const open = keyFile(0o644);
    const refused = await client!.request('fathom/teamPush', { root: first, url, keyFile: open });
    assert.equal(refused.error?.code, ErrorCodes.InvalidParams);
    assert.match(refused.error?.message ?? '', /may be read by others \(mode 644\); chmod 600 it/);
    const noUrl = await client!.request('fathom/teamStatus', { root: first, keyFile: key });
    assert.equal(noUrl.error?.code, ErrorCodes.InvalidParams);
    assert.match(noUrl.error?.message ?? '', /params\.url/);
  });

  test("a third clone joins on its own daemon: the store's files first, only its own changes embedded, nothing it does not hold", async () => {
    const third = searchFixtureRepo('fathom-join-c-');
    fs.appendFileSync(path.join(third, 'src/net/retry.go'), '\n// a retry budget shared by every request of one client\nfunc retryBudget() int { return 7 }\n');
    fs.rmSync(path.join(third, 'src/storage/cache.rs'));
    fs.writeFileSync(
      path.join(third, 'src/auth/audit_trail.ts'),
      'export function recordFailedLogins(attempts: string[]): number {\n  // every failed login attempt is appended to the audit trail\n  return attempts.length;\n}\n',
    );
    const teammate = spawnStdioDaemon();
    try {
      const joined = await teammate.client.result<TeamJoinResult>('fathom/teamJoin', { root: third, url, keyFile: key });
      const files = (await teammate.client.result<{ files: string[] }>('fathom/files', { root: third })).files;
      assert.equal(joined.alreadyIndexed, false);
      assert.equal(joined.seeded.files, files.length - 2, `every file but the changed and the added one: ${JSON.stringify(joined)}`);
      assert.ok(joined.seeded.chunks > 0 && joined.vectorBytes > 0);
      assert.ok(joined.nearest !== null && joined.nearest.distance < 32, 'a pushed clone is near');
      // The first answer in words comes from what the store gave (the local build runs behind it).
      const first = await teammate.client.result<CodeSearchResult>('fathom/codeSearch', {
        root: third,
        query: 'least recently used entry evicted when the cache is full',
        mode: 'semantic',
        maxResults: 20,
      });
      assert.ok(first.hits.length > 0, 'answered from the store');
      assert.ok(!first.hits.some((hit) => hit.path === 'src/storage/cache.rs'), 'a file only the other clones hold never appears');
      const status = await teammate.client.result<StatusResult>('fathom/status', { root: third });
      const semantic = status.workspaces[0]!.search!.semantic;
      assert.ok(semantic.state !== 'off' && semantic.seeded?.files === joined.seeded.files, JSON.stringify(semantic));
      const team = await teammate.client.result<TeamStatusResult>('fathom/teamStatus', { root: third, url, keyFile: key });
      assert.deepEqual(team.seeded, semantic.seeded, 'team status says what came from the store');
      // The local build embeds only what the store did not give: the changed file and the added one.
      // (its first build, started by the join, in the background: waited for here, no other sync asked)
      const semanticNow = async () => (await teammate.client.result<StatusResult>('fathom/status', { root: third })).workspaces[0]!.search!.semantic;
      let after = await semanticNow();
      for (let attempt = 0; attempt < 600 && after.state !== 'ready'; attempt++) {
        await sleep(50);
        after = await semanticNow();
      }
      for (let attempt = 0; attempt < 600 && after.state === 'ready' && after.staged > 0; attempt++) {
        await sleep(50);
        after = await semanticNow();
      }
      assert.ok(after.state === 'ready' && after.lastSync !== null, JSON.stringify(after));
      assert.equal(after.staged, 0, "the store's vectors went into the graph");
      assert.equal(after.lastSync.files, 2, `synced ${JSON.stringify(after.lastSync)}`);
      assert.ok(after.lastSync.embedded > 0, 'the new chunks were embedded here');
      assert.equal(after.files, files.length);
      const local = await teammate.client.result<CodeSearchResult>('fathom/codeSearch', {
        root: third,
        query: 'failed login attempts appended to the audit trail',
        mode: 'semantic',
        maxResults: 3,
      });
      assert.equal(local.hits[0]?.path, 'src/auth/audit_trail.ts');
      const again = await teammate.client.result<TeamJoinResult>('fathom/teamJoin', { root: third, url, keyFile: key });
      assert.deepEqual([again.alreadyIndexed, again.fetchedFiles, again.seeded.files], [true, 0, 0], 'an index that holds vectors takes nothing');
    } finally {
      teammate.child.kill();
    }
  });

  test('fathom index joins the store first when one is configured; a store that is down leaves indexing here', async () => {
    const fourth = searchFixtureRepo('fathom-join-d-');
    const env = { FATHOM_CACHE_DIR: tempDir('fathom-cache-'), FATHOM_TEAM_URL: url, FATHOM_TEAM_KEY: key };
    const index = spawnCli(['index', fourth, '--no-daemon'], env);
    assert.equal(await index.exited, 0, index.stderr());
    assert.match(index.stderr(), /: \d+ files \(\d+ chunks\) from alice@\S+ \(/);
    const down = spawnCli(['index', searchFixtureRepo('fathom-join-e-'), '--no-daemon'], {
      ...env,
      FATHOM_CACHE_DIR: tempDir('fathom-cache-'),
      FATHOM_TEAM_URL: 'host=/nonexistent dbname=x',
    });
    assert.equal(await down.exited, 0, down.stderr());
    assert.match(down.stderr(), /the team store gave nothing \(.*\); indexing here/);
  });

  test("the MCP server's team tools: join, status and push, with the CLI's settings", async () => {
    const environment: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) if (value !== undefined) environment[name] = value;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliMain, 'mcp', first, '--no-daemon'],
      env: { ...environment, FATHOM_CACHE_DIR: tempDir('fathom-cache-'), FATHOM_LOG: 'warn', FATHOM_TEAM_URL: url, FATHOM_TEAM_KEY: key },
      stderr: 'ignore',
    });
    const mcp = new Client({ name: 'fathom-test', version: '0' });
    await mcp.connect(transport);
    try {
      const call = async (name: string, args: Record<string, unknown>): Promise<string> => {
        const result = (await mcp.callTool({ name, arguments: args })) as { content: Array<{ text: string }>; isError?: boolean };
        const said = result.content.map((item) => item.text).join('\n');
        assert.equal(result.isError, undefined, said);
        return said;
      };
      const { tools } = await mcp.listTools();
      assert.deepEqual(
        tools.map((tool) => tool.name).filter((name) => name.startsWith('team_')),
        ['team_status', 'team_push', 'team_join'],
      );
      const clone = searchFixtureRepo('fathom-join-mcp-');
      assert.match(await call('team_join', { root: clone }), /: \d+ files \(\d+ chunks\) from alice@\S+ \(/);
      assert.match(await call('team_status', {}), /nearest snapshot: #\d+ .*\(this very tree\)/);
      assert.match(await call('team_push', {}), /: up to date \(snapshot \d+ holds this tree whole/);
    } finally {
      await mcp.close();
    }
  });

  test('fathom team init, push and status from the CLI', async () => {
    const cache = tempDir('fathom-cache-');
    const env = { FATHOM_CACHE_DIR: cache, FATHOM_TEAM_URL: cluster.conninfo('team_owner', 'fathom'), FATHOM_TEAM_KEY: key };
    const init = spawnCli(['team', 'init', '--grant', 'alice'], env);
    let out = '';
    init.child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    assert.equal(await init.exited, 0, init.stderr());
    assert.match(out, new RegExp(`schema version ${schemaVersion} \\(already current\\); member role fathom_member granted to alice`));
    const memberEnv = { ...env, FATHOM_TEAM_URL: url };
    const status = spawnCli(['team', 'status', first, '--json', '--no-daemon'], memberEnv);
    let json = '';
    status.child.stdout.on('data', (chunk: Buffer) => (json += chunk.toString()));
    assert.equal(await status.exited, 0, status.stderr());
    const parsed = JSON.parse(json) as TeamStatusResult;
    assert.equal(parsed.nearest[0]?.sameTree, true);
    assert.equal(parsed.held.files, parsed.local.files);
    const missing = spawnCli(['team', 'push', first], { ...memberEnv, FATHOM_TEAM_KEY: '' });
    assert.equal(await missing.exited, 2);
    assert.match(missing.stderr(), /set FATHOM_TEAM_KEY to the team key file/);
  });
});
