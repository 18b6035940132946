// Damaged semantic cache files, through the real daemon: each kind of file the semantic index
// keeps (the usearch index, its table semantic.bin, the embedding cache <model>.vec, the model
// setting model.json) is truncated to several lengths and has bytes flipped by a seeded generator,
// in a copy of a cache a first daemon built with the tiny test model. Each case runs a daemon of
// its own over stdio (usearch fails inside native code: a damaged index reaching it aborts the
// process, which shows here as a failed case, not a dead test runner) and checks that it answers,
// that it found the damage (status, or the error it answers), and that its semantic answers then
// equal those of the first daemon's fresh build. Engine-level cases (compaction, a log cut short
// under an open cache) follow.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { EmbeddingCache } from '../../../src/index/semantic/embedding-cache.js';
import { VectorStore } from '../../../src/index/semantic/vector-store.js';
import type { CodeSearchResult, ModelUseResult, StatusResult, WorkspaceStatus } from '../../../src/protocol/methods.js';
import { tempDir } from '../../helpers/fixture.js';
import { searchFixtureRepo } from '../../helpers/search-fixture.js';
import { type Message, spawnStdioDaemon } from '../../helpers/raw-client.js';
import { buildTinyModel } from '../../helpers/tiny-model.js';
import { SeededRandom } from '../../helpers/seeded-random.js';

type Semantic = NonNullable<WorkspaceStatus['search']>['semantic'];
type SemanticStatus = Extract<Semantic, { model: unknown }>;

const queries = ['pause', 'credential', 'room', 'discount tax for a customer', 'sleep between failed attempts'];

type Damage = { truncateTo: (size: number) => number; label: string } | { flips: number; seed: number; label: string } | { flipAt: number; label: string };

const damages: Damage[] = [
  { label: 'truncated to 0 bytes', truncateTo: () => 0 },
  { label: 'truncated to 16 bytes', truncateTo: () => 16 },
  { label: 'truncated to half', truncateTo: (size) => Math.floor(size / 2) },
  { label: 'truncated by 1 byte', truncateTo: (size) => size - 1 },
  // Byte 13: inside the container's checksum (semantic.bin), the embedding cache's zero header bytes.
  { label: 'byte 13 flipped', flipAt: 13 },
  { label: '1 byte flipped (seed 1)', flips: 1, seed: 1 },
  { label: '16 bytes flipped (seed 2)', flips: 16, seed: 2 },
  { label: '256 bytes flipped (seed 3)', flips: 256, seed: 3 },
];

function damage(file: string, how: Damage): void {
  const bytes = fs.readFileSync(file);
  if ('truncateTo' in how) {
    fs.truncateSync(file, Math.min(bytes.length - 1, how.truncateTo(bytes.length)));
    return;
  }
  if ('flipAt' in how) {
    bytes[how.flipAt] = bytes[how.flipAt]! ^ 0x01;
    fs.writeFileSync(file, bytes);
    return;
  }
  const seeded = new SeededRandom(how.seed);
  const random = (): number => seeded.next();
  const places = new Set<number>();
  while (places.size < Math.min(how.flips, bytes.length)) places.add(Math.floor(random() * bytes.length));
  for (const at of places) bytes[at] = bytes[at]! ^ (1 + Math.floor(random() * 255));
  fs.writeFileSync(file, bytes);
}

interface Kind {
  name: string;
  /** The file to damage in a built cache folder (`workspace`: the workspace's folder in it). */
  file: (cache: string, workspace: string) => string;
  /** What else the case removes first (the embedding cache matters only to a store rebuilt from it). */
  prepare?: (workspace: string) => void;
  /** Asserts that the daemon saw the damage: from its status after fathom/index, or the error it answered. */
  detected: (semantic: Semantic, indexError: Message['error']) => void;
  /** What brings the index back when the daemon cannot (a setting only the user can give again). */
  recover?: (ask: Ask, root: string, model: string) => Promise<void>;
}

type Ask = <T>(method: string, params: unknown) => Promise<{ result?: T; error?: Message['error'] }>;

const only = (folder: string, pattern: RegExp): string => {
  const found = fs.readdirSync(folder).filter((entry) => pattern.test(entry));
  assert.equal(found.length, 1, `one ${pattern} in ${folder}: ${found.join(', ')}`);
  return path.join(folder, found[0]!);
};

