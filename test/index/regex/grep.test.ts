// The regex index against its oracle: for every query in the table, the (file, line) pairs Fathom
// reports equal `rg -n` over exactly the same files. Then freshness: edits on disk and in editor
// buffers are found by the very next query, deleted files never are, and random edits interleaved
// with queries always agree with a brute-force scan.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import type { Generation } from '../../../src/index/regex/generation.js';
import { GrepPool } from '../../../src/index/regex/grep-pool.js';
import { globFilter } from '../../../src/base/path-glob.js';
import { RegexIndex, type GrepRequest } from '../../../src/index/regex/regex-index.js';
import { compileMatcher, loopRunLineStarts, matchBytes, matchLines, runLineStarts } from '../../../src/index/regex/matcher.js';
import { plainGaveUp, plainLine, scanBuffer, scanCountNewlines, scanPlain, scanRegionBytes } from '../../../src/index/regex/run-scan.js';
import { countNewlines } from '../../../src/index/regex/pieces.js';
import { runScanModule } from '../../../src/index/regex/run-scan-module.js';
import { all } from '../../../src/index/regex/query.js';
import { lineLiterals, parseRegex, planRegex, requiredRun } from '../../../src/index/regex/regex-plan.js';
import { BufferOverlay } from '../../../src/workspace/overlay.js';
import { checkRegex, maxRegexLength, maxRegexNesting, regexNesting } from '../../../src/base/pattern-limits.js';
import type { Workspace } from '../../../src/workspace/workspace.js';
import { gitInit, writeFixture } from '../../helpers/fixture.js';
import { pool, quiesce, readyWorkspace } from '../../helpers/workspace-harness.js';

const ripgrep = spawnSync('rg', ['--version']).status === 0;
if (!ripgrep && process.env.CI) throw new Error('ripgrep is required in CI (apt-get install ripgrep)');

const corpus = `
//- kernel/sched.c
#include <linux/sched.h>
static DEFINE_SPINLOCK(lock);
static inline int task_prio(const struct task_struct *p)
{
	unsigned long flags;
	spin_lock_irqsave(&lock, flags);
	int value = 123456;
	spin_unlock_irqrestore(&lock, flags);
	return p->prio - MAX_RT_PRIO;
}
EXPORT_SYMBOL_GPL(task_prio);
struct sched_class_ops {
	void (*enqueue)(void);
};
//- kernel/mutex.c
void mutex_lock(struct mutex *lock) { might_sleep(); }
void mutex_unlock(struct mutex *lock) { /* TODO: fast path */ }
int kfree_count = 0;
void helper(void) { kfree(ptr); kfree_rcu(ptr); }
//- include/linux/slab.h
static inline void *kmalloc(size_t size, gfp_t flags) { return __kmalloc(size, flags); }
static inline void *kzalloc(size_t size, gfp_t flags) { return kmalloc(size, flags | __GFP_ZERO); }
#define KCALLOC(n) kcalloc(n, 8, GFP_KERNEL)
struct file_operations_ops {
//- src/app.ts
export class UserService {
  async getUser(id: string): Promise<User> {
    return this.repo.find(id); // TODO(alice): cache
  }
}
const Copy_From_User = copy_from_user;
//- src/café.py
def grüße(name):
    return f"Grüße, {name}!"  # naïve
ÉCOLE = "école"
nombre = "٣٤٥٦٧"  # Arabic-Indic digits
ékmalloc(x) and µkzalloc(y)
//- docs/notes.md
The colour and the color.
Foo bar baz
foo BAR Baz
a+b=c (literal parens) [brackets] {braces}
//- empty.txt
//- edge/lines.txt
title

ship it 🚀
𝑥 = 1
int v = foo(bar_12_baz);
the Key and KELVIN
a
bx
c
`;

interface Case {
  name: string;
  request: GrepRequest;
  /** Where Fathom's JavaScript dialect and ripgrep's Rust dialect differ: why the result may differ. */
  dialect?: string;
}

const cases: Case[] = [
  { name: 'rare literal', request: { pattern: 'task_prio', fixedStrings: true } },
  { name: 'common literal', request: { pattern: 'static inline', fixedStrings: true } },
  { name: 'no-hit literal', request: { pattern: 'kmem_cache_alloc_node_trace', fixedStrings: true } },
  { name: 'literal with regex characters', request: { pattern: 'a+b=c (literal', fixedStrings: true } },
  { name: 'fixed string with brackets', request: { pattern: '[brackets] {braces}', fixedStrings: true } },
  { name: 'EXPORT_SYMBOL_GPL', request: { pattern: 'EXPORT_SYMBOL_GPL', fixedStrings: true } },
  { name: 'spin_lock_irqsave', request: { pattern: 'spin_lock_irqsave' } },
  { name: 'word kfree', request: { pattern: 'kfree', wordRegexp: true } },
  { name: 'word match inside other words excluded', request: { pattern: 'lock', wordRegexp: true } },
  { name: 'struct ops', request: { pattern: 'struct \\w+_ops \\{' } },
  { name: 'alternation with escape', request: { pattern: 'mutex_(lock|unlock)\\(' } },
  { name: 'word boundary alternation', request: { pattern: '\\b(kmalloc|kzalloc|kcalloc)\\(' } },
  { name: 'case-insensitive literal', request: { pattern: 'copy_from_user', ignoreCase: true } },
  { name: 'case-sensitive literal misses other case', request: { pattern: 'copy_from_user' } },
  { name: 'no literal at all', request: { pattern: '\\w+\\s*=\\s*\\d{5,}' } },
  { name: 'a leading run of a class before a literal', request: { pattern: '[a-z_]+\\(' } },
  { name: 'a leading run, ignoring case', request: { pattern: '\\w+_OPS', ignoreCase: true } },
  { name: 'a leading lazy run of any character', request: { pattern: '.+?;$' } },
  { name: 'leading runs in two alternatives', request: { pattern: '\\d+px|[A-Z]{2,}_' } },
  { name: 'glob on headers', request: { pattern: 'static inline', fixedStrings: true, globs: ['*.h'] } },
  { name: 'TODO', request: { pattern: 'TODO', fixedStrings: true } },
  { name: 'anchored start', request: { pattern: '^static' } },
  { name: 'anchored end', request: { pattern: '\\)$' } },
  { name: 'anchored both', request: { pattern: '^\\{$' } },
  { name: 'optional letter', request: { pattern: 'colou?r' } },
  { name: 'character class', request: { pattern: '[Ff]oo [Bb][Aa][Rr]' } },
  { name: 'negated class', request: { pattern: 'k[^f]' } },
  { name: 'dot', request: { pattern: 'mutex_.ock' } },
  { name: 'plus repetition', request: { pattern: 'spin_(un)?lock_irq\\w+' } },
  { name: 'counted repetition', request: { pattern: '\\d{6}' } },
  { name: 'range repetition', request: { pattern: 'l{1,2}o' } },
  { name: 'escaped dot', request: { pattern: 'sched\\.h' } },
  { name: 'escaped bracket', request: { pattern: '\\[brackets\\]' } },
  { name: 'tab', request: { pattern: '\\tunsigned' } },
  { name: 'empty-matching pattern', request: { pattern: 'x*' } },
  { name: 'lazy quantifier', request: { pattern: 'return .*?;' } },
  { name: 'group repetition', request: { pattern: '(ab|cd)+e' } },
  { name: 'ignore case class', request: { pattern: 'FOO bar', ignoreCase: true } },
  { name: 'ignore case alternation', request: { pattern: 'USER(service|id)', ignoreCase: true } },
  { name: 'unicode literal', request: { pattern: 'Grüße' } },
  { name: 'unicode case-insensitive', request: { pattern: 'école', ignoreCase: true } },
  { name: 'unicode fixed, case-insensitive', request: { pattern: 'ÉCOLE', fixedStrings: true, ignoreCase: true } },
  { name: 'unicode letter alone, fixed and case-insensitive', request: { pattern: 'É', fixedStrings: true, ignoreCase: true } },
  { name: 'unicode fixed', request: { pattern: 'naïve', fixedStrings: true } },
  { name: 'word on unicode identifier', request: { pattern: 'grüße', wordRegexp: true } },
  { name: 'digits', request: { pattern: '\\d+' } },
  { name: 'Unicode digits, as ripgrep', request: { pattern: '\\d{5}' } },
  { name: 'Unicode word characters, as ripgrep', request: { pattern: 'Gr\\w+e' } },
  { name: 'Unicode word boundary, as ripgrep', request: { pattern: '\\b(kmalloc|kzalloc)\\(' } },
  { name: 'not a word character', request: { pattern: 'na\\Wve' } },
  { name: 'word class inside brackets', request: { pattern: '[\\w]+ße' } },
  { name: 'non-boundary', request: { pattern: 'k\\Bmalloc' } },
  { name: 'whitespace run', request: { pattern: '\\s{2,}return' } },
  { name: 'non-capturing group', request: { pattern: '(?:async|static) \\w+' } },
  { name: 'alternation of literals', request: { pattern: 'might_sleep|fast path|GFP_KERNEL' } },
  { name: 'literal minus', request: { pattern: 'p->prio - MAX', fixedStrings: true } },
  { name: 'CRLF line end', request: { pattern: 'windows line$' } },
  { name: 'dot matches a carriage return, as in ripgrep', request: { pattern: 'line.$' } },
  { name: 'anchors inside a group', request: { pattern: '(^first|last$)' } },
  { name: 'empty lines beside emoji', request: { pattern: '^$' } },
  { name: 'blank lines beside emoji', request: { pattern: '^\\s*$' } },
  { name: 'non-word lines beside emoji', request: { pattern: '^\\W*$' } },
  { name: 'word-wrapped end anchor', request: { pattern: '$', wordRegexp: true } },
  { name: 'ripgrep whitespace (U+0085 yes, U+FEFF no)', request: { pattern: '[ac]\\s[bd]' } },
  { name: 'group with an unknown part joined to a literal', request: { pattern: 'foo\\((bar_\\d+_baz)\\)' } },
  { name: 'alternation with an unknown part joined to a literal', request: { pattern: 'foo\\((?:bar\\w+baz|qux)\\)' } },
  { name: 'case-insensitive k matches the Kelvin sign', request: { pattern: 'kelvin', ignoreCase: true } },
  { name: 'case-insensitive fixed k', request: { pattern: 'KEY', fixedStrings: true, ignoreCase: true } },
  { name: 'multiline empty matches stop at the last line', request: { pattern: 'x*', multiline: true } },
  { name: 'negated glob', request: { pattern: 'static', globs: ['*.c', '*.h', '!mutex.c'] } },
  { name: 'root-anchored glob', request: { pattern: 'static', globs: ['/kernel/*.c'] } },
  { name: 'CRLF text', request: { pattern: 'windows', fixedStrings: true } },
  { name: 'multiline span', request: { pattern: 'flags\\);\\n\\tint', multiline: true } },
  { name: 'glob on a folder', request: { pattern: 'kfree', globs: ['kernel/**'] } },
  { name: 'two globs', request: { pattern: 'TODO', globs: ['*.ts', '*.c'] } },
  { name: 'a folder glob and a name glob', request: { pattern: 'static', globs: ['include/**', '*.c'] } },
];

