// Questions over the code graph on the fixture repos: references (through aliases and
// re-exports), callers and callees to a depth, impact by distance, a C function linked to its
// prototype, and freshness: renaming a function in one file changes only the edges that touch
// it, and deleting a file removes its edges.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { type BufferSource, CodeGraph } from '../../../src/index/graph/code-graph.js';
import { BufferOverlay } from '../../../src/workspace/overlay.js';
import { GraphQueries, type Place } from '../../../src/index/graph/graph-queries.js';
import { LanguageTable } from '../../../src/index/syntax/languages.js';
import { CheckedFileWriter } from '../../../src/base/checked-file.js';
import { partArrays } from '../../../src/index/graph/file-graph.js';
import { openGraph, saveGraph, type SavedGraph } from '../../../src/index/graph/graph-store.js';
import { Packr } from 'msgpackr';
import { describeTarget, graphOf, pool } from '../../helpers/graph-fixture.js';
import { quiesce } from '../../helpers/workspace-harness.js';
import { sleep } from '../../helpers/fixture.js';

after(() => pool.close());

type Fixture = Awaited<ReturnType<typeof graphOf>>;

function only(fixture: Fixture, qualified: string): Place {
  const places = fixture.queries.definitionsNamed(qualified);
  assert.equal(places.length, 1, `one definition of ${qualified}: ${places.map((place) => describeTarget(fixture.graph, place)).join(',')}`);
  return places[0]!;
}

const sites = (list: Array<{ path: string; line: number; character: number; confidence: string }>) =>
  list.map((site) => `${site.path}:${site.line + 1}:${site.character + 1} ${site.confidence}`);

