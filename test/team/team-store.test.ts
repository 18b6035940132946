// The team store's schema and content proofs on a real PostgreSQL (a throwaway cluster:
// test/helpers/postgres.ts): migrations apply in one transaction and a second init changes
// nothing; a store of another schema version is refused by init and by a member; the member role
// holds no privilege on any table, partition or sequence (every statement kind tried) and may call
// only the member functions; records written through those functions come back only to a caller
// presenting the file's hash (1,000 random probes get zero rows, as do another team's or model's
// probes and a chunk's hash presented as a file's); a record whose vector is missing is refused.
// The records here are the fixture repository's real files, hashed (team-push.test.ts pushes them
// through the daemon with the real model). A role that logs in with a password gets it from the
// caller, the environment or a password file only its owner may read, and no error shows it. The
// simhash of trees that share most files is near, of unrelated trees far (no PostgreSQL needed).
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { floatsOfHalfBytes, halfBytes, HalfVector } from '../../src/base/half-float.js';
import { initStore } from '../../src/team/schema.js';
import { memberFunctions, migrations, schemaVersion } from '../../src/team/migrations.js';
import { TeamStore, type FileRecord } from '../../src/team/team-store.js';
import { copyRows } from '../../src/team/copy-rows.js';
import { passwordFromFile } from '../../src/team/connection.js';
import { hammingDistance, leafSimhash } from '../../src/team/simhash.js';
import { tempDir } from '../helpers/fixture.js';
import { searchFixtures } from '../helpers/search-fixture.js';
import { postgresSkip, startCluster, type TestCluster } from '../helpers/postgres.js';

const skip = postgresSkip();

const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

