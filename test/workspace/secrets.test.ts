// Secrets over the real daemon (`fathom serve --stdio`): a repository holding every kind of secret
// (test/helpers/secret-fixtures.ts: by content under innocent names, and by name) and near misses.
// No answer of grep, files, code search, symbols, chunks or outline holds any secret's text, near
// misses are found, status counts the secrets; keys and tokens written while the daemon runs are
// never answered either; and after the daemon has built and saved every index, no byte of the
// cache folder holds a secret.
// Then the regex index's own guard, for a file that comes to hold a key between the file set's
// read and the index's: such bytes are neither stored nor answered.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import type { CodeSearchResult, FilesResult, GrepResult, StatusResult, SymbolsResult, WorkspaceStatus } from '../../src/protocol/methods.js';
import { GrepPool } from '../../src/index/regex/grep-pool.js';
import { ErrorCodes } from '../../src/protocol/errors.js';
import { RegexIndex, type FileSource } from '../../src/index/regex/regex-index.js';
import { BufferOverlay } from '../../src/workspace/overlay.js';
import { gitInit, sleep, tempDir } from '../helpers/fixture.js';
import { spawnStdioDaemon } from '../helpers/raw-client.js';
import { secretFixtures, type SecretFile } from '../helpers/secret-fixtures.js';

function writeFiles(root: string, files: readonly { path: string; text: string }[]): void {
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(root, file.path)), { recursive: true });
    fs.writeFileSync(path.join(root, file.path), file.text);
  }
}

/** Every file under `folder` (the daemon's cache), with its bytes. */
function filesUnder(folder: string): { file: string; bytes: Buffer }[] {
  return fs.readdirSync(folder, { recursive: true, withFileTypes: true }).flatMap((entry) => {
    const file = path.join(entry.parentPath, entry.name);
    return entry.isFile() ? [{ file, bytes: fs.readFileSync(file) }] : [];
  });
}

describe('secrets over the daemon', () => {
  const { secrets, nearMisses } = secretFixtures();
  // Written while the daemon runs: a new file holding a key, a clean file edited to hold a token.
  const later = secretFixtures(8).secrets;
  const lateKey = later.find((file) => file.path === 'keys/encrypted.txt')!;
  const lateToken = later.find((file) => file.path === 'billing/stripe.ts')!;
  const root = tempDir('fathom-secrets-');
  writeFiles(root, [{ path: 'src/main.ts', text: 'export const main = 1;\n' }, ...secrets, ...nearMisses]);
  gitInit(root);
  const cacheDir = tempDir('fathom-cache-');
  const daemon = spawnStdioDaemon({ FATHOM_CACHE_DIR: cacheDir });
  const client = daemon.client;
  after(() => daemon.child.kill());

  const assertNeverAnswered = async (files: readonly SecretFile[]): Promise<void> => {
    for (const secret of files) {
      const found = await client.result<GrepResult>('fathom/grep', { root, pattern: secret.marker, fixedStrings: true });
      assert.deepEqual(
        found.matches.map((match) => match.path),
        [],
        `grep found ${secret.path}'s secret`,
      );
      // A regex the planner must verify line by line, over the same text.
      const regex = await client.result<GrepResult>('fathom/grep', { root, pattern: `${secret.marker.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}.*` });
      assert.deepEqual(regex.matches, [], `grep (regex) found ${secret.path}'s secret`);
    }
  };

  test('the file set holds no secret, every near miss, and status counts the secrets', async () => {
    const status = await client.result<WorkspaceStatus>('fathom/index', { root });
    assert.equal(status.state, 'ready');
    assert.equal(status.skipped.secret, secrets.length);
    const files = await client.result<FilesResult>('fathom/files', { root });
    const listed = new Set(files.files);
    for (const secret of secrets) assert.ok(!listed.has(secret.path), `${secret.path} is listed`);
    for (const near of nearMisses) assert.ok(listed.has(near.path), `${near.path} is not listed`);
  });

  test('grep never answers a secret, and finds every near miss', async () => {
    await assertNeverAnswered(secrets);
    for (const near of nearMisses) {
      const found = await client.result<GrepResult>('fathom/grep', { root, pattern: near.marker, fixedStrings: true });
      assert.ok(
        found.matches.some((match) => match.path === near.path),
        `grep did not find ${near.path}`,
      );
    }
  });

  test('code search answers no secret either', async () => {
    const secretPaths = new Set(secrets.map((secret) => secret.path));
    const check = (found: CodeSearchResult, what: string): void => {
      for (const hit of found.hits) assert.ok(!secretPaths.has(hit.path), `code search (${what}) answered ${hit.path}`);
      const text = JSON.stringify(found.hits);
      for (const secret of secrets) assert.ok(!text.includes(secret.marker), `code search (${what}) answered ${secret.path}'s secret`);
    };
    for (const secret of secrets)
      check(await client.result<CodeSearchResult>('fathom/codeSearch', { root, query: secret.marker, mode: 'literal' }), `literal ${secret.path}`);
    // Words of the secrets' files (and of the near misses'), ranked by the chunk index.
    for (const query of [
      'aws secret access key',
      'github token export push',
      'stripe billing',
      'private key begin end',
      'client key data users admin',
      'api key anthropic openai',
    ]) {
      check(await client.result<CodeSearchResult>('fathom/codeSearch', { root, query, mode: 'lexical' }), query);
    }
    // A method given a secret's path refuses it.
    for (const method of ['fathom/chunks', 'fathom/outline']) {
      for (const secret of secrets.filter((file) => file.path.endsWith('.ts') || file.path.endsWith('.js'))) {
        const response = await client.request(method, { root, path: secret.path });
        assert.equal(response.error?.code, ErrorCodes.InvalidParams, `${method} answered ${secret.path}`);
        assert.ok(!JSON.stringify(response).includes(secret.marker));
      }
    }
    // Every symbol (the code graph is built and saved too): none of a secret's file.
    const symbols = await client.result<SymbolsResult>('fathom/symbols', { root, query: '', limit: 10_000 });
    assert.ok(
      symbols.symbols.some((symbol) => symbol.path === 'src/tokens.ts'),
      "a near miss's symbols are listed",
    );
    for (const symbol of symbols.symbols) assert.ok(!secretPaths.has(symbol.path), `a symbol of ${symbol.path}`);
  });

  test('a key or a token written while the daemon runs is never answered; status counts them', async () => {
    fs.writeFileSync(path.join(root, 'src/late.txt'), lateKey.text);
    fs.writeFileSync(path.join(root, 'src/main.ts'), `export const main = 1;\n${lateToken.text}`);
    fs.writeFileSync(path.join(root, 'src/late-clean.ts'), 'export const lateClean = 1;\n');
    for (let attempt = 0; ; attempt++) {
      const files = await client.result<FilesResult>('fathom/files', { root, glob: 'src/**' });
      if (files.files.includes('src/late-clean.ts') && !files.files.includes('src/main.ts')) {
        assert.ok(!files.files.includes('src/late.txt'));
        break;
      }
      assert.ok(attempt < 500, `the watcher never applied the writes: ${files.files.join(', ')}`);
      await sleep(10);
    }
    await assertNeverAnswered([lateKey, lateToken]);
    const status = await client.result<StatusResult>('fathom/status', { root });
    assert.equal(status.workspaces[0]!.skipped.secret, secrets.length + 2);
  });

  test('once every index is built and saved, no byte of the cache folder holds a secret', async () => {
    // Wait for the indexes the searches started (ranking, symbols, semantic) to settle.
    for (let attempt = 0; ; attempt++) {
      const status = await client.result<StatusResult>('fathom/status', { root });
      const building = Object.entries(status.workspaces[0]!.indexes).filter(([, state]) => state === 'building');
      if (building.length === 0) break;
      assert.ok(attempt < 3000, `indexes still building: ${building.map(([name]) => name).join(', ')}`);
      await sleep(20);
    }
    assert.equal((await client.request('shutdown')).result, null);
    client.notify('exit');
    assert.equal(await daemon.exited, 0);
    const cached = filesUnder(cacheDir);
    assert.ok(
      cached.some((entry) => entry.file.includes('regex-content')),
      `the regex index's content store is in the cache (${cached.map((entry) => path.relative(cacheDir, entry.file)).join(', ')})`,
    );
    // A near miss's text is in the content store: the check looks where it should.
    assert.ok(
      cached.some((entry) => entry.bytes.includes(nearMisses[0]!.marker)),
      'a near miss is in the cache',
    );
    for (const secret of [...secrets, lateKey, lateToken]) {
      for (const entry of cached) {
        assert.ok(!entry.bytes.includes(secret.marker), `${path.relative(cacheDir, entry.file)} holds ${secret.path}'s secret`);
      }
    }
  });
});