function rgLines(root: string, files: string[], request: GrepRequest): string[] {
  const globMatcher = request.globs ? globFilter(request.globs) : undefined;
  const filtered = globMatcher ? files.filter((file) => globMatcher(file)) : files;
  if (filtered.length === 0) return [];
  const flags = ['-n', '--no-heading', '--no-config', '--with-filename', '--color', 'never'];
  if (request.fixedStrings) flags.push('-F');
  if (request.ignoreCase) flags.push('-i');
  if (request.wordRegexp) flags.push('-w');
  if (request.multiline) flags.push('-U');
  const result = spawnSync('rg', [...flags, '-e', request.pattern, '--', ...filtered], { cwd: root, encoding: 'utf8' });
  if (result.status !== 0 && result.status !== 1) throw new Error(`rg failed: ${result.stderr}`);
  return result.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => /^(.*?):(\d+):/.exec(line)!)
    .map((match) => `${match[1]}:${match[2]}`)
    .sort();
}

// The oracle table runs twice: with the default pieces (small files are one piece each) and with
// 48-byte pieces, so most files are cut into many and the piece-level plan is exercised.
for (const pieceTarget of [undefined, 48])
  describe(`grep against ripgrep${pieceTarget ? `, ${pieceTarget}-byte pieces` : ''}`, { skip: !ripgrep && 'ripgrep is not installed' }, () => {
    let workspace: Workspace;
    let index: RegexIndex;
    const overlay = new BufferOverlay();

    before(async () => {
      const root = writeFixture(corpus);
      fs.writeFileSync(path.join(root, 'crlf.txt'), 'first\r\nwindows line\r\nlast\r\n');
      fs.writeFileSync(path.join(root, 'edge/spaces.txt'), 'a\u0085b\nc\ufeffd\nkelvin \u212A here\n');
      fs.writeFileSync(path.join(root, 'logo.bin'), Buffer.from([0x47, 0x49, 0, 0x46, 0x6b, 0x66, 0x72, 0x65, 0x65]));
      gitInit(root);
      workspace = await readyWorkspace(root);
      index = new RegexIndex(workspace, overlay, undefined, undefined, pieceTarget);
      await index.ensureBuilt();
    });
    after(async () => {
      index.dispose();
      await workspace.close();
      pool.close();
    });

    test('the table has at least 40 queries', () => assert.ok(cases.length >= 40));

    for (const testCase of cases) {
      test(`grep: ${testCase.name}`, async () => {
        const result = await index.search(testCase.request);
        const ours = result.matches.map((match) => `${match.path}:${match.line}`).sort();
        const theirs = rgLines(workspace.root, workspace.files(), testCase.request);
        if (testCase.dialect) return;
        assert.deepEqual(ours, theirs, `plan ${result.stats.plan}`);
      });
    }

    test('grep: an invalid regex is invalidParams quoting the parser and position', async () => {
      await assert.rejects(index.search({ pattern: 'a(b' }), (error: Error & { kind?: string; data?: { index?: number } }) => {
        assert.equal(error.kind, 'invalidParams');
        assert.match(error.message, /Unterminated group/);
        assert.equal(error.data?.index, 3);
        return true;
      });
    });

    test('grep: maxResults keeps the first matches in path order and says it truncated', async () => {
      const full = await index.search({ pattern: 'static' });
      assert.ok(full.matches.length > 3);
      const limited = await index.search({ pattern: 'static', maxResults: 3 });
      assert.deepEqual(limited.matches, full.matches.slice(0, 3));
      assert.equal(limited.truncated, true);
      assert.equal(limited.total, full.matches.length, 'total counts the matches past the cap');
      assert.equal(limited.files, full.files, 'and files every file with a match');
      assert.equal(full.total, full.matches.length);
      assert.equal(full.truncated, false);
      const exact = await index.search({ pattern: 'static', maxResults: full.matches.length });
      assert.equal(exact.truncated, false);
      const single = await index.search({ pattern: 'static', maxResults: 1, globs: ['slab.h'] });
      assert.equal(single.matches.length, 1);
      assert.equal(single.truncated, true, 'one file with more matches than wanted');
    });

    // Context lines (-A/-B/-C): the whole output, separators included, must be ripgrep's.
    const contextCases: Array<{ name: string; request: GrepRequest; flags: string[] }> = [
      { name: '-C 2 around a common word', request: { pattern: 'static', beforeContext: 2, afterContext: 2 }, flags: ['-C', '2'] },
      { name: '-A 3 only', request: { pattern: 'kfree', afterContext: 3 }, flags: ['-A', '3'] },
      { name: '-B 1 only', request: { pattern: 'mutex_(lock|unlock)\\(', beforeContext: 1 }, flags: ['-B', '1'] },
      { name: '-C 1 with CRLF lines', request: { pattern: 'windows', fixedStrings: true, beforeContext: 1, afterContext: 1 }, flags: ['-F', '-C', '1'] },
      { name: '-C 5 where groups merge', request: { pattern: 'TODO', beforeContext: 5, afterContext: 5 }, flags: ['-C', '5'] },
    ];
    for (const contextCase of contextCases) {
      test(`grep context: ${contextCase.name}`, async () => {
        const result = await index.search(contextCase.request);
        const ours: string[] = [];
        let previous: { path: string; line: number } | undefined;
        const push = (file: string, line: number, text: string, separator: string): void => {
          if (previous && (previous.path !== file || previous.line + 1 !== line)) ours.push('--');
          ours.push(`${file}${separator}${line}${separator}${text}`);
          previous = { path: file, line };
        };
        for (const match of result.matches) {
          for (const line of match.before ?? []) push(match.path, line.line, line.text, '-');
          push(match.path, match.line, match.text, ':');
          for (const line of match.after ?? []) push(match.path, line.line, line.text, '-');
        }
        const rg = spawnSync(
          'rg',
          [
            '-n',
            '--no-heading',
            '--no-config',
            '--with-filename',
            '--color',
            'never',
            '--sort',
            'path',
            ...contextCase.flags,
            '-e',
            contextCase.request.pattern,
            '--',
            ...workspace.files(),
          ],
          { cwd: workspace.root, encoding: 'utf8' },
        );
        const theirs = rg.stdout.split('\n').filter((line) => line !== '');
        assert.ok(theirs.length > 0, 'ripgrep found something');
        assert.deepEqual(ours, theirs);
      });
    }

    test('grep languages: only files of the languages asked for, as ripgrep with their extensions', async () => {
      for (const [languages, globs] of [
        [['c'], ['*.c', '*.h']],
        [['typescript'], ['*.ts', '*.mts', '*.cts']],
        [
          ['py', 'C'],
          ['*.py', '*.pyi', '*.pyw', '*.c', '*.h'],
        ],
      ] as const) {
        const result = await index.search({ pattern: 'static', languages: [...languages] });
        const ours = result.matches.map((match) => `${match.path}:${match.line}`).sort();
        assert.deepEqual(ours, rgLines(workspace.root, workspace.files(), { pattern: 'static', globs: [...globs] }), languages.join(','));
      }
      await assert.rejects(index.search({ pattern: 'static', languages: ['cobol'] }), /unknown language "cobol"; known: typescript/);
    });

    test('a filter used again answers from its memo: the same lines, and other filters unaffected', async () => {
      // Each filter, and the globs ripgrep is given for it.
      const cases: [Pick<GrepRequest, 'globs' | 'languages'>, string[]][] = [
        [{ globs: ['*.h'] }, ['*.h']],
        [{ globs: ['!*.h'] }, ['!*.h']],
        [{ languages: ['c'] }, ['*.c', '*.h']],
        [{ globs: ['*.c'], languages: ['c'] }, ['*.c']],
        [{ globs: ['*.h'] }, ['*.h']],
      ];
      for (let round = 0; round < 2; round++) {
        for (const [filter, globs] of cases) {
          const result = await index.search({ pattern: 'static', maxResults: 100_000, ...filter });
          const ours = result.matches.map((match) => `${match.path}:${match.line}`).sort();
          assert.deepEqual(ours, rgLines(workspace.root, workspace.files(), { pattern: 'static', globs }), `round ${round}: ${JSON.stringify(filter)}`);
        }
      }
      // The memo is what answers: a header marked as refused there drops out of the next search with that glob.
      const generation = (index as unknown as { base: Generation }).base;
      const key = JSON.stringify([['*.h'], [], []]);
      const answers = generation.filterAnswers(key);
      const matched = (await index.search({ pattern: 'static', globs: ['*.h'] })).matches[0]!.path;
      const header = generation.files.indexOf(matched);
      assert.equal(answers[header], 1, 'the searches filled the memo');
      answers[header] = -1;
      const without = await index.search({ pattern: 'static', maxResults: 100_000, globs: ['*.h'] });
      assert.ok(!without.matches.some((match) => match.path === generation.files[header]), 'the memo answered');
      // Eight other filters later it is forgotten: asked again, the glob matches the header anew.
      for (let other = 0; other < 8; other++) generation.filterAnswers(`other ${other}`);
      assert.ok(
        generation.filterAnswers(key).every((answer) => answer === 0),
        'evicted: a fresh memo',
      );
      const again = await index.search({ pattern: 'static', maxResults: 100_000, globs: ['*.h'] });
      assert.ok(again.matches.some((match) => match.path === generation.files[header]));
    });

    test('grep: literal queries use the index and read only candidates', async () => {
      const result = await index.search({ pattern: 'task_prio', fixedStrings: true });
      assert.equal(result.stats.fromIndex, true);
      assert.equal(result.stats.searched, 1);
    });
  });

