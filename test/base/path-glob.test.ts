// The one path filter against its oracle: for every glob list in the table, the files
// `globFilter` keeps equal what `rg --files -g …` lists over the same tree (ripgrep reads the
// globs; Fathom must read them the same way in every method that takes globs). Then the methods:
// fathom/files with `*.ts` lists nested files, and grep's `paths` narrows to a folder AND the globs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { globFilter, pathsFilter } from '../../src/base/path-glob.js';
import { FathomError } from '../../src/base/errors.js';
import { RegexIndex } from '../../src/index/regex/regex-index.js';
import { BufferOverlay } from '../../src/workspace/overlay.js';
import type { Workspace } from '../../src/workspace/workspace.js';
import { writeFixture } from '../helpers/fixture.js';
import { pool, readyWorkspace } from '../helpers/workspace-harness.js';

const ripgrep = spawnSync('rg', ['--version']).status === 0;
if (!ripgrep && process.env.CI) throw new Error('ripgrep is required in CI (apt-get install ripgrep)');

const tree = `
//- README.md
readme
//- Makefile
all:
//- src/index.ts
export {};
//- src/lexical/plan.ts
export {};
//- src/lexical/plan.test.ts
export {};
//- src/lexical/README.md
notes
//- test/grep.test.ts
export {};
//- test/fixtures/a.c
int a;
//- drivers/net/e1000.c
int e;
//- drivers/net/e1000.h
int h;
//- drivers/gpu/drm.c
int d;
//- vendor/lib/x.c
int x;
//- .hidden/conf.ts
export {};
`;

/** Glob lists, each checked against ripgrep; the comment says the rule it pins. */
const cases: string[][] = [
  ['*.ts'], // a name in any folder, nested too
  ['*.c', '*.h'],
  ['src'], // a folder is never a file: nothing
  ['src/**'], // what is under a folder
  ['src/*.ts'], // a slash anchors: only src/index.ts
  ['lexical/*.ts'], // anchored at the root: nothing
  ['**/lexical/*.ts'],
  ['/README.md'], // a leading slash anchors
  ['README.md'], // a bare name in every folder
  ['!test'], // an excluded folder hides what is under it
  ['!test/'],
  ['!*.md'],
  ['*.c', '!drivers/gpu/**'],
  ['!*.md', 'README.md'], // the last glob matching decides
  ['README.md', '!*.md'],
  ['!drivers', 'drivers/net/*.c'], // the folder's exclusion still hides it
  ['drivers/net/*', '!*.h'],
  ['vendor/'], // folders only: a folder is never listed
  ['!vendor/', '*.c'],
  ['{src,test}/**/*.ts'],
  ['*.[ch]'],
  ['.hidden/*'],
  ['!src/index.ts'],
  ['!src/index'], // anchored, and no file is called that
  ['**/*.test.ts', '!test/**'],
];

describe('globFilter reads globs as ripgrep -g does', { skip: !ripgrep && 'ripgrep is not installed' }, () => {
  let root: string;
  let files: string[];
  before(() => {
    root = writeFixture(tree);
    files = rgFiles([]);
  });

  function rgFiles(globs: string[]): string[] {
    const args = ['--files', '--hidden', '--no-ignore', '--no-config', ...globs.flatMap((glob) => ['-g', glob])];
    const result = spawnSync('rg', args, { cwd: root, encoding: 'utf8' });
    assert.ok(result.status === 0 || result.status === 1, `rg failed: ${result.stderr}`);
    return result.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => line.replace(/^\.\//, ''))
      .sort();
  }

  test('the tree is all there without globs', () => {
    assert.equal(files.length, 13);
  });

  for (const globs of cases) {
    test(`-g ${globs.map((glob) => JSON.stringify(glob)).join(' -g ')}`, () => {
      const keep = globFilter(globs);
      assert.deepEqual(files.filter(keep), rgFiles(globs));
    });
  }
});

test('a glob picomatch refuses, or one too large, is an invalidParams error', () => {
  assert.throws(
    () => globFilter(['*'.repeat(100_000)]),
    (error: unknown) => error instanceof FathomError && error.kind === 'invalidParams',
  );
});

test('pathsFilter keeps files in a folder or equal to a file, never a sibling with the same prefix', () => {
  const keep = pathsFilter(['drivers/net', 'README.md']);
  assert.deepEqual(['drivers/net/e1000.c', 'drivers/network.c', 'drivers/net', 'README.md', 'README.md.bak'].filter(keep), [
    'drivers/net/e1000.c',
    'drivers/net',
    'README.md',
  ]);
  assert.equal(pathsFilter([''])('anything/at/all'), true);
});

describe('the methods read globs the same way', () => {
  let workspace: Workspace;
  let index: RegexIndex;
  before(async () => {
    workspace = await readyWorkspace(writeFixture(tree));
    index = new RegexIndex(workspace, new BufferOverlay());
    await index.ensureBuilt();
  });
  after(async () => {
    index.dispose();
    await workspace.close();
    pool.close();
  });

  test('files with *.ts lists nested files', () => {
    assert.deepEqual(workspace.files(['*.ts']).sort(), [
      '.hidden/conf.ts',
      'src/index.ts',
      'src/lexical/plan.test.ts',
      'src/lexical/plan.ts',
      'test/grep.test.ts',
    ]);
  });

  test("grep in a folder keeps the globs: -g *.c in drivers/net is that folder's .c files", async () => {
    const result = await index.search({ pattern: 'int', globs: ['*.c'], paths: ['drivers/net'] });
    assert.deepEqual([...new Set(result.matches.map((match) => match.path))].sort(), ['drivers/net/e1000.c']);
  });
});
