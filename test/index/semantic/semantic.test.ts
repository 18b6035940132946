// The semantic index with a real (tiny, test-built) ONNX model loaded offline by transformers.js:
// the embedding cache (persisted, a torn tail dropped), the vector store (usearch; saved and
// loaded, a mismatch rebuilt), model folders (what is missing is named), the index on the fixture
// repo (a restart or an unchanged chunk never reaches the model again; a change re-embeds only its
// file), and fathom/modelUse, semantic and hybrid codeSearch, status and fathom/index over the
// protocol.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ChunkPool } from '../../../src/index/syntax/chunk-pool.js';
import { EmbedPool, type Embedder } from '../../../src/index/semantic/embed-pool.js';
import { defaultModelDir } from '../../../src/engine/semantic-models.js';
import { EmbeddingCache } from '../../../src/index/semantic/embedding-cache.js';
import { openModelFolder } from '../../../src/index/semantic/model-folder.js';
import { type ChunkSource, SemanticIndex } from '../../../src/index/semantic/semantic-index.js';
import { embedChunks } from '../../../src/index/semantic/embedded-chunks.js';
import type { FileChunks } from '../../../src/index/syntax/chunk.js';
import { readEmbeddingDimensions, readEmbeddingTable, StaticEmbedder, staticModelFile } from '../../../src/index/semantic/static-embedder.js';
import { quantize, quantizeHalf, VectorStore } from '../../../src/index/semantic/vector-store.js';
import { encodeChecked, readChecked } from '../../../src/base/checked-file.js';
import { Packr } from 'msgpackr';
import { ErrorCodes } from '../../../src/protocol/errors.js';
import type { CodeSearchResult, ModelUseResult, StatusResult, WorkspaceStatus } from '../../../src/protocol/methods.js';
import type { Workspace } from '../../../src/workspace/workspace.js';
import { tempDir } from '../../helpers/fixture.js';
import { searchFixtureRepo } from '../../helpers/search-fixture.js';
import { spawnStdioDaemon } from '../../helpers/raw-client.js';
import { runSeed, SeededRandom } from '../../helpers/seeded-random.js';
import { halfBits, halfBytes, HalfVector } from '../../../src/base/half-float.js';
import { buildTinyModel, tinyDimensions } from '../../helpers/tiny-model.js';

const packr = new Packr({ useRecords: false, mapsAsObjects: true });
import { quiesce, readyWorkspace } from '../../helpers/workspace-harness.js';

const fixtureRepo = (): string => searchFixtureRepo('fathom-semantic-');

const unit = (values: number[]): Float32Array => {
  const vector = Float32Array.from(values);
  const norm = Math.hypot(...vector);
  return vector.map((value) => value / norm);
};

describe('embedding cache', () => {
  test('vectors persist by key; a torn record at the end is dropped; another dimension starts over', () => {
    const folder = tempDir('fathom-vec-');
    const cache = EmbeddingCache.open(folder, 'model-a', 4);
    cache.putAll([
      { key: 'aa'.repeat(32), vector: unit([1, 0, 0, 0]) },
      { key: 'bb'.repeat(32), vector: unit([0, 1, 0, 0]) },
      { key: 'aa'.repeat(32), vector: unit([0, 0, 1, 0]) }, // already there: kept as it was
    ]);
    cache.close();
    const file = path.join(folder, 'model-a.vec');
    fs.appendFileSync(file, Buffer.alloc(10, 1)); // a crash in the middle of an append
    const again = EmbeddingCache.open(folder, 'model-a', 4);
    assert.equal(again.count, 2);
    assert.deepEqual(Array.from(again.get('aa'.repeat(32))!), [1, 0, 0, 0]);
    assert.equal(again.get('bb'.repeat(32))?.[1], 1);
    assert.equal(again.get('cc'.repeat(32)), undefined);
    again.close();
    assert.equal(fs.statSync(file).size, 16 + 2 * (32 + 16 + 4), 'the torn tail was cut off');
    const other = EmbeddingCache.open(folder, 'model-a', 8);
    assert.equal(other.count, 0);
    other.close();
  });
});

describe('embedding cache shared by two daemons', () => {
  test('appends from both land whole and each sees the other; a damaged record reads as missing', () => {
    const folder = tempDir('fathom-vec-');
    const first = EmbeddingCache.open(folder, 'shared', 4);
    const second = EmbeddingCache.open(folder, 'shared', 4);
    first.putAll([{ key: '11'.repeat(32), vector: unit([1, 1, 0, 0]) }]);
    second.putAll([{ key: '22'.repeat(32), vector: unit([2, 0, 2, 0]) }]);
    first.putAll([{ key: '33'.repeat(32), vector: unit([0, 0, 0, 3]) }]);
    assert.deepEqual(Array.from(first.get('11'.repeat(32))!), Array.from(unit([1, 1, 0, 0])));
    assert.deepEqual(Array.from(first.get('22'.repeat(32))!), Array.from(unit([2, 0, 2, 0])), "the other daemon's record, seen after an append");
    assert.deepEqual(Array.from(second.get('11'.repeat(32))!), Array.from(unit([1, 1, 0, 0])), 'seen by the second when it appended');
    first.close();
    second.close();
    const file = path.join(folder, 'shared.vec');
    const bytes = fs.readFileSync(file);
    bytes[16 + 32 + 3] ^= 0xff; // inside the first record's vector
    fs.writeFileSync(file, bytes);
    const reopened = EmbeddingCache.open(folder, 'shared', 4);
    assert.equal(reopened.count, 3);
    assert.equal(reopened.get('11'.repeat(32)), undefined, 'a record that fails its check is not returned');
    assert.deepEqual(Array.from(reopened.get('33'.repeat(32))!), Array.from(unit([0, 0, 0, 3])));
    reopened.close();
  });
});