test('lookarounds see only their own line (ripgrep has none; its line model decides)', async () => {
  const { compileMatcher, matchLines } = await import('../../../src/index/regex/matcher.js');
  const text = 'a\nbx\nc\n';
  for (const pattern of ['(?<=\\s)b', '(?<=\\s)[bcd]', 'a(?=\\s)', '[acd](?=\\s)']) {
    assert.deepEqual(matchLines(text, compileMatcher({ pattern }), 100), [], pattern);
  }
  // And an empty match next to an astral character does not loop.
  assert.deepEqual(
    matchLines('🚀\n', compileMatcher({ pattern: 'x*', multiline: true }), 100).map((match) => match.line),
    [1],
  );
});

test('globs: a name glob matches in any folder, a path glob the whole path', () => {
  const accepts = globFilter(['*.h', 'src/**', 'docs/*.md']);
  const table: [string, boolean][] = [
    ['a.h', true],
    ['include/linux/slab.h', true],
    ['src/app.ts', true],
    ['src/deep/er/x.py', true],
    ['docs/notes.md', true],
    ['docs/deep/notes.md', false],
    ['kernel/sched.c', false],
    ['x/src/app.ts', false],
  ];
  for (const [file, expected] of table) assert.equal(accepts(file), expected, file);
  const excluding = globFilter(['*.c', '!mutex.c', '/kernel/x.h']);
  assert.deepEqual(['kernel/sched.c', 'kernel/mutex.c', 'kernel/x.h', 'a/kernel/x.h'].map(excluding), [true, false, true, false]);
  assert.equal(globFilter(['!*.md'])('a.ts'), true, 'only negations: everything else');
  assert.throws(() => globFilter(['*a*a*a*a*a*a*a*a*a*c']), /too many wildcards/);
});

test('regex nesting: groups and classes count, escapes and brackets inside a class do not', () => {
  const table: [string, number][] = [
    ['abc', 0],
    ['(a)(b)', 1],
    ['((a)|(b(c)))', 3],
    ['\\(\\(a', 0],
    ['[(((]', 1],
    ['[\\]((]', 1],
    ['(?:(?=a)(?<n>b))', 2],
    ['a)))(', 1],
  ];
  for (const [source, expected] of table) assert.equal(regexNesting(source), expected, source);
  assert.doesNotThrow(() => checkRegex(`${'('.repeat(maxRegexNesting)}a${')'.repeat(maxRegexNesting)}`));
  assert.throws(() => checkRegex(`${'('.repeat(maxRegexNesting + 1)}a${')'.repeat(maxRegexNesting + 1)}`), /regex nested too deeply: 251 levels/);
  assert.throws(() => parseRegex('a'.repeat(maxRegexLength + 1)), /regex too long: 100001 characters; at most 100000/);
});

test('line literals: of the sets every match holds, the rarest by the index, else the longest', () => {
  const query = planRegex(parseRegex('struct \\w+_ops \\{'), { ignoreCase: false });
  assert.deepEqual(lineLiterals(query), ['struct ']);
  const counts: Record<string, number> = { 'struct ': 400_000, '_ops {': 2_000 };
  assert.deepEqual(
    lineLiterals(query, (text) => counts[text] ?? Infinity),
    ['_ops {'],
  );
  // An OR set costs the sum of its literals.
  const alternation = planRegex(parseRegex('(kmalloc|kzalloc)\\(.*GFP_ATOMIC'), { ignoreCase: false });
  const rare: Record<string, number> = { 'kmalloc(': 9_000, 'kzalloc(': 12_000, GFP_ATOMIC: 15_000 };
  assert.deepEqual(
    lineLiterals(alternation, (text) => rare[text] ?? Infinity),
    ['GFP_ATOMIC'],
  );
  // A literal the index cannot rate (too short): by length.
  assert.deepEqual(
    lineLiterals(planRegex(parseRegex('ab\\w+_long_literal'), { ignoreCase: false }), (text) => (text.length < 3 ? Infinity : 5)),
    ['_long_literal'],
  );
});

test('plan: a long run of literal characters becomes literals of at most 256, each required; a long byte run is one run', () => {
  // A 64 KiB pattern of one letter (the fuzzer's): planned in one pass, not a character at a time.
  const plan = planRegex(parseRegex('z'.repeat(1000)), { ignoreCase: false });
  assert.deepEqual(plan, { op: 'and', args: [...Array(3).fill({ op: 'literal', text: 'z'.repeat(256) }), { op: 'literal', text: 'z'.repeat(232) }] });
  assert.equal(requiredRun(parseRegex('z'.repeat(1000)), { ignoreCase: false })?.length, 1000);
  // Broken runs each stay a conjunct: every match holds each.
  assert.deepEqual(planRegex(parseRegex('abc\\d'.repeat(3)), { ignoreCase: false }), { op: 'and', args: Array(3).fill({ op: 'literal', text: 'abc' }) });
  // A repeated element's table is shared, never merged into (the run's union is its own).
  assert.deepEqual([...requiredRun(parseRegex('[ab][ab]x[ab]'), { ignoreCase: false })!.bytes.subarray(0x61, 0x63)], [1, 1]);
  assert.equal(requiredRun(parseRegex('[ab][ab]x[ab]'), { ignoreCase: false })!.bytes[0x63], 0);
});

