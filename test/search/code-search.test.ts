// Code search: the terms code and questions are cut into, comments told from code, the chunk
// ranking on a fixture repo (data-driven questions in test/fixtures/search/questions.txt),
// freshness (a written file is found, a deleted one never), persistence (a restart re-chunks
// nothing; a corrupt cache is rebuilt), and fathom/codeSearch over the daemon's protocol and the
// CLI: auto's routes, filters, result files, and clear errors.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { defaultModelDir } from '../../src/engine/semantic-models.js';
import { commentSpans } from '../../src/index/ranking/chunk-fields.js';
import { ChunkRanking, isTestPath, RankingDamaged } from '../../src/index/ranking/chunk-ranking.js';
import { RankingFile } from '../../src/index/ranking/chunk-ranking-file.js';
import { ChunkTermsPool } from '../../src/index/ranking/chunk-terms-pool.js';
import { queryTerms, termsOf } from '../../src/index/ranking/code-tokens.js';
import { ErrorCodes } from '../../src/protocol/errors.js';
import type { CodeSearchResult, SymbolsResult } from '../../src/protocol/methods.js';
import { routeOf } from '../../src/search/code-search.js';
import type { Workspace } from '../../src/workspace/workspace.js';
import { tempDir } from '../helpers/fixture.js';
import { searchFixtureRepo, searchFixtures } from '../helpers/search-fixture.js';
import { spawnCli, spawnStdioDaemon } from '../helpers/raw-client.js';
import { quiesce, readyWorkspace } from '../helpers/workspace-harness.js';

const fixtures = searchFixtures;

const fixtureRepo = (): string => searchFixtureRepo('fathom-search-');

describe('terms', () => {
  const cases: Array<[string, string[]]> = [
    ['parseHTTPHeader2', ['pars', 'http', 'header', 'parsehttpheader2']], // a one-character part is dropped
    ['utf8Decode v4', ['utf', 'decod', 'utf8decode', 'v4']],
    ['max_form_memory_size', ['max', 'form', 'memori', 'size', 'maxformmemorysize']],
    ['XMLHttpRequest', ['xml', 'http', 'request', 'xmlhttprequest']],
    ['cookies parsed', ['cooki', 'pars']],
    ['the user is logged in', ['user', 'log']],
    ['self.retry_count', ['retri', 'count', 'retrycount']],
    ['a x_y', ['xy']],
    [`${'f'.repeat(70)} ok`, ['ok']],
  ];
  for (const [input, expected] of cases) test(`${input.slice(0, 24)} → ${expected.join(' ')}`, () => assert.deepEqual(termsOf(input), expected));

  test('a question keeps each term once, in order', () => {
    assert.deepEqual(queryTerms('where are cookies parsed, and are cookies signed?'), ['cooki', 'pars', 'sign']);
    assert.deepEqual(queryTerms('how is it done?'), []);
  });
});

describe('comments and docstrings', () => {
  const cases: Array<[string, string, string[]]> = [
    ['python', 'x = "# not a comment"  # a comment\ndef f():\n    """Doc."""\n', ['# a comment', '"""Doc."""']],
    ['typescript', "const s = '// no'; // yes\n/* block\n */ f(`/* no */`);", ['// yes', '/* block\n */']],
    ['rust', '/// doc\nfn f() {} // end', ['/// doc', '// end']],
    ['ruby', 'x = 1 # note\n=begin\nblock\n=end\n', ['# note', '=begin\nblock\n=end']],
    ['html', '<p>text</p><!-- note -->', ['<!-- note -->']],
  ];
  for (const [language, text, expected] of cases) {
    test(language, () =>
      assert.deepEqual(
        commentSpans(text, language).map(([start, end]) => text.slice(start, end)),
        expected,
      ),
    );
  }

  test('test files by their usual names', () => {
    for (const file of ['tests/test_invoice.py', 'src/__tests__/a.ts', 'src/a.test.ts', 'pkg/a_test.go', 'src/FooTest.java', 'spec/a.rb'])
      assert.equal(isTestPath(file), true, file);
    for (const file of ['src/testing_utils.py', 'src/contest.ts', 'src/attestation.go']) assert.equal(isTestPath(file), false, file);
  });
});

