// What may leave the machine: path masks (structure kept, names gone, keyed), mask keys (created
// 0600, refused when others may read them), an exported chunk ranking that answers the same
// questions with real paths on a machine holding the files (round trip) and holds no real path
// segment or identifier (no leak), and fathom/exportIndex over the protocol.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { readMaskKey, userMaskKey } from '../../../src/index/export/mask-keys.js';
import { PathMask, PathUnmasker } from '../../../src/index/export/path-mask.js';
import { exportRanking, openExport } from '../../../src/index/export/ranking-export.js';
import { ChunkRanking } from '../../../src/index/ranking/chunk-ranking.js';
import { ChunkTermsPool } from '../../../src/index/ranking/chunk-terms-pool.js';
import { queryTerms } from '../../../src/index/ranking/code-tokens.js';
import { ErrorCodes } from '../../../src/protocol/errors.js';
import type { ExportIndexResult } from '../../../src/protocol/methods.js';
import type { Workspace } from '../../../src/workspace/workspace.js';
import { tempDir } from '../../helpers/fixture.js';
import { searchFixtureRepo } from '../../helpers/search-fixture.js';
import { spawnStdioDaemon } from '../../helpers/raw-client.js';
import { quiesce, readyWorkspace } from '../../helpers/workspace-harness.js';

const teamKey = Buffer.from('00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff', 'hex');

const fixtureRepo = (): string => searchFixtureRepo('fathom-export-');

describe('path masks', () => {
  const mask = new PathMask(teamKey);

  test('folders and the extension keep their places; names are gone', () => {
    const masked = mask.mask('src/payments/invoice_processor.py');
    assert.match(masked, /^[a-z2-7]{8}\/[a-z2-7]{8}\/[a-z2-7]{8}\.[a-z2-7]{3}$/);
    assert.equal(mask.mask('src/payments/invoice_processor.py'), masked, 'deterministic');
    assert.equal(mask.mask('src/a.py').split('/')[0], masked.split('/')[0], 'one segment, one mask');
    assert.equal(mask.mask('lib/a.py').split('.')[1], masked.split('.')[1], 'one extension, one mask');
    assert.match(mask.mask('Makefile'), /^[a-z2-7]{8}$/);
    assert.match(mask.mask('.gitignore'), /^[a-z2-7]{8}$/, 'a leading dot is not an extension');
    assert.notEqual(new PathMask(Buffer.alloc(32, 7)).mask('src/payments/invoice_processor.py'), masked, 'another key, other masks');
    assert.notEqual(new PathMask(Buffer.alloc(32, 7)).keyId, mask.keyId);
  });

  test('unmasking maps back only the paths this machine holds', () => {
    const unmasker = new PathUnmasker(mask, ['src/a.py', 'src/b.py']);
    assert.equal(unmasker.unmask(mask.mask('src/b.py')), 'src/b.py');
    assert.equal(unmasker.unmask(mask.mask('src/c.py')), undefined);
  });

  test('a key shorter than 16 bytes is refused', () => assert.throws(() => new PathMask(Buffer.alloc(8)), /at least 16 bytes/));
});

describe('mask keys', () => {
  test("the user's key is made once, 0600 in a 0700 folder", () => {
    const dir = path.join(tempDir('fathom-config-'), 'fathom');
    const first = userMaskKey(dir);
    assert.equal(first.length, 32);
    assert.deepEqual(userMaskKey(dir), first);
    assert.equal(fs.statSync(path.join(dir, 'mask.key')).mode & 0o777, 0o600);
    assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
  });

  test('a team key file: hex or raw; refused when others may read it or when short', () => {
    const dir = tempDir('fathom-keys-');
    const hex = path.join(dir, 'team.key');
    fs.writeFileSync(hex, `${teamKey.toString('hex')}\n`, { mode: 0o600 });
    assert.deepEqual(readMaskKey(hex), teamKey);
    fs.chmodSync(hex, 0o644);
    assert.throws(() => readMaskKey(hex), /may be read by others \(mode 644\); chmod 600/);
    const short = path.join(dir, 'short.key');
    fs.writeFileSync(short, 'abcd', { mode: 0o600 });
    assert.throws(() => readMaskKey(short), /too short/);
  });
});