test('plan: never excludes a line that matches (random strings)', () => {
  const patterns = ['ab(c|d)e', 'x[yz]{2}w', 'foo.*bar', '(abc)+d', 'a?bcd', 'abc|cde|efg', '[ab]{2}cx', 'q(?:rs|tu)v'];
  const alphabet = 'abcdefqrstuvwxyz.';
  let seed = 7;
  const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (const source of patterns) {
    const plan = planRegex(parseRegex(source), { ignoreCase: false });
    const regex = new RegExp(source, 'u');
    for (let round = 0; round < 3000; round++) {
      const text = Array.from({ length: 4 + Math.floor(random() * 8) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      if (!regex.test(text)) continue;
      const satisfies = (query: typeof plan): boolean =>
        query.op === 'all'
          ? true
          : query.op === 'literal'
            ? text.toLowerCase().includes(query.text)
            : query.op === 'and'
              ? query.args.every(satisfies)
              : query.args.some(satisfies);
      assert.ok(satisfies(plan), `${source} matches ${JSON.stringify(text)} but its plan excludes it`);
    }
    assert.notEqual(plan, all);
  }
});

test('a leading run is not tried after a character of its class: the same lines and columns as the regex tried everywhere (random lines)', () => {
  // '(?:)' before the pattern: its first element is then a group, and the regex is tried everywhere.
  const patterns = ['\\w+\\s*=\\s*\\d{2,}', '[a-c]+d', 'a+?b', '.+c', '\\d{2,}x', 'b+|c+a', '[ab\\d]+\\s', 'é+a', '\\w+\\b'];
  const alphabet = ['a', 'b', 'c', 'd', 'x', '1', '2', '=', ' ', '\t', 'é', '🚀', '\n', 'A'];
  let seed = 5;
  const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  let matched = 0;
  for (const source of patterns) {
    for (const ignoreCase of [false, true]) {
      const fast = compileMatcher({ pattern: source, ignoreCase });
      const slow = compileMatcher({ pattern: `(?:)${source}`, ignoreCase });
      assert.notEqual(fast.regex.source, slow.regex.source.replace('(?:)', ''), `${source} is rewritten`);
      for (let round = 0; round < 400; round++) {
        const text = Array.from({ length: Math.floor(random() * 40) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
        const expected = matchLines(text, slow, 1_000);
        assert.deepEqual(matchLines(text, fast, 1_000), expected, `${source}${ignoreCase ? ' -i' : ''} in ${JSON.stringify(text)}`);
        matched += expected.length;
      }
    }
  }
  assert.ok(matched > 1_000, 'the random lines matched often');
  // A leading run of a class that holds '\n' (or of a group) is left as it is.
  for (const source of ['\\s+x', '[^a]+b', '(ab)+c', '\\W+y']) assert.equal(compileMatcher({ pattern: source }).regex.source.includes('(?<!'), false, source);
});

test('byte runs: a line that matches always holds the run its regex demands (random lines)', () => {
  // Patterns with no usable literal: the run (consecutive class bytes) is the only line filter.
  const patterns: [string, boolean][] = [
    ['\\w+\\s*=\\s*\\d{5,}', false],
    ['\\d{2}-\\d', false],
    ['[a-f0-9]{6}', false],
    ['k[^f]', false],
    ['x\\d+y', false],
    ['\\bq\\w{3}\\b', false],
    ['[À-ÿ]{2}', false],
    ['.{4}z', false],
    ['\\s{2}\\S', false],
    ['K\\d{2}', true],
  ];
  // Digits weigh more, so that runs of them (and '=' before them) turn up.
  const alphabet = ['a', 'b', 'f', 'k', 'q', 'x', 'y', 'z', 'K', ...'0179017901790179', '-', '-', '-', '=', '=', ' ', '\t', 'é', 'ÿ', '٣', '\u212a', '\r'];
  let seed = 11;
  const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (const [source, ignoreCase] of patterns) {
    const run = requiredRun(parseRegex(source), { ignoreCase });
    assert.ok(run && run.length >= 2, `${source} has a run`);
    const matcher = compileMatcher({ pattern: source, ignoreCase });
    let matched = 0;
    for (let round = 0; round < 1000; round++) {
      const lines = Array.from({ length: 1 + Math.floor(random() * 6) }, () =>
        Array.from({ length: Math.floor(random() * 20) }, () => alphabet[Math.floor(random() * alphabet.length)]).join(''),
      );
      const text = lines.join('\n');
      const bytes = Buffer.from(text, 'utf8');
      const starts = new Set(runLineStarts(bytes, run));
      let offset = 0;
      for (const line of lines) {
        if (matcher.lineRegex.test(line)) {
          matched += 1;
          assert.ok(starts.has(offset), `${source} matches ${JSON.stringify(line)} but its run filter skips the line`);
        }
        offset += Buffer.byteLength(line, 'utf8') + 1;
      }
    }
    assert.ok(matched > 0, `${source} matched some random lines`);
  }
  assert.equal(requiredRun(parseRegex('a|bc'), { ignoreCase: false }), undefined, 'top-level alternatives: no run');
  assert.equal(requiredRun(parseRegex('\\w+'), { ignoreCase: false }), undefined, 'a run of one byte says little');
});

test('runs of class bytes: the SIMD scan finds the lines the byte loop finds (random bytes and classes)', () => {
  const memory = scanBuffer(1, 4096);
  if (!memory) return assert.fail('WebAssembly SIMD is missing: the no-literal filter would run one byte at a time');
  let seed = 5;
  const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  let found = 0;
  for (let round = 0; round < 3000; round++) {
    // A class: some bytes of each kind (ASCII, high bytes, '\n' sometimes), and a run length up to 24.
    const member = new Uint8Array(256);
    const kinds = [...'0123456789abcdef_= \t', '\n', String.fromCharCode(0x80), String.fromCharCode(0xc3), String.fromCharCode(0xff)].map((text) =>
      text.charCodeAt(0),
    );
    for (const byte of kinds) if (random() < 0.4) member[byte] = 1;
    if (random() < 0.3) for (let byte = 0x80; byte < 0x100; byte++) member[byte] = 1;
    const lengths = random();
    const run = { bytes: member, length: 1 + Math.floor(random() * (lengths < 0.6 ? 8 : lengths < 0.9 ? 24 : 150)) };
    // Bytes drawn mostly from a few kinds (or, one time in five, nearly all from the class: long
    // runs across 64-byte steps), placed at a random offset (unaligned), up to the region's end.
    const size = Math.floor(random() * 400);
    const offset = random() < 0.1 ? memory.length - size : Math.floor(random() * (memory.length - size));
    const bytes: Buffer = memory.subarray(offset, offset + size);
    const members = [...member.keys()].filter((byte) => member[byte] === 1 && byte !== 10);
    const others = [...member.keys()].filter((byte) => member[byte] === 0 && byte !== 10);
    const mode = members.length > 0 && others.length > 0 ? random() : 1;
    for (let index = 0; index < size; index++) {
      if (mode < 0.2) bytes[index] = random() < 0.98 ? members[Math.floor(random() * members.length)]! : 10;
      else if (mode < 0.4) bytes[index] = random() < 0.02 ? 10 : others[Math.floor(random() * others.length)]!;
      else bytes[index] = random() < 0.7 ? kinds[Math.floor(random() * kinds.length)]! : Math.floor(random() * 256);
    }
    // Then runs of exactly one less, as many, and one more class bytes than asked for.
    if (mode >= 0.2 && mode < 0.4) {
      for (const length of [run.length - 1, run.length, run.length + 1]) {
        if (length < 1 || length >= size || random() < 0.4) continue;
        const at = Math.floor(random() * (size - length));
        for (let index = at; index < at + length; index++) bytes[index] = members[Math.floor(random() * members.length)]!;
      }
    }
    // Bytes after the end that would extend a run must not count.
    if (offset + size < memory.length) memory[offset + size] = kinds[0]!;
    const expected = loopRunLineStarts(bytes, run);
    assert.deepEqual(runLineStarts(bytes, run), expected, `length ${run.length} over ${JSON.stringify(bytes.toString('latin1'))}`);
    found += expected.length;
  }
  assert.ok(found > 1000, 'runs were found often');
  // Every place a run can start and end relative to the 64-byte steps: one run of exactly `length`
  // or one byte short, in a line of other bytes, ending at the text's end or before more of them.
  const digits = { bytes: new Uint8Array(256).map((_, byte) => (byte >= 0x30 && byte <= 0x39 ? 1 : 0)), length: 0 };
  for (const length of [1, 2, 5, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 200]) {
    for (const short of [0, 1]) {
      for (let at = 0; at < 140; at++) {
        for (const tail of [0, 1, 70]) {
          const size = at + length - short + tail;
          const bytes: Buffer = memory.subarray(3, 3 + size).fill(0x61);
          bytes.fill(0x37, at, at + length - short);
          const run = { ...digits, length };
          const expected = short === 0 ? [0] : [];
          assert.deepEqual(runLineStarts(bytes, run), expected, `a run of ${length - short} at ${at}, ${tail} bytes after, asked for ${length}`);
          assert.deepEqual(loopRunLineStarts(bytes, run), expected);
        }
      }
    }
  }
});

test('newlines: the SIMD count equals the byte loop (random bytes, offsets, lengths; more than 255 steps)', () => {
  const memory = scanBuffer(1, 16384);
  if (!memory) return assert.fail('WebAssembly SIMD is missing');
  let seed = 11;
  const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let round = 0; round < 2000; round++) {
    const size = Math.floor(random() * (round % 10 === 0 ? 16000 : 300));
    const offset = Math.floor(random() * (memory.length - size));
    const density = random();
    for (let index = 0; index < size; index++) memory[offset + index] = random() < density ? 10 : Math.floor(random() * 256);
    const start = Math.floor(random() * (size + 1));
    const end = start + Math.floor(random() * (size - start + 1));
    const bytes = memory.subarray(offset, offset + size);
    assert.equal(scanCountNewlines(bytes, start, end), countNewlines(bytes, start, end), `[${start}, ${end}) of ${size} bytes at ${offset}`);
  }
  // Every newline counted when all bytes are newlines (lane counts flushed before they overflow).
  memory.fill(10, 0, 16000);
  assert.equal(scanCountNewlines(memory, 0, 16000), 16000);
  assert.equal(scanCountNewlines(memory, 7, 4103), 4096);
  assert.equal(scanCountNewlines(Buffer.from('a\nb\n'), 0, 4), undefined, 'bytes outside the scanner memory: the caller counts');
});

test(
  'the SIMD scan module embedded is run-scan.wat compiled (when wat2wasm is installed)',
  { skip: spawnSync('wat2wasm', ['--version']).status !== 0 && 'wat2wasm (Debian wabt) is not installed' },
  () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-wasm-')), 'run-scan.wasm');
    const source = fileURLToPath(new URL('../../../../src/index/regex/run-scan.wat', import.meta.url));
    const result = spawnSync('wat2wasm', [source, '-o', out]);
    assert.equal(result.status, 0, result.stderr?.toString());
    assert.equal(fs.readFileSync(out).toString('base64'), runScanModule, 'run scripts/build-run-scan.sh');
  },
);

test("plain literals on the bytes: the same lines, columns and texts as the regex on the decoded text (random lines; by SIMD in the scanner's memory and by the byte loop elsewhere)", () => {
  // Non-ASCII letters and non-letters beside the needle, invalid UTF-8, a needle at line ends.
  const memory = scanBuffer(0, 1 << 16);
  if (!memory) return assert.fail('WebAssembly SIMD is missing');
  const pieces: Buffer[] = ['k', 'e', 'y', '_', 'a', ' ', '(', '\n', '\n', 'é', 'ÿ', '\u212a', '٣', '🚀', 'ke', 'ke', 'aé'].map((text) =>
    Buffer.from(text, 'utf8'),
  );
  pieces.push(Buffer.from([0xff]), Buffer.from([0xe2, 0x82]), Buffer.from([0xc3]));
  let seed = 7;
  const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  let matched = 0;
  for (const needle of ['ke', 'aé', 'e_', 'ÿ']) {
    for (const word of [false, true]) {
      const matcher = compileMatcher({ pattern: needle, fixedStrings: true, wordRegexp: word });
      for (let round = 0; round < 400; round++) {
        const bytes = Buffer.concat(Array.from({ length: Math.floor(random() * 40) }, () => pieces[Math.floor(random() * pieces.length)]!));
        const limit = 1 + Math.floor(random() * 4);
        const viaRegex = { count: 0 };
        const expected = matchLines(bytes.toString('utf8'), matcher, limit, viaRegex);
        const viaBytes = { count: 0 };
        const got = matchBytes(bytes, matcher, [needle], limit, 1, undefined, viaBytes, { text: needle, word });
        assert.deepEqual(got, expected, `${JSON.stringify(needle)}${word ? ' -w' : ''} in ${JSON.stringify(bytes.toString('latin1'))}`);
        assert.equal(viaBytes.count, viaRegex.count);
        // The same bytes in the scanner's memory, anywhere, with garbage after them.
        const offset = Math.floor(random() * 64);
        const inMemory: Buffer = memory.subarray(offset, offset + bytes.length);
        bytes.copy(inMemory);
        memory.fill(needle.charCodeAt(0), offset + bytes.length, offset + bytes.length + 32);
        const viaSimd = { count: 0 };
        assert.deepEqual(
          matchBytes(inMemory, matcher, [needle], limit, 5, undefined, viaSimd, { text: needle, word }),
          expected.map((match) => ({ ...match, line: match.line + 4 })),
          `SIMD: ${JSON.stringify(needle)}${word ? ' -w' : ''} in ${JSON.stringify(bytes.toString('latin1'))}`,
        );
        assert.equal(viaSimd.count, viaRegex.count);
        matched += viaRegex.count;
      }
    }
  }
  assert.ok(matched > 100, 'the random lines matched often');
});

test('plain literals by SIMD: more lines than one call hands back, long needles, every place in a 16-byte step', () => {
  const memory = scanBuffer(1, 1 << 20);
  if (!memory) return assert.fail('WebAssembly SIMD is missing');
  // 10,000 matching lines of varied length between lines that do not match: the scan stops and
  // goes on several times, and its line numbers carry over.
  const lines = Array.from({ length: 20_000 }, (_, index) =>
    index % 2 === 0 ? `${' '.repeat(index % 23)}x kfree(p${index});` : `no ${'-'.repeat(index % 17)} here`,
  );
  const text = Buffer.from(lines.join('\n'), 'utf8');
  text.copy(memory, 5);
  const bytes = memory.subarray(5, 5 + text.length);
  for (const word of [false, true]) {
    const matcher = compileMatcher({ pattern: 'kfree', fixedStrings: true, wordRegexp: word });
    const tally = { count: 0 };
    const got = matchBytes(bytes, matcher, ['kfree'], 1_000_000, 1, undefined, tally, { text: 'kfree', word });
    assert.deepEqual(got, matchLines(text.toString('utf8'), matcher, 1_000_000));
    assert.equal(tally.count, 10_000);
    assert.equal(got.at(-1)!.line, 19_999);
  }
  // Text where nearly every place is a candidate that fails (the needle's two rarest bytes, Z and
  // Q, next to each other in a long run of ZQ): the SIMD scan gives up and the search goes on by
  // skipping ahead, with the same lines before and after.
  const needle = `${'ZQ'.repeat(20)}!`;
  const hard = [`x ${needle} y`, 'ZQ'.repeat(60_000), `${needle}c`, 'ZQ'.repeat(25_000), `z ${needle}`, `a ${needle}`].join('\n');
  const hardBytes = Buffer.from(hard, 'utf8');
  hardBytes.copy(memory, 0);
  const inMemory = memory.subarray(0, hardBytes.length);
  let stop = scanPlain(inMemory, 0, 1, Buffer.from(needle), false, undefined, 10, true)!;
  assert.equal(stop.reason, plainLine, 'the first line is handed over');
  stop = scanPlain(inMemory, stop.next, stop.line, Buffer.from(needle), false, undefined, 10, true)!;
  assert.equal(stop.reason, plainGaveUp, 'the scan gave up');
  for (const word of [false, true]) {
    const matcher = compileMatcher({ pattern: needle, fixedStrings: true, wordRegexp: word });
    const tally = { count: 0 };
    const expected = matchLines(hard, matcher, 1_000);
    assert.equal(expected.length, word ? 3 : 4);
    assert.deepEqual(matchBytes(inMemory, matcher, [needle], 1_000, 1, undefined, tally, { text: needle, word }), expected);
    assert.equal(tally.count, expected.length);
  }
  // A needle of 1 to 256 bytes at each place of a step, at the very end, and cut off by the end.
  for (const length of [1, 2, 3, 15, 16, 17, 64, 255, 256]) {
    const needle = Array.from({ length }, (_, index) => String.fromCharCode(97 + ((index * 7) % 26))).join('');
    const matcher = compileMatcher({ pattern: needle, fixedStrings: true });
    for (let at = 0; at < 40; at++) {
      for (const cut of [0, 1]) {
        const line = Buffer.from(`${'.'.repeat(at)}${needle}`.slice(0, at + length - cut), 'utf8');
        line.copy(memory, 0);
        memory.fill(needle.charCodeAt(length - 1), line.length, line.length + 300);
        const got = matchBytes(memory.subarray(0, line.length), matcher, [needle], 10, 1, undefined, undefined, { text: needle, word: false });
        assert.deepEqual(got, cut ? [] : [{ line: 1, column: at + 1, text: line.toString('utf8') }], `${length} bytes at ${at}${cut ? ', cut' : ''}`);
      }
    }
  }
});

test("plain literals by SIMD: the edges (a region's first and last bytes, needles over the limit, a needle reused, -w across a resumed scan)", () => {
  const first = scanBuffer(0, scanRegionBytes);
  const last = scanBuffer(1, scanRegionBytes);
  if (!first || !last) return assert.fail('WebAssembly SIMD is missing');
  const check = (bytes: Buffer, plain: { text: string; word: boolean }, label: string): void => {
    const matcher = compileMatcher({ pattern: plain.text, fixedStrings: true, wordRegexp: plain.word });
    const tally = { count: 0 };
    const expected = matchLines(bytes.toString('utf8'), matcher, 100_000);
    assert.deepEqual(matchBytes(bytes, matcher, [plain.text], 100_000, 1, undefined, tally, plain), expected, label);
    assert.equal(tally.count, expected.length, label);
  };
  // A needle longer than the range, at the lowest address a range has (its last place is negative).
  first.fill(0x61, 0, 300);
  check(first.subarray(0, 10), { text: 'a'.repeat(256), word: false }, '256 bytes in 10');
  // A needle over 256 bytes (the scan's limit): the byte loop, on bytes in the scanner's memory.
  check(first.subarray(0, 300), { text: 'a'.repeat(257), word: false }, '257 bytes');
  // A range that ends at its region's last byte, the needle there.
  const tail = Buffer.from('x\nkfree(p);\n kfree', 'utf8');
  const atEnd = last.subarray(last.length - tail.length);
  tail.copy(atEnd);
  check(atEnd, { text: 'kfree', word: true }, "at the region's end");
  // The same literal object over several ranges (its needle stays loaded), another, then back.
  const kfree = { text: 'kfree', word: false };
  const kmalloc = { text: 'kmalloc', word: false };
  for (const [index, plain] of [kfree, kfree, kmalloc, kfree, kmalloc].entries()) {
    const text = Buffer.from(`${'.'.repeat(index)}x kfree\ny kmalloc\nkfree kmalloc\n`, 'utf8');
    text.copy(first, index * 7);
    check(first.subarray(index * 7, index * 7 + text.length), plain, `reused needle, range ${index}`);
  }
  // -w over more lines than one call hands back (exactly 4,096 and more), with lines the regex
  // decides (a non-ASCII neighbour), lines whose column needs decoding, and lines with no whole word.
  const kinds = ['kfree(x)', 'xkfree', 'kfreeé', 'é kfree', 'ÿkfree kfree', 'nothing', '', 'kfree_ kfree', 'a kfreekfree', '🚀 kfree;'];
  for (const count of [4_096, 9_001]) {
    for (const word of [false, true]) {
      const lines = Array.from({ length: count }, (_, index) => (count === 4_096 ? 'kfree' : kinds[(index * 7) % kinds.length]!));
      const text = Buffer.from(lines.join('\n'), 'utf8');
      text.copy(first, 3);
      check(first.subarray(3, 3 + text.length), { text: 'kfree', word }, `${count} lines${word ? ' -w' : ''}`);
    }
  }
});

test("a literal with a lone surrogate finds nothing (its UTF-8 would be U+FFFD's bytes)", async () => {
  const root = writeFixture(`
    //- a.txt
    replaced \ufffd here
  `);
  gitInit(root);
  const workspace = await readyWorkspace(root);
  const index = new RegexIndex(workspace, new BufferOverlay());
  try {
    await index.ensureBuilt();
    assert.equal((await index.search({ pattern: '\ufffd', fixedStrings: true })).matches.length, 1);
    assert.equal((await index.search({ pattern: '\ud800', fixedStrings: true })).matches.length, 0);
    assert.equal((await index.search({ pattern: '\ud800', fixedStrings: true, wordRegexp: true })).matches.length, 0);
  } finally {
    index.dispose();
    await workspace.close();
  }
});

test('a truncated answer over many chunks: the first lines in path order, every line counted', async () => {
  // 1,300 files (three chunks of work), two matching lines each; one worker, so that the chunks
  // after the first are handed out once it is done (with more, all three could leave at once).
  const root = writeFixture('');
  for (let file = 0; file < 1300; file++)
    fs.writeFileSync(path.join(root, `f${String(file).padStart(4, '0')}.txt`), `needle ${file} a\nnothing\nneedle ${file} b\n`);
  gitInit(root);
  const workspace = await readyWorkspace(root);
  const onePool = new GrepPool(1);
  const index = new RegexIndex(workspace, new BufferOverlay(), undefined, onePool);
  try {
    await index.ensureBuilt();
    const full = await index.search({ pattern: 'needle \\d+', maxResults: 10_000 });
    assert.equal(full.total, 2600);
    assert.equal(full.matches.length, 2600);
    for (const limit of [1, 7, 600, 1100, 2599]) {
      const cut = await index.search({ pattern: 'needle \\d+', maxResults: limit });
      assert.deepEqual(cut.matches, full.matches.slice(0, limit), `the first ${limit}`);
      assert.equal(cut.total, 2600);
      assert.equal(cut.files, 1300);
      assert.equal(cut.truncated, true);
    }
  } finally {
    index.dispose();
    onePool.close();
    await workspace.close();
  }
});

test("a cut with context: the last kept line's after-context stops before the next match, whatever the pool", async () => {
  // 512 one-line files fill the first chunk; g.txt's second match is past the cut.
  const root = writeFixture('');
  for (let file = 0; file < 512; file++) fs.writeFileSync(path.join(root, `f${String(file).padStart(4, '0')}.txt`), `hit ${file}\n`);
  fs.writeFileSync(path.join(root, 'g.txt'), 'hit A\nhit B\nplain\n');
  gitInit(root);
  const workspace = await readyWorkspace(root);
  const pools = [new GrepPool(1), new GrepPool(2)];
  try {
    for (const onePool of pools) {
      const index = new RegexIndex(workspace, new BufferOverlay(), undefined, onePool);
      try {
        await index.ensureBuilt();
        const full = await index.search({ pattern: 'hit', afterContext: 2 });
        const cut = await index.search({ pattern: 'hit', maxResults: 513, afterContext: 2 });
        assert.equal(cut.total, 514);
        assert.deepEqual(cut.matches, full.matches.slice(0, 513));
        // Line 2 is a match: context never shows it, cut or not.
        assert.equal(cut.matches[512]!.after, undefined);
      } finally {
        index.dispose();
      }
    }
  } finally {
    pools.forEach((onePool) => onePool.close());
    await workspace.close();
  }
});

test('files counts only files with a match: candidates searched with context, or in a buffer sent as objects', async () => {
  // b.txt holds every trigram of "abcd" but not "abcd": a candidate without a match.
  const root = writeFixture(`
    //- a.txt
    abcd here
    other
    //- b.txt
    abc xbcd
    nope
    //- c.txt
    zzz
    abcd again
  `);
  gitInit(root);
  const overlay = new BufferOverlay();
  const workspace = await readyWorkspace(root);
  const index = new RegexIndex(workspace, overlay);
  try {
    await index.ensureBuilt();
    for (const request of [{ pattern: 'abcd', afterContext: 1 }, { pattern: 'ab[c]d', beforeContext: 1 }, { pattern: 'ab[c]d' }]) {
      const result = await index.search(request);
      assert.deepEqual([result.total, result.files], [2, 2], JSON.stringify(request));
    }
    // A buffer with a lone surrogate travels as objects: without a match it is no file either,
    // and with one its line comes back unchanged (it has no UTF-8 to travel as bytes).
    overlay.open({ path: path.join(root, 'b.txt'), languageId: 'plaintext', version: 1, text: 'nothing \ud800 here\n' });
    for (const request of [{ pattern: 'ab[c]d' }, { pattern: 'abcd', fixedStrings: true }]) {
      const result = await index.search(request);
      assert.deepEqual([result.total, result.files], [2, 2], `buffer: ${JSON.stringify(request)}`);
    }
    overlay.change(path.join(root, 'b.txt'), 2, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 7 } }, text: 'abcd' }]);
    const found = await index.search({ pattern: 'abcd' });
    assert.deepEqual(
      found.matches.filter((match) => match.path === 'b.txt').map((match) => match.text),
      ['abcd \ud800 here'],
    );
  } finally {
    index.dispose();
    await workspace.close();
  }
});