interface Case {
  query: string;
  path: string;
  text: string;
}

function readCases(): Case[] {
  return fs
    .readFileSync(path.join(fixtures, 'questions.txt'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^(.+?) => (.+?)#(.+)$/.exec(line);
      assert.ok(match, `a case line: ${line}`);
      return { query: match[1]!, path: match[2]!, text: match[3]! };
    });
}

/** 0-based line of the first line of a file holding `text`. */
function lineOf(root: string, file: string, text: string): number {
  const line = fs
    .readFileSync(path.join(root, file), 'utf8')
    .split('\n')
    .findIndex((entry) => entry.includes(text));
  assert.ok(line >= 0, `${file} holds ${text}`);
  return line;
}

describe('chunk ranking on the fixture repo', () => {
  const pool = new ChunkTermsPool(2);
  let root: string;
  let workspace: Workspace;
  let ranking: ChunkRanking;
  let cacheFile: string;

  before(async () => {
    root = fixtureRepo();
    workspace = await readyWorkspace(root);
    cacheFile = path.join(tempDir('fathom-ranking-cache-'), 'chunks.bin');
    // A small budget: several chunks per file, so the cases check the chunk, not just the file.
    ranking = new ChunkRanking(workspace, pool, cacheFile, 50, 400);
    await ranking.ensureBuilt();
  });
  after(async () => {
    await ranking.dispose();
    await workspace.close();
    pool.close();
  });

  for (const entry of readCases()) {
    test(`"${entry.query}" → ${entry.path}#${entry.text}`, () => {
      const [first] = ranking.search({ terms: queryTerms(entry.query), limit: 5 });
      assert.ok(first, 'a hit');
      const line = lineOf(root, entry.path, entry.text);
      assert.equal(first.path, entry.path);
      assert.ok(first.startLine <= line && line <= first.endLine, `lines ${first.startLine + 1}-${first.endLine + 1} hold line ${line + 1}`);
      assert.ok(first.matched.length > 0);
    });
  }

  test('a test file ranks below the code it tests; a filter applies before ranking', () => {
    const hits = ranking.search({ terms: queryTerms('discount before tax for gold customers'), limit: 10 });
    assert.equal(hits[0]?.path, 'src/payments/invoice.py');
    assert.ok(hits.some((hit) => hit.path === 'tests/test_invoice.py'));
    const alike = ranking.search({ terms: queryTerms('discount before tax for gold customers'), limit: 10, testFactor: 1 });
    assert.equal(alike[0]?.path, 'tests/test_invoice.py', 'ranked alike, the test (all of whose words match) comes first');
    const onlyTests = ranking.search({ terms: queryTerms('discount'), accepts: (file) => file.startsWith('tests/'), limit: 10 });
    assert.deepEqual([...new Set(onlyTests.map((hit) => hit.path))], ['tests/test_invoice.py']);
  });

  test('a file written is searchable after its change event; a deleted one is never returned', async () => {
    fs.writeFileSync(
      path.join(root, 'src/net/dns.go'),
      '// Package net: resolving host names.\npackage net\n\n// Resolve looks a hostname up in the zone transfer table.\nfunc Resolve(host string) string { return host }\n',
    );
    await quiesce(workspace);
    await ranking.settle();
    assert.equal(ranking.search({ terms: queryTerms('zone transfer'), limit: 3 })[0]?.path, 'src/net/dns.go');
    fs.rmSync(path.join(root, 'src/net/dns.go'));
    await quiesce(workspace);
    await ranking.settle();
    assert.deepEqual(ranking.search({ terms: queryTerms('zone transfer'), limit: 3 }), []);
  });

  test('a restart takes every unchanged file from chunks.bin and answers the same', async () => {
    await ranking.save();
    const before = ranking.search({ terms: queryTerms('session token expired'), limit: 5 });
    const again = new ChunkRanking(workspace, pool, cacheFile, 50, 400);
    await again.ensureBuilt();
    assert.deepEqual(again.lastBuild && { loaded: again.lastBuild.loaded, chunked: again.lastBuild.chunked }, { loaded: ranking.counts().files, chunked: 0 });
    // The same chunks in the same order (scores may differ a little: the live index still counts
    // the dead postings of the file deleted above in its document frequencies, as Lucene does).
    const lines = (hits: typeof before) => hits.map((hit) => `${hit.path}:${hit.startLine}-${hit.endLine} ${hit.matched.join(' ')}`);
    assert.deepEqual(lines(again.search({ terms: queryTerms('session token expired'), limit: 5 })), lines(before));
    await again.dispose();
    // Another budget cuts other chunks: the cache is not used.
    const otherBudget = new ChunkRanking(workspace, pool, cacheFile, 50, 800);
    await otherBudget.ensureBuilt();
    assert.equal(otherBudget.lastBuild?.loaded, 0);
    await otherBudget.dispose();
  });

  test('an empty file and a compaction still save a cache that loads', async () => {
    const tiny = new ChunkRanking(workspace, pool, cacheFile, 50, 64);
    await tiny.ensureBuilt();
    // An empty file indexed last: no chunks, its place at the end of the table.
    fs.writeFileSync(path.join(root, 'src/__init__.py'), '');
    await quiesce(workspace);
    await tiny.settle();
    // Then a file removed: its chunks die, and nothing comes after the empty file's place.
    fs.rmSync(path.join(root, 'README.md'));
    await quiesce(workspace);
    await tiny.settle();
    await tiny.save();
    const reloaded = new ChunkRanking(workspace, pool, cacheFile, 50, 64);
    await reloaded.ensureBuilt();
    assert.deepEqual(reloaded.lastBuild && [reloaded.lastBuild.loaded, reloaded.lastBuild.chunked], [tiny.counts().files, 0]);
    // The reload compacted (the changed file's old chunks were dead): its save must load too.
    await reloaded.save();
    const third = new ChunkRanking(workspace, pool, cacheFile, 50, 64);
    await third.ensureBuilt();
    assert.deepEqual(third.lastBuild && [third.lastBuild.loaded, third.lastBuild.chunked], [tiny.counts().files, 0]);
    await Promise.all([tiny.dispose(), reloaded.dispose(), third.dispose()]);
  });

  test('a large ranking rewrites chunks.bin only once enough files changed; a restart chunks the few changed again', async () => {
    const file = path.join(tempDir('fathom-ranking-deferred-'), 'chunks.bin');
    // Every ranking is "large" here; three changed files make a save worth it.
    const deferral = { above: 0, staleFiles: 3 };
    const first = new ChunkRanking(workspace, pool, file, 50, 400, deferral);
    await first.ensureBuilt();
    await first.save();
    const written = fs.readFileSync(file);
    const total = first.counts().files;
    const change = async (relative: string, text: string): Promise<void> => {
      fs.appendFileSync(path.join(root, relative), text);
      await quiesce(workspace);
      await first.settle();
    };
    const originals = new Map(
      ['src/net/retry.go', 'src/auth/session.ts', 'src/payments/invoice.py'].map((relative) => [relative, fs.readFileSync(path.join(root, relative))]),
    );
    try {
      await change('src/net/retry.go', '\n\nfunc ZeppelinManifestTally() int {\n\treturn 42\n}\n');
      await first.save();
      assert.deepEqual(fs.readFileSync(file), written, 'one changed file: the file is not written again');
      const restarted = new ChunkRanking(workspace, pool, file, 50, 400, deferral);
      await restarted.ensureBuilt();
      assert.deepEqual(restarted.lastBuild && [restarted.lastBuild.loaded, restarted.lastBuild.chunked], [total - 1, 1], 'the changed file is chunked again');
      assert.equal(restarted.search({ terms: queryTerms('zeppelin manifest tally'), limit: 1 })[0]?.path, 'src/net/retry.go');
      await restarted.dispose();
      await change('src/auth/session.ts', '\n\nexport function zeppelinTwo(): number {\n  return 2;\n}\n');
      await change('src/payments/invoice.py', '\n\ndef zeppelin_three():\n    return 3\n');
      await first.save();
      assert.notDeepEqual(fs.readFileSync(file), written, 'three changed files: written');
      const again = new ChunkRanking(workspace, pool, file, 50, 400, deferral);
      await again.ensureBuilt();
      assert.deepEqual(again.lastBuild && [again.lastBuild.loaded, again.lastBuild.chunked], [total, 0]);
      await again.dispose();
    } finally {
      for (const [relative, bytes] of originals) fs.writeFileSync(path.join(root, relative), bytes);
      await quiesce(workspace);
      await first.settle();
      await first.dispose();
    }
  });

  test('a restart reads chunks.bin where it lies: a damaged posting list is found when a question reads it, and the ranking builds again and answers the same', async () => {
    await ranking.save();
    const query = { terms: queryTerms('exponential backoff'), limit: 3 };
    const lines = (hits: ReturnType<ChunkRanking['search']>) => hits.map((hit) => `${hit.path}:${hit.startLine}-${hit.endLine} ${hit.matched.join(' ')}`);
    const expected = lines(ranking.search(query));
    const opened = RankingFile.open(cacheFile);
    assert.equal(opened.status, 'valid');
    const entry = opened.status === 'valid' ? opened.file.lookup(query.terms[0]!) : undefined;
    if (opened.status === 'valid') opened.file.close();
    assert.ok(entry && entry.words > 0, `chunks.bin holds "${query.terms[0]}"`);
    const fd = fs.openSync(cacheFile, 'r+');
    fs.writeSync(fd, Buffer.from([0xa5]), 0, 1, entry.offset + 1);
    fs.closeSync(fd);
    const restarted = new ChunkRanking(workspace, pool, cacheFile, 50, 400);
    await restarted.ensureBuilt();
    assert.equal(restarted.lastBuild?.loaded, ranking.counts().files, 'the tables load: the damage is in a list nobody has read');
    assert.throws(() => restarted.search(query), RankingDamaged);
    assert.equal(restarted.state, 'absent', 'discarded');
    assert.equal(fs.existsSync(cacheFile), false, 'and its file with it');
    await restarted.ensureBuilt();
    assert.equal(restarted.lastBuild?.loaded, 0);
    assert.deepEqual(lines(restarted.search(query)), expected);
    await restarted.dispose();
  });

  test('a corrupt cache is ignored and rebuilt', async () => {
    await ranking.save();
    const bytes = fs.readFileSync(cacheFile);
    bytes[bytes.length - 3] ^= 0xff;
    fs.writeFileSync(cacheFile, bytes);
    const rebuilt = new ChunkRanking(workspace, pool, cacheFile, 50, 400);
    await rebuilt.ensureBuilt();
    assert.equal(rebuilt.lastBuild?.loaded, 0);
    assert.equal(rebuilt.search({ terms: queryTerms('exponential backoff'), limit: 1 })[0]?.path, 'src/net/retry.go');
    await rebuilt.dispose();
  });
});