const kinds: Kind[] = [
  {
    name: 'semantic-*.usearch',
    file: (_cache, workspace) => only(workspace, /^semantic-.*\.usearch$/),
    detected: (semantic) => {
      const store = (semantic as SemanticStatus).store;
      assert.equal(store.loaded, 'rebuilt');
      assert.match(store.reason ?? '', /index file/);
    },
  },
  {
    name: 'semantic.bin',
    file: (_cache, workspace) => path.join(workspace, 'semantic.bin'),
    detected: (semantic) => assert.equal((semantic as SemanticStatus).store.loaded, 'rebuilt'),
  },
  {
    name: '<model>.vec',
    file: (cache) => only(path.join(cache, 'embeddings'), /\.vec$/),
    // The store rebuilt from the damaged cache: what a damaged store (or a new workspace) meets.
    prepare: (workspace) => {
      for (const entry of fs.readdirSync(workspace)) if (/^semantic/.test(entry)) fs.rmSync(path.join(workspace, entry));
    },
    detected: (semantic) => {
      const status = semantic as SemanticStatus;
      assert.equal(status.store.loaded, 'none');
      assert.ok(status.lastSync!.embedded > 0, 'what the damaged cache lost or failed is embedded again');
      assert.equal(status.pendingFiles, 0, 'no file left behind');
    },
  },
  {
    name: 'model.json',
    file: (_cache, workspace) => path.join(workspace, 'model.json'),
    detected: (semantic, indexError) => {
      assert.equal(indexError, undefined);
      assert.equal(semantic.state, 'off');
      assert.match((semantic as { reason: string }).reason, /model\.json is damaged/);
    },
    recover: async (ask, root, model) => {
      const used = await ask<ModelUseResult>('fathom/modelUse', { root, model });
      assert.equal(used.error, undefined);
    },
  },
];

// Two daemons at a time: each case is a daemon's start, a sync and five questions (about 1 s of CPU).
describe('damaged semantic cache files: detected, rebuilt, the same answers, no crash', { concurrency: 2 }, () => {
  const model = buildTinyModel();
  const root = searchFixtureRepo('fathom-semantic-damage-');
  const built = tempDir('fathom-cache-built-');
  let workspaceDir = '';
  let fresh: string[][] = [];

  /** A daemon on a copy of the built cache; `ask` fails at once if it dies. */
  const daemonOn = (cache: string) => {
    const daemon = spawnStdioDaemon({ FATHOM_CACHE_DIR: cache, FATHOM_DEFAULT_MODEL: 'off', FATHOM_MODEL_HUB: 'http://127.0.0.1:9/' });
    const died = daemon.exited.then((code) => {
      throw new Error(`the daemon died (exit ${code}, signal ${daemon.child.signalCode}): ${daemon.stderr().slice(-2000)}`);
    });
    died.catch(() => undefined);
    const ask: Ask = async (method, params) => {
      const response = await Promise.race([daemon.client.request(method, params), died]);
      return { result: response.result as never, error: response.error };
    };
    return { daemon, ask };
  };

  const answers = async (ask: Ask): Promise<string[][]> => {
    const all: string[][] = [];
    for (const query of queries) {
      const found = await ask<CodeSearchResult>('fathom/codeSearch', { root, query, mode: 'semantic' });
      assert.equal(found.error, undefined, `${query}: ${found.error?.message}`);
      all.push(found.result!.hits.map((hit) => `${hit.path}:${hit.start}-${hit.end} ${hit.score.toFixed(4)}`));
    }
    return all;
  };

  before(async () => {
    const { daemon, ask } = daemonOn(built);
    try {
      assert.equal((await ask<ModelUseResult>('fathom/modelUse', { root, model })).error, undefined);
      const indexed = await ask<WorkspaceStatus>('fathom/index', { root });
      assert.equal(indexed.result!.search!.semantic.state, 'ready');
      fresh = await answers(ask);
      assert.ok(fresh.every((hits) => hits.length > 0));
    } finally {
      daemon.child.kill();
      await daemon.exited;
    }
    const workspaces = path.join(built, 'workspaces');
    workspaceDir = path.join(workspaces, fs.readdirSync(workspaces)[0]!);
    for (const kind of kinds) assert.ok(fs.existsSync(kind.file(built, workspaceDir)), `${kind.name} was written`);
  });
  after(() => fs.rmSync(built, { recursive: true, force: true }));

  test('a restart on the intact cache loads the store and answers the same', async () => {
    const cache = tempDir('fathom-cache-case-');
    fs.cpSync(built, cache, { recursive: true });
    const { daemon, ask } = daemonOn(cache);
    try {
      const indexed = await ask<WorkspaceStatus>('fathom/index', { root });
      const semantic = indexed.result!.search!.semantic as SemanticStatus;
      assert.deepEqual([semantic.store.loaded, semantic.lastSync?.files, semantic.lastSync?.embedded], ['valid', 0, 0]);
      assert.deepEqual(await answers(ask), fresh);
    } finally {
      daemon.child.kill();
      fs.rmSync(cache, { recursive: true, force: true });
    }
  });

  test('status after a restart opens no store (unopened, 0 files) until a search in words loads it', async () => {
    const cache = tempDir('fathom-cache-case-');
    fs.cpSync(built, cache, { recursive: true });
    const { daemon, ask } = daemonOn(cache);
    try {
      assert.equal((await ask('fathom/files', { root })).error, undefined, 'the workspace is open');
      const before = (await ask<StatusResult>('fathom/status', { root })).result!.workspaces[0]!.search!.semantic as SemanticStatus;
      assert.deepEqual([before.store.loaded, before.files, before.chunks], ['unopened', 0, 0]);
      assert.deepEqual(await answers(ask), fresh);
      const afterSearch = (await ask<StatusResult>('fathom/status', { root })).result!.workspaces[0]!.search!.semantic as SemanticStatus;
      assert.equal(afterSearch.store.loaded, 'valid');
      assert.ok(afterSearch.files > 0 && afterSearch.chunks > 0, JSON.stringify(afterSearch));
    } finally {
      daemon.child.kill();
      fs.rmSync(cache, { recursive: true, force: true });
    }
  });

  for (const kind of kinds) {
    for (const how of damages) {
      test(`${kind.name} ${how.label}`, async () => {
        const cache = tempDir('fathom-cache-case-');
        fs.cpSync(built, cache, { recursive: true });
        const workspace = path.join(cache, path.relative(built, workspaceDir));
        kind.prepare?.(workspace);
        damage(kind.file(cache, workspace), how);
        const { daemon, ask } = daemonOn(cache);
        try {
          const indexed = await ask<WorkspaceStatus>('fathom/index', { root });
          kind.detected(indexed.result!.search!.semantic, indexed.error);
          if (kind.recover) {
            await kind.recover(ask, root, model);
            await ask<WorkspaceStatus>('fathom/index', { root });
          }
          assert.deepEqual(await answers(ask), fresh, 'the answers of a fresh build');
          const status = await ask<StatusResult>('fathom/status', { root });
          const semantic = status.result!.workspaces[0]!.search!.semantic as SemanticStatus;
          assert.deepEqual([semantic.state, semantic.pendingFiles], ['ready', 0]);
          assert.equal(daemon.child.exitCode, null, 'still running');
        } finally {
          daemon.child.kill();
          await daemon.exited;
          fs.rmSync(cache, { recursive: true, force: true });
        }
      });
    }
  }
});