/** The fixture repository's files as records: the file's hash, a masked-looking path, its lines in chunks of 10. */
function fixtureRecords(): Array<FileRecord & { vectors: Float32Array[] }> {
  const root = path.join(searchFixtures, 'repo');
  const files = fs.readdirSync(root, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  return files.map((entry, index) => {
    const bytes = fs.readFileSync(path.join(entry.parentPath, entry.name));
    const lines = bytes.toString('utf8').split('\n');
    const chunks = [];
    const vectors = [];
    let startByte = 0;
    for (let line = 0; line < lines.length; line += 10) {
      const text = lines.slice(line, line + 10).join('\n');
      const endByte = startByte + Buffer.byteLength(text);
      chunks.push({ startLine: line, endLine: Math.min(lines.length - 1, line + 9), startByte, endByte, chunkHash: sha256(text) });
      vectors.push(Float32Array.from({ length: 8 }, (_, at) => Math.sin(index + line + at)));
      startByte = endByte + 1;
    }
    return { fileHash: sha256(bytes), maskedPaths: [`m${index}/f${index}.x`], chunks, vectors };
  });
}

describe('team store: schema, privileges and proofs', { skip }, () => {
  let cluster: TestCluster;
  let owner: string;
  let member: string;
  const team = 'a1b2c3d4e5f6';
  const model = 'model-under-test';
  const records = skip ? [] : fixtureRecords();

  before(async () => {
    cluster = startCluster();
    await cluster.sql('CREATE ROLE team_owner LOGIN CREATEROLE');
    await cluster.sql('CREATE DATABASE fathom OWNER team_owner');
    await cluster.sql('CREATE ROLE alice LOGIN');
    await cluster.sql('CREATE ROLE mallory LOGIN');
    owner = cluster.conninfo('team_owner', 'fathom');
    member = cluster.conninfo('alice', 'fathom');
  });
  after(() => cluster?.destroy());

  test('init applies the migrations in one transaction, records the version, and a second init changes nothing', async () => {
    const first = await initStore({ conninfo: owner, grant: ['alice'] });
    assert.deepEqual(
      [first.from, first.version, first.applied.map((entry) => entry.version)],
      [0, schemaVersion, migrations.map((migration) => migration.version)],
    );
    const second = await initStore({ conninfo: owner, grant: ['alice'] });
    assert.deepEqual([second.from, second.applied], [schemaVersion, []]);
    const versions = await cluster.sql('SELECT version, name, applied_by FROM fathom.schema_version ORDER BY version', [], 'fathom');
    assert.deepEqual(
      versions.rows,
      migrations.map((migration) => ({ version: migration.version, name: migration.name, applied_by: 'team_owner' })),
    );
    const tables = await cluster.sql("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'fathom'", [], 'fathom');
    assert.equal(tables.rows[0].n, 1 + 1 + 4 * 9, 'schema_version, snapshots, four partitioned tables of 8 partitions each');
  });

  test('a role without the member role sees nothing and is told to ask for it', async () => {
    await assert.rejects(
      TeamStore.open({ conninfo: cluster.conninfo('mallory', 'fathom') }),
      /has no Fathom schema \(or this role may not see it\)|permission denied/,
    );
  });

  test('the member role holds no privilege on any table, partition or sequence, and may call only the member functions', async () => {
    const client = await cluster.connect('alice', 'fathom');
    try {
      const relations = await cluster.sql(
        "SELECT c.relname, c.relkind, (SELECT attname FROM pg_attribute WHERE attrelid = c.oid AND attnum = 1) AS first FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'fathom' AND c.relkind IN ('r', 'p', 'S')",
        [],
        'fathom',
      );
      assert.ok(relations.rows.length >= 38);
      const refused: string[] = [];
      for (const { relname, relkind, first } of relations.rows as Array<{ relname: string; relkind: string; first: string }>) {
        const statements =
          relkind === 'S'
            ? [`SELECT nextval('fathom.${relname}')`, `SELECT * FROM fathom.${relname}`]
            : [
                `SELECT * FROM fathom.${relname}`,
                `SELECT count(*) FROM fathom.${relname}`,
                `INSERT INTO fathom.${relname} DEFAULT VALUES`,
                `UPDATE fathom.${relname} SET ${first} = ${first}`,
                `DELETE FROM fathom.${relname}`,
                `TRUNCATE fathom.${relname}`,
                `COPY fathom.${relname} TO STDOUT`,
              ];
        for (const statement of statements) {
          await assert.rejects(client.query(statement), /permission denied|must be owner/, statement);
          refused.push(statement);
        }
      }
      assert.ok(refused.length > 200, `${refused.length} statements refused`);
      await assert.rejects(client.query("SELECT * FROM fathom.unpack_hashes('\\x00'::bytea)"), /permission denied for function/);
      await assert.rejects(client.query('CREATE TABLE fathom.mine (x int)'), /permission denied for schema/);
      const grants = await cluster.sql(
        "SELECT p.oid::regprocedure::text AS fn, p.prosecdef, p.proconfig FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'fathom' AND has_function_privilege('alice', p.oid, 'EXECUTE')",
        [],
        'fathom',
      );
      for (const row of grants.rows as Array<{ fn: string; prosecdef: boolean; proconfig: string[] }>) {
        assert.ok(row.prosecdef, `${row.fn} is SECURITY DEFINER`);
        // A fixed search_path; a planner setting beside it where a reader's plan is pinned (file_packs).
        assert.deepEqual(
          row.proconfig.filter((setting) => !/^enable_\w+=off$/.test(setting)),
          ['search_path=pg_catalog, pg_temp'],
          `${row.fn} has a fixed search_path`,
        );
      }
      assert.deepEqual(
        (grants.rows as Array<{ fn: string }>).map((row) => row.fn).sort(),
        memberFunctions.map((signature) => signature.replaceAll(' ', '')).sort(),
        'exactly the member functions',
      );
    } finally {
      await client.end();
    }
  });

  test('records go in through the member functions; a file comes back only to a caller presenting its hash', async () => {
    const store = await TeamStore.open({ conninfo: member });
    try {
      const chunkHashes = [...new Set(records.flatMap((record) => record.chunks.map((chunk) => chunk.chunkHash)))];
      assert.equal((await store.missingChunks(team, model, chunkHashes)).length, chunkHashes.length);
      const vectors = new Map(records.flatMap((record) => record.chunks.map((chunk, at) => [chunk.chunkHash, record.vectors[at]!] as const)));
      assert.equal(
        await store.putEmbeddings(
          team,
          model,
          8,
          [...vectors].map(([chunkHash, vector]) => ({ chunkHash, vector })),
        ),
        vectors.size,
      );
      assert.deepEqual(await store.missingChunks(team, model, chunkHashes), []);
      // A record naming a vector the store lacks is refused whole (a foreign key).
      const orphan = {
        fileHash: sha256('orphan'),
        maskedPaths: ['o/p.q'],
        chunks: [{ startLine: 0, endLine: 0, startByte: 0, endByte: 1, chunkHash: sha256('no vector') }],
      };
      await assert.rejects(store.putFiles(team, model, [orphan]), /foreign key/);
      const plain = records.map(({ vectors: _, ...record }) => record);
      assert.equal(await store.putFiles(team, model, plain), records.length);
      assert.equal(await store.putFiles(team, model, plain), 0, 'nothing new the second time');
      assert.deepEqual(
        await store.missingFiles(
          team,
          model,
          plain.map((record) => ({ fileHash: record.fileHash, maskedPath: record.maskedPaths[0]! })),
        ),
        [],
      );
      // Each pair judged on its own path (read by ordinal): a known file under a new path, an
      // unknown file, and known pairs around them, in an order that is not the store's.
      const known = plain.map((record) => ({ fileHash: record.fileHash, maskedPath: record.maskedPaths[0]! }));
      assert.deepEqual(
        await store.missingFiles(team, model, [
          known[1]!,
          { fileHash: known[0]!.fileHash, maskedPath: 'a/new/place' },
          known[0]!,
          { fileHash: sha256('nobody pushed this'), maskedPath: known[1]!.maskedPath },
          ...known.slice(2),
        ]),
        [1, 3],
      );

      const held = records[0]!;
      const back = await store.fileRecords(team, model, [held.fileHash]);
      assert.deepEqual(back, [{ fileHash: held.fileHash, maskedPaths: held.maskedPaths, chunks: held.chunks }]);
      const backVectors = await store.fileVectors(team, model, 8, [held.fileHash]);
      assert.deepEqual([...backVectors.keys()].sort(), [...new Set(held.chunks.map((chunk) => chunk.chunkHash))].sort());
      // Stored as f16 (schema 6): each number comes back as its f16 rounding.
      const asStored = (vector: Float32Array): number[] => Array.from(floatsOfHalfBytes(halfBytes(vector)));
      assert.deepEqual(Array.from(backVectors.get(held.chunks[0]!.chunkHash)!), asStored(held.vectors[0]!));
      // What a join reads: a row per file, its chunks in order with every vector.
      const packs = await store.filePacks(team, model, 8, [held.fileHash, held.fileHash, records[1]!.fileHash]);
      assert.deepEqual(packs.map((pack) => pack.fileHash).sort(), [held.fileHash, records[1]!.fileHash].sort(), 'each file once');
      const pack = packs.find((one) => one.fileHash === held.fileHash)!;
      assert.deepEqual(pack.chunks, held.chunks);
      assert.ok(pack.vectors instanceof HalfVector, 'f16 as stored, decoded when needed');
      assert.deepEqual(Array.from(pack.vectors.floats()), held.vectors.flatMap(asStored));
      assert.equal((await store.filePacks(team, model, 16, [held.fileHash]))[0]!.vectors, undefined, 'vectors of another size are not taken');
      assert.deepEqual(
        await store.heldFiles(
          team,
          model,
          records.map((record) => record.fileHash),
        ),
        { files: records.length, chunks: chunkHashes.length },
      );
    } finally {
      await store.close();
    }
  });

  test("a join's read (a binary COPY) leaves no timer behind, and the connection goes on answering", async () => {
    const store = await TeamStore.open({ conninfo: member, statementTimeoutMs: 300 });
    const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    try {
      const before = timers();
      assert.equal((await store.filePacks(team, model, 8, [records[0]!.fileHash])).length, 1);
      // pg's query timer, left running, would keep a CLI alive for the whole statement timeout.
      assert.equal(timers(), before);
      await new Promise((resolve) => setTimeout(resolve, 400));
      assert.equal((await store.filePacks(team, model, 8, [records[1]!.fileHash])).length, 1);
      assert.deepEqual(await store.filePacks(team, "it's quoted", 8, [records[1]!.fileHash]), [], 'a name is a literal, quoted');
    } finally {
      await store.close();
    }
    // A copy the server fails is that error, and the connection answers the next query.
    const client = await cluster.connect(cluster.superuser, 'postgres');
    try {
      await assert.rejects(
        copyRows(client, 'SELECT 1 / (g - 3) FROM generate_series(1, 5) AS g', () => undefined),
        /division by zero/,
      );
      const rows: number[] = [];
      await copyRows(client, 'SELECT g FROM generate_series(1, 3) AS g', ([value]) => rows.push(value!.readInt32BE(0)));
      assert.deepEqual(rows, [1, 2, 3]);
      await assert.rejects(
        copyRows(client, 'SELECT g FROM generate_series(1, 3) AS g', () => {
          throw new Error('the caller refused a row');
        }),
        /the caller refused a row/,
      );
      assert.equal((await client.query('SELECT 2 AS two')).rows[0].two, 2);
    } finally {
      await client.end();
    }
  });

  test('a store that crashes during a copy: the copy fails at once with the connection, nothing waits', async () => {
    const client = await cluster.connect(cluster.superuser, 'postgres');
    client.on('error', () => undefined); // the crash, reported through the copy
    let rows = 0;
    try {
      const copy = copyRows(client, 'SELECT g, pg_sleep(0.002) FROM generate_series(1, 100000) AS g', () => {
        rows += 1;
        if (rows === 50) cluster.stop('immediate');
      });
      await assert.rejects(copy, /terminat|closed|ended|ECONNRESET|shut ?down/i);
      assert.ok(rows >= 50 && rows < 100_000, `${rows} rows before the crash`);
    } finally {
      await client.end().catch(() => undefined);
      cluster.start();
    }
    const store = await TeamStore.open({ conninfo: member });
    try {
      assert.equal((await store.filePacks(team, model, 8, [records[0]!.fileHash])).length, 1, 'the store answers again once restarted');
    } finally {
      await store.close();
    }
  });

  test('vectors stored as f32 before schema 6 still read; a file whose vectors mix both widths is left to local embedding', async () => {
    const f32 = Float32Array.from({ length: 8 }, (_, at) => 0.1 * at + 1 / 3);
    const oldChunk = sha256('a chunk pushed before schema 6');
    const newChunk = records[0]!.chunks[0]!.chunkHash;
    await cluster.sql(
      'INSERT INTO fathom.embeddings (team_id, model_id, chunk_hash, vector) VALUES ($1, $2, $3, $4)',
      [team, model, Buffer.from(oldChunk, 'hex'), Buffer.from(f32.buffer)],
      'fathom',
    );
    const oldFile = sha256('a file pushed before schema 6');
    const mixedFile = sha256('a file with an old chunk and a new one');
    for (const [file, chunks] of [
      [oldFile, [oldChunk]],
      [mixedFile, [oldChunk, newChunk]],
    ] as const) {
      await cluster.sql(
        'INSERT INTO fathom.files (team_id, model_id, file_hash, chunk_count) VALUES ($1, $2, $3, $4)',
        [team, model, Buffer.from(file, 'hex'), chunks.length],
        'fathom',
      );
      for (const [ordinal, chunk] of chunks.entries())
        await cluster.sql(
          'INSERT INTO fathom.file_chunks (team_id, model_id, file_hash, ordinal, start_line, end_line, start_byte, end_byte, chunk_hash) VALUES ($1, $2, $3, $4::int, $4::int, $4::int, $4::bigint, $4::bigint, $5)',
          [team, model, Buffer.from(file, 'hex'), ordinal, Buffer.from(chunk, 'hex')],
          'fathom',
        );
    }
    const store = await TeamStore.open({ conninfo: member });
    try {
      const packs = await store.filePacks(team, model, 8, [oldFile, mixedFile]);
      const old = packs.find((pack) => pack.fileHash === oldFile)!.vectors;
      assert.ok(old instanceof Float32Array);
      assert.deepEqual(Array.from(old), Array.from(f32), 'an f32 vector as it was stored');
      const mixed = packs.find((pack) => pack.fileHash === mixedFile)!;
      assert.deepEqual([mixed.chunks.length, mixed.vectors], [2, undefined]);
      assert.deepEqual(Array.from((await store.fileVectors(team, model, 8, [oldFile])).get(oldChunk)!), Array.from(f32));
      assert.equal((await store.fileVectors(team, model, 8, [mixedFile])).size, 2, 'a vector a row at a time: either width');
    } finally {
      await store.close();
    }
  });

  test('a snapshot is complete once a push that stored every file says so, and stays complete', async () => {
    const store = await TeamStore.open({ conninfo: member });
    try {
      const tree = { merkleRoot: sha256('a tree pushed twice'), simhash: '00000000000000ff', fileCount: 3 };
      assert.equal(await store.completeSnapshot(team, model, tree.merkleRoot), undefined, 'no snapshot yet');
      const partial = await store.putSnapshot(team, model, { ...tree, chunkCount: 5, complete: false });
      assert.equal(partial.created, true);
      assert.equal(await store.completeSnapshot(team, model, tree.merkleRoot), undefined, 'a partial push is not complete');
      const whole = await store.putSnapshot(team, model, { ...tree, chunkCount: 7, complete: true });
      assert.deepEqual(whole, { id: partial.id, created: false });
      assert.deepEqual(await store.completeSnapshot(team, model, tree.merkleRoot), { id: partial.id, chunkCount: 7 });
      await store.putSnapshot(team, model, { ...tree, chunkCount: 4, complete: false });
      assert.deepEqual(await store.completeSnapshot(team, model, tree.merkleRoot), { id: partial.id, chunkCount: 7 }, 'never made partial again');
      assert.equal(await store.completeSnapshot('another team', model, tree.merkleRoot), undefined);
      assert.equal(await store.completeSnapshot(team, 'another model', tree.merkleRoot), undefined);
    } finally {
      await store.close();
    }
  });

  test('1,000 random probes, another team, another model and chunk hashes as file hashes all get zero rows', async () => {
    const store = await TeamStore.open({ conninfo: member });
    try {
      let rows = 0;
      for (let probe = 0; probe < 100; probe++) {
        const hashes = Array.from({ length: 10 }, () => randomBytes(32).toString('hex'));
        rows += (await store.fileRecords(team, model, hashes)).length;
        rows += (await store.fileVectors(team, model, 8, hashes)).size;
        rows += (await store.filePacks(team, model, 8, hashes)).length;
        rows += (await store.heldFiles(team, model, hashes)).files;
      }
      assert.equal(rows, 0, 'nothing for 1,000 hashes the caller does not hold');
      const fileHashes = records.map((record) => record.fileHash);
      assert.equal((await store.fileRecords('ffffffffffff', model, fileHashes)).length, 0, 'another team');
      assert.equal((await store.fileRecords(team, 'another-model', fileHashes)).length, 0, 'another model');
      const chunkHashes = records.flatMap((record) => record.chunks.map((chunk) => chunk.chunkHash)).filter((hash) => !fileHashes.includes(hash));
      assert.equal((await store.fileRecords(team, model, chunkHashes)).length, 0, 'a chunk hash is no proof of a file');
      assert.equal((await store.fileVectors(team, model, 8, chunkHashes)).size, 0);
      assert.equal((await store.filePacks(team, model, 8, chunkHashes)).length, 0);
      assert.equal((await store.filePacks('ffffffffffff', model, 8, fileHashes)).length, 0, 'another team');
      await assert.rejects(store.fileRecords(team, model, ['00'.repeat(31)]), /SHA-256/);
    } finally {
      await store.close();
    }
  });

  test('a store of another schema version is refused by a member and, when newer, by init', async () => {
    await cluster.sql("INSERT INTO fathom.schema_version (version, name) VALUES (99, 'from the future')", [], 'fathom');
    try {
      await assert.rejects(TeamStore.open({ conninfo: member }), new RegExp(`speaks schema version 99, this Fathom ${schemaVersion}: upgrade Fathom`));
      await assert.rejects(
        initStore({ conninfo: owner }),
        new RegExp(`schema version 99, newer than this Fathom's ${schemaVersion}: upgrade Fathom \\(nothing was changed\\)`),
      );
    } finally {
      await cluster.sql('DELETE FROM fathom.schema_version WHERE version = 99', [], 'fathom');
    }
  });

  test('a store that is down is a clear error, at once', async () => {
    const started = performance.now();
    await assert.rejects(TeamStore.open({ conninfo: `host=${cluster.socketDir} port=1 user=alice dbname=fathom` }), (error: Error) => {
      assert.match(error.message, /^team store alice@.*:1\/fathom: could not connect: /);
      return true;
    });
    assert.ok(performance.now() - started < 5_000);
  });
});

describe('leaf simhash', () => {
  test('trees sharing most leaves are a few bits apart; unrelated trees about half the bits', () => {
    const leaves = Array.from({ length: 2_000 }, (_, index) => sha256(`file ${index}`));
    const base = leafSimhash(leaves);
    assert.equal(leafSimhash([...leaves].reverse()), base, 'order does not matter');
    assert.equal(leafSimhash([...leaves, ...leaves.slice(0, 10)]), base, 'a leaf counts once');
    const changed = leafSimhash([...leaves.slice(20), ...Array.from({ length: 20 }, (_, index) => sha256(`changed ${index}`))]);
    const unrelated = leafSimhash(Array.from({ length: 2_000 }, (_, index) => sha256(`other ${index}`)));
    assert.ok(hammingDistance(base, changed) <= 12, `1% changed: ${hammingDistance(base, changed)} bits`);
    assert.ok(hammingDistance(base, unrelated) >= 20, `unrelated: ${hammingDistance(base, unrelated)} bits`);
    assert.equal(leafSimhash([]), '0000000000000000');
  });
});

describe('team store: passwords', { skip }, () => {
  let cluster: TestCluster;
  const secret = 'correct horse battery 7';
  before(async () => {
    cluster = startCluster();
    await cluster.sql('CREATE ROLE team_owner LOGIN CREATEROLE');
    await cluster.sql('CREATE DATABASE fathom OWNER team_owner');
    await initStore({ conninfo: cluster.conninfo('team_owner', 'fathom') });
    await cluster.sql(`CREATE ROLE carol LOGIN PASSWORD '${secret}' IN ROLE fathom_member`);
    await cluster.requirePassword('carol');
  });
  after(() => cluster?.destroy());

  test('from the caller, from a password file only its owner may read, never from one others may; never in a message', async () => {
    const conninfo = cluster.conninfo('carol', 'fathom');
    const saved = { PGPASSFILE: process.env.PGPASSFILE, PGPASSWORD: process.env.PGPASSWORD };
    delete process.env.PGPASSWORD;
    const passfile = path.join(tempDir('fathom-pgpass-'), 'pgpass');
    process.env.PGPASSFILE = passfile;
    try {
      await assert.rejects(
        TeamStore.open({ conninfo }),
        (error: Error) => /^team store carol@.*: could not connect: .*password/.test(error.message) && !error.message.includes(secret),
      );
      await assert.rejects(
        TeamStore.open({ conninfo, password: 'wrong one' }),
        (error: Error) => /password authentication failed for user "carol"/.test(error.message) && !error.message.includes('wrong one'),
      );
      const withPassword = await TeamStore.open({ conninfo, password: secret });
      await withPassword.close();
      fs.writeFileSync(passfile, `# a comment\nother:5432:*:carol:nope\n${cluster.socketDir}:${cluster.port}:fathom:carol:${secret.replace(/:/g, '\\:')}\n`, {
        mode: 0o644,
      });
      fs.chmodSync(passfile, 0o644);
      assert.equal(
        passwordFromFile({ host: cluster.socketDir, port: cluster.port, database: 'fathom', user: 'carol' }),
        undefined,
        'a file others may read is ignored',
      );
      fs.chmodSync(passfile, 0o600);
      assert.equal(passwordFromFile({ host: cluster.socketDir, port: cluster.port, database: 'fathom', user: 'carol' }), secret);
      const fromFile = await TeamStore.open({ conninfo });
      await fromFile.close();
      await assert.rejects(
        TeamStore.open({ conninfo: `postgresql://carol:${encodeURIComponent('not it')}@${encodeURIComponent(cluster.socketDir)}:${cluster.port}/fathom` }),
        (error: Error) => !error.message.includes('not it') && /carol@/.test(error.message),
      );
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});