describe('vector store', () => {
  test('a small index answers the same whatever order its vectors went in: equal similarities by path, then place', () => {
    const chunk = (startByte: number, vector: number[]) => ({
      startLine: startByte,
      endLine: startByte,
      startByte,
      endByte: startByte + 1,
      textHash: '05'.repeat(32),
      vector: unit(vector),
    });
    const files: Array<[string, ReturnType<typeof chunk>[]]> = [
      ['z.ts', [chunk(0, [1, 0, 0, 0]), chunk(7, [0, 1, 0, 0])]],
      ['m.ts', [chunk(3, [1, 0, 0, 0])]],
      ['a.ts', [chunk(9, [1, 0, 0, 0]), chunk(2, [1, 0, 0, 0])]],
    ];
    const answers = [files, [...files].reverse()].map((order) => {
      const store = new VectorStore(4, 'model-a');
      order.forEach(([file, chunks], at) => store.replaceFile(file, `h${at}`, chunks));
      return store.search(unit([1, 0, 0, 0]), 4).map((hit) => `${hit.path}@${hit.startByte}`);
    });
    assert.deepEqual(answers[0], ['a.ts@2', 'a.ts@9', 'm.ts@3', 'z.ts@0']);
    assert.deepEqual(answers[1], answers[0]);
  });

  test('a small store finds every chunk, in one order, however its graph came out: built, loaded, or copied from the cache', () => {
    // Clustered vectors (10 groups of 30 near-copies) added 8 files at a time, as a sync adds
    // them: usearch's graph search for all 300 leaves some out in about half the builds.
    const dimensions = 16;
    const random = new SeededRandom(runSeed(31));
    const centres = Array.from({ length: 10 }, () => Array.from({ length: dimensions }, () => random.next() - 0.5));
    const hashOf = (file: number, at: number): string => `${file.toString(16).padStart(2, '0')}${at.toString(16).padStart(2, '0')}`.repeat(16);
    const exact = new Map<string, Float32Array>();
    const files = Array.from({ length: 150 }, (_, file) => ({
      file: `f${String(file).padStart(3, '0')}.c`,
      fileHash: `h${file}`,
      chunks: Array.from({ length: 2 }, (_, at) => {
        const vector = unit(centres[(file * 2 + at) % 10]!.map((value) => value + 0.05 * (random.next() - 0.5)));
        exact.set(hashOf(file, at), vector);
        return { startLine: at, endLine: at, startByte: 10 * at, endByte: 10 * at + 9, textHash: hashOf(file, at), vector };
      }),
    }));
    const queries = Array.from({ length: 20 }, (_, at) => files[7 * at]!.chunks[at % 2]!.vector);
    const answers = (store: VectorStore): string[][] =>
      queries.map((query) => store.search(query, 300).map((hit) => `${hit.path}:${hit.startLine} ${hit.similarity.toFixed(6)}`));
    const built = Array.from({ length: 12 }, () => {
      const store = new VectorStore(dimensions, 'model-a');
      const order = [...files].sort(() => random.next() - 0.5);
      for (let at = 0; at < order.length; at += 8) store.replaceFiles(order.slice(at, at + 8));
      return store;
    });
    const first = answers(built[0]!);
    for (const answer of first) assert.equal(answer.length, 300, 'every chunk is found');
    for (const store of built.slice(1)) assert.deepEqual(answers(store), first, 'the same answer whatever the order of the adds');
    const folder = tempDir('fathom-small-store-');
    built[1]!.save(folder, '/root');
    const loaded = new VectorStore(dimensions, 'model-a');
    assert.deepEqual(loaded.load(folder, '/root'), { loaded: true });
    assert.deepEqual(answers(loaded), first, 'a loaded store answers as the one saved (its copies saved with it)');
    // A table saved without the copies (before they were kept), as version 5 (read as 6 is): filled from the cache's vectors.
    const read = readChecked(path.join(folder, 'semantic.bin'), 'FTHMSEM1', 6);
    assert.equal(read.status, 'valid');
    const { copies, ...table } = packr.unpack((read as { payload: Buffer }).payload) as Record<string, unknown>;
    assert.ok(copies instanceof Uint8Array, 'the copies are saved');
    fs.writeFileSync(path.join(folder, 'semantic.bin'), encodeChecked('FTHMSEM1', 5, packr.pack(table)));
    const fromCache = new VectorStore(dimensions, 'model-a', { vectorOf: (textHash) => exact.get(textHash) });
    assert.deepEqual(fromCache.load(folder, '/root'), { loaded: true });
    assert.deepEqual(answers(fromCache), first, 'copies from the cache answer the same');
    // A removed file is gone from the exact search; a compaction keeps the answers.
    const without = first.map((answer) => answer.filter((hit) => !hit.startsWith('f000.c')));
    built[2]!.removeFile('f000.c');
    assert.deepEqual(answers(built[2]!), without);
    built[2]!.compact((textHash) => exact.get(textHash));
    assert.deepEqual(answers(built[2]!), without);
  });

  test('nearest chunks, replaced and removed by file, saved and loaded; a mismatched table is refused', () => {
    const store = new VectorStore(4, 'model-a');
    store.replaceFile('a.ts', 'h1', [
      { startLine: 0, endLine: 9, startByte: 0, endByte: 1, textHash: '01'.repeat(32), vector: unit([1, 0, 0, 0]) },
      { startLine: 10, endLine: 19, startByte: 0, endByte: 1, textHash: '02'.repeat(32), vector: unit([0, 1, 0, 0]) },
    ]);
    store.replaceFile('b.ts', 'h2', [{ startLine: 0, endLine: 4, startByte: 0, endByte: 1, textHash: '03'.repeat(32), vector: unit([0.9, 0.1, 0, 0]) }]);
    assert.deepEqual(
      store.search(unit([1, 0.05, 0, 0]), 2).map((hit) => `${hit.path}:${hit.startLine}`),
      ['a.ts:0', 'b.ts:0'],
    );
    assert.deepEqual(
      store.search(unit([1, 0.05, 0, 0]), 1, (file) => file === 'b.ts').map((hit) => hit.path),
      ['b.ts'],
    );
    store.replaceFile('a.ts', 'h3', [{ startLine: 0, endLine: 3, startByte: 0, endByte: 1, textHash: '04'.repeat(32), vector: unit([0, 0, 1, 0]) }]);
    assert.equal(store.size, 2);
    assert.deepEqual(
      store.search(unit([1, 0, 0, 0]), 1).map((hit) => hit.path),
      ['b.ts'],
    );
    const folder = tempDir('fathom-store-');
    store.save(folder, '/root');
    const loaded = new VectorStore(4, 'model-a');
    assert.deepEqual(loaded.load(folder, '/root'), { loaded: true });
    assert.equal(loaded.fileHash('a.ts'), 'h3');
    assert.deepEqual(
      loaded.search(unit([0, 0, 1, 0]), 1).map((hit) => `${hit.path}:${hit.endLine}`),
      ['a.ts:3'],
    );
    assert.equal(new VectorStore(4, 'model-b').load(folder, '/root').loaded, false, 'another model');
    // A table of the previous version (version 4: a record a file), as an older Fathom saved it, is still read.
    const current = readChecked(path.join(folder, 'semantic.bin'), 'FTHMSEM1', 6);
    assert.equal(current.status, 'valid');
    const columns = packr.unpack((current as { payload: Buffer }).payload) as {
      paths: string[];
      fileHashes: string[];
      chunkCounts: Uint8Array;
      keys: Uint8Array;
      ranges: Uint8Array;
      textHashes: Uint8Array;
    } & Record<string, unknown>;
    const counts = new Uint32Array(new Uint8Array(columns.chunkCounts).buffer);
    const keys = new Uint32Array(new Uint8Array(columns.keys).buffer);
    let first = 0;
    const files = columns.paths.map((file, at) => {
      const count = counts[at]!;
      const record = [
        file,
        columns.fileHashes[at],
        Array.from(keys.subarray(first, first + count)),
        columns.ranges.subarray(16 * first, 16 * (first + count)),
        columns.textHashes.subarray(32 * first, 32 * (first + count)),
      ];
      first += count;
      return record;
    });
    const { paths: _paths, fileHashes: _hashes, chunkCounts: _counts, keys: _keys, ranges: _ranges, textHashes: _textHashes, ...rest } = columns;
    const older = tempDir('fathom-store-v4-');
    for (const entry of fs.readdirSync(folder)) fs.copyFileSync(path.join(folder, entry), path.join(older, entry));
    fs.writeFileSync(path.join(older, 'semantic.bin'), encodeChecked('FTHMSEM1', 4, packr.pack({ ...rest, files })));
    const fromOlder = new VectorStore(4, 'model-a');
    assert.deepEqual(fromOlder.load(older, '/root'), { loaded: true });
    assert.deepEqual(
      fromOlder.search(unit([0, 0, 1, 0]), 2).map((hit) => `${hit.path}:${hit.endLine}:${hit.textHash.slice(0, 4)}`),
      loaded.search(unit([0, 0, 1, 0]), 2).map((hit) => `${hit.path}:${hit.endLine}:${hit.textHash.slice(0, 4)}`),
    );
    const bytes = fs.readFileSync(path.join(folder, 'semantic.bin'));
    bytes[bytes.length - 1] ^= 0xff;
    fs.writeFileSync(path.join(folder, 'semantic.bin'), bytes);
    assert.match((new VectorStore(4, 'model-a').load(folder, '/root') as { reason: string }).reason, /checksum/);
  });
});

