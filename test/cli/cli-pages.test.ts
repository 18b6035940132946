// Complete by default, as ripgrep is: `fathom grep`, `fathom sg` and `fathom refs` print every result, fetched
// from the daemon page after page (the `after` cursor, docs/protocol.md), unless `--max N` caps
// them, and a cap is said on stderr and in --json's summary. Pages are cut at every kind of place
// (FATHOM_CLI_PAGE_SIZE: between files, inside a file, inside a run of context lines) and at the
// real size, over a fixture with more matching lines than one page; grep's output is held to
// `rg --sort path`'s, line for line.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { gitInit, tempDir, writeFixture } from '../helpers/fixture.js';
import { cliMain, socketPathIn } from '../helpers/raw-client.js';

const ripgrep = spawnSync('rg', ['--version']).status === 0;
if (!ripgrep && process.env.CI) throw new Error('ripgrep is required in CI (apt-get install ripgrep)');

const root = writeFixture(`
  //- src/a.txt
  hit 1 here
  ctx
  hit 2 here
  hit 3 here
  ctx
  ctx
  ctx
  hit 4 and HIT again
  //- src/b/c.txt
  hit 5
  //- src/b/d.txt
  nothing
  //- src/e.ts
  foo(1); foo(foo(2));
  const x = foo(3);
  //- src/f.ts
  foo(4);
  //- src/g.ts
  bar(foo(5), foo(6));
  //- py/lib.py
  def twice(x):
      return 2 * x
  //- py/use.py
  from lib import twice
  a = twice(1) + twice(2)
  b = twice(twice(3))
  //- py/more.py
  from lib import twice
  c = twice(4)
`);
// More matching lines than one page (10,000), in one file and around it.
const bigLines = 12_345;
fs.writeFileSync(
  path.join(root, 'src/b/big.txt'),
  Array.from({ length: bigLines * 2 }, (_, line) => (line % 2 === 0 ? `hit ${line} in the big file` : `ctx ${line}`)).join('\n') + '\n',
);
gitInit(root);
const env = { FATHOM_SOCKET: socketPathIn(), FATHOM_CACHE_DIR: tempDir('fathom-cache-'), FATHOM_LOG: 'warn' };