describe('graph queries: TypeScript fixture', () => {
  let fixture: Fixture;
  after(async () => {
    await fixture?.graph.dispose();
    await fixture?.workspace.close();
  });

  test('references follow aliases and re-exports; a same-named function elsewhere is not one', async () => {
    fixture = await graphOf('ts');
    const { queries } = fixture;
    await queries.warm(); // prepared caches give the same answers
    assert.deepEqual(sites(await queries.referencesTo(only(fixture, 'greet'))), [
      'src/app.ts:1:10 exact',
      'src/app.ts:1:19 exact',
      'src/app.ts:13:3 exact',
      'src/index.ts:1:10 exact',
    ]);
    // other.ts's format: through the namespace, through index.ts's `export *`; util.ts's format has none.
    const otherFormat = queries.definitionsNamed('format', (file) => file === 'src/other.ts')[0]!;
    assert.deepEqual(sites(await queries.referencesTo(otherFormat)), ['src/app.ts:3:10 exact', 'src/app.ts:14:9 exact', 'src/app.ts:15:3 exact']);
    // util.ts's format: only under the name index.ts re-exports it as (formatNumber), in files that never say `format`.
    assert.deepEqual(sites(await queries.referencesTo(queries.definitionsNamed('format', (file) => file === 'src/util.ts')[0]!)), [
      'src/app.ts:3:18 exact',
      'src/app.ts:36:10 exact',
      'src/index.ts:3:10 exact',
      'src/index.ts:3:20 exact',
    ]);
    // A method called on a value of unknown type: name-only (never unique: it may be a library's type), dropped at minConfidence exact.
    assert.deepEqual(sites(await queries.referencesTo(only(fixture, 'Counter.increment'))), ['src/app.ts:12:11 name-only']);
    assert.deepEqual(await queries.referencesTo(only(fixture, 'Counter.increment'), { minConfidence: 'exact' }), []);
  });

  test('importers: the files whose imports resolve to a file (what an edit of it may break)', async () => {
    const { queries } = fixture;
    assert.deepEqual(await queries.importersOf('src/util.ts'), ['src/app.ts', 'src/index.ts']);
    assert.deepEqual(await queries.importersOf('src/other.ts'), ['src/app.ts', 'src/index.ts']);
    assert.deepEqual(await queries.importersOf('src/app.ts'), []);
  });

  test('definition at a position: a reference means its target, a definition name itself', () => {
    const { queries, graph } = fixture;
    assert.deepEqual(
      queries.definitionsAt('src/app.ts', 12, 3).map((target) => describeTarget(graph, target)),
      ['src/util.ts#greet'],
    ); // hello('world')
    assert.deepEqual(
      queries.definitionsAt('src/app.ts', 27, 9).map((target) => describeTarget(graph, target)),
      ['src/app.ts#shadow.format'],
    ); // the shadowing one
    assert.deepEqual(
      queries.definitionsAt('src/util.ts', 0, 17).map((target) => describeTarget(graph, target)),
      ['src/util.ts#greet'],
    );
    assert.deepEqual(queries.definitionsAt('src/app.ts', 6, 0), []); // blank line
  });

  test('callers and callees to a depth; calls leaving the workspace are counted by name', async () => {
    const { queries, graph } = fixture;
    const callers = await queries.callers([only(fixture, 'format2')], 2, 100);
    assert.deepEqual(
      callers.symbols.map(
        (entry) => `${entry.distance} ${entry.place ? describeTarget(graph, entry.place) : `${entry.path} (top level)`} ${entry.sites.length}`,
      ),
      ['1 src/app.ts#main 1', '1 src/app.ts#main.inner 1'],
    );
    const callees = await queries.callees([only(fixture, 'main')], 1, 100);
    assert.deepEqual(callees.symbols.map((entry) => `${describeTarget(graph, entry.place!)} ${entry.confidence}`).sort(), [
      'src/app.ts#format2 exact',
      'src/app.ts#main.inner exact',
      'src/other.ts#format exact',
      'src/util.ts#Counter.create exact',
      'src/util.ts#Counter.increment name-only',
      'src/util.ts#greet exact',
    ]);
    assert.deepEqual(callees.unresolved, [{ name: 'join', count: 1 }]);
    const deeper = await queries.callees([only(fixture, 'Counter.increment')], 2, 100);
    assert.deepEqual(
      deeper.symbols.map((entry) => `${entry.distance} ${describeTarget(graph, entry.place!)}`),
      ['1 src/util.ts#Counter.log'],
    );
  });

  test('impact: everything that depends on a symbol, by distance, with the weakest confidence on the way', async () => {
    const { queries, graph } = fixture;
    const impact = await queries.impact([only(fixture, 'Counter')], 3, 100);
    const shown = impact.symbols
      .map((entry) => `${entry.distance} ${entry.place ? describeTarget(graph, entry.place) : `${entry.path} (top level)`} ${entry.confidence}`)
      .sort();
    assert.deepEqual(shown, ['1 src/app.ts (top level) exact', '1 src/app.ts#main exact', '1 src/util.ts#Counter.create exact']);
    const limited = await queries.impact([only(fixture, 'Counter')], 3, 1);
    assert.equal(limited.symbols.length, 1);
    assert.equal(limited.truncated, true);
  });

  test('a rename in one file changes only the edges that touch it; a deleted file loses its edges', async () => {
    const { root, workspace, graph, queries } = fixture;
    const before = sites(await queries.referencesTo(only(fixture, 'Counter.log')));
    fs.writeFileSync(path.join(root, 'src/other.ts'), '// renamed\nexport function formatText(value: string): string {\n  return value.trim();\n}\n');
    await quiesce(workspace);
    await graph.settle();
    assert.deepEqual(
      queries.definitionsNamed('format').map((place) => describeTarget(graph, place)),
      ['src/app.ts#shadow.format', 'src/util.ts#format'],
    );
    // app.ts still says other.format and imports format from index: those now resolve to nothing (not to util.ts's format).
    assert.deepEqual(
      queries.definitionsAt('src/app.ts', 13, 8).map((target) => describeTarget(graph, target)),
      [],
    );
    assert.deepEqual(
      queries.definitionsAt('src/app.ts', 14, 2).map((target) => describeTarget(graph, target)),
      [],
    );
    assert.deepEqual(sites(await queries.referencesTo(only(fixture, 'Counter.log'))), before, 'edges elsewhere unchanged');
    fs.rmSync(path.join(root, 'src/util.ts'));
    await quiesce(workspace);
    await graph.settle();
    assert.equal(graph.file('src/util.ts'), undefined);
    assert.deepEqual(queries.definitionsNamed('Counter'), []);
    assert.deepEqual(queries.definitionsAt('src/app.ts', 12, 3), [], 'hello() lost its target');
  });
});