describe('a large saved store, viewed, changed beside its view', () => {
  test('changes are staged and removals hidden, saved in the table without writing the graph again; past the limit it is loaded whole', () => {
    const random = new SeededRandom(11);
    const dimensions = 16;
    const exact = new Map<string, Float32Array>();
    /** File `at`'s two chunks, their vectors drawn afresh for each `round`. */
    const fileOf = (at: number, round: number) => ({
      file: `d${String(at).padStart(4, '0')}.c`,
      fileHash: `h${at}-${round}`,
      chunks: [0, 1].map((chunk) => {
        const textHash = (round * 1e6 + at * 2 + chunk).toString(16).padStart(64, '0');
        const vector = unit(Array.from({ length: dimensions }, () => random.next() - 0.5));
        exact.set(textHash, vector);
        return { startLine: chunk, endLine: chunk, startByte: 10 * chunk, endByte: 10 * chunk + 9, textHash, vector };
      }),
    });
    const files = Array.from({ length: 2_100 }, (_, at) => fileOf(at, 0));
    const options = { vectorOf: (key: string) => exact.get(key), viewDeltaRows: 40 };
    const built = new VectorStore(dimensions, 'model-a', options);
    built.replaceFiles(files);
    const folder = tempDir('fathom-view-delta-');
    built.save(folder, '/root');
    const graphFiles = (): string[] => fs.readdirSync(folder).filter((name) => name.endsWith('.usearch'));
    const [first] = graphFiles();
    const open = (): VectorStore => {
      const store = new VectorStore(dimensions, 'model-a', options);
      assert.deepEqual(store.load(folder, '/root'), { loaded: true });
      return store;
    };
    /** Where each chunk's own vector is found first, as path:startByte. */
    const firstHits = (store: VectorStore, changed: ReturnType<typeof fileOf>[]): string[] =>
      changed.flatMap(({ chunks }) => chunks.map((chunk) => store.search(chunk.vector, 1).map((hit) => `${hit.path}:${hit.startByte}`)[0] ?? 'none'));
    const placesOf = (changed: ReturnType<typeof fileOf>[]): string[] =>
      changed.flatMap(({ file, chunks }) => chunks.map((chunk) => `${file}:${chunk.startByte}`));

    const viewed = open();
    assert.equal(viewed.viewed, true);
    // A search filtered to one file of the graph: exactly its chunks, by their exact similarity.
    const query = unit(Array.from({ length: dimensions }, () => random.next() - 0.5));
    const inFile = viewed.search(query, 5, (file) => file === 'd0500.c');
    const dot = (a: Float32Array, b: Float32Array): number => a.reduce((sum, value, at) => sum + value * b[at]!, 0);
    const expectedOrder = files[500]!.chunks
      .map((chunk) => ({ textHash: chunk.textHash, similarity: dot(query, chunk.vector) }))
      .sort((a, b) => b.similarity - a.similarity);
    assert.deepEqual(
      inFile.map((hit) => hit.textHash),
      expectedOrder.map((chunk) => chunk.textHash),
    );
    for (const [at, hit] of inFile.entries()) assert.ok(Math.abs(hit.similarity - expectedOrder[at]!.similarity) < 1e-4);
    const changed = Array.from({ length: 10 }, (_, at) => fileOf(at, 1));
    viewed.replaceFiles(changed);
    const removed = ['d0100.c', 'd0101.c', 'd0102.c'];
    for (const file of removed) viewed.removeFile(file);
    assert.equal(viewed.viewed, true, 'still the view: nothing was loaded whole');
    assert.deepEqual([viewed.stagedCount, viewed.size], [20, 2 * (2_100 - removed.length)]);
    assert.deepEqual(firstHits(viewed, changed), placesOf(changed), 'a changed chunk is found first by its new vector');
    const gone = (store: VectorStore): void => {
      for (const at of [0, 100, 101, 102]) {
        const hits = store.search(files[at]!.chunks[0]!.vector, 50);
        assert.ok(!hits.some((hit) => hit.textHash === files[at]!.chunks[0]!.textHash), `d${at}: an old or removed chunk is never found`);
      }
    };
    gone(viewed);
    viewed.save(folder, '/root');
    assert.deepEqual(graphFiles(), [first], 'the graph was not written again');

    const reopened = open();
    assert.deepEqual([reopened.viewed, reopened.stagedCount, reopened.size], [true, 20, viewed.size]);
    assert.deepEqual(firstHits(reopened, changed), placesOf(changed));
    gone(reopened);
    assert.ok(!removed.some((file) => [...reopened.paths()].includes(file)));

    // Ten files more (20 rows, 40 staged: the limit), then one (42): the view is loaded whole.
    const more = Array.from({ length: 10 }, (_, at) => fileOf(20 + at, 2));
    reopened.replaceFiles(more);
    assert.deepEqual([reopened.viewed, reopened.stagedCount], [true, 40]);
    const last = [fileOf(40, 2)];
    reopened.replaceFiles(last);
    assert.deepEqual([reopened.viewed, reopened.stagedCount], [false, 0]);
    const all = [...changed, ...more, ...last];
    const mostly = (hits: string[]): void => assert.ok(hits.filter((hit, at) => hit === placesOf(all)[at]).length >= 0.95 * hits.length, JSON.stringify(hits));
    mostly(firstHits(reopened, all));
    gone(reopened);
    reopened.save(folder, '/root');
    assert.equal(graphFiles().length, 1);
    assert.notEqual(graphFiles()[0], first, 'a graph loaded whole is written under a new name');
    const whole = open();
    assert.deepEqual([whole.size, whole.stagedCount], [reopened.size, 0]);
    mostly(firstHits(whole, all));
    gone(whole);
  });

  test('a table whose hidden keys do not add up with its graph is refused', () => {
    const dimensions = 4;
    const store = new VectorStore(dimensions, 'model-a');
    store.replaceFile('a.c', 'h', [{ startLine: 0, endLine: 0, startByte: 0, endByte: 1, textHash: 'ab'.repeat(32), vector: unit([1, 0, 0, 0]) }]);
    const folder = tempDir('fathom-view-hidden-');
    store.save(folder, '/root');
    const file = path.join(folder, 'semantic.bin');
    const read = readChecked(file, 'FTHMSEM1', 6);
    assert.equal(read.status, 'valid');
    const table = packr.unpack((read as { payload: Buffer }).payload) as Record<string, unknown>;
    fs.writeFileSync(file, encodeChecked('FTHMSEM1', 6, packr.pack({ ...table, hiddenKeys: Buffer.from(Uint32Array.of(1).buffer) })));
    const loaded = new VectorStore(dimensions, 'model-a').load(folder, '/root');
    assert.equal(loaded.loaded, false);
  });
});