describe('damage met by a running engine', () => {
  const unit = (values: number[]): Float32Array => {
    const vector = Float32Array.from(values);
    const norm = Math.hypot(...vector);
    return vector.map((value) => value / norm);
  };
  const chunk = (line: number, textHash: string, vector: Float32Array) => ({ startLine: line, endLine: line, startByte: 0, endByte: 1, textHash, vector });

  test('compaction drops a file whose vector the cache no longer gives back: never a key the index lacks', () => {
    const store = new VectorStore(4, 'model-a');
    const vectors = new Map([
      ['01'.repeat(32), unit([1, 0, 0, 0])],
      ['02'.repeat(32), unit([0, 1, 0, 0])],
      ['03'.repeat(32), unit([0, 0, 1, 0])],
    ]);
    store.replaceFile('a.ts', 'h1', [chunk(0, '01'.repeat(32), vectors.get('01'.repeat(32))!)]);
    store.replaceFile('b.ts', 'h2', [chunk(0, '02'.repeat(32), vectors.get('02'.repeat(32))!), chunk(5, '03'.repeat(32), vectors.get('03'.repeat(32))!)]);
    vectors.delete('03'.repeat(32)); // a damaged cache record
    assert.deepEqual(
      store.compact((key) => vectors.get(key)),
      ['b.ts'],
      'the file to sync again',
    );
    assert.equal(store.fileHash('b.ts'), undefined, 'stale: the next sync takes it');
    assert.equal(store.size, 1);
    assert.deepEqual(
      store.search(unit([0, 1, 0.1, 0]), 2).map((hit) => hit.path),
      ['a.ts'],
    );
    const folder = tempDir('fathom-store-');
    store.save(folder, '/root');
    assert.deepEqual(new VectorStore(4, 'model-a').load(folder, '/root'), { loaded: true }, 'the table agrees with its index');
  });

  test('an embedding cache cut short under an open reader: what is appended after is found', () => {
    const folder = tempDir('fathom-vec-');
    const cache = EmbeddingCache.open(folder, 'shrunk', 4);
    cache.putAll(['aa', 'bb', 'cc'].map((key, at) => ({ key: key.repeat(32), vector: unit([1, at, 0, 0]) })));
    fs.truncateSync(path.join(folder, 'shrunk.vec'), 16 + (32 + 16 + 4)); // the first record left
    cache.putAll([{ key: 'dd'.repeat(32), vector: unit([0, 0, 0, 1]) }]);
    assert.deepEqual(Array.from(cache.get('dd'.repeat(32)) ?? []), Array.from(unit([0, 0, 0, 1])));
    assert.deepEqual(Array.from(cache.get('aa'.repeat(32)) ?? []), Array.from(unit([1, 0, 0, 0])));
    assert.equal(cache.get('bb'.repeat(32)), undefined);
    assert.equal(cache.count, 2);
    cache.close();
  });
});