function fathom(args: string[], pageSize?: number) {
  const result = spawnSync(process.execPath, [cliMain, ...args], {
    env: { ...process.env, ...env, ...(pageSize === undefined ? {} : { FATHOM_CLI_PAGE_SIZE: String(pageSize) }) },
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 1 << 28,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function rg(flags: string[], pattern: string): string[] {
  const result = spawnSync('rg', ['-n', '--no-heading', '--no-config', '--color', 'never', '--sort', 'path', ...flags, '-e', pattern, '.'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  assert.ok(result.status === 0 || result.status === 1, result.stderr);
  return result.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => line.replace(/^\.\//, ''));
}

const lines = (stdout: string): string[] => stdout.split('\n').filter(Boolean);

/** Each row: grep's flags and pattern, and the page sizes tried (undefined: the CLI's own). */
const grepCases: Array<{ name: string; flags: string[]; pattern: string; pages: Array<number | undefined> }> = [
  { name: 'more lines than one page', flags: [], pattern: 'hit', pages: [undefined, 4_000] },
  { name: 'pages cut between files and inside them', flags: [], pattern: 'hit [0-9] ', pages: [1, 2, 3, 4, 5] },
  { name: '-i', flags: ['-i'], pattern: 'hit [0-9] and', pages: [1] },
  { name: '-F -w', flags: ['-F', '-w'], pattern: 'hit', pages: [7, 5_000] },
  { name: 'context lines across page ends', flags: ['-C', '1'], pattern: 'hit [0-9] ', pages: [1, 2, 3] },
  { name: 'context lines in the large file', flags: ['-A', '2'], pattern: 'hit 1[0-9]{2} ', pages: [1, 7] },
  { name: 'nothing', flags: [], pattern: 'absent-everywhere', pages: [undefined] },
];

test('cli-pages: grep prints every matching line, page after page, as rg prints them', { skip: !ripgrep && 'ripgrep is not installed' }, () => {
  try {
    for (const row of grepCases) {
      const theirs = rg(row.flags, row.pattern);
      for (const pageSize of row.pages) {
        const ours = fathom(['grep', ...row.flags, row.pattern, root], pageSize);
        const what = `${row.name} (pages of ${pageSize ?? 'the default size'})`;
        assert.equal(ours.code, theirs.length > 0 ? 0 : 1, `${what}: ${ours.stderr}`);
        assert.equal(ours.stderr, '', `${what}: nothing on stderr without a cap`);
        assert.deepEqual(lines(ours.stdout), theirs, what);
        const json = lines(fathom(['grep', '--json', ...row.flags, row.pattern, root], pageSize).stdout);
        const summary = JSON.parse(json.at(-1)!).summary;
        const matching = theirs.filter((line) => /^[^:]+:\d+:/.test(line));
        assert.equal(json.length - 1, matching.length, `${what}: --json prints every matching line`);
        assert.deepEqual(
          { total: summary.total, files: summary.files, truncated: summary.truncated },
          { total: matching.length, files: new Set(matching.map((line) => line.split(':')[0])).size, truncated: false },
          `${what}: --json summary`,
        );
      }
    }
  } finally {
    fathom(['stop']);
  }
});

/** Each row: --max, the page size, and what the cap leaves: the first `max` lines of rg's. */
const capCases: Array<{ max: number; pageSize?: number }> = [
  { max: 3 },
  { max: 3, pageSize: 2 },
  { max: 12_000 },
  { max: 10_001, pageSize: 5_000 },
  { max: 0 },
];

test('cli-pages: a --max cap is said on stderr and in the --json summary', { skip: !ripgrep && 'ripgrep is not installed' }, () => {
  try {
    const theirs = rg([], 'hit');
    const files = new Set(theirs.map((line) => line.split(':')[0])).size;
    for (const { max, pageSize } of capCases) {
      const what = `--max ${max} (pages of ${pageSize ?? 'the default size'})`;
      const ours = fathom(['grep', '--max', String(max), 'hit', root], pageSize);
      assert.equal(ours.code, max > 0 ? 0 : 1, `${what}: ${ours.stderr}`);
      assert.deepEqual(lines(ours.stdout), theirs.slice(0, max), what);
      assert.equal(
        ours.stderr,
        `fathom: stopped after ${max} matching line${max === 1 ? '' : 's'} (--max ${max}); ${theirs.length} in all, in ${files} files\n`,
        what,
      );
      const json = fathom(['grep', '--json', '--max', String(max), 'hit', root], pageSize);
      const out = lines(json.stdout);
      assert.equal(out.length - 1, max, `${what}: --json lines`);
      assert.match(json.stderr, /stopped after/, `${what}: --json says it on stderr too`);
      const summary = JSON.parse(out.at(-1)!).summary;
      assert.deepEqual(
        { total: summary.total, files: summary.files, truncated: summary.truncated },
        { total: theirs.length, files, truncated: true },
        `${what}: --json summary`,
      );
    }
    const uncapped = fathom(['grep', '--max', String(theirs.length), 'hit', root]);
    assert.equal(uncapped.stderr, '', 'a --max no smaller than the matches caps nothing');
    assert.equal(lines(uncapped.stdout).length, theirs.length);
  } finally {
    fathom(['stop']);
  }
});

/** sg: every match across pages; `foo($A)` matches 7 times in 3 files (the nested call twice). */
const sgExpected = [
  'src/e.ts:1:1:foo(1); foo(foo(2));',
  'src/e.ts:1:9:foo(1); foo(foo(2));',
  'src/e.ts:1:13:foo(1); foo(foo(2));',
  'src/e.ts:2:11:const x = foo(3);',
  'src/f.ts:1:1:foo(4);',
  'src/g.ts:1:5:bar(foo(5), foo(6));',
  'src/g.ts:1:13:bar(foo(5), foo(6));',
];

test('cli-pages: sg prints every match page after page; a --max cap is said', () => {
  try {
    for (const pageSize of [undefined, 1, 2, 3]) {
      const what = `pages of ${pageSize ?? 'the default size'}`;
      const ours = fathom(['sg', 'foo($A)', '--lang', 'typescript', root], pageSize);
      assert.equal(ours.code, 0, `${what}: ${ours.stderr}`);
      assert.equal(ours.stderr, '', what);
      assert.deepEqual(lines(ours.stdout), sgExpected, what);
      const json = JSON.parse(fathom(['sg', '--json', 'foo($A)', '--lang', 'typescript', root], pageSize).stdout);
      assert.deepEqual(
        json.matches.map(
          (match: { path: string; range: { start: { line: number; column: number } } }) =>
            `${match.path}:${match.range.start.line}:${match.range.start.column}`,
        ),
        sgExpected.map((line) => line.split(':').slice(0, 3).join(':')),
        what,
      );
      assert.deepEqual([json.files, json.truncated, 'next' in json], [3, false, false], what);
    }
    for (const pageSize of [undefined, 2]) {
      const capped = fathom(['sg', '--max', '4', 'foo($A)', '--lang', 'typescript', root], pageSize);
      assert.deepEqual(lines(capped.stdout), sgExpected.slice(0, 4));
      assert.equal(capped.stderr, 'fathom: stopped after 4 matches (--max 4); there are more\n');
      const json = JSON.parse(fathom(['sg', '--json', '--max', '4', 'foo($A)', '--lang', 'typescript', root], pageSize).stdout);
      assert.deepEqual([json.matches.length, json.files, json.truncated], [4, 1, true]);
    }
  } finally {
    fathom(['stop']);
  }
});

test('cli-pages: refs prints every reference page after page; a --limit cap is said', () => {
  try {
    const whole = fathom(['refs', 'twice', root]);
    assert.equal(whole.code, 0, whole.stderr);
    assert.equal(whole.stderr, '');
    const all = lines(whole.stdout);
    assert.ok(all.length >= 5, `the fixture's references: ${whole.stdout}`);
    for (const pageSize of [1, 2, 3]) assert.deepEqual(lines(fathom(['refs', 'twice', root], pageSize).stdout), all, `pages of ${pageSize}`);
    const json = JSON.parse(fathom(['refs', '--json', 'twice', root], 2).stdout);
    assert.deepEqual([json.references.length, json.truncated, 'next' in json], [all.length, false, false]);
    for (const pageSize of [undefined, 2]) {
      const capped = fathom(['refs', '--limit', '3', 'twice', root], pageSize);
      assert.deepEqual(lines(capped.stdout), all.slice(0, 3));
      assert.equal(capped.stderr, 'fathom: stopped after 3 references (--limit 3); there are more\n');
      const cappedJson = JSON.parse(fathom(['refs', '--json', '--limit', '3', 'twice', root], pageSize).stdout);
      assert.deepEqual([cappedJson.references.length, cappedJson.truncated], [3, true]);
    }
  } finally {
    fathom(['stop']);
  }
});