describe('vector store with staged vectors (a team join)', () => {
  const random = new SeededRandom(7);
  const dimensions = 16;
  /** 40 files of 1-3 chunks, random unit vectors; each chunk's text hash says where it is. */
  const files = Array.from({ length: 40 }, (_, file) => ({
    file: `f${String(file).padStart(2, '0')}.c`,
    fileHash: `h${file}`,
    chunks: Array.from({ length: 1 + (file % 3) }, (_, chunk) => ({
      startLine: chunk,
      endLine: chunk,
      startByte: 10 * chunk,
      endByte: 10 * chunk + 9,
      textHash: (file * 3 + chunk).toString(16).padStart(64, '0'),
      vector: unit(Array.from({ length: dimensions }, () => random.next() - 0.5)),
    })),
  }));
  const total = files.reduce((sum, { chunks }) => sum + chunks.length, 0);
  const exact = new Map(files.flatMap(({ chunks }) => chunks.map((chunk) => [chunk.textHash, chunk.vector] as const)));
  /** What searching for each chunk's own vector finds first, as path:startByte. */
  const ownFirst = (store: VectorStore): string[] =>
    files.flatMap(({ chunks }) => chunks.map((chunk) => store.search(chunk.vector, 1).map((hit) => `${hit.path}:${hit.startByte}`)[0] ?? 'none'));
  const expected = files.flatMap(({ file, chunks }) => chunks.map((chunk) => `${file}:${chunk.startByte}`));
  /**
   * Once vectors are in the HNSW graph (built on every core), nearly every chunk finds itself
   * first: a graph so built may leave a node its search does not reach (2 of 79 once, in a full
   * run here). The staged rows' exact search is held to every one.
   */
  const mostlyFirst = (actual: string[], wanted: string[]): void =>
    assert.ok(actual.filter((hit, at) => hit === wanted[at]).length >= 0.95 * wanted.length, JSON.stringify(actual));

  test('answer exactly at once, move into the graph whole files at a time, and a save meanwhile keeps the whole files the graph holds', () => {
    // Blocks of 8 rows: searches and the graph's slices cross them.
    const store = new VectorStore(dimensions, 'model-a', { blockRows: 8 });
    store.stage(files);
    assert.equal(store.size, total);
    assert.equal(store.stagedCount, total);
    assert.deepEqual(ownFirst(store), expected, 'every chunk is found by its own vector before any is in the graph');
    assert.ok(Math.abs(store.search(files[4]!.chunks[0]!.vector, 1)[0]!.similarity - 1) < 0.01, 'i8 rows keep the similarity');
    // f00 has one chunk, f01 two: asked for 2 rows, the slice runs on to the end of f01.
    assert.equal(
      store.graphStaged(2, (key) => exact.get(key)),
      3,
    );
    assert.equal(store.stagedCount, total - 3);
    mostlyFirst(ownFirst(store), expected);
    const folder = tempDir('fathom-staged-');
    store.save(folder, '/root');
    const saved = new VectorStore(dimensions, 'model-a');
    assert.deepEqual(saved.load(folder, '/root'), { loaded: true });
    assert.deepEqual([...saved.paths()].sort(), ['f00.c', 'f01.c'], 'only the files the graph held whole');
    assert.equal(saved.size, 3);
    // A staged file removed before the graph takes it is never found again, nor put in the graph.
    store.removeFile('f05.c');
    // A vector the cache cannot give goes in from its i8 row.
    while (store.stagedCount > 0) store.graphStaged(7, (key) => (key.endsWith('a') ? undefined : exact.get(key)));
    assert.equal(store.size, total - 3);
    // Every chunk but f05's is found first by its own vector.
    const kept = (hits: string[]): string[] => hits.filter((_, at) => !expected[at]!.startsWith('f05.c'));
    const found = ownFirst(store);
    mostlyFirst(kept(found), kept(expected));
    assert.ok(!store.search(files[5]!.chunks[0]!.vector, total).some((hit) => hit.path === 'f05.c'), 'a removed file is gone');
    store.save(folder, '/root');
    const whole = new VectorStore(dimensions, 'model-a');
    assert.deepEqual(whole.load(folder, '/root'), { loaded: true });
    assert.equal(whole.fileCount, 39);
    mostlyFirst(kept(ownFirst(whole)), kept(expected));
  });

  test('staged a round at a time (a join): the same exact answers; a round after the graph began goes straight to the graph', () => {
    // Blocks of 8 rows and rounds of 7 files: rounds end inside blocks, which grow.
    const store = new VectorStore(dimensions, 'model-a', { blockRows: 8 });
    const late = files.slice(35);
    for (let start = 0; start < 35; start += 7) store.stage(files.slice(start, start + 7));
    const early = files.slice(0, 35).reduce((sum, { chunks }) => sum + chunks.length, 0);
    assert.deepEqual([store.size, store.stagedCount], [early, early]);
    assert.deepEqual(ownFirst(store).slice(0, early), expected.slice(0, early), 'every staged chunk found first by its own vector');
    store.graphStaged(5, (key) => exact.get(key));
    const left = store.stagedCount;
    store.stage(late);
    assert.deepEqual([store.size, store.stagedCount], [total, left], 'the late round went into the graph');
    mostlyFirst(ownFirst(store), expected);
    while (store.stagedCount > 0) store.graphStaged(16, (key) => exact.get(key));
    mostlyFirst(ownFirst(store), expected);
  });

  test('f16 bits quantize to the very i8 rows their f32 numbers do (subnormals, zeros, signs)', () => {
    const vectors = Array.from({ length: 200 }, (_, at) =>
      Float32Array.from({ length: dimensions }, (_, index) =>
        at % 7 === 0 ? (random.next() - 0.5) * 1e-6 : at % 11 === 0 && index % 2 ? 0 : random.next() - 0.5,
      ),
    );
    vectors.push(new Float32Array(dimensions));
    for (const vector of vectors) {
      const bits = halfBits(halfBytes(vector));
      const fromBits = new Int8Array(dimensions);
      const fromFloats = new Int8Array(dimensions);
      quantizeHalf(bits, fromBits, 0);
      quantize(new HalfVector(bits).floats(), fromFloats, 0);
      assert.deepEqual(Array.from(fromBits), Array.from(fromFloats));
    }
  });

  test('vectors staged as f16 bits (a team store of schema 6) answer as their f32 do', () => {
    const store = new VectorStore(dimensions, 'model-a', { blockRows: 8 });
    const asHalf = files.map(({ chunks, ...file }) => ({
      ...file,
      chunks: chunks.map((chunk) => ({ ...chunk, vector: new HalfVector(halfBits(halfBytes(chunk.vector))) })),
    }));
    store.stage(asHalf.slice(0, 20));
    store.stage(asHalf.slice(20));
    assert.equal(store.stagedCount, total);
    assert.deepEqual(ownFirst(store), expected, 'every chunk found first by its own vector');
    assert.ok(Math.abs(store.search(files[4]!.chunks[0]!.vector, 1)[0]!.similarity - 1) < 0.01);
    while (store.stagedCount > 0) store.graphStaged(16, (key) => exact.get(key));
    mostlyFirst(ownFirst(store), expected);
  });

  test('adds of every size go in, whatever grew the graph before (usearch sizes its per-thread state when it grows)', () => {
    // Slices of the staged rows of many sizes, files added and replaced between them: the build before
    // this one added a small batch on one thread and a large one on every core, and an add that
    // fitted without growing the graph then failed ("Reserve capacity ahead of insertions!").
    let made = 0;
    const file = (name: string, count: number) => ({
      file: name,
      fileHash: name,
      chunks: Array.from({ length: count }, (_, chunk) => ({
        startLine: chunk,
        endLine: chunk,
        startByte: chunk,
        endByte: chunk + 1,
        textHash: (made++).toString(16).padStart(64, '0'),
        vector: unit(Array.from({ length: dimensions }, () => random.next() - 0.5)),
      })),
    });
    const many = Array.from({ length: 3_000 }, (_, at) => file(`f${at}.c`, 1 + (at % 20)));
    const vectors = new Map(many.flatMap(({ chunks }) => chunks.map((chunk) => [chunk.textHash, chunk.vector] as const)));
    const store = new VectorStore(dimensions, 'model-a');
    store.stage(many);
    const sizes = [256, 40, 900, 32, 3_000, 64];
    let rows = 256;
    for (let step = 0; store.stagedCount > 0;) {
      store.graphStaged(rows, (key) => vectors.get(key));
      rows = sizes[step++ % sizes.length]!;
      if (step % 3 === 0) store.replaceFiles([file(`new${step}.c`, 1 + (step % 5))]);
      if (step % 4 === 0) store.replaceFiles([file(`f${step}.c`, 3)]);
    }
    assert.equal(store.stagedCount, 0);
    assert.ok(store.size > 30_000);
  });

  test('a path filter widens the exact search until enough pass; a compaction takes the staged vectors into the new graph', () => {
    // Blocks of 8 rows: searches and the graph's slices cross them.
    const store = new VectorStore(dimensions, 'model-a', { blockRows: 8 });
    store.stage(files);
    const only = (file: string): boolean => file === 'f33.c';
    assert.deepEqual(
      store.search(files[0]!.chunks[0]!.vector, 3, only).map((hit) => hit.path),
      ['f33.c'],
      'the only file that passes, found however far it is',
    );
    store.compact((key) => exact.get(key));
    assert.equal(store.stagedCount, 0);
    mostlyFirst(ownFirst(store), expected);
  });
});

describe('vector store read where it lies', () => {
  test('a loaded store is a view of its saved file until the first change, which loads it whole; both answer alike, and save', () => {
    const store = new VectorStore(4, 'model-a');
    store.replaceFile('a.ts', 'h1', [{ startLine: 0, endLine: 9, startByte: 0, endByte: 1, textHash: '01'.repeat(32), vector: unit([1, 0, 0, 0]) }]);
    store.replaceFile('b.ts', 'h2', [{ startLine: 0, endLine: 4, startByte: 0, endByte: 1, textHash: '02'.repeat(32), vector: unit([0, 1, 0, 0]) }]);
    const folder = tempDir('fathom-store-view-');
    store.save(folder, '/root');
    assert.equal(store.viewed, false, 'a store built in memory is no view');
    const loaded = new VectorStore(4, 'model-a');
    assert.deepEqual(loaded.load(folder, '/root'), { loaded: true });
    assert.equal(loaded.viewed, true, 'read where it lies');
    assert.deepEqual(
      loaded.search(unit([0, 1, 0, 0]), 2).map((hit) => hit.path),
      ['b.ts', 'a.ts'],
    );
    loaded.replaceFile('c.ts', 'h3', [{ startLine: 0, endLine: 2, startByte: 0, endByte: 1, textHash: '03'.repeat(32), vector: unit([0, 0, 1, 0]) }]);
    assert.equal(loaded.viewed, false, 'a change loads it whole');
    assert.deepEqual(
      loaded.search(unit([0, 0, 1, 0]), 1).map((hit) => hit.path),
      ['c.ts'],
    );
    assert.deepEqual(
      loaded.search(unit([0, 1, 0, 0]), 1).map((hit) => hit.path),
      ['b.ts'],
      'the viewed vectors are kept',
    );
    const viewedAgain = new VectorStore(4, 'model-a');
    assert.deepEqual(viewedAgain.load(folder, '/root'), { loaded: true });
    viewedAgain.removeFile('a.ts');
    assert.equal(viewedAgain.viewed, false, 'a removal loads it whole too');
    assert.deepEqual(
      viewedAgain.search(unit([1, 0, 0, 0]), 2).map((hit) => hit.path),
      ['b.ts'],
    );
    loaded.save(folder, '/root');
    const reread = new VectorStore(4, 'model-a');
    assert.deepEqual(reread.load(folder, '/root'), { loaded: true });
    assert.equal(reread.size, 3);
    assert.deepEqual(
      reread.search(unit([0, 0, 1, 0]), 1).map((hit) => hit.path),
      ['c.ts'],
    );
  });
});