describe('graph queries: C fixture', () => {
  let fixture: Fixture;
  after(async () => {
    await fixture?.graph.dispose();
    await fixture?.workspace.close();
  });

  test('a function body and its prototype in a header are one symbol', async () => {
    fixture = await graphOf('c');
    const { queries, graph } = fixture;
    const body = queries.definitionsNamed('list_push', (file) => file === 'src/list.c')[0]!;
    assert.deepEqual(sites(await queries.referencesTo(body)), ['src/main.c:8:19 exact']);
    assert.deepEqual(
      queries.definitionsAt('src/main.c', 7, 20).map((target) => `${describeTarget(graph, target)} ${target.confidence}`),
      ['include/list.h#list_push exact', 'src/list.c#list_push exact'],
    );
    // Two static functions named add: each file's call reaches its own.
    const adds = queries.definitionsNamed('add');
    const described: string[] = [];
    for (const place of adds) described.push(`${describeTarget(graph, place)}: ${sites(await queries.referencesTo(place)).join(', ')}`);
    assert.deepEqual(described, ['src/list.c#add: src/list.c:18:11 exact', 'src/main.c#add: src/main.c:9:31 exact']);
    const callers = await queries.callers([body], 1, 10);
    assert.deepEqual(
      callers.symbols.map((entry) => describeTarget(graph, entry.place!)),
      ['src/main.c#main'],
    );
  });
});

describe('graph persistence', () => {
  test('a restart takes every unchanged file from the cache and re-tags the changed one; a damaged cache is rebuilt', async () => {
    const fixture = await graphOf('python');
    const { root, workspace, graph } = fixture;
    const cacheFile = path.join(root, '..', `${path.basename(root)}-graph.bin`);
    const open = async () => {
      const reopened = new CodeGraph(workspace, pool, new LanguageTable(), cacheFile, 10);
      await reopened.ensureBuilt();
      return reopened;
    };
    const answers = async (queries: GraphQueries) => sites(await queries.referencesTo(queries.definitionsNamed('format_name')));
    const expected = await answers(fixture.queries);
    const symbols = (graph: CodeGraph) => graph.search({ query: 'name' }).matches.map((match) => `${match.path}:${match.start.line} ${match.name}`);
    const expectedSymbols = symbols(graph);
    await graph.dispose();
    const first = await open();
    assert.deepEqual(first.lastBuild, { loaded: 0, tagged: 5 });
    await first.dispose();
    assert.ok(fs.existsSync(cacheFile), 'saved after the build');
    const second = await open();
    assert.deepEqual(second.lastBuild, { loaded: 5, tagged: 0 });
    assert.equal([...second.loadedParts()].length, 0, 'every part left where it lies in graph.bin');
    assert.deepEqual(symbols(second), expectedSymbols, 'symbol search from the saved names');
    assert.deepEqual(await answers(new GraphQueries(second)), expected, 'the same answers from the cache');
    assert.ok([...second.loadedParts()].length < 5, 'only the parts the questions needed were read');
    await second.dispose();
    fs.appendFileSync(path.join(root, 'app.py'), '\n\ndef later():\n    return main()\n');
    await quiesce(workspace);
    const third = await open();
    assert.deepEqual(third.lastBuild, { loaded: 4, tagged: 1 });
    assert.equal(new GraphQueries(third).definitionsNamed('later').length, 1);
    // Saved with the parts never read copied as they lay, and the name tables as they stand.
    await third.dispose();
    const fifth = await open();
    assert.deepEqual(fifth.lastBuild, { loaded: 5, tagged: 0 });
    assert.equal(new GraphQueries(fifth).definitionsNamed('later').length, 1);
    const withLater = await answers(new GraphQueries(fifth));
    assert.deepEqual(symbols(fifth), expectedSymbols);
    await fifth.dispose();
    // A version-2 file (every part decoded on load) is read, and the next save writes version 3.
    await writeVersion2(cacheFile);
    const sixth = await open();
    assert.deepEqual(sixth.lastBuild, { loaded: 5, tagged: 0 });
    assert.deepEqual(await answers(new GraphQueries(sixth)), withLater);
    await sixth.save();
    await sixth.dispose();
    assert.equal(fs.readFileSync(cacheFile).readUInt32LE(8), 3, 'saved again as version 3');
    // A record that holds another file's part (a bug: the checksum holds) is dropped when a question
    // reads it, and its file tagged again.
    const opened = await openGraph(cacheFile);
    assert.equal(opened.status, 'valid');
    const saved = (opened as { graph: SavedGraph }).graph;
    const swapped = saved.paths.map((path, number) => ({
      path,
      hash: saved.hashes[number]!,
      part: { file: saved.file, number: number < 2 ? 1 - number : number },
    }));
    const { definers, referrers, names, kinds, chains } = saved;
    (await saveGraph(cacheFile, { root: saved.root, queries: saved.queries, kinds, chains, names, files: swapped, definers, referrers })).close();
    saved.file.close();
    const seventh = await open();
    assert.deepEqual(seventh.lastBuild, { loaded: 5, tagged: 0 });
    void [...seventh.parts()];
    await seventh.settle();
    assert.deepEqual(await answers(new GraphQueries(seventh)), withLater, 'the two files tagged again answer as before');
    assert.equal([...seventh.loadedParts()].length, 5);
    await seventh.dispose();
    const bytes = fs.readFileSync(cacheFile);
    bytes[bytes.length - 10] ^= 0xff;
    fs.writeFileSync(cacheFile, bytes);
    const fourth = await open();
    assert.deepEqual(fourth.lastBuild, { loaded: 0, tagged: 5 });
    assert.deepEqual(await answers(new GraphQueries(fourth)), expected);
    await fourth.dispose();
    await workspace.close();
  });
});