test('regex index: bytes that changed since the file set judged them are not stored, and a fresh read holding a key answers nothing', async () => {
  const key = secretFixtures(9).secrets.find((file) => file.path === 'fixtures/ed25519.txt')!;
  const root = tempDir('fathom-secrets-');
  const clean = { 'a.ts': 'export const a = 1;\n', 'b.ts': 'export const b = 2;\n' };
  writeFiles(
    root,
    Object.entries(clean).map(([file, text]) => ({ path: file, text })),
  );
  // The file set read both clean; then a.ts came to hold a key, before the index read it.
  const hashes = new Map(Object.entries(clean).map(([file, text]) => [file, createHash('sha256').update(text).digest('hex')]));
  const source: FileSource = {
    root,
    files: () => [...hashes.keys()],
    get fileCount() {
      return hashes.size;
    },
    hashOf: (file) => hashes.get(file),
    onChanges: () => ({ dispose: () => undefined }),
  };
  fs.writeFileSync(path.join(root, 'a.ts'), `export const a = 1;\n${key.text}`);
  const cacheFolder = tempDir('fathom-regex-');
  const onePool = new GrepPool(1);
  const index = new RegexIndex(source, new BufferOverlay(), cacheFolder, onePool);
  try {
    await index.ensureBuilt();
    for (const pattern of [key.marker, `${key.marker.slice(0, 20)}.*`]) {
      const found = await index.search({ pattern, fixedStrings: pattern === key.marker });
      assert.deepEqual(found.matches, [], `the key was answered for ${pattern}`);
    }
    assert.equal((await index.search({ pattern: 'export const b', fixedStrings: true })).matches.length, 1);
    assert.equal((await index.search({ pattern: 'export const a', fixedStrings: true })).matches.length, 0, 'a file holding a key answers nothing at all');
    for (const entry of filesUnder(cacheFolder)) assert.ok(!entry.bytes.includes(key.marker), `${entry.file} holds the key`);
  } finally {
    index.dispose();
    onePool.close();
  }
});