describe('model folders', () => {
  test('what is missing is named; a model is named by its files', () => {
    const empty = tempDir('fathom-no-model-');
    assert.throws(() => openModelFolder(empty), /missing config\.json, tokenizer\.json, onnx\/model\.onnx \(or onnx\/model_quantized\.onnx\)/);
    assert.throws(() => openModelFolder(path.join(empty, 'nope')), /no model folder/);
    const dir = buildTinyModel();
    const one = openModelFolder(dir);
    assert.equal(one.dtype, 'fp32');
    fs.writeFileSync(path.join(dir, 'fathom.json'), JSON.stringify({ hybridWeight: 0.4 }));
    const weighted = openModelFolder(dir);
    assert.equal(weighted.id, one.id, 'a measured weight changes no vector');
    assert.equal(weighted.settings.hybridWeight, 0.4);
    fs.writeFileSync(path.join(dir, 'fathom.json'), JSON.stringify({ hybridWeight: 0.4, documentPrefix: 'passage: ' }));
    assert.notEqual(openModelFolder(dir).id, one.id, 'a prefix changes every vector');
    fs.writeFileSync(path.join(dir, 'fathom.json'), JSON.stringify({ hybridWeight: 0.4, pooling: 'distinct' }));
    assert.notEqual(openModelFolder(dir).id, one.id, 'distinct pooling changes every vector');
    // Opened again (each workspace opens its model): the id remembered, or computed anew for a changed file.
    fs.writeFileSync(path.join(dir, 'fathom.json'), JSON.stringify({}));
    assert.equal(openModelFolder(dir).id, one.id, 'the same files, the same id');
    fs.appendFileSync(path.join(dir, 'tokenizer.json'), ' ');
    assert.notEqual(openModelFolder(dir).id, one.id, 'a changed tokenizer names another model');
    fs.writeFileSync(path.join(dir, 'fathom.json'), JSON.stringify({ pooling: 'max' }));
    assert.throws(() => openModelFolder(dir), /pooling must be "sum" or "distinct", not "max"/);
  });
});

/** Code-like ASCII: words of the tiny model's vocabulary and others, punctuation, spaces, tabs, newlines, now and then a control. */
function asciiSamples(random: SeededRandom, count: number): string[] {
  const pieces = [
    'retry',
    'cache',
    'session',
    'token',
    'Entry',
    'full',
    'x',
    '42',
    '_',
    'zzq',
    ' ',
    ' ',
    '\t',
    '\n',
    '\r\n',
    '(',
    ')',
    '->',
    ';',
    '{',
    '}',
    '##',
    '*/',
    '"',
    "'",
    '\x0b',
    '\x7f',
  ];
  return Array.from({ length: count }, () => Array.from({ length: random.between(1, 400) }, () => pieces[random.int(pieces.length)]!).join(''));
}

describe('a static model embeds without onnxruntime, the same vectors', () => {
  test('static and transformers.js vectors agree (punctuation, accents, CJK, truncation past 512 tokens)', async () => {
    const pool = new EmbedPool();
    try {
      const model = openModelFolder(buildTinyModel());
      const viaOnnx = pool.embedder(model);
      const direct = new StaticEmbedder(model);
      const texts = [
        'retry the session token',
        'Retry(attempts) -> backoff; WAIT... then sleep!',
        'café Session—token «expired» 缓存 cache',
        'cacheEntry capacity_full retries##',
        `${'retry '.repeat(400)}${'cache '.repeat(400)}`,
        'no known words at all',
        // Where a re-implementation can drift (each found by a review against transformers.js):
        'retry\x0bcache and\x0cfull', // VT and FF are controls, dropped, not separators
        'cache x="\ue0b0" entry', // private use: dropped
        'retry a\ud800b token', // a lone surrogate: dropped
        'cache a\u{20000}b entry', // past the BMP: not padded as a CJK character
        '[SEP] retry the session [CLS] cache', // special tokens written in the text
        `${'token '.repeat(510)}`, // 510 words + [CLS] + [SEP] = 512: no cut
        `${'token '.repeat(511)}retry`, // past it: cut, [SEP] dropped
        // Plain ASCII takes a path of its own (asciiIds): every printable byte, tabs, CRLF, a
        // control inside a word (that text takes the general path), past 512 tokens.
        `int\tmain(void)\r\n{ return a->b[0] + (c ? d : e) ; } // !"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}~`,
        'cache\x01entry retry',
        `${'a_b.c '.repeat(300)}`,
        ...asciiSamples(new SeededRandom(runSeed(33)), 40),
      ];
      const compare = async (onnx: Embedder, fast: Embedder, what: string): Promise<void> => {
        const [expected, actual] = [await onnx.embed(texts, 'document'), await fast.embed(texts, 'document')];
        texts.forEach((text, at) => {
          const dot = expected[at]!.reduce((sum, value, column) => sum + value * actual[at]![column]!, 0);
          const bothZero = expected[at]!.every((value) => Math.abs(value) < 1e-6) && actual[at]!.every((value) => Math.abs(value) < 1e-6);
          assert.ok(bothZero || dot > 0.9999, `${what}: ${text.slice(0, 30)}: cosine ${dot}`);
        });
      };
      await compare(viaOnnx, direct, 'the tiny model');
      // Fathom's own model, through onnxruntime (static off) and the static embedder.
      const shipped = openModelFolder(defaultModelDir);
      assert.equal(shipped.settings.static, true);
      await compare(pool.embedder({ ...shipped, settings: {} }), new StaticEmbedder(shipped), 'fathom-code');
    } finally {
      pool.close();
    }
  });

  test("a static model's token ids are transformers.js' tokenizer's, for text mixing plain ASCII lines with others (a chunk header's '…')", async () => {
    const { AutoTokenizer, env } = await import('@huggingface/transformers');
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    const mixed = [
      'fs/ext4/inode.c (C)\ndefines: int ext4_write_begin(struct file *file, struct address_space *mapping, loff_t pos, …, …\nint main(void)\n{ return a->b[0]; }\n',
      '// café Σ ΟΔΟΣ\nİstanbul\n缓存 cache\r\nretry\tsession\n\n…\n',
      'a\u0301b\nc\u0300\n\u0301d\n[SEP] é\n[CLS]\nint x;\n',
      `${'token …\n'.repeat(200)}`, // past 512 tokens, every line mixed
      `${'plain line\n'.repeat(300)}… the end`, // past 512 tokens before the mixed line
      ...asciiSamples(new SeededRandom(runSeed(34)), 10).map((text, at) => `${text}\n${['…', 'é', '缓存', '\u00a0'][at % 4]}${text}`),
    ];
    for (const dir of [buildTinyModel(), defaultModelDir]) {
      const embedder = new StaticEmbedder(openModelFolder(dir));
      const ids = (embedder as unknown as { ids(text: string): number[] }).ids.bind(embedder);
      const tokenizer = await AutoTokenizer.from_pretrained(dir);
      const [cls, sep] = (tokenizer.encode('') as number[]).slice(0, 2) as [number, number];
      for (const text of mixed) {
        // What the model reads: the first 512 (encode does not cut; the embedder stops past them).
        const expected = (tokenizer.encode(text) as number[]).slice(0, 512);
        const actual = [cls, ...ids(text), sep].slice(0, expected.length);
        assert.deepEqual(actual, expected, `${path.basename(dir)}: ${JSON.stringify(text.slice(0, 40))}`);
      }
    }
  });

  test("a static model's dimensions are read from its table's shape, as the loaded table has them (what status asks)", () => {
    const pool = new EmbedPool();
    try {
      for (const model of [openModelFolder(buildTinyModel({ static: true })), openModelFolder(defaultModelDir)]) {
        const table = readEmbeddingTable(staticModelFile(model));
        assert.equal(readEmbeddingDimensions(model), table.columns);
        assert.equal(pool.staticDimensions(model), new StaticEmbedder(model).dimensions);
      }
      // A fathom.json whose pooling the graph does not do is refused here too, before any table is read.
      const shipped = openModelFolder(defaultModelDir);
      assert.throws(
        () => readEmbeddingDimensions({ ...shipped, settings: { ...shipped.settings, pooling: 'sum' } }),
        /says pooling "sum" but the ONNX graph counts each token once/,
      );
    } finally {
      pool.close();
    }
  });

  test('distinct pooling counts each token once per text, in every text of a batch, on both paths', async () => {
    const cosine = (a: Float32Array, b: Float32Array): number => a.reduce((sum, value, column) => sum + value * b[column]!, 0);
    const folder = openModelFolder(buildTinyModel({ static: true, pooling: 'distinct' }));
    const distinct = new StaticEmbedder(folder);
    const summed = new StaticEmbedder(openModelFolder(buildTinyModel({ static: true })));
    const texts = ['retry retry retry cache', 'retry cache', 'cache retry cache retry', 'retry cache retry'];
    const [repeated, once, shuffled, again] = await distinct.embed(texts, 'document');
    for (const other of [once!, shuffled!, again!]) assert.ok(cosine(repeated!, other) > 0.99999, 'the same distinct tokens: the same vector');
    const [sumRepeated, sumOnce] = await summed.embed(texts.slice(0, 2), 'document');
    assert.ok(cosine(sumRepeated!, sumOnce!) < 0.95, 'summed, repeats weigh more');
    // The graph's mask through onnxruntime, texts of different lengths padded in one batch.
    const pool = new EmbedPool();
    try {
      const mixed = [...texts, 'retry', `${'cache retry '.repeat(300)}session`, 'session token session login token'];
      const [viaOnnx, direct] = [await pool.embedder({ ...folder, settings: {} }).embed(mixed, 'document'), await distinct.embed(mixed, 'document')];
      mixed.forEach((text, at) => assert.ok(cosine(viaOnnx[at]!, direct[at]!) > 0.9999, `${text.slice(0, 30)}: the graph and the static embedder agree`));
    } finally {
      pool.close();
    }
    // A fathom.json pooling that is not its graph's is refused, both ways.
    assert.throws(
      () => new StaticEmbedder({ ...folder, settings: { static: true } }),
      /fathom\.json says pooling "sum" but the ONNX graph counts each token once/,
    );
    const plain = openModelFolder(buildTinyModel({ static: true }));
    assert.throws(
      () => new StaticEmbedder({ ...plain, settings: { static: true, pooling: 'distinct' } }),
      /says pooling "distinct" but the ONNX graph sums every token/,
    );
  });
});