describe('auto routing', () => {
  const cases: Array<[string, string]> = [
    ['where are login sessions checked for expiry', 'lexical'],
    ['isExpired', 'symbol'],
    ['SessionStore.lookup', 'symbol'],
    ['std::vector', 'symbol'],
    ['is(Expired|Valid)\\(', 'regex'],
    ['^import .* from', 'regex'],
    ['isExpired(session)', 'literal'],
    ['x == null', 'literal'],
    ['what does (a) do here and there again', 'lexical'],
  ];
  for (const [query, route] of cases) test(`${query} → ${route}`, () => assert.equal(routeOf(query).route, route));
});

describe('fathom/codeSearch over the protocol', () => {
  const root = fixtureRepo();
  const daemon = spawnStdioDaemon();
  const client = daemon.client;
  after(() => daemon.child.kill());

  test('words: whole chunks ranked, 1-based ranges, a snippet from the file, progress while chunking', async () => {
    const response = await client.request('fathom/codeSearch', { root, query: 'wait longer between tries after each failure', workDoneToken: 'search-1' });
    const result = response.result as CodeSearchResult;
    assert.equal(result.route, 'lexical');
    const first = result.hits[0]!;
    assert.equal(first.path, 'src/net/retry.go');
    assert.deepEqual(first.rankers, ['lexical']);
    assert.ok(first.start >= 1 && first.end >= first.start);
    const lines = fs.readFileSync(path.join(root, first.path), 'utf8').split('\n');
    assert.equal(first.snippet, lines.slice(first.snippetStart - 1, first.snippetStart - 1 + first.snippet.split('\n').length).join('\n'));
    assert.ok(first.uri.startsWith('file://'));
    const progress = client.received.filter((message) => message.method === '$/progress' && (message.params as { token: string }).token === 'search-1');
    assert.ok(progress.length >= 2, 'begin and end');
  });

  test('an identifier: its definitions first, then where it is written', async () => {
    const result = await client.result<CodeSearchResult>('fathom/codeSearch', { root, query: 'isExpired' });
    assert.equal(result.route, 'symbol');
    assert.deepEqual(
      result.hits.map((hit) => `${hit.path}:${hit.start} ${hit.rankers.join()}`),
      ['src/auth/session.ts:11 symbol', 'src/auth/session.ts:30 literal'],
    );
    assert.equal(result.hits[0]!.symbol?.kind, 'function');
    assert.equal(result.hits[0]!.end, 13);
  });

  test('regex and literal modes answer lines; globs and languages filter', async () => {
    const regex = await client.result<CodeSearchResult>('fathom/codeSearch', { root, query: 'def \\w+_discount', mode: 'regex' });
    assert.deepEqual(
      regex.hits.map((hit) => `${hit.path}:${hit.start}:${hit.column}`),
      ['src/payments/invoice.py:15:5', 'tests/test_invoice.py:4:1'],
    );
    const filtered = await client.result<CodeSearchResult>('fathom/codeSearch', { root, query: 'def \\w+_discount', glob: 'src/**' });
    assert.deepEqual(
      filtered.hits.map((hit) => hit.path),
      ['src/payments/invoice.py'],
    );
    const typed = await client.result<CodeSearchResult>('fathom/codeSearch', { root, query: 'discount', mode: 'lexical', languages: ['python'] });
    assert.ok(typed.hits.length > 0 && typed.hits.every((hit) => hit.path.endsWith('.py')));
    const literal = await client.result<CodeSearchResult>('fathom/codeSearch', { root, query: 'wait *= 2' });
    assert.equal(literal.route, 'literal');
    assert.deepEqual(
      literal.hits.map((hit) => `${hit.path}:${hit.start}`),
      ['src/net/retry.go:16'],
    );
  });

  test('an answer over the inline cap goes to a 0600 file; the response carries its path', async () => {
    const result = await client.result<CodeSearchResult>('fathom/codeSearch', { root, query: 'e', mode: 'literal', maxInlineBytes: 200 });
    assert.ok(result.resultFile, 'a result file');
    assert.equal(fs.statSync(result.resultFile).mode & 0o777, 0o600);
    const stored = JSON.parse(fs.readFileSync(result.resultFile, 'utf8')) as { hits: unknown[] };
    assert.equal(stored.hits.length, result.total);
    assert.ok(result.total > 10 && result.hits.length === 10);
  });

  const errors = [
    { name: 'an unknown mode', params: { query: 'x', mode: 'fuzzy' }, message: /params\.mode must be one of auto, lexical, semantic, hybrid, regex, literal/ },
    { name: 'an empty query', params: { query: '  ' }, message: /params\.query must hold something/ },
    { name: 'only stop words', params: { query: 'how is it done', mode: 'lexical' }, message: /no searchable words/ },
    { name: 'a bad regex', params: { query: 'a(b', mode: 'regex' }, message: /invalid regex/ },
    { name: 'maxResults 0', params: { query: 'x', maxResults: 0 }, message: /params\.maxResults must be between 1 and 10000/ },
  ];
  for (const entry of errors) {
    test(`InvalidParams: ${entry.name}`, async () => {
      const response = await client.request('fathom/codeSearch', { root, ...entry.params });
      assert.equal(response.error?.code, ErrorCodes.InvalidParams);
      assert.match(response.error?.message ?? '', entry.message);
    });
  }

  test("status: the ranking, and the semantic index on Fathom's own model", async () => {
    const status = await client.result<{
      workspaces: Array<{
        root: string;
        indexes: Record<string, string>;
        search?: { ranking: { state: string; files: number }; semantic: { state: string; model?: { dir: string; hybridWeight?: number } } };
      }>;
    }>('fathom/status', { root });
    const workspace = status.workspaces[0]!;
    assert.equal(workspace.indexes.ranking, 'ready');
    assert.notEqual(workspace.indexes.semantic, 'off');
    assert.equal(workspace.search?.ranking.files, 6);
    assert.match(workspace.search?.semantic.model?.dir ?? '', /models\/fathom-code$/);
    assert.equal(
      workspace.search?.semantic.model?.hybridWeight,
      (JSON.parse(fs.readFileSync(path.join(defaultModelDir, 'fathom.json'), 'utf8')) as { hybridWeight: number }).hybridWeight,
      'the weight measured for the shipped model',
    );
  });
});