describe('grep freshness', () => {
  test('disk edits, buffers and deletions are seen by the very next query', async () => {
    const root = writeFixture(`
      //- a.ts
      const alpha = 1;
      //- b.ts
      const beta = 2;
    `);
    gitInit(root);
    const overlay = new BufferOverlay();
    const workspace = await readyWorkspace(root);
    const index = new RegexIndex(workspace, overlay);
    try {
      await index.ensureBuilt();
      const find = async (pattern: string): Promise<string[]> => (await index.search({ pattern })).matches.map((match) => `${match.path}:${match.line}`);
      assert.deepEqual(await find('alpha'), ['a.ts:1']);
      // An unsaved buffer: found at once, and it hides the disk text of that file.
      overlay.open({ path: path.join(root, 'a.ts'), languageId: 'typescript', version: 1, text: 'const gamma = 1;\n' });
      assert.deepEqual(await find('gamma'), ['a.ts:1']);
      assert.deepEqual(await find('alpha'), []);
      overlay.change(path.join(root, 'a.ts'), 2, [{ range: { start: { line: 0, character: 6 }, end: { line: 0, character: 11 } }, text: 'delta' }]);
      assert.deepEqual(await find('delta'), ['a.ts:1']);
      // A buffer of a file outside the set (a secret) is never searched.
      overlay.open({ path: path.join(root, '.env'), languageId: '', version: 1, text: 'TOKEN=hunter2\n' });
      assert.deepEqual(await find('hunter2'), []);
      overlay.close(path.join(root, '.env'));
      // Closed without saving: the disk text again.
      overlay.close(path.join(root, 'a.ts'));
      assert.deepEqual(await find('alpha'), ['a.ts:1']);
      // Disk edits and deletions, once the watcher has reported them.
      fs.writeFileSync(path.join(root, 'b.ts'), 'const epsilon = 2;\n');
      fs.writeFileSync(path.join(root, 'c.ts'), 'const zeta = 3;\n');
      fs.rmSync(path.join(root, 'a.ts'));
      await quiesce(workspace);
      assert.deepEqual(await find('epsilon'), ['b.ts:1']);
      assert.deepEqual(await find('beta'), []);
      assert.deepEqual(await find('zeta'), ['c.ts:1']);
      assert.deepEqual(await find('alpha'), []);
    } finally {
      index.dispose();
      await workspace.close();
    }
  });

  test('changed files are folded into a delta: results stay exact, a restart loads it, later edits and deletions still win', async () => {
    const files = Object.fromEntries(
      Array.from({ length: 120 }, (_, index) => [`src/f${String(index).padStart(3, '0')}.ts`, `export const value${index} = ${index};\n`]),
    );
    const root = writeFixture(
      Object.entries(files)
        .map(([file, text]) => `//- ${file}\n${text}`)
        .join(''),
    );
    const cacheFolder = path.join(root, '..', `${path.basename(root)}-regex`);
    const overlay = new BufferOverlay();
    const workspace = await readyWorkspace(root);
    try {
      const first = new RegexIndex(workspace, overlay, cacheFolder);
      await first.ensureBuilt();
      const find = async (index: RegexIndex, pattern: string): Promise<string[]> =>
        (await index.search({ pattern })).matches.map((match) => `${match.path}:${match.line}`);
      // 100 files edited on disk (over the delta's minimum of 64): they go into a delta.
      for (let index = 0; index < 100; index++)
        fs.writeFileSync(path.join(root, `src/f${String(index).padStart(3, '0')}.ts`), `// edited\nexport const edited${index} = ${index};\n`);
      await quiesce(workspace);
      await first.settled();
      // The watcher may report the edits in several batches: a delta is written once 64 are pending.
      const folded = first.facts().deltaFiles;
      assert.ok(folded >= 64, `${folded} files in the delta`);
      assert.equal(first.facts().fresh, 100 - folded);
      assert.equal((await find(first, 'edited\\d+ =')).length, 100);
      assert.deepEqual(await find(first, 'edited7 ='), ['src/f007.ts:2']);
      assert.deepEqual(await find(first, 'value7 ='), [], 'the base no longer answers for an edited file');
      assert.deepEqual(await find(first, 'value117 ='), ['src/f117.ts:1'], 'nor the delta for an unedited one');
      // After the delta: an edit and a deletion of delta files are searched fresh.
      fs.writeFileSync(path.join(root, 'src/f008.ts'), 'export const again8 = 8;\n');
      fs.rmSync(path.join(root, 'src/f009.ts'));
      await quiesce(workspace);
      assert.deepEqual(await find(first, 'edited8 ='), []);
      assert.deepEqual(await find(first, 'again8'), ['src/f008.ts:1']);
      assert.deepEqual(await find(first, 'edited9 ='), []);
      first.dispose();

      // A restart loads the base and the delta; only what changed since the delta is fresh.
      const second = new RegexIndex(workspace, overlay, cacheFolder);
      await second.ensureBuilt();
      assert.equal(second.facts().loadedFromCache, true);
      assert.equal(second.facts().deltaFiles, folded);
      // Fresh: the edits never folded, plus f008 and f009 where the delta held them.
      const fresh = second.facts().fresh;
      assert.ok(fresh >= 100 - folded && fresh <= 102 - folded, `${fresh} fresh`);
      const expected = Object.keys(files)
        .filter((file) => file !== 'src/f009.ts')
        .map((file) => `${file}:${Number(file.slice(5, 8)) < 100 && file !== 'src/f008.ts' ? 2 : 1}`)
        .sort();
      assert.deepEqual((await find(second, 'export const')).sort(), expected);
      second.dispose();
    } finally {
      await workspace.close();
    }
  });

  test('1,000 random buffer edits interleaved with queries agree with a brute-force scan', async () => {
    const names = ['one.txt', 'two.txt', 'three.txt'];
    const root = writeFixture(names.map((name) => `//- ${name}\nseed text for ${name}`).join('\n'));
    const overlay = new BufferOverlay();
    const workspace = await readyWorkspace(root);
    const index = new RegexIndex(workspace, overlay);
    try {
      await index.ensureBuilt();
      const words = ['apple', 'banana', 'cherry', 'date', 'elder', 'fig'];
      const texts = new Map<string, string>();
      let seed = 11;
      const random = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
      for (const name of names) {
        texts.set(name, fs.readFileSync(path.join(root, name), 'utf8'));
        overlay.open({ path: path.join(root, name), languageId: '', version: 0, text: texts.get(name)! });
      }
      for (let round = 0; round < 1000; round++) {
        const name = names[random(names.length)]!;
        const text = texts.get(name)!;
        const at = random(text.length + 1);
        const insert = random(4) === 0 ? '\n' : `${words[random(words.length)]} `;
        const before = text.slice(0, at);
        const line = before.split('\n').length - 1;
        const character = at - (before.lastIndexOf('\n') + 1);
        overlay.change(path.join(root, name), round + 1, [{ range: { start: { line, character }, end: { line, character } }, text: insert }]);
        texts.set(name, before + insert + text.slice(at));
        if (round % 10 === 0) {
          const word = words[random(words.length)]!;
          const ours = (await index.search({ pattern: word })).matches.map((match) => `${match.path}:${match.line}`).sort();
          const brute = [...texts]
            .flatMap(([file, content]) =>
              content
                .split('\n')
                .flatMap((lineText, number) =>
                  content.length > 0 && lineText.includes(word) && !(number === content.split('\n').length - 1 && lineText === '')
                    ? [`${file}:${number + 1}`]
                    : [],
                ),
            )
            .sort();
          assert.deepEqual(ours, brute, `round ${round}, word ${word}`);
        }
      }
    } finally {
      index.dispose();
      await workspace.close();
    }
  });
});