describe('graph save deferral', () => {
  test("a large graph's graph.bin is written again only once enough files changed; a restart tags the changed ones by their hash", async () => {
    const fixture = await graphOf('python');
    const { root, workspace } = fixture;
    await fixture.graph.dispose();
    const cacheFile = path.join(root, '..', `${path.basename(root)}-deferred-graph.bin`);
    // "Large" past 2 files; written again once 3 files changed since.
    const open = async () => {
      const graph = new CodeGraph(workspace, pool, new LanguageTable(), cacheFile, 10, undefined, { above: 2, staleFiles: 3 });
      await graph.ensureBuilt();
      await graph.saved();
      return graph;
    };
    const cold = await open();
    assert.deepEqual(cold.lastBuild, { loaded: 0, tagged: 5 });
    await cold.dispose();
    const written = fs.readFileSync(cacheFile);
    const warm = await open();
    fs.appendFileSync(path.join(root, 'app.py'), '\n\ndef first_later():\n    return main()\n');
    await quiesce(workspace);
    await warm.settle();
    await sleep(50);
    await warm.saved();
    assert.equal(new GraphQueries(warm).definitionsNamed('first_later').length, 1);
    assert.equal(warm.unsaved, false, 'one file changed: nothing to write yet');
    await warm.dispose();
    assert.deepEqual(fs.readFileSync(cacheFile), written, 'not written for one file, not even at the stop');
    const again = await open();
    assert.deepEqual(again.lastBuild, { loaded: 4, tagged: 1 }, 'the changed file tagged again by its hash');
    assert.equal(new GraphQueries(again).definitionsNamed('first_later').length, 1);
    fs.appendFileSync(path.join(root, 'pkg/models.py'), '\n\ndef second_later():\n    return 2\n');
    await quiesce(workspace);
    await again.settle();
    await sleep(50);
    await again.saved();
    assert.notDeepEqual(fs.readFileSync(cacheFile), written, 'three files changed since it was written: written');
    await again.dispose();
    const last = await open();
    assert.deepEqual(last.lastBuild, { loaded: 5, tagged: 0 });
    assert.deepEqual([new GraphQueries(last).definitionsNamed('first_later').length, new GraphQueries(last).definitionsNamed('second_later').length], [1, 1]);
    await last.dispose();
    await workspace.close();
  });
});

