// Workspace symbols: the fuzzy score's order (a table), the symbol index over a fixture workspace
// in several languages (ranking, kind and path filters, containers), kept fresh when files change
// or vanish, and a file's outline nested by ranges.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { outlineOf } from '../../../src/index/graph/outline.js';
import { CodeGraph } from '../../../src/index/graph/code-graph.js';
import { symbolScore } from '../../../src/index/graph/symbol-search.js';
import { globFilter } from '../../../src/base/path-glob.js';
import { ChunkPool } from '../../../src/index/syntax/chunk-pool.js';
import { LanguageTable } from '../../../src/index/syntax/languages.js';
import type { Workspace } from '../../../src/workspace/workspace.js';
import { gitInit, writeFixture } from '../../helpers/fixture.js';
import { quiesce, readyWorkspace } from '../../helpers/workspace-harness.js';

test('symbolScore: exact > exact ignoring case > prefix > words > initials > substring > subsequence > none', () => {
  const order: Array<[string, string]> = [
    ['getUser', 'getUser'],
    ['getuser', 'getUser'],
    ['getU', 'getUser'],
    ['User', 'getUser'],
    ['gU', 'getUser'],
    ['etUs', 'getUser'],
    ['gtUsr', 'getUser'],
  ];
  const scores = order.map(([query, name]) => symbolScore(query, name)!);
  for (let index = 1; index < scores.length; index++)
    assert.ok(scores[index - 1]! > scores[index]!, `${order[index - 1]!.join(' ')} before ${order[index]!.join(' ')}: ${scores.join(',')}`);
  assert.equal(symbolScore('xyz', 'getUser'), undefined);
  assert.ok(symbolScore('ksh', 'ksys_sync_helper')! >= 600, 'snake_case initials');
  assert.ok(symbolScore('HTTPS', 'HTTPServer')! > 0, 'acronyms');
  assert.ok(symbolScore('', 'anything')! > 0, 'an empty query lists everything');
});

describe('symbol index', () => {
  let root: string;
  let workspace: Workspace;
  let index: CodeGraph;
  const pool = new ChunkPool(2);

  before(async () => {
    root = writeFixture(`
      //- src/users/service.ts
      export class UserService {
      getUser(id: string) { return id; }
      setUser(id: string) { return id; }
      }
      export function getUsers() { return []; }
      //- src/billing/invoice.py
      class InvoiceProcessor:
      pass
      def get_user_invoices(user):
      return []
      //- cmd/main.go
      package main
      func GetUser() {}
      func main() {}
      //- notes/readme.md
      getUser is documented here
    `);
    fs.writeFileSync(
      path.join(root, 'src/billing/invoice.py'),
      'class InvoiceProcessor:\n    def process(self):\n        return 1\n\n\ndef get_user_invoices(user):\n    return []\n',
    );
    gitInit(root);
    workspace = await readyWorkspace(root);
    index = new CodeGraph(workspace, pool, new LanguageTable());
    await index.ensureBuilt();
  });
  after(async () => {
    await index.dispose();
    await workspace.close();
    pool.close();
  });

  test('ranks exact names first, then prefixes, initials and substrings, across languages', () => {
    const names = index.search({ query: 'getUser' }).matches.map((match) => `${match.path}:${[...match.container, match.name].join('.')}`);
    assert.deepEqual(names.slice(0, 4), [
      'src/users/service.ts:UserService.getUser',
      'cmd/main.go:GetUser',
      'src/users/service.ts:getUsers',
      'src/billing/invoice.py:get_user_invoices',
    ]);
    assert.ok(!names.some((name) => name.startsWith('notes/')), 'text files have no symbols');
  });

  test('filters by kind and by path glob; limits and says it truncated', () => {
    const classes = index
      .search({ query: '', kinds: ['class'] })
      .matches.map((match) => match.name)
      .sort();
    assert.deepEqual(classes, ['InvoiceProcessor', 'UserService']);
    const python = index.search({ query: 'get', accepts: globFilter(['*.py']) }).matches.map((match) => match.name);
    assert.deepEqual(python, ['get_user_invoices']);
    const limited = index.search({ query: '', limit: 2 });
    assert.equal(limited.matches.length, 2);
    assert.equal(limited.truncated, true);
    const method = index.search({ query: 'process' }).matches[0]!;
    assert.deepEqual([method.kind, method.container, method.nameStart], ['method', ['InvoiceProcessor'], { line: 1, character: 8 }]);
  });

  test('follows the file set: a new definition appears, a deleted file leaves', async () => {
    fs.writeFileSync(
      path.join(root, 'src/users/service.ts'),
      'export class UserService {\n  getUser(id: string) { return id; }\n  renamedSetter(id: string) { return id; }\n}\n',
    );
    fs.unlinkSync(path.join(root, 'cmd/main.go'));
    await quiesce(workspace);
    await index.settle();
    assert.deepEqual(
      index.search({ query: 'renamedSetter' }).matches.map((match) => match.name),
      ['renamedSetter'],
    );
    assert.deepEqual(
      index.search({ query: 'setUser' }).matches.filter((match) => match.name === 'setUser'),
      [],
    );
    assert.deepEqual(
      index.search({ query: 'GetUser' }).matches.filter((match) => match.path === 'cmd/main.go'),
      [],
    );
  });

  test('outline: definitions nested by range', () => {
    const tags = index.fileTags('src/billing/invoice.py')!;
    const tree = outlineOf(tags).map((node) => [node.definition.name, node.children.map((child) => child.definition.name)]);
    assert.deepEqual(tree, [
      ['InvoiceProcessor', ['process']],
      ['get_user_invoices', []],
    ]);
  });
});