describe('grep persistence', () => {
  test('a restart loads the index and reads fresh only what changed since; a damaged cache is rebuilt', async () => {
    const root = writeFixture(`
      //- a.ts
      const alpha = 1;
      //- b.ts
      const beta = 2;
      //- c.ts
      const gamma = 3;
    `);
    const cacheFolder = path.join(root, '..', `${path.basename(root)}-regex`);
    const indexFile = path.join(cacheFolder, 'regex-index.bin');
    const overlay = new BufferOverlay();
    const workspace = await readyWorkspace(root);
    try {
      const first = new RegexIndex(workspace, overlay, cacheFolder);
      await first.ensureBuilt();
      assert.equal(first.facts().loadedFromCache, false);
      first.dispose();

      // While no index runs: one file edited, one deleted, one added.
      fs.writeFileSync(path.join(root, 'b.ts'), 'const betaEdited = 2;\n');
      fs.rmSync(path.join(root, 'c.ts'));
      fs.writeFileSync(path.join(root, 'd.ts'), 'const delta = 4;\n');
      await quiesce(workspace);

      const second = new RegexIndex(workspace, overlay, cacheFolder);
      await second.ensureBuilt();
      assert.equal(second.facts().loadedFromCache, true);
      assert.equal(second.facts().changed, 3, 'b.ts edited, c.ts gone, d.ts new');
      const find = async (index: RegexIndex, pattern: string): Promise<string[]> => (await index.search({ pattern })).matches.map((match) => match.path);
      assert.deepEqual(await find(second, 'alpha'), ['a.ts']);
      assert.deepEqual(await find(second, 'betaEdited'), ['b.ts']);
      assert.deepEqual(await find(second, 'gamma'), []);
      assert.deepEqual(await find(second, 'delta'), ['d.ts']);
      second.dispose();

      fs.truncateSync(indexFile, 100);
      const third = new RegexIndex(workspace, overlay, cacheFolder);
      await third.ensureBuilt();
      assert.equal(third.facts().loadedFromCache, false);
      assert.deepEqual(await find(third, 'const \\w+ ='), ['a.ts', 'b.ts', 'd.ts']);
      third.dispose();
      const contentFiles = (): string[] => fs.readdirSync(cacheFolder).filter((name) => name.startsWith('regex-content-'));
      assert.equal(contentFiles().length, 1, 'older generations of the content store are removed');

      // A damaged posting list is found by the query that reads it: the index is rebuilt and the
      // answer is still right.
      const bytes = fs.readFileSync(indexFile);
      for (let offset = 64; offset < 64 + 40; offset++) bytes[offset] ^= 0xff;
      fs.writeFileSync(indexFile, bytes);
      const fourth = new RegexIndex(workspace, overlay, cacheFolder);
      await fourth.ensureBuilt();
      assert.equal(fourth.facts().loadedFromCache, true, 'the meta is intact, so it loads');
      for (const pattern of ['alpha', 'betaEdited', 'delta', 'const']) await find(fourth, pattern);
      assert.equal(fourth.facts().loadedFromCache, false, 'a list failed its checksum: rebuilt');
      assert.deepEqual(await find(fourth, 'const \\w+ ='), ['a.ts', 'b.ts', 'd.ts']);
      fourth.dispose();

      // A missing content store: rebuilt.
      fs.rmSync(path.join(cacheFolder, contentFiles()[0]!));
      const fifth = new RegexIndex(workspace, overlay, cacheFolder);
      await fifth.ensureBuilt();
      assert.equal(fifth.facts().loadedFromCache, false);
      assert.deepEqual(await find(fifth, 'alpha'), ['a.ts']);
      fifth.dispose();
    } finally {
      await workspace.close();
    }
  });
});