test('semantic index: vectors a syntax pass made with another model are not taken; the file is cut and embedded again', async () => {
  const model = openModelFolder(buildTinyModel({ static: true }));
  const embedPool = new EmbedPool();
  const pool = new ChunkPool(1);
  const workspace = await readyWorkspace(fixtureRepo());
  const cache = EmbeddingCache.open(tempDir('fathom-embeddings-'), model.id, tinyDimensions);
  const asked = new Map<string, number>();
  // The pass's answers, the first one for each file made with another model (as a pass holds them
  // for the index the workspace had before its model changed).
  const source: ChunkSource = {
    chunk: async (request) => {
      const times = (asked.get(request.path) ?? 0) + 1;
      asked.set(request.path, times);
      const embed = request.options?.embed;
      assert.ok(embed, 'a static model asks for its chunks embedded');
      const made = await embedChunks((await pool.chunk(request)) as FileChunks, embed);
      return times === 1 ? { ...made, modelId: 'another-model', vectors: made.vectors.map(() => 0.5) } : made;
    },
  };
  const index = new SemanticIndex(workspace, source, embedPool.embedder(model), cache, { folder: tempDir('fathom-semantic-store-'), syncIntervalMs: 0 });
  try {
    await index.ensureBuilt();
    assert.equal(index.status().files, 6);
    assert.deepEqual([...new Set(asked.values())], [2], 'each file asked again');
    assert.equal((await index.search('pause', 1))[0]?.path, 'src/net/retry.go');
    assert.equal((await index.search('credential', 1))[0]?.path, 'src/auth/session.ts');
  } finally {
    await index.dispose();
    cache.close();
    await workspace.close();
    pool.close();
    embedPool.close();
  }
});

describe('semantic index on the fixture repo', () => {
  const chunks = new ChunkPool(2);
  const embedPool = new EmbedPool();
  const model = openModelFolder(buildTinyModel());
  const cacheFolder = tempDir('fathom-embeddings-');
  let root: string;
  let workspace: Workspace;
  let cache: EmbeddingCache;
  let index: SemanticIndex;
  let storeFolder: string;

  before(async () => {
    root = fixtureRepo();
    workspace = await readyWorkspace(root);
    cache = EmbeddingCache.open(cacheFolder, model.id, tinyDimensions);
    storeFolder = tempDir('fathom-semantic-store-');
    index = new SemanticIndex(workspace, chunks, embedPool.embedder(model), cache, { folder: storeFolder, syncIntervalMs: 0 });
    await index.ensureBuilt();
  });
  after(async () => {
    await index.dispose();
    cache.close();
    await workspace.close();
    chunks.close();
    embedPool.close();
  });

  test('a question near in meaning finds code that never says its words', async () => {
    const status = index.status();
    assert.equal(status.state, 'ready');
    assert.equal(status.files, 6);
    assert.ok(status.lastSync!.embedded > 0);
    assert.equal((await index.search('pause', 1))[0]?.path, 'src/net/retry.go');
    assert.equal((await index.search('credential', 1))[0]?.path, 'src/auth/session.ts');
    assert.equal((await index.search('room', 1, (file) => file.endsWith('.rs')))[0]?.path, 'src/storage/cache.rs');
  });

  test('a test file\'s chunk counts 0.1 less similar: "where is X done" means the code', async () => {
    const alike = await index.search('discount tax for a customer', 10, undefined, 0);
    const ranked = await index.search('discount tax for a customer', 10);
    const asTest = alike.find((hit) => hit.path === 'tests/test_invoice.py');
    assert.ok(asTest, 'the test file is among the nearest without the penalty');
    const moved = ranked.find((hit) => hit.path === asTest.path && hit.startLine === asTest.startLine);
    assert.ok(moved && Math.abs(moved.similarity - (asTest.similarity - 0.1)) < 1e-6, 'its similarity is 0.1 lower');
    assert.equal(ranked[0]?.path, 'src/payments/invoice.py');
    assert.deepEqual(
      ranked.map((hit) => hit.similarity),
      ranked.map((hit) => hit.similarity).sort((a, b) => b - a),
      'ranked by the similarity given',
    );
    const other = alike.find((hit) => hit.path !== asTest.path)!;
    assert.equal(
      ranked.find((hit) => hit.path === other.path && hit.startLine === other.startLine)?.similarity,
      other.similarity,
      'code elsewhere keeps its similarity',
    );
  });

  test('a restart loads the store; a second workspace with the same code embeds nothing', async () => {
    const again = new SemanticIndex(workspace, chunks, embedPool.embedder(model), cache, { folder: storeFolder, syncIntervalMs: 0 });
    await again.ensureBuilt();
    assert.deepEqual([again.status().lastSync?.files, again.status().lastSync?.embedded], [0, 0]);
    await again.dispose();
    const copy = fixtureRepo();
    const other = await readyWorkspace(copy);
    const elsewhere = new SemanticIndex(other, chunks, embedPool.embedder(model), cache, { folder: tempDir('fathom-semantic-store-'), syncIntervalMs: 0 });
    await elsewhere.ensureBuilt();
    assert.deepEqual([elsewhere.status().lastSync?.files, elsewhere.status().lastSync?.embedded], [6, 0], 'every chunk came from the cache');
    await elsewhere.dispose();
    await other.close();
  });

  test('a seed in rounds answers from each round at once; a build asked meanwhile waits for its end and embeds only what no round gave', async () => {
    const records = index.records();
    const seedFiles = records.files
      .map(({ path: file, fileHash, chunks: stored }) => ({
        file,
        fileHash,
        chunks: stored.map(({ startLine, endLine, startByte, endByte, textHash }) => ({
          startLine,
          endLine,
          startByte,
          endByte,
          textHash,
          vector: records.vector(textHash)!,
        })),
      }))
      .sort((a, b) => a.file.localeCompare(b.file));
    const left = seedFiles.pop()!;
    // A cache of its own: what the seeded index does not get from a round, it must embed.
    const ownCache = EmbeddingCache.open(tempDir('fathom-embeddings-'), model.id, tinyDimensions);
    const seeded = new SemanticIndex(workspace, chunks, embedPool.embedder(model), ownCache, { folder: tempDir('fathom-semantic-store-'), syncIntervalMs: 0 });
    try {
      const seeding = seeded.beginSeed('a test store')!;
      assert.ok(seeding);
      assert.equal(seeded.beginSeed('another'), undefined, 'one seed at a time');
      seeding.add(seedFiles.slice(0, 2));
      const build = seeded.ensureBuilt();
      const early = await seeded.search('pause', 10);
      assert.ok(early.length > 0 && early.every((hit) => seedFiles.slice(0, 2).some((file) => file.file === hit.path)), 'the first round answers');
      seeding.add(seedFiles.slice(2));
      assert.deepEqual(seeding.end(), { files: seedFiles.length, chunks: seedFiles.reduce((sum, file) => sum + file.chunks.length, 0) });
      await build;
      const status = seeded.status();
      assert.equal(status.seeded?.files, seedFiles.length);
      assert.equal(status.files, seedFiles.length + 1);
      assert.deepEqual([status.lastSync?.files, status.lastSync?.embedded], [1, left.chunks.length], 'only the file no round gave was embedded');
    } finally {
      await seeded.dispose({ save: false });
      ownCache.close();
    }
  });

  test('a change waits for the next sync, which re-embeds only the changed chunk', async () => {
    fs.appendFileSync(path.join(root, 'src/net/retry.go'), '\n// Sleep pauses between attempts.\nfunc Sleep() {}\n');
    await quiesce(workspace);
    assert.equal(index.status().pendingFiles, 1);
    await index.sync();
    const status = index.status();
    assert.equal(status.pendingFiles, 0);
    assert.deepEqual([status.lastSync?.files, status.lastSync?.embedded], [1, 1]);
    fs.rmSync(path.join(root, 'src/storage/cache.rs'));
    await quiesce(workspace);
    await index.sync();
    assert.ok((await index.search('room', 10)).every((hit) => hit.path !== 'src/storage/cache.rs'));
  });
});