describe('an exported chunk ranking', () => {
  const pool = new ChunkTermsPool(2);
  const mask = new PathMask(teamKey);
  let root: string;
  let workspace: Workspace;
  let ranking: ChunkRanking;
  let exported: string;

  before(async () => {
    root = fixtureRepo();
    workspace = await readyWorkspace(root);
    ranking = new ChunkRanking(workspace, pool, undefined, 50, 400);
    await ranking.ensureBuilt();
    exported = path.join(tempDir('fathom-store-'), 'shop.fathom-index');
    const summary = await exportRanking(ranking, mask, exported);
    assert.equal(summary.files, workspace.files().length);
  });
  after(async () => {
    await ranking.dispose();
    await workspace.close();
    pool.close();
  });

  const questions = [
    'how is the loyalty discount taken off before tax',
    'wait longer between tries after each failure',
    'which entry is thrown away when the cache is full',
    'hex text for a new session token',
  ];

  test('round trip: with the key and the files, the same answers under real paths', async () => {
    const opened = await openExport(exported, mask, workspace.files(), (file) => workspace.hashOf(file));
    assert.deepEqual([opened.held, opened.files], [workspace.files().length, workspace.files().length]);
    for (const question of questions) {
      const local = ranking.search({ terms: queryTerms(question), limit: 5 });
      const shared = opened.ranking.search({ terms: opened.terms(queryTerms(question)), limit: 5 });
      assert.deepEqual(
        shared.map((hit) => [hit.path, hit.startLine, hit.endLine, hit.score]),
        local.map((hit) => [hit.path, hit.startLine, hit.endLine, hit.score]),
        question,
      );
    }
  });

  test('a file held with other content, or not held, is left out', async () => {
    fs.appendFileSync(path.join(root, 'src/net/retry.go'), '// changed here\n');
    await quiesce(workspace);
    const held = workspace.files().filter((file) => file !== 'src/storage/cache.rs');
    const opened = await openExport(exported, mask, held, (file) => workspace.hashOf(file));
    assert.equal(opened.held, workspace.files().length - 2);
    const hits = opened.ranking.search({ terms: opened.terms(queryTerms('retry backoff cache evicted full')), limit: 10 });
    assert.ok(hits.length > 0 && hits.every((hit) => hit.path !== 'src/net/retry.go' && hit.path !== 'src/storage/cache.rs'), JSON.stringify(hits));
  });

  test('another key is refused by name', async () => {
    await assert.rejects(
      openExport(exported, new PathMask(Buffer.alloc(32, 1)), workspace.files(), () => undefined),
      /made with another key/,
    );
  });

  test('no leak: no real path segment, root folder or identifier is in the exported bytes', () => {
    const bytes = fs.readFileSync(exported);
    const words = new Set<string>();
    for (const file of workspace.files()) {
      for (const segment of file.split('/')) {
        words.add(segment);
        for (const part of segment.split('.')) words.add(part);
      }
    }
    for (const segment of root.split('/')) words.add(segment);
    for (const identifier of [
      'InvoiceProcessor',
      'apply_discount',
      'discount',
      'isExpired',
      'SessionStore',
      'Retry',
      'LruCache',
      'evict',
      'loyalti',
      'session',
    ])
      words.add(identifier);
    const checked = [...words].filter((word) => word.length >= 3);
    assert.ok(checked.length > 20);
    for (const word of checked) assert.equal(bytes.indexOf(Buffer.from(word)), -1, `"${word}" appears in the export`);
  });
});

describe('fathom/exportIndex over the protocol', () => {
  const root = fixtureRepo();
  const configDir = tempDir('fathom-config-');
  const daemon = spawnStdioDaemon({ FATHOM_CONFIG_DIR: configDir });
  after(() => daemon.child.kill());

  test("writes the export with the user's key (made on first use)", async () => {
    const out = path.join(tempDir('fathom-out-'), 'index.bin');
    const result = await daemon.client.result<ExportIndexResult>('fathom/exportIndex', { root, out });
    assert.equal(result.file, out);
    assert.equal(result.files, 6);
    assert.match(result.keyId, /^[0-9a-f]{12}$/);
    assert.equal(result.bytes, fs.statSync(out).size);
    assert.equal(fs.statSync(path.join(configDir, 'mask.key')).mode & 0o777, 0o600);
  });

  for (const entry of [
    { name: 'a relative out', params: { out: 'index.bin' }, message: /params\.out must be an absolute path/ },
    { name: 'an out in a missing folder', params: { out: '/no/such/folder/index.bin' }, message: /does not exist/ },
    {
      name: 'a key file others may read',
      params: {
        out: '/tmp/x.bin',
        keyFile: (() => {
          const file = path.join(tempDir('fathom-keys-'), 'k');
          fs.writeFileSync(file, teamKey.toString('hex'), { mode: 0o644 });
          fs.chmodSync(file, 0o644);
          return file;
        })(),
      },
      message: /may be read by others/,
    },
  ]) {
    test(`InvalidParams: ${entry.name}`, async () => {
      const response = await daemon.client.request('fathom/exportIndex', { root, ...entry.params });
      assert.equal(response.error?.code, ErrorCodes.InvalidParams);
      assert.match(response.error?.message ?? '', entry.message);
    });
  }
});