describe("grep persistence: the saved tables read from the index's making", () => {
  test('callers asking at once share one load; a meta damaged on disk is rebuilt; an index disposed unasked leaves no file open', async () => {
    const root = writeFixture(`
      //- a.ts
      const alpha = 1;
      //- b.ts
      const beta = 2;
    `);
    const cacheFolder = path.join(root, '..', `${path.basename(root)}-regex`);
    const indexFile = path.join(cacheFolder, 'regex-index.bin');
    const overlay = new BufferOverlay();
    const workspace = await readyWorkspace(root);
    const openFiles = (): number => fs.readdirSync('/proc/self/fd').length;
    try {
      const first = new RegexIndex(workspace, overlay, cacheFolder);
      await first.ensureBuilt();
      first.dispose();

      const second = new RegexIndex(workspace, overlay, cacheFolder);
      await Promise.all([second.ensureBuilt(), second.ensureBuilt(), second.ensureBuilt()]);
      assert.equal(second.facts().loadedFromCache, true);
      assert.deepEqual(
        (await second.search({ pattern: 'alpha' })).matches.map((match) => match.path),
        ['a.ts'],
      );
      second.dispose();

      const before = openFiles();
      for (let made = 0; made < 20; made++) new RegexIndex(workspace, overlay, cacheFolder).dispose();
      for (let waited = 0; waited < 100 && openFiles() > before; waited++) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(openFiles(), before, 'each unasked index closed its file once its read was done');

      // The meta is the file's end: one byte of it flipped fails its checksum, read off the thread.
      const bytes = fs.readFileSync(indexFile);
      bytes[bytes.length - 10] ^= 0xff;
      fs.writeFileSync(indexFile, bytes);
      const third = new RegexIndex(workspace, overlay, cacheFolder);
      await third.ensureBuilt();
      assert.equal(third.facts().loadedFromCache, false, 'rebuilt');
      assert.deepEqual(
        (await third.search({ pattern: 'beta' })).matches.map((match) => match.path),
        ['b.ts'],
      );
      third.dispose();
    } finally {
      await workspace.close();
    }
  });
});

