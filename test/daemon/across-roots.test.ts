// One question asked of several workspaces (issue 32): fathom/grep, fathom/codeSearch and
// fathom/symbols with `roots` or `allWorkspaces` answer each root, labelled by it, a root that
// fails with its own error; and the CLI's grep, search and symbols over PATHs in two repositories
// (or --all) print each path after its root's, as one answer.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import type { AcrossRootsResult, CodeSearchResult, GrepResult, SymbolsResult } from '../../src/protocol/methods.js';
import { gitInit, tempDir, writeFixture } from '../helpers/fixture.js';
import { cliMain, socketPathIn, spawnStdioDaemon } from '../helpers/raw-client.js';

/** Two repositories side by side, each defining parseConfig, in a fresh folder. */
function twoRepositories(): { parent: string; web: string; tools: string } {
  const parent = tempDir();
  const web = writeFixture(
    `
    //- src/config.ts
    export function parseConfig(text: string): string { return text.trim(); }
    //- src/app.ts
    import { parseConfig } from './config';
    export const settings = parseConfig(' x ');
  `,
    path.join(parent, 'web'),
  );
  const tools = writeFixture(
    `
    //- lib/config.py
    def parse_config(text):
        return text.strip()

    def parseConfig():
        return parse_config("")
  `,
    path.join(parent, 'tools'),
  );
  gitInit(web);
  gitInit(tools);
  return { parent, web, tools };
}

describe('questions across roots, over the protocol', () => {
  const { web, tools, parent } = twoRepositories();
  const daemon = spawnStdioDaemon();
  const client = daemon.client;
  after(() => daemon.child.kill());

  test('grep: each root answers with its own matches, in the order given', async () => {
    const result = await client.result<AcrossRootsResult<GrepResult>>('fathom/grep', { roots: [tools, web], pattern: 'parseConfig\\(' });
    assert.deepEqual(
      result.answers.map(({ root, result: answer }) => [root, answer?.matches.map((match) => `${match.path}:${match.line}`)]),
      [
        [tools, ['lib/config.py:4']],
        [web, ['src/app.ts:2', 'src/config.ts:1']],
      ],
    );
  });

  test('symbols and code search: labelled by root; scores merge symbols across roots', async () => {
    const symbols = await client.result<AcrossRootsResult<SymbolsResult>>('fathom/symbols', { roots: [web, tools], query: 'parseConfig' });
    const found = symbols.answers.flatMap(({ root, result: answer }) =>
      (answer?.symbols ?? []).map((symbol) => ({ root, path: symbol.path, name: symbol.name, score: symbol.score })),
    );
    assert.deepEqual(
      found.filter((symbol) => symbol.name === 'parseConfig').map((symbol) => `${path.basename(symbol.root)}/${symbol.path}`),
      ['web/src/config.ts', 'tools/lib/config.py'],
    );
    const exact = found.filter((symbol) => symbol.name === 'parseConfig').map((symbol) => symbol.score);
    assert.equal(exact[0], exact[1], 'an exact name scores the same in every root');
    assert.ok(found.some((symbol) => symbol.name === 'parse_config' && symbol.score < exact[0]!));
    const search = await client.result<AcrossRootsResult<CodeSearchResult>>('fathom/codeSearch', {
      roots: [web, tools],
      query: 'strip the config text',
      mode: 'lexical',
    });
    assert.deepEqual(
      search.answers.map(({ root }) => root),
      [web, tools],
    );
    assert.ok(search.answers.every(({ result: answer }) => answer !== undefined && answer.hits.length > 0));
  });

  test('allWorkspaces asks every folder workspace the daemon holds', async () => {
    const result = await client.result<AcrossRootsResult<GrepResult>>('fathom/grep', { allWorkspaces: true, pattern: 'def parse_config' });
    assert.deepEqual(result.answers.map(({ root }) => root).sort(), [tools, web].sort());
    assert.deepEqual(
      result.answers.find(({ root }) => root === tools)?.result?.matches.map((match) => match.path),
      ['lib/config.py'],
    );
  });

  test('a root that cannot be searched answers its own error; the others answer', async () => {
    const missing = path.join(parent, 'gone');
    const result = await client.result<AcrossRootsResult<GrepResult>>('fathom/grep', { roots: [missing, web], pattern: 'parseConfig' });
    assert.equal(result.answers[0]!.root, missing);
    assert.match(result.answers[0]!.error?.message ?? '', /gone/);
    assert.equal(result.answers[1]!.result?.matches.length, 3);
  });

  const refused = [
    { name: 'root and roots together', params: { root: web, roots: [tools], pattern: 'x' }, message: /give one of root, roots and allWorkspaces/ },
    { name: 'an empty list of roots', params: { roots: [], pattern: 'x' }, message: /params\.roots must be a non-empty array/ },
    {
      name: 'a page across roots',
      params: { roots: [web, tools], pattern: 'x', after: { path: 'a', line: 1, skip: 0 } },
      message: /a page \(after\) is of one workspace/,
    },
    { name: 'allWorkspaces other than true', params: { allWorkspaces: 'yes', pattern: 'x' }, message: /allWorkspaces must be true/ },
  ];
  for (const { name, params, message } of refused) {
    test(`refused: ${name}`, async () => {
      const response = await client.request('fathom/grep', params);
      assert.equal(response.error?.code, -32602);
      assert.match(response.error?.message ?? '', message);
    });
  }
});