describe('a question never waits out a build unsaid', () => {
  const root = fixtureRepo();
  const daemon = spawnStdioDaemon();
  const client = daemon.client;
  after(() => daemon.child.kill());

  test('past waitMs an answer comes from what the ranking holds, and says how far its build is; the build goes on', async () => {
    const early = await client.result<CodeSearchResult>('fathom/codeSearch', {
      root,
      query: 'wait longer between tries after each failure',
      mode: 'lexical',
      waitMs: 0,
    });
    assert.equal(early.building?.length, 1, JSON.stringify(early.building));
    assert.equal(early.building![0]!.index, 'ranking');
    assert.ok(early.building![0]!.done <= early.building![0]!.total);
    const later = await client.result<CodeSearchResult>('fathom/codeSearch', { root, query: 'wait longer between tries after each failure', mode: 'lexical' });
    assert.equal(later.building, undefined);
    assert.equal(later.hits[0]?.path, 'src/net/retry.go');
  });

  test('fathom/symbols too: the code graph as it is, then whole', async () => {
    // A workspace of its own, asked first, with files no cache has seen (the shared tree store
    // would hand the fixture's trees back at once): after the test above, that one's graph may be
    // whole already, built from the same syntax pass as the ranking.
    const root = fixtureRepo();
    const nonce = `${process.pid}_${Date.now()}`;
    fs.mkdirSync(path.join(root, 'src/generated'));
    for (let file = 0; file < 200; file++) {
      const functions = Array.from({ length: 20 }, (_, at) => `export function f${file}_${at}_${nonce}(x: number): number {\n  return x + ${at};\n}\n`);
      fs.writeFileSync(path.join(root, `src/generated/g${file}.ts`), functions.join('\n'));
    }
    const early = await client.result<SymbolsResult>('fathom/symbols', { root, query: 'isExpired', waitMs: 0 });
    assert.deepEqual(
      early.building?.map((entry) => entry.index),
      ['graph'],
    );
    const later = await client.result<SymbolsResult>('fathom/symbols', { root, query: 'isExpired' });
    assert.equal(later.building, undefined);
    assert.ok(
      later.symbols.some((symbol) => symbol.name === 'isExpired'),
      JSON.stringify(later.symbols.map((symbol) => symbol.name)),
    );
  });
});

describe('fathom search (CLI)', () => {
  test('--json prints one object per hit; no hit exits 1', async () => {
    const root = fixtureRepo();
    const env = { FATHOM_CACHE_DIR: tempDir('fathom-cache-') };
    const run = spawnCli(['search', 'which entry is thrown away when the cache is full', root, '--json', '--no-daemon', '--max', '2'], env);
    let stdout = '';
    run.child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    assert.equal(await run.exited, 0, run.stderr());
    const hits = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { path: string; start: number; end: number; score: number });
    assert.equal(hits.length, 2);
    assert.equal(hits[0]!.path, 'src/storage/cache.rs');
    assert.ok(typeof hits[0]!.start === 'number' && typeof hits[0]!.end === 'number' && hits[0]!.score > 0);
    const none = spawnCli(['search', 'zeppelin', root, '--no-daemon'], env);
    assert.equal(await none.exited, 1, none.stderr());
  });
});