describe('a large store is saved once enough changed, or when disposed', () => {
  test('one changed file of six is searchable at once, saved when disposed or once old enough, and loaded after', async () => {
    const chunks = new ChunkPool(1);
    const embedPool = new EmbedPool();
    const model = openModelFolder(buildTinyModel());
    const cache = EmbeddingCache.open(tempDir('fathom-embeddings-'), model.id, tinyDimensions);
    const root = fixtureRepo();
    const workspace = await readyWorkspace(root);
    const folder = tempDir('fathom-semantic-store-');
    // Every store counts as large here; a save is due once half the files changed.
    const options = { folder, syncIntervalMs: 0, saveDeferral: { minVectors: 0, fraction: 0.5, maxAgeMs: 3_600_000 } };
    const saved = (): string => fs.readFileSync(path.join(folder, 'semantic.bin')).toString('base64');
    try {
      const index = new SemanticIndex(workspace, chunks, embedPool.embedder(model), cache, options);
      await index.ensureBuilt();
      const first = saved();
      fs.appendFileSync(path.join(root, 'src/net/retry.go'), '\n// Sleep pauses between attempts.\nfunc Sleep() {}\n');
      await quiesce(workspace);
      await index.sync();
      // The file had 19 lines (0 to 18): a hit reaching line 20 holds the appended function.
      assert.ok(
        (await index.search('pause', 10)).some((hit) => hit.path === 'src/net/retry.go' && hit.endLine >= 20),
        'the new chunk is searchable',
      );
      assert.equal(saved(), first, 'one file of six: not saved yet');
      await index.dispose();
      assert.notEqual(saved(), first, 'saved when disposed');
      const again = new SemanticIndex(workspace, chunks, embedPool.embedder(model), cache, options);
      await again.ensureBuilt();
      assert.equal(again.status().lastSync?.files, 0, 'the restart found every file as saved');
      // Disposed without saving (replaced by another model's index on the same folder): nothing written.
      fs.appendFileSync(path.join(root, 'src/net/retry.go'), '\n// Backoff doubles the wait.\n');
      await quiesce(workspace);
      await again.sync();
      const before = saved();
      await again.dispose({ save: false });
      assert.equal(saved(), before, 'a replaced index does not save');
      // An unsaved change is saved maxAgeMs after it, by the periodic check, with no sync to trigger it.
      const ageing = new SemanticIndex(workspace, chunks, embedPool.embedder(model), cache, {
        ...options,
        syncIntervalMs: 50,
        saveDeferral: { ...options.saveDeferral, maxAgeMs: 1_500 },
      });
      await ageing.ensureBuilt();
      assert.equal(ageing.status().lastSync?.files, 1, 'the change the replaced index never saved is synced again');
      assert.equal(saved(), before, 'not saved by the sync: one file of six, and new');
      for (let waited = 0; saved() === before && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.notEqual(saved(), before, 'saved once the change was old enough');
      await ageing.dispose();
    } finally {
      await workspace.close();
      cache.close();
      chunks.close();
      embedPool.close();
    }
  });
});

describe("Fathom's own model, on by default", () => {
  const root = fixtureRepo();
  const daemon = spawnStdioDaemon();
  const client = daemon.client;
  after(() => daemon.child.kill());

  test('words go hybrid once the index is built; off and back to the default per workspace', async () => {
    const first = await client.result<CodeSearchResult>('fathom/codeSearch', { root, query: 'wait longer between tries after each failure' });
    assert.equal(first.route, 'lexical', 'the first question starts the embedding and does not wait for it');
    const indexed = await client.result<WorkspaceStatus>('fathom/index', { root });
    const semantic = indexed.search!.semantic as { state: string; model: { dir: string; dimensions: number; hybridWeight: number }; chunks: number };
    assert.equal(semantic.state, 'ready');
    assert.match(semantic.model.dir, /models\/fathom-code$/);
    const shipped = JSON.parse(fs.readFileSync(path.join(defaultModelDir, 'fathom.json'), 'utf8')) as { hybridWeight: number };
    const { hidden_size: dimensions } = JSON.parse(fs.readFileSync(path.join(defaultModelDir, 'config.json'), 'utf8')) as { hidden_size: number };
    assert.deepEqual([semantic.model.dimensions, semantic.model.hybridWeight], [dimensions, shipped.hybridWeight], 'the shipped model and its measured weight');
    assert.ok(semantic.chunks > 0);
    const words = await client.result<CodeSearchResult>('fathom/codeSearch', { root, query: 'wait longer between tries after each failure' });
    assert.equal(words.route, 'hybrid');
    assert.equal(words.hits[0]?.path, 'src/net/retry.go');
    assert.deepEqual(words.hits[0]?.rankers, ['lexical', 'semantic']);
    const off = await client.result<ModelUseResult>('fathom/modelUse', { root, model: null });
    assert.equal(off.model, null);
    const status = await client.result<StatusResult>('fathom/status', { root });
    assert.match((status.workspaces[0]!.search!.semantic as { reason: string }).reason, /turned off for this workspace/);
    const back = await client.result<ModelUseResult>('fathom/modelUse', { root, model: 'default' });
    assert.match(back.model?.dir ?? '', /models\/fathom-code$/);
  });
});

describe('a restarted daemon keeps the semantic index', () => {
  test('the first request after a restart does not sync an empty file set over the saved index', async () => {
    const root = fixtureRepo();
    const cache = tempDir('fathom-cache-');
    const first = spawnStdioDaemon({ FATHOM_CACHE_DIR: cache });
    try {
      const indexed = await first.client.result<WorkspaceStatus>('fathom/index', { root });
      assert.ok((indexed.search!.semantic as { files: number }).files >= 6);
    } finally {
      first.child.kill();
      await first.exited;
    }
    const second = spawnStdioDaemon({ FATHOM_CACHE_DIR: cache });
    try {
      const found = await second.client.result<CodeSearchResult>('fathom/codeSearch', { root, query: 'pause between attempts', mode: 'semantic' });
      assert.ok(found.hits.length > 0, 'semantic hits right after the restart (from the store as loaded)');
      // The first sync catches up in the background: once it has run, it re-embedded nothing.
      let semantic: { files: number; lastSync: { embedded: number } | null } | undefined;
      for (let waited = 0; waited < 30_000 && !semantic?.lastSync; waited += 50) {
        if (waited > 0) await new Promise((resolve) => setTimeout(resolve, 50));
        const status = await second.client.result<StatusResult>('fathom/status', { root });
        semantic = status.workspaces[0]!.search!.semantic as typeof semantic;
      }
      assert.ok(semantic);
      assert.ok(semantic.files >= 6, `files ${semantic.files}`);
      assert.equal(semantic.lastSync?.embedded, 0, 'nothing embedded again');
    } finally {
      second.child.kill();
    }
  });
});

describe('semantic search over the protocol', () => {
  const root = fixtureRepo();
  const model = buildTinyModel();
  const measured = buildTinyModel({ hybridWeight: 0.5 });
  const daemon = spawnStdioDaemon({ FATHOM_MODEL_HUB: 'http://127.0.0.1:9/', FATHOM_DEFAULT_MODEL: 'off' });
  const client = daemon.client;
  after(() => daemon.child.kill());

  test('off until a model is set: status says why, semantic mode answers why', async () => {
    const response = await client.request('fathom/codeSearch', { root, query: 'pause', mode: 'semantic' });
    assert.equal(response.error?.code, ErrorCodes.InvalidParams);
    assert.match(response.error?.message ?? '', /FATHOM_DEFAULT_MODEL=off and no model set for this workspace/);
    const status = await client.result<StatusResult>('fathom/status', { root });
    assert.equal(status.workspaces[0]!.search?.semantic.state, 'off');
  });

  test('fathom/modelUse probes the model; semantic and hybrid modes answer; auto stays lexical without a measured weight', async () => {
    const used = await client.result<ModelUseResult>('fathom/modelUse', { root, model });
    assert.equal(used.model?.dimensions, tinyDimensions);
    const semantic = await client.result<CodeSearchResult>('fathom/codeSearch', { root, query: 'pause', mode: 'semantic', workDoneToken: 'embed-1' });
    assert.equal(semantic.route, 'semantic');
    assert.equal(semantic.hits[0]?.path, 'src/net/retry.go');
    assert.deepEqual(semantic.hits[0]?.rankers, ['semantic']);
    assert.ok(client.received.some((message) => message.method === '$/progress' && (message.params as { token: string }).token === 'embed-1'));
    const hybrid = await client.result<CodeSearchResult>('fathom/codeSearch', { root, query: 'pause after each failure', mode: 'hybrid' });
    assert.equal(hybrid.route, 'hybrid');
    assert.match(hybrid.reason, /semantic weight 0\.3 \(not measured for this model\)/);
    assert.equal(hybrid.hits[0]?.path, 'src/net/retry.go');
    assert.deepEqual(hybrid.hits[0]?.rankers, ['lexical', 'semantic']);
    const words = await client.result<CodeSearchResult>('fathom/codeSearch', { root, query: 'pause between failed tries' });
    assert.equal(words.route, 'lexical');
    const status = await client.result<StatusResult>('fathom/status', { root });
    const search = status.workspaces[0]!.search!;
    assert.equal(search.semantic.state, 'ready');
    assert.equal((search.semantic as { chunks: number }).chunks > 0, true);
  });

  test('a measured weight sends words to hybrid once the index is built; fathom/index syncs the semantic index', async () => {
    await client.result<ModelUseResult>('fathom/modelUse', { root, model: measured });
    const first = await client.result<CodeSearchResult>('fathom/codeSearch', { root, query: 'pause between failed tries' });
    assert.equal(first.route, 'lexical', 'the first question does not wait for the embedding (it starts it)');
    const indexed = await client.result<WorkspaceStatus>('fathom/index', { root });
    const filesBefore = (indexed.search!.semantic as { files: number }).files;
    const words = await client.result<CodeSearchResult>('fathom/codeSearch', { root, query: 'pause between failed tries' });
    assert.equal(words.route, 'hybrid');
    assert.match(words.reason, /semantic weight 0\.5$/);
    fs.writeFileSync(path.join(root, 'src/net/sleep.go'), 'package net\n\n// Nap sleeps: a pause.\nfunc Nap() {}\n');
    // fathom/index syncs what the watcher has seen: asked again until it has seen the new file (a
    // fixed 300 ms wait failed 1 run in 4 on a loaded machine). Judged by the index's files: the
    // periodic sync may take the file first, leaving fathom/index's own sync nothing to do.
    let semantic: { pendingFiles: number; files: number } | undefined;
    for (let attempt = 0; attempt < 40 && !(semantic && semantic.files > filesBefore); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const status = await client.result<WorkspaceStatus>('fathom/index', { root });
      semantic = status.search!.semantic as { pendingFiles: number; files: number };
    }
    assert.deepEqual([semantic!.files, semantic!.pendingFiles], [filesBefore + 1, 0], JSON.stringify(semantic));
  });

  test("a model's learned fusion ranks hybrid questions unless a request names a weight; one this build cannot apply leaves the weight", async () => {
    const learned = buildTinyModel({ hybridWeight: 0.5, fusion: { features: ['similarity', 'lexical'], weights: [2, 1] } });
    await client.result<ModelUseResult>('fathom/modelUse', { root, model: learned });
    const fused = await client.result<CodeSearchResult>('fathom/codeSearch', { root, query: 'pause after each failure', mode: 'hybrid' });
    assert.match(fused.reason, /learned fusion$/);
    assert.ok(
      fused.hits.some((hit) => hit.path === 'src/net/retry.go'),
      JSON.stringify(fused.hits.map((hit) => hit.path)),
    );
    const weighted = await client.result<CodeSearchResult>('fathom/codeSearch', { root, query: 'pause after each failure', mode: 'hybrid', hybridWeight: 0.2 });
    assert.match(weighted.reason, /semantic weight 0\.2$/);
    const unknown = buildTinyModel({ hybridWeight: 0.5, fusion: { features: ['pageRank'], weights: [1] } });
    await client.result<ModelUseResult>('fathom/modelUse', { root, model: unknown });
    const fallback = await client.result<CodeSearchResult>('fathom/codeSearch', { root, query: 'pause after each failure', mode: 'hybrid' });
    assert.match(fallback.reason, /semantic weight 0\.5$/);
  });

  test('bad models and pulls are clear errors; null turns it off', async () => {
    const broken = tempDir('fathom-broken-model-');
    fs.writeFileSync(path.join(broken, 'config.json'), '{}');
    const missing = await client.request('fathom/modelUse', { root, model: broken });
    assert.equal(missing.error?.code, ErrorCodes.InvalidParams);
    assert.match(missing.error?.message ?? '', /missing tokenizer\.json, onnx\/model\.onnx/);
    const pulled = await client.request('fathom/modelPull', { id: 'someone/some-model' });
    assert.ok(pulled.error);
    assert.match(pulled.error.message, /could not download someone\/some-model: .*network/);
    const badId = await client.request('fathom/modelPull', { id: '../etc' });
    assert.equal(badId.error?.code, ErrorCodes.InvalidParams);
    const off = await client.result<ModelUseResult>('fathom/modelUse', { root, model: null });
    assert.equal(off.model, null);
    const status = await client.result<StatusResult>('fathom/status', { root });
    assert.equal(status.workspaces[0]!.search?.semantic.state, 'off');
  });
});