describe('grep multiline across pieces', () => {
  test('a multiline literal that straddles a cut between pieces is still found', async () => {
    // 16-byte pieces: the first ends after "foo\n", so "o\nb" and "\nba" are in no piece.
    const root = writeFixture(`
      //- a.txt
      ${'x'.repeat(14)}foo
      bar
      ${'y'.repeat(40)}
      //- b.txt
      foo
      baz
    `);
    const workspace = await readyWorkspace(root);
    const index = new RegexIndex(workspace, new BufferOverlay(), undefined, undefined, 16);
    try {
      const lines = async (request: GrepRequest): Promise<string[]> => (await index.search(request)).matches.map((match) => `${match.path}:${match.line}`);
      assert.deepEqual(await lines({ pattern: 'foo\\nbar', multiline: true }), ['a.txt:1', 'a.txt:2']);
      assert.deepEqual(await lines({ pattern: 'foo\nbar', fixedStrings: true, multiline: true }), ['a.txt:1', 'a.txt:2']);
      assert.deepEqual(await lines({ pattern: 'o\\nba', multiline: true }), ['a.txt:1', 'a.txt:2', 'b.txt:1', 'b.txt:2']);
    } finally {
      index.dispose();
      await workspace.close();
    }
  });
});

describe('grep robustness', () => {
  test('a runaway regex is cut off per file: a partial result, and the process stays responsive', async () => {
    const root = writeFixture(`
      //- fine.txt
      aaa fine
      //- also-fine.txt
      aaa also
    `);
    fs.writeFileSync(path.join(root, 'evil.txt'), `${'a'.repeat(40)}!\n`);
    const workspace = await readyWorkspace(root);
    const index = new RegexIndex(workspace, new BufferOverlay(), undefined, new GrepPool(2, 300));
    try {
      let ticks = 0;
      const ticker = setInterval(() => (ticks += 1), 20);
      const result = await index.search({ pattern: '^(a+)+$|fine|also' });
      clearInterval(ticker);
      assert.deepEqual(result.timedOut, ['evil.txt']);
      assert.deepEqual(result.matches.map((match) => match.path).sort(), ['also-fine.txt', 'fine.txt']);
      assert.ok(ticks >= 5, 'the event loop kept running while a worker was stuck');
    } finally {
      index.dispose();
      await workspace.close();
    }
  });

  test('a runaway regex in a worker with a chunk queued behind it: the queued chunk is searched by a fresh worker, whole', async () => {
    // One worker, 700 files: two chunks in its hands at once; the stuck file is in the first.
    const root = writeFixture('');
    fs.writeFileSync(path.join(root, 'a-evil.txt'), `${'a'.repeat(40)}!\n`);
    for (let file = 0; file < 700; file++) fs.writeFileSync(path.join(root, `f${String(file).padStart(4, '0')}.txt`), `aaa fine ${file}\n`);
    gitInit(root);
    const workspace = await readyWorkspace(root);
    const onePool = new GrepPool(1, 300);
    const index = new RegexIndex(workspace, new BufferOverlay(), undefined, onePool);
    try {
      const result = await index.search({ pattern: '^(a+)+$|fine', maxResults: 10_000 });
      assert.deepEqual(result.timedOut, ['a-evil.txt']);
      assert.equal(result.total, 700);
      assert.deepEqual(
        result.matches.map((match) => match.path),
        Array.from({ length: 700 }, (_, file) => `f${String(file).padStart(4, '0')}.txt`),
      );
    } finally {
      index.dispose();
      onePool.close();
      await workspace.close();
    }
  });
});
