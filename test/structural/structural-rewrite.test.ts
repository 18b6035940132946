// Staged structural rewrite: templates and indentation (a table), plan then apply, drift refused
// with nothing written (one of 40 files edited between plan and apply), rollback when a write fails
// part-way (a read-only file), unsaved editor buffers left alone, expiry and discard.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { FathomError } from '../../src/base/errors.js';
import { GrammarSet } from '../../src/index/syntax/grammars.js';
import { ParseCache } from '../../src/index/syntax/parse-cache.js';
import { planRewrite, type RewriteRequest } from '../../src/structural/rewrite-planner.js';
import { RewritePlans } from '../../src/structural/rewrite-plans.js';
import { StructuralPool } from '../../src/structural/structural-pool.js';
import { type CandidateSource, StructuralSearch } from '../../src/structural/structural-search.js';
import { tempDir } from '../helpers/fixture.js';

const grammars = new GrammarSet();
const pool = new StructuralPool({ size: 2 });
const structural = new StructuralSearch(grammars, new ParseCache(grammars), pool);
after(() => pool.close());

/** Every file under root is a candidate; `buffers` stand for open editor buffers (path → text). */
function sourceOf(root: string, buffers: Record<string, string> = {}): CandidateSource {
  return {
    root,
    candidateFiles: async (_query, accepts) => ({
      files: (fs.readdirSync(root, { recursive: true }) as string[])
        .filter((file) => fs.statSync(path.join(root, file)).isFile() && accepts(file))
        .sort()
        .map((file) => (buffers[file] === undefined ? { path: file } : { path: file, text: buffers[file]! })),
      fromIndex: false,
    }),
  };
}

function write(root: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
}

describe('rewrite templates and indentation', () => {
  const rows: Array<{ name: string; language: string; file: string; code: string; pattern: string; rewrite: string; expected: string }> = [
    {
      name: 'single line',
      language: 'typescript',
      file: 'a.ts',
      code: 'const x = foo(1, 2);\n',
      pattern: 'foo($A, $B)',
      rewrite: 'bar($B, $A)',
      expected: 'const x = bar(2, 1);\n',
    },
    {
      name: 'a multi-line template takes the indentation of the matched line',
      language: 'typescript',
      file: 'a.ts',
      code: 'function f() {\n    if (a != null) a.dispose();\n}\n',
      pattern: 'if ($X != null) $X.dispose();',
      rewrite: 'if ($X) {\n  $X.dispose();\n}',
      expected: 'function f() {\n    if (a) {\n      a.dispose();\n    }\n}\n',
    },
    {
      name: 'a multi-line binding moves with its new place (tabs)',
      language: 'c',
      file: 'a.c',
      code: 'void f(void)\n{\n\tif (p) {\n\t\tg(p);\n\t\th(p);\n\t}\n}\n',
      pattern: 'if ($C) { $$$BODY }',
      rewrite: 'if (likely($C)) {\n\t$$$BODY\n}',
      expected: 'void f(void)\n{\n\tif (likely(p)) {\n\t\tg(p);\n\t\th(p);\n\t}\n}\n',
    },
    {
      name: 'Python block re-indented one level deeper',
      language: 'python',
      file: 'a.py',
      code: 'def f():\n    for x in xs:\n        a(x)\n        b(x)\n',
      pattern: 'for $X in $Y: $$$BODY',
      rewrite: 'with lock:\n    for $X in $Y:\n        $$$BODY',
      expected: 'def f():\n    with lock:\n        for x in xs:\n            a(x)\n            b(x)\n',
    },
    {
      name: 'nested matches: the outermost is rewritten',
      language: 'typescript',
      file: 'a.ts',
      code: 'foo(foo(1));\n',
      pattern: 'foo($A)',
      rewrite: 'bar($A)',
      expected: 'bar(foo(1));\n',
    },
    {
      name: 'non-ASCII text before the match keeps byte offsets right',
      language: 'typescript',
      file: 'a.ts',
      code: 'const s = "héllo ✓"; foo(1);\n',
      pattern: 'foo($A)',
      rewrite: 'bar($A)',
      expected: 'const s = "héllo ✓"; bar(1);\n',
    },
  ];
  for (const row of rows) {
    test(row.name, async () => {
      const root = tempDir('fathom-rewrite-');
      write(root, { [row.file]: row.code });
      const plans = new RewritePlans();
      const plan = await planRewrite(structural, plans, sourceOf(root), { language: row.language, rule: { pattern: row.pattern }, rewrite: row.rewrite });
      assert.ok(plan.token, 'staged');
      assert.equal(fs.readFileSync(path.join(root, row.file), 'utf8'), row.code, 'nothing written when staging');
      assert.match(plan.diff, new RegExp(`^--- a/${row.file.replace('.', '\\.')}\\n\\+\\+\\+ b/${row.file.replace('.', '\\.')}\\n@@`, 'm'));
      plans.apply(plan.token!);
      assert.equal(fs.readFileSync(path.join(root, row.file), 'utf8'), row.expected);
    });
  }

  test('a template naming a metavariable the pattern does not bind is rejected', async () => {
    const root = tempDir('fathom-rewrite-');
    write(root, { 'a.ts': 'foo(1);\n' });
    await assert.rejects(
      planRewrite(structural, new RewritePlans(), sourceOf(root), { language: 'typescript', rule: { pattern: 'foo($A)' }, rewrite: 'bar($B)' }),
      /rewrite uses \$B, which the pattern does not bind \(it binds \$A\)/,
    );
  });
});