/** Rewrites a version-3 graph.bin as version 2 wrote it: a header, the names in records, then every part in full. */
async function writeVersion2(file: string): Promise<void> {
  const opened = await openGraph(file);
  assert.equal(opened.status, 'valid');
  const saved = (opened as { graph: SavedGraph }).graph;
  const packr = new Packr({ useRecords: false, mapsAsObjects: true });
  const names = Array.from({ length: saved.names.count }, (_, id) =>
    Buffer.from(saved.names.blob).toString('utf8', saved.names.offsets[id]!, saved.names.offsets[id + 1]!),
  );
  const writer = await CheckedFileWriter.open(file, 'FTHMGRF1', 2);
  await writer.record(
    packr.pack({ root: saved.root, queries: saved.queries, kinds: saved.kinds, chains: saved.chains, names: names.length, files: saved.paths.length }),
  );
  await writer.record(packr.pack(names));
  for (let number = 0; number < saved.paths.length; number++) {
    const { part, hash } = saved.file.part(number);
    await writer.record(
      packr.pack({
        path: part.path,
        hash: Buffer.from(hash, 'hex'),
        language: part.language ?? null,
        arrays: partArrays.map(([field, type]) => {
          const wide = part[field] instanceof type ? part[field] : type.from(part[field]);
          return new Uint8Array(wide.buffer, wide.byteOffset, wide.byteLength);
        }),
        imports: part.imports.map((binding) => [binding.source, binding.name, binding.local, binding.reexport ? 1 : 0, binding.line]),
      }),
    );
  }
  saved.file.close();
  await writer.commit();
}

describe('graph and editor buffers', () => {
  test('a file open in an editor is tagged from its unsaved buffer; closing it brings the disk back', async () => {
    const fixture = await graphOf('js');
    const { root, workspace } = fixture;
    await fixture.graph.dispose();
    const overlay = new BufferOverlay();
    const buffers: BufferSource = {
      text: (relative) => overlay.get(path.join(root, relative))?.text,
      openPaths: () => overlay.openPaths().map((absolute) => path.relative(root, absolute)),
      onChange: (listener) => overlay.onChange((absolute) => listener(path.relative(root, absolute))),
    };
    const absolute = path.join(root, 'lib/math.js');
    const disk = fs.readFileSync(absolute, 'utf8');
    overlay.open({ path: absolute, languageId: 'javascript', version: 1, text: `${disk}function typedNow(x) {\n  return add(x, 1);\n}\n` });
    const graph = new CodeGraph(workspace, pool, new LanguageTable(), undefined, undefined, buffers);
    await graph.ensureBuilt();
    const queries = new GraphQueries(graph);
    assert.equal(queries.definitionsNamed('typedNow').length, 1, 'a buffer open before the build');
    overlay.change(absolute, 2, [{ text: `${disk}function typedLater(x) {\n  return add(x, 2);\n}\n` }]);
    await graph.settle();
    assert.deepEqual(
      [queries.definitionsNamed('typedNow').length, queries.definitionsNamed('typedLater').length],
      [0, 1],
      'the next question sees the keystroke',
    );
    assert.deepEqual(sites(await queries.referencesTo(only({ ...fixture, graph, queries }, 'add'))), [
      'index.js:2:9 exact',
      'index.js:6:32 exact',
      'lib/math.js:12:10 exact',
    ]);
    overlay.close(absolute);
    await graph.settle();
    assert.equal(queries.definitionsNamed('typedLater').length, 0, 'closed: the disk again');
    await graph.dispose();
    await workspace.close();
  });
});