test('the CLI: grep, symbols and search over PATHs in two repositories, and --all', () => {
  const { parent } = twoRepositories();
  const env = { ...process.env, FATHOM_LOG: 'warn', FATHOM_SOCKET: socketPathIn(), FATHOM_CACHE_DIR: tempDir('fathom-cache-') };
  const fathom = (...args: string[]) => {
    const run = spawnSync(process.execPath, [cliMain, ...args], { cwd: parent, env, encoding: 'utf8', timeout: 60_000 });
    return { code: run.status, stdout: run.stdout, stderr: run.stderr };
  };
  try {
    const grep = fathom('grep', 'parseConfig\\(', 'web', 'tools');
    assert.equal(grep.code, 0, grep.stderr);
    assert.deepEqual(grep.stdout.trim().split('\n'), [
      "web/src/app.ts:2:export const settings = parseConfig(' x ');",
      'web/src/config.ts:1:export function parseConfig(text: string): string { return text.trim(); }',
      'tools/lib/config.py:4:def parseConfig():',
    ]);
    const capped = fathom('grep', 'parseConfig\\(', 'web', 'tools', '--max', '2');
    assert.equal(capped.stdout.trim().split('\n').length, 2);
    assert.match(capped.stderr, /stopped after 2 matching lines \(--max 2\)/);
    const symbols = fathom('symbols', 'parseConfig', 'web', 'tools');
    assert.equal(symbols.code, 0, symbols.stderr);
    const lines = symbols.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(':')[0]);
    assert.deepEqual(lines.slice(0, 2).sort(), ['tools/lib/config.py', 'web/src/config.ts'], 'both exact matches first');
    const search = fathom('search', 'strip the config text', 'web', 'tools', '--mode', 'lexical', '--json');
    assert.equal(search.code, 0, search.stderr);
    const hits = search.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { root: string; path: string });
    assert.deepEqual([...new Set(hits.map((hit) => path.basename(hit.root)))].sort(), ['tools', 'web']);
    const all = fathom('grep', '--all', '-F', 'def parse_config');
    assert.equal(all.stdout.trim(), 'tools/lib/config.py:1:def parse_config(text):');
    const narrowed = fathom('grep', 'parseConfig', 'web/src', 'tools');
    assert.equal(narrowed.code, 2);
    assert.match(narrowed.stderr, /inside the workspace .*web: a question across workspaces takes whole workspaces/);
  } finally {
    fathom('stop');
  }
});