describe('plans: apply, drift, rollback, expiry', () => {
  const request: RewriteRequest = { language: 'typescript', rule: { pattern: 'oldName($$$A)' }, rewrite: 'newName($$$A)' };
  const fortyFiles = (): string => {
    const root = tempDir('fathom-plan-');
    const files: Record<string, string> = {};
    for (let index = 0; index < 40; index++) files[`src/m${String(index).padStart(2, '0')}.ts`] = `export const v${index} = oldName(${index}, "x");\n`;
    files['src/other.ts'] = 'export const w = other(1);\n';
    write(root, files);
    return root;
  };
  const contents = (root: string): string[] =>
    fs
      .readdirSync(path.join(root, 'src'))
      .sort()
      .map((name) => fs.readFileSync(path.join(root, 'src', name), 'utf8'));

  test('plan then apply writes every file of the plan, and the token is used up', async () => {
    const root = fortyFiles();
    const plans = new RewritePlans();
    const plan = await planRewrite(structural, plans, sourceOf(root), request);
    assert.equal(plan.count, 40);
    assert.equal(plan.files.length, 40);
    assert.equal(plan.changes[0]!.before, 'oldName(0, "x")');
    assert.equal(plan.changes[0]!.after, 'newName(0, "x")');
    const result = plans.apply(plan.token!);
    assert.equal(result.written.length, 40);
    assert.ok(contents(root).filter((text) => text.includes('newName(')).length === 40);
    assert.throws(() => plans.apply(plan.token!), /no staged rewrite with token/);
  });

  test('one file edited between plan and apply: nothing is written, the drifted file is named', async () => {
    const root = fortyFiles();
    const plans = new RewritePlans();
    const plan = await planRewrite(structural, plans, sourceOf(root), request);
    const before = contents(root);
    fs.appendFileSync(path.join(root, 'src/m17.ts'), '// edited\n');
    assert.throws(
      () => plans.apply(plan.token!),
      (error: unknown) => {
        assert.ok(error instanceof FathomError);
        assert.equal(error.kind, 'conflict');
        assert.deepEqual(
          (error.data as { drifted: { path: string }[] }).drifted.map((entry) => entry.path),
          ['src/m17.ts'],
        );
        return true;
      },
    );
    const now = contents(root);
    assert.deepEqual(now.filter((text, index) => text !== before[index]).length, 1, 'only the user edit changed anything');
    assert.ok(!now.some((text) => text.includes('newName(')));
  });

  test('unsaved editor changes count as drift', async () => {
    const root = fortyFiles();
    const plans = new RewritePlans();
    const plan = await planRewrite(structural, plans, sourceOf(root), request);
    assert.throws(() => plans.apply(plan.token!, (file) => file === 'src/m03.ts'), /src\/m03\.ts: has unsaved changes in an editor/);
  });

  test('a write that fails part-way restores the files already written', async () => {
    const root = fortyFiles();
    const plans = new RewritePlans();
    const plan = await planRewrite(structural, plans, sourceOf(root), request);
    const before = contents(root);
    fs.chmodSync(path.join(root, 'src/m20.ts'), 0o444);
    assert.throws(
      () => plans.apply(plan.token!),
      (error: unknown) => {
        assert.ok(error instanceof FathomError);
        assert.equal(error.kind, 'io');
        assert.match(error.message, /writing src\/m20\.ts failed \(the file is read-only\); restored the 20 files already written/);
        return true;
      },
    );
    assert.deepEqual(contents(root), before, 'every file as it was');
    assert.equal(fs.statSync(path.join(root, 'src/m05.ts')).mode & 0o777, fs.statSync(path.join(root, 'src/other.ts')).mode & 0o777, 'modes kept');
  });

  test('an open buffer with unsaved changes is left out of the plan', async () => {
    const root = fortyFiles();
    const plans = new RewritePlans();
    const plan = await planRewrite(structural, plans, sourceOf(root, { 'src/m01.ts': 'export const v1 = oldName(1, "typed");\n' }), request);
    assert.deepEqual(plan.skipped, [{ path: 'src/m01.ts', reason: 'open in an editor with unsaved changes (save it, then rewrite)' }]);
    assert.equal(plan.files.length, 39);
  });

  test('plans expire, and a discarded plan cannot be applied', async () => {
    const root = fortyFiles();
    const plans = new RewritePlans(60_000);
    const plan = await planRewrite(structural, plans, sourceOf(root), request);
    assert.throws(() => plans.apply(plan.token!, () => false, Date.now() + 61_000), /expired \(plans live 1 minutes\)|applied, discarded, or expired/);
    const again = await planRewrite(structural, plans, sourceOf(root), request);
    assert.equal(plans.discard(again.token!), true);
    assert.equal(plans.discard(again.token!), false);
    assert.throws(() => plans.apply(again.token!), /no staged rewrite/);
    assert.ok(!contents(root).some((text) => text.includes('newName(')));
  });

  test('nothing to change: no token, nothing staged', async () => {
    const root = fortyFiles();
    const plan = await planRewrite(structural, new RewritePlans(), sourceOf(root), { ...request, rule: { pattern: 'absent($A)' } });
    assert.equal(plan.token, undefined);
    assert.equal(plan.count, 0);
    assert.equal(plan.diff, '');
  });
});
