// Region parsing for structural search: the scanners' top-level regions and blocks on small
// sources (strings, comments, templates, regexes, preprocessor branches, Python's indentation),
// the ranges chosen for a set of literals, and, on real files (TypeScript's lib .d.ts files,
// vscode-jsonrpc's JavaScript, Python's standard library, web-tree-sitter's C, usearch's C++ tests
// and C binding) and generated Java and Go, that a search parsing only its ranges finds exactly
// the matches a whole parse finds.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import type { Tree } from 'web-tree-sitter';
import { GrammarSet, parseSource } from '../../src/index/syntax/grammars.js';
import { SourceText } from '../../src/index/syntax/source-text.js';
import { findInTree, mayMatch } from '../../src/structural/find.js';
import { parseForSearch, searchRanges } from '../../src/structural/region-parse.js';
import { compileSearch, type SearchSpec } from '../../src/structural/rule.js';
import { itemSpans, rangesToParse } from '../../src/structural/region-ranges.js';
import { type Region, regionSyntax, topLevelRegions } from '../../src/structural/region-scanner.js';
import { cutsHold } from '../../src/structural/region-trust.js';

const repository = fileURLToPath(new URL('../../../', import.meta.url));
const grammars = new GrammarSet();

/** A region shown as its first line, trimmed; `[n]` after it: its block's member count. */
function show(text: string, regions: Region[] | undefined): string[] | undefined {
  return regions?.map((region) => {
    const first = text.slice(region.start, region.end).split('\n')[0]!.trim();
    return region.block ? `${first} [${region.block.members.length}]` : first;
  });
}

interface ScanRow {
  name: string;
  language: string;
  text: string;
  /** undefined: the brackets do not balance. */
  regions: string[] | undefined;
}

const scanRows: ScanRow[] = [
  {
    name: 'C functions, a struct and a global',
    language: 'c',
    text: '#include <a.h>\n\nstruct s {\n\tint a;\n};\n\nint x = 1;\nstatic int\nf(void)\n{\n\treturn 0;\n}\nint g(void) { return 1; }\n',
    // A preprocessor line ends no item: the struct joins the #include's region.
    regions: ['#include <a.h> [1]', 'int x = 1;', 'static int [1]', 'int g(void) { return 1; } [1]'],
  },
  {
    name: 'C: braces in strings, characters and comments',
    language: 'c',
    text: "char *a = \"}{\";\nchar b = '{';\n/* } */\nint c(void) { // }\n\treturn '}';\n}\nint d;\n",
    regions: ['char *a = "}{";', "char b = '{';", '/* } */', 'int c(void) { // } [1]', 'int d;'],
  },
  {
    name: 'C: an #if/#else pair that opens a block twice balances',
    language: 'c',
    text: 'int a;\n#ifdef X\nint f(int x) {\n#else\nint f(void) {\n#endif\n\treturn 0;\n}\nint b;\n',
    regions: ['int a;', '#ifdef X', 'int f(int x) {', 'int b;'],
  },
  {
    name: 'C: a #define with a brace is skipped',
    language: 'c',
    text: 'int a;\n#define OPEN {\nint b;\n',
    regions: ['int a;', '#define OPEN {', 'int b;'],
  },
  {
    name: 'C: a preprocessor line inside a block is not descended into',
    language: 'c',
    text: 'int f(void) {\n\tx();\n#ifdef Y\n\ty();\n#endif\n}\nint g(void) {\n\tx();\n\ty();\n}\n',
    regions: ['int f(void) {', 'int g(void) { [2]'],
  },
  { name: 'C: unbalanced', language: 'c', text: 'int f(void) {\n\treturn 0;\n', regions: undefined },
  { name: 'C: a closer too many', language: 'c', text: 'int a;\n}\nint b;\n', regions: undefined },
  {
    name: 'C: a struct whose declarator follows the block is not descended into',
    language: 'c',
    text: 'struct s {\n\tint a;\n\tint b;\n} x;\nint y;\n',
    regions: ['struct s {', 'int y;'],
  },
  {
    name: 'JavaScript: template literals with nested braces, regexes and divisions',
    language: 'javascript',
    text: 'const a = `}${ {b: 1}.b }{`;\nconst r = /[{]/g;\nconst q = a / 2 / 3;\nfunction f() {\n\treturn /}/.test(a);\n}\nclass C {\n\tm() {}\n\tn() {}\n}\n',
    regions: ['const a = `}${ {b: 1}.b }{`;', 'const r = /[{]/g;', 'const q = a / 2 / 3;', 'function f() { [1]', 'class C { [2]'],
  },
  {
    name: 'JavaScript: else, catch and finally go on with the statement before them',
    language: 'javascript',
    text: 'if (a) {\n}\nelse {\n}\ntry {\n}\ncatch (e) {\n}\nfinally {\n}\nx();\n',
    regions: ['if (a) {', 'try {', 'x();'],
  },
  {
    name: 'TypeScript: a namespace of members, decorators and comments',
    language: 'typescript',
    text: 'declare namespace ts {\n    interface A {\n        a: string;\n    }\n    enum B {\n        X = 1,\n    }\n    function c(): void;\n}\n/** doc */\n@Component({})\nclass D {}\n',
    regions: ['declare namespace ts { [3]', '/** doc */', '@Component({}) [1]'],
  },
  {
    name: 'JavaScript: a string cut by a newline ends there',
    language: 'javascript',
    text: "const a = 'it\nconst b = 1;\nfunction f() {}\n",
    regions: ["const a = 'it", 'function f() {} [1]'],
  },
  {
    name: 'Go: raw strings with braces',
    language: 'go',
    text: 'package main\n\nvar s = `}{\n}`\n\nfunc main() {\n\tprintln(s)\n}\n\nfunc g() {}\n',
    // No `;` ends `package main`: it and `var s` join `func main`'s region.
    regions: ['package main [1]', 'func g() {} [1]'],
  },
  {
    name: 'Java: text blocks with braces and a class of members',
    language: 'java',
    text: 'import a.B;\n\nclass C {\n    String s = """\n        }{\n        """;\n    void m() {}\n    int n;\n}\n',
    regions: ['import a.B;', 'class C { [3]'],
  },
  {
    name: 'Python: decorators stay with what they decorate, continuations and column-0 comments cut nothing',
    language: 'python',
    text: 'import os\n\n@dec\ndef f():\n    x = 1\n# a comment at column 0 inside the body\n    return x\n\nif a:\n    pass\nelse:\n    pass\ntry:\n    pass\nexcept E:\n    pass\nclass C(B):\n    """doc\n\nclass D: not a class"""\n    def m(self):\n        pass\n\n    @property\n    def n(self):\n        return (1,\n2)\n',
    // f's body has two members (statements); a body followed by `else:`/`except` is not one block.
    regions: ['import os', '@dec [2]', 'if a:', 'try:', 'class C(B): [3]'],
  },
  {
    name: 'Python: a hex number ending in letters of a keyword (`0xabcdef`) ends its line',
    language: 'python',
    text: 'x = 0xabcdef\ndef f():\n    pass\n',
    regions: ['x = 0xabcdef', 'def f(): [1]'],
  },
  {
    name: 'Python: a keyword glued to a number (`1as`) does not end its line: no regions',
    language: 'python',
    text: 'x = 0xabcdef\ny = 1as\nz = 1\n',
    regions: undefined,
  },
  {
    name: 'Python: a decorator deep in the item before does not hold back the next one',
    language: 'python',
    text: 'class A:\n    @property\n    def x(self):\n        return 1\n\n\nclass B:\n    pass\n @dec\ndef f():\n    pass\n',
    // ` @dec` (indented) still goes with the `def` after it (and B's body, a line indented less inside it, is not entered).
    regions: ['class A: [1]', 'class B:'],
  },
  {
    name: 'Python: a backslash continuation and brackets over lines',
    language: 'python',
    text: 'x = 1 + \\\ny\nz = [\n1,\n]\nw = 2\n',
    regions: ['x = 1 + \\', 'z = [', 'w = 2'],
  },
  { name: 'Python: an unclosed triple-quoted string', language: 'python', text: 'x = 1\ns = """open\ny = 2\n', regions: undefined },
];

describe('top-level regions: scanner', () => {
  for (const row of scanRows) {
    test(row.name, () => {
      const syntax = regionSyntax(row.language);
      assert.ok(syntax, `no region syntax for ${row.language}`);
      assert.deepEqual(show(row.text, topLevelRegions(row.text, syntax)), row.regions);
    });
  }

  test('languages without a scanner parse whole', () => {
    for (const language of ['ruby', 'rust', 'bash']) assert.equal(regionSyntax(language), undefined, language);
  });
});

describe('top-level regions: ranges to parse', () => {
  const c = regionSyntax('c')!;
  const item = (name: string, body: string): string => `int ${name}(void)\n{\n${body}}\n`;
  const filler = (count: number): string => Array.from({ length: count }, (_, at) => item(`f${at}`, '\treturn 0;\n')).join('');

  test('only the regions holding every literal, adjacent ones merged', () => {
    const text = filler(10) + item('g', '\tif (IS_ERR(p))\n\t\treturn PTR_ERR(p);\n') + item('h', '\tif (IS_ERR(q))\n\t\treturn 1;\n') + filler(10);
    const regions = topLevelRegions(text, c)!;
    const ranges = rangesToParse(text, regions, ['IS_ERR', 'PTR_ERR'])!;
    assert.equal(ranges.length, 1);
    assert.match(text.slice(ranges[0]![0], ranges[0]![1]), /^int g\(void\)[^]*PTR_ERR\(p\);\n}\n$/);
    const both = rangesToParse(text, regions, ['IS_ERR'])!;
    assert.equal(both.length, 1, 'g and h are adjacent: one range');
    assert.ok(text.slice(both[0]![0], both[0]![1]).includes('int h(void)'));
  });

  test('an identifier literal counts only as a whole word', () => {
    const text = filler(5) + item('g', '\tx = enumerate(y);\n') + item('h', '\tenum e z;\n') + filler(5);
    const ranges = rangesToParse(text, topLevelRegions(text, c)!, ['enum'])!;
    assert.deepEqual(
      ranges.map(([start, end]) => text.slice(start, end).split('\n')[0]),
      ['int h(void)'],
    );
    const operator = rangesToParse(text, topLevelRegions(text, c)!, ['e('])!;
    assert.deepEqual(
      operator.map(([start, end]) => text.slice(start, end).split('\n')[0]),
      ['int g(void)'],
      'a literal that is not an identifier counts anywhere',
    );
  });

  test('no region holds them all: nothing to parse', () => {
    const text = filler(5) + item('g', '\tIS_ERR(p);\n') + item('h', '\tPTR_ERR(p);\n') + filler(5);
    assert.deepEqual(rangesToParse(text, topLevelRegions(text, c)!, ['IS_ERR', 'PTR_ERR']), []);
  });

  test('a literal in most of the file: the whole file', () => {
    const text = filler(10) + 'int z;\n';
    assert.equal(rangesToParse(text, topLevelRegions(text, c)!, ['return']), undefined);
  });

  test("Python: a long method's body is entered inside a class's (its first and last statements kept)", () => {
    const py = regionSyntax('python')!;
    const small = (at: number): string => `    def m${at}(self):\n        return ${at}\n\n`;
    const lines = (name: string): string => Array.from({ length: 120 }, (_, at) => `        ${name}${at} = ${at}\n`).join('');
    const big = `    def big(self):\n${lines('x')}        needle(1)\n${lines('y')}\n`;
    const text = `class C:\n${Array.from({ length: 20 }, (_, at) => small(at)).join('')}${big}${Array.from({ length: 20 }, (_, at) => small(at + 20)).join('')}`;
    const regions = topLevelRegions(text, py)!;
    assert.equal(regions.length, 1);
    assert.equal(regions[0]!.block!.inner?.filter(Boolean).length, 41, 'every method has its block');
    assert.deepEqual(
      rangesToParse(text, regions, ['needle'])!.map(([start, end]) => text.slice(start, end).split('\n')[0]),
      ['class C:', '    def big(self):', '        needle(1)', '        y119 = 119', '    def m39(self):'],
    );
    const nested = text.replace('        needle(1)\n', '        if x:\n            needle(1)\n        else:\n            pass\n');
    assert.deepEqual(
      rangesToParse(nested, topLevelRegions(nested, py)!, ['needle'])!.map(([start, end]) => nested.slice(start, end).split('\n')[0]),
      ['class C:', '    def big(self):', '        if x:', '        y119 = 119', '    def m39(self):'],
      'an `if` with an `else` is one member, parsed whole',
    );
  });

  test('a large block is entered when its header holds no literal, and kept whole when it does', () => {
    const ts = regionSyntax('typescript')!;
    const members = Array.from({ length: 200 }, (_, at) => `    interface I${at} {\n        a: string;\n    }\n`).join('');
    const text = `declare namespace ts {\n${members}    enum E {\n        A = 1,\n    }\n}\n`;
    const regions = topLevelRegions(text, ts)!;
    assert.equal(regions.length, 1);
    const ranges = rangesToParse(text, regions, ['enum'])!;
    assert.deepEqual(
      ranges.map(([start, end]) => text.slice(start, end)),
      ['declare namespace ts {', '    enum E {\n        A = 1,\n    }\n}\n'],
    );
    assert.equal(rangesToParse(text, regions, ['namespace']), undefined, 'the header holds the literal: the item is parsed whole');
  });
});

interface Corpus {
  name: string;
  language: string;
  files: () => Array<{ name: string; text?: string }>;
  patterns: string[];
}

/** A Java class of many methods, a few of which hold `Objects.requireNonNull`. */
function javaClass(): string {
  const methods = Array.from({ length: 80 }, (_, at) =>
    at % 9 === 4
      ? `    public void set${at}(String value) {\n        this.v${at} = Objects.requireNonNull(value);\n        if (value.isEmpty()) {\n            throw new IllegalArgumentException("empty");\n        }\n    }\n`
      : `    public int get${at}() {\n        return v${at}.length();\n    }\n`,
  ).join('\n');
  return `package demo;\n\nimport java.util.Objects;\n\npublic class Big {\n${methods}}\n`;
}

/** Go functions, a few of which check `err != nil`. */
function goFile(): string {
  const functions = Array.from({ length: 80 }, (_, at) =>
    at % 7 === 3
      ? `func load${at}(path string) (string, error) {\n\tdata, err := os.ReadFile(path)\n\tif err != nil {\n\t\treturn "", err\n\t}\n\treturn string(data), nil\n}\n`
      : `func value${at}() int {\n\treturn ${at}\n}\n`,
  ).join('\n');
  return `package main\n\nimport "os"\n\n${functions}`;
}

const listed = (folder: string, pattern: RegExp): Array<{ name: string }> =>
  fs
    .readdirSync(path.join(repository, folder))
    .filter((name) => pattern.test(name))
    .sort()
    .map((name) => ({ name: path.join(repository, folder, name) }));

const corpora: Corpus[] = [
  {
    name: "TypeScript's lib .d.ts",
    language: 'typescript',
    files: () =>
      ['lib.es5.d.ts', 'lib.dom.d.ts', 'typescript.d.ts', 'lib.es2015.promise.d.ts'].map((name) => ({
        name: path.join(repository, 'node_modules/typescript/lib', name),
      })),
    patterns: [
      'interface $I extends $B { $$$ }',
      'enum $E { $$$ }',
      'function $F($$$P): $R;',
      'type $T = $U;',
      'declare var $V: $T;',
      'readonly $P: $T;',
      '$A | undefined',
      'interface $I { $$$ }',
    ],
  },
  {
    name: "vscode-jsonrpc's JavaScript",
    language: 'javascript',
    files: () => listed('node_modules/vscode-jsonrpc/lib/common', /\.js$/),
    patterns: [
      'throw new Error($$$)',
      'function $F($$$) { $$$ }',
      'exports.$A = $B;',
      'this.$P = $V;',
      'class $C extends $B { $$$ }',
      'typeof $X',
      'Object.defineProperty($$$)',
      'new Map()',
      '{ $$$ this.$P = $V; $$$ }',
      '{ $$$BODY return $R; }',
    ],
  },
  {
    name: "web-tree-sitter's C",
    language: 'c',
    files: () => listed('node_modules/web-tree-sitter/lib', /\.[ch]$/),
    patterns: [
      'if ($A) return $B;',
      'return $E;',
      '$A->$B = $C;',
      'ts_subtree_release($$$)',
      'for ($I = 0; $I < $N; $I++) $BODY',
      'array_push($A, $B)',
      'while ($C) { $$$ }',
      'ts_lexer__advance($$$)',
    ],
  },
  {
    name: "usearch's C++",
    language: 'cpp',
    files: () => ['cpp/test.cpp', 'cpp/bench.cpp', 'c/lib.cpp'].map((name) => ({ name: path.join(repository, 'node_modules/usearch', name) })),
    patterns: ['return $E;', 'std::size_t $N = $V;', 'if ($A) return $B;', 'std::move($X)', 'for ($$$) { $$$ }', 'static_assert($$$)'],
  },
  {
    name: "Python's standard library",
    language: 'python',
    files: () => {
      const stdlib = execFileSync('python3', ['-c', 'import json, os; print(os.path.dirname(os.path.dirname(json.__file__)))'], { encoding: 'utf8' }).trim();
      return ['json/decoder.py', 'json/encoder.py', 'argparse.py', 'shutil.py', 'textwrap.py', 'subprocess.py']
        .map((name) => ({ name: path.join(stdlib, name) }))
        .filter((file) => fs.existsSync(file.name));
    },
    patterns: [
      'raise $E($$$)',
      'self.$A = $B',
      'isinstance($X, $T)',
      'def $F(self, $$$A): $$$B',
      'return $A',
      'if $A is None: $$$B',
      'for $X in $Y: $$$',
      'os.path.join($$$)',
    ],
  },
  {
    name: 'generated Java',
    language: 'java',
    files: () => [{ name: 'Big.java', text: javaClass() }],
    patterns: ['Objects.requireNonNull($X)', 'throw new $E($$$);', 'return $A.length();', 'public void $M($$$) { $$$ }'],
  },
  {
    name: 'generated Go',
    language: 'go',
    files: () => [{ name: 'main.go', text: goFile() }],
    patterns: ['if err != nil { $$$ }', 'os.ReadFile($P)', '$A, $B := $C', 'return $X'],
  },
];

describe('region parse finds what a whole parse finds', () => {
  for (const corpus of corpora) {
    test(corpus.name, async () => {
      const state = await grammars.load(corpus.language);
      assert.equal(state.state, 'loaded');
      if (state.state !== 'loaded') return;
      const files = corpus
        .files()
        .map((file) => ({ name: file.name, source: new SourceText(file.text === undefined ? fs.readFileSync(file.name) : Buffer.from(file.text)) }));
      const whole = new Map<string, Tree>();
      let partial = 0;
      let compared = 0;
      try {
        for (const pattern of corpus.patterns) {
          const search = compileSearch(grammars, state.grammar, { rule: { pattern } });
          assert.ok(search.regionLiterals.length > 0, `${pattern}: no literals to choose regions by`);
          for (const { name, source } of files) {
            if (!mayMatch(source.bytes, search.required)) continue;
            let tree = whole.get(name);
            if (!tree) {
              tree = parseSource(grammars, state.grammar, source)!;
              whole.set(name, tree);
            }
            const expected: string[] = findInTree(tree, source, search).map((match) => `${match.startByte}-${match.endByte} ${JSON.stringify(match.bindings)}`);
            const parsed = parseForSearch(grammars, state.grammar, source, search);
            assert.notEqual(parsed, 'timed out');
            let actual: string[] = [];
            if (parsed !== 'no match' && parsed !== 'timed out') {
              if (parsed.partial) partial += 1;
              try {
                actual = findInTree(parsed.tree, source, search).map((match) => `${match.startByte}-${match.endByte} ${JSON.stringify(match.bindings)}`);
              } finally {
                parsed.tree.delete();
              }
            } else assert.equal(searchRanges(corpus.language, source, search)?.length, 0);
            assert.deepEqual(actual, expected, `${pattern} in ${path.basename(name)}`);
            compared += expected.length;
          }
        }
      } finally {
        for (const tree of whole.values()) tree.delete();
      }
      assert.ok(partial > 0, `${corpus.name}: no search parsed only part of a file`);
      assert.ok(compared > 0, `${corpus.name}: no matches compared`);
    });
  }
});

describe('region parse: a wrong cut is caught', () => {
  test('a range that ends before its item does (a `;` on the next line) fails cutsHold; the whole item passes', async () => {
    const state = await grammars.load('c');
    if (state.state !== 'loaded') throw new Error('no C grammar');
    const filler = (count: number): string => Array.from({ length: count }, (_, at) => `int f${at}(void)\n{\n\treturn ${at};\n}\n`).join('');
    const item = 'struct s {\n\tint needle;\n}\n__attribute__((packed));\n';
    const text = `${filler(10)}${item}${filler(10)}`;
    const source = SourceText.fromString(text);
    const start = text.indexOf('struct s');
    const check = (end: number): boolean => {
      const ranges: Array<[number, number]> = [[start, end]];
      const tree = parseSource(grammars, state.grammar, source, { includedRanges: ranges })!;
      try {
        return cutsHold(tree, ranges);
      } finally {
        tree.delete();
      }
    };
    assert.equal(check(text.indexOf('__attribute__')), false, 'cut before `__attribute__`: the struct ends in a MISSING `;`');
    assert.equal(check(start + item.length), true);
    const search = compileSearch(grammars, state.grammar, { rule: { pattern: 'struct s { $$$ }' } });
    assert.deepEqual(
      searchRanges('c', source, search)?.map(([from, to]) => source.text.slice(from, to)),
      [item],
      'the scanner waits for the `;` after a struct',
    );
  });
});

describe('region parse: an entered block in a file with errors', () => {
  // A long function whose body is entered (only the member holding the literal is parsed), in a
  // file whose parse has an error of its own (a kernel-style macro before the needle).
  const members = Array.from({ length: 600 }, (_, at) => `\tx${at} = ${at};\n`);
  const body = (needle: string): string => `int big(void)\n{\n${members.slice(0, 300).join('')}${needle}${members.slice(300).join('')}\treturn 0;\n}\n`;
  const fillerFunctions = (prefix: string): string => Array.from({ length: 10 }, (_, at) => `int ${prefix}${at}(void)\n{\n\treturn ${at};\n}\n`).join('');
  const filler = fillerFunctions('f');
  const needle = '\tif (IS_ERR(p))\n\t\treturn PTR_ERR(p);\n\telse\n\t\tz = 1;\n';
  // An error well inside a member that is parsed too (it holds the literal): the partial tree has
  // an error, so its cuts are checked. (An error next to a match may be recovered from differently
  // in a partial parse: the kernel's known differences.)
  const broken = '\tfoo(IS_ERR(q), @); /* if */\n';

  test("an error inside a parsed member is the file's own: the partial tree is kept and agrees", async () => {
    const state = await grammars.load('c');
    if (state.state !== 'loaded') throw new Error('no C grammar');
    const source = SourceText.fromString(`${filler}${body(needle + members.slice(0, 40).join('') + broken)}${filler}`);
    const search = compileSearch(grammars, state.grammar, { rule: { pattern: 'if (IS_ERR($P)) $$$' } });
    const ranges = searchRanges('c', source, search)!;
    assert.equal(ranges.length, 4, 'header, two members, trailer');
    const parsed = parseForSearch(grammars, state.grammar, source, search);
    if (parsed === 'no match' || parsed === 'timed out') throw new Error(String(parsed));
    const whole = parseSource(grammars, state.grammar, source)!;
    try {
      assert.equal(parsed.tree.rootNode.hasError, true);
      assert.equal(parsed.partial, true, 'the member cuts hold');
      const key = (match: { startByte: number; endByte: number }): string => `${match.startByte}-${match.endByte}`;
      const expected = findInTree(whole, source, search).map(key);
      assert.equal(expected.length, 1);
      assert.deepEqual(findInTree(parsed.tree, source, search).map(key), expected);
    } finally {
      parsed.tree.delete();
      whole.delete();
    }
  });

  test('a member cut in the wrong place (an `if` without its statement, a start inside an expression) fails cutsHold', async () => {
    const state = await grammars.load('c');
    if (state.state !== 'loaded') throw new Error('no C grammar');
    const text = `${filler}${body(needle)}${filler}`;
    const source = SourceText.fromString(text);
    const start = text.indexOf('int big');
    const open = text.indexOf('{', start) + 1;
    const close = text.indexOf('\treturn 0;\n}', start) + '\treturn 0;\n'.length;
    const end = close + 2;
    const at = text.indexOf(needle);
    const check = (from: number, to: number): boolean => {
      const ranges: Array<[number, number]> = [
        [start, open],
        [from, to],
        [close, end],
      ];
      const tree = parseSource(grammars, state.grammar, source, { includedRanges: ranges })!;
      try {
        return cutsHold(tree, ranges, [[start, end]]);
      } finally {
        tree.delete();
      }
    };
    assert.equal(check(at, at + needle.length), true, 'the whole member');
    assert.equal(check(at, text.indexOf('\t\treturn', at)), false, 'an `if` without its statement');
    assert.equal(check(text.indexOf('(p))', at), at + needle.length), false, 'a member starting inside an expression');
    const commented = `${filler}${body('\tif (IS_ERR\n\t/* c */\n\t(p))\n\t\treturn PTR_ERR(p);\n')}${filler}`;
    const from = commented.indexOf('\t/* c */');
    const commentedRanges: Array<[number, number]> = [
      [start, open],
      [from, commented.indexOf('\t\treturn PTR_ERR', from) + '\t\treturn PTR_ERR(p);\n'.length],
      [commented.indexOf('\treturn 0;\n}', start) + '\treturn 0;\n'.length, commented.indexOf('\treturn 0;\n}', start) + '\treturn 0;\n'.length + 2],
    ];
    const commentedTree = parseSource(grammars, state.grammar, SourceText.fromString(commented), { includedRanges: commentedRanges })!;
    try {
      assert.equal(
        cutsHold(commentedTree, commentedRanges, [[start, commentedRanges[2]![1]]]),
        false,
        'a comment first in the range does not hide the ERROR after it',
      );
    } finally {
      commentedTree.delete();
    }
    const tree = parseSource(grammars, state.grammar, source, {
      includedRanges: [
        [start, open],
        [at, at + needle.length],
        [close, end],
      ],
    })!;
    try {
      assert.equal(
        cutsHold(tree, [
          [start, open],
          [at, at + needle.length],
          [close, end],
        ]),
        false,
        'without the item spans, the function runs from one range into the next',
      );
    } finally {
      tree.delete();
    }
  });

  test('itemSpans: the ranges of an entered item make one span; separate items stay apart', () => {
    const text = `${filler}${body(needle)}${fillerFunctions('g')}`;
    const regions = topLevelRegions(text, regionSyntax('c')!)!;
    const ranges = rangesToParse(text, regions, ['IS_ERR'])!;
    const big = regions.find((region) => text.startsWith('int big', region.start))!;
    assert.ok(ranges.length > 1);
    assert.deepEqual(itemSpans(regions, ranges), [[big.start, big.end]]);
    const f3 = regions.find((region) => text.startsWith('int f3(', region.start))!;
    const g5 = regions.find((region) => text.startsWith('int g5(', region.start))!;
    assert.deepEqual(itemSpans(regions, [[f3.start, f3.end], ...ranges, [g5.start + 2, g5.end]]), [
      [f3.start, f3.end],
      [big.start, big.end],
      [g5.start, g5.end],
    ]);
  });
});

/** Filler items around an adversarial snippet, so that only part of the file is parsed. */
const fillers: Record<string, (count: number, prefix: string) => string> = {
  c: (count, prefix) => Array.from({ length: count }, (_, at) => `int ${prefix}${at}(void)\n{\n\treturn ${at};\n}\n`).join(''),
  javascript: (count, prefix) => Array.from({ length: count }, (_, at) => `function ${prefix}${at}() {\n  return ${at};\n}\n`).join(''),
  python: (count, prefix) => Array.from({ length: count }, (_, at) => `def ${prefix}${at}():\n    return ${at}\n\n`).join(''),
  java: (count, prefix) => Array.from({ length: count }, (_, at) => `  int ${prefix}${at}() {\n    return ${at};\n  }\n`).join(''),
};

interface AdversarialRow {
  name: string;
  language: string;
  /** Put between 20 filler items before and after (Java: 80 members of one class). */
  snippet: string;
  rule: SearchSpec['rule'];
  /** The snippet at the very start of the file (a byte-order mark). */
  atStart?: boolean;
  /** The search must parse only part of the file. */
  partial?: boolean;
}

// Sources that parse without an error, where a wrong cut or a misread string once made the
// partial parse disagree with the whole one (a review's reproductions).
const adversarialRows: AdversarialRow[] = [
  { name: 'JS: `instanceof` on the line after `}`', language: 'javascript', snippet: 'const r = {\n}\ninstanceof Foo;\n', rule: { pattern: 'const r = $X' } },
  { name: 'JS: `in` on the line after `}`', language: 'javascript', snippet: 'const r = {\n}\nin Foo;\n', rule: { pattern: 'const r = $X' } },
  {
    name: 'TS: `from` on the line after an import list',
    language: 'typescript',
    snippet: 'import {\n  a,\n}\nfrom "./mod";\n',
    rule: { kind: 'import_statement', has: { pattern: '"./mod"' } },
  },
  {
    name: 'Java: `instanceof` on the line after an anonymous class',
    language: 'java',
    snippet: '  boolean b = new Object() {\n  }\n  instanceof Runnable;\n',
    rule: { kind: 'field_declaration', has: { pattern: 'Runnable' } },
  },
  {
    name: 'C: a K&R definition with two parameter declarations',
    language: 'c',
    snippet: 'int target(a, b)\nint a;\nint b;\n{\n\tneedle(a);\n\treturn b;\n}\n',
    rule: { kind: 'function_definition', has: { pattern: 'needle($A)' } },
  },
  {
    name: "C: a struct's declarator on the next line",
    language: 'c',
    snippet: 'struct {\n\tint a;\n}\nneedle;\n',
    rule: { kind: 'declaration', has: { pattern: 'needle' } },
  },
  { name: "C: a typedef's name on the next line", language: 'c', snippet: 'typedef struct {\n\tint a;\n}\nneedle_t;\n', rule: { pattern: 'needle_t' } },
  {
    name: 'C++: a requires-clause on its own line',
    language: 'cpp',
    snippet: 'template <typename T>\n  requires requires(T a) { a.foo(); }\nvoid needle(T t) {\n  t.foo();\n}\n',
    rule: { kind: 'template_declaration', has: { pattern: 'needle' } },
  },
  {
    name: 'C++: a raw string over lines',
    language: 'cpp',
    snippet: 'const char *src = R"(\nint x;\nneedle(1);\nint z(\n)";\n',
    rule: { pattern: 'needle($A)' },
  },
  {
    name: 'C++: digit separators',
    language: 'cpp',
    snippet: "int big = 1'000;\nint needle(int a) {\n  return a;\n}\n",
    rule: { kind: 'function_definition', has: { pattern: 'needle' } },
  },
  { name: 'C: a `//` comment carried on by a backslash', language: 'c', snippet: '// a path C:\\dir\\\nneedle(1);\nint z;\n', rule: { pattern: 'needle($A)' } },
  {
    name: 'C: a directive ending in an open block comment',
    language: 'c',
    snippet: '#define Q 1 /* comment\nfoo;\nneedle(1);\n*/\n',
    rule: { pattern: 'needle($A)' },
  },
  {
    name: 'JS: a regex after `if (…)`',
    language: 'javascript',
    snippet: 'if (ok) /`/.test(s);\nconst t = `;\nneedle(1);\nx;\n`;\n',
    rule: { pattern: 'needle($A)' },
  },
  {
    name: 'JS: a division after a postfix `--`',
    language: 'javascript',
    snippet: 'const q = i-- / n + `/`;\nconst t = `;\nneedle(1);\nx;\n`;\n',
    rule: { pattern: 'needle($A)' },
  },
  {
    name: 'JS: JSX text with quotes',
    language: 'javascript',
    snippet: "function F() {\n  return <p>Don't {\nx}\nneedle(1);\nbar;\n  <b>{c && <b>it's</b>}</b></p>;\n}\n",
    rule: { pattern: 'needle($A)' },
  },
  {
    name: "Python: a class body's block when only some methods are parsed",
    language: 'python',
    snippet: `class Big:\n${Array.from({ length: 150 }, (_, at) => `    def m${at}(self):\n        return ${at === 75 ? 'needle(1)' : at}\n\n`).join('')}`,
    rule: { kind: 'block', has: { pattern: 'needle($A)' } },
  },
  {
    name: "Python: a statement deep in a long method of a class (the method's block and the class's)",
    language: 'python',
    snippet: `class Big:\n${Array.from({ length: 30 }, (_, at) => `    def m${at}(self):\n${Array.from({ length: at === 15 ? 120 : 1 }, (_, line) => `        v${line} = ${line === 60 ? 'needle(1)' : line}\n`).join('')}\n`).join('')}`,
    rule: { kind: 'block', has: { pattern: 'needle($A)' } },
  },
  {
    name: 'Python: a statement deep in a long method of a class, matched by a pattern',
    language: 'python',
    snippet: `class Big:\n${Array.from({ length: 30 }, (_, at) => `    def m${at}(self):\n${Array.from({ length: at === 15 ? 120 : 1 }, (_, line) => `        v${line} = ${line === 60 ? 'needle(1)' : line}\n`).join('')}\n`).join('')}`,
    rule: { pattern: 'needle($A)' },
    partial: true,
  },
  {
    name: 'Python: a long method with a nested `with` body holding the needle',
    partial: true,
    language: 'python',
    snippet: `class Big:\n    def m(self):\n${Array.from({ length: 60 }, (_, line) => `        v${line} = ${line}\n`).join('')}        with open(p) as f:\n${Array.from({ length: 80 }, (_, line) => `            w${line} = ${line === 40 ? 'needle(f)' : line}\n`).join('')}        return 1\n`,
    rule: { pattern: 'needle($A)' },
  },
  { name: 'Python: a keyword right after a number', language: 'python', snippet: 'x = 1if c else 2\n', rule: { pattern: '$A if $B else $C' } },
  {
    name: 'Python: a byte-order mark before a decorator',
    language: 'python',
    snippet: '\uFEFF@dec\ndef first():\n    needle(1)\n\n',
    rule: { kind: 'decorated_definition', has: { pattern: 'needle($A)' } },
    atStart: true,
  },
];

/** Asserts that the file parses cleanly whole and that parsing only its ranges finds the same matches and bindings. */
async function assertPartialAgrees(language: string, text: string, rule: SearchSpec['rule']): Promise<boolean> {
  const state = await grammars.load(language);
  if (state.state !== 'loaded') throw new Error(`no ${language} grammar`);
  const source = SourceText.fromString(text);
  const search = compileSearch(grammars, state.grammar, { rule });
  const tree = parseSource(grammars, state.grammar, source)!;
  let expected: string[];
  try {
    assert.equal(tree.rootNode.hasError, false, 'the whole file parses cleanly');
    expected = findInTree(tree, source, search).map((match) => `${match.startByte}-${match.endByte} ${JSON.stringify(match.bindings)}`);
  } finally {
    tree.delete();
  }
  const parsed = parseForSearch(grammars, state.grammar, source, search);
  assert.notEqual(parsed, 'timed out');
  let actual: string[] = [];
  if (parsed !== 'no match' && parsed !== 'timed out') {
    try {
      actual = findInTree(parsed.tree, source, search).map((match) => `${match.startByte}-${match.endByte} ${JSON.stringify(match.bindings)}`);
    } finally {
      parsed.tree.delete();
    }
  }
  assert.deepEqual(actual, expected);
  return parsed !== 'no match' && parsed !== 'timed out' && parsed.partial;
}

describe('region parse: adversarial sources', () => {
  for (const row of adversarialRows) {
    test(row.name, async () => {
      const fill = fillers[row.language === 'cpp' ? 'c' : row.language === 'typescript' ? 'javascript' : row.language]!;
      const text =
        row.language === 'java'
          ? `class A {\n${fill(80, 'f')}${row.snippet}${fill(80, 'g')}}\n`
          : row.atStart
            ? `${row.snippet}${fill(40, 'f')}`
            : `${fill(20, 'f')}${row.snippet}${fill(20, 'g')}`;
      const partial = await assertPartialAgrees(row.language, text, row.rule);
      if (row.partial) assert.equal(partial, true, 'only part of the file was parsed');
    });
  }
});

const many = (count: number, item: (at: number) => string): string => Array.from({ length: count }, (_, at) => item(at)).join('');
const cFill = (count: number, prefix = 'f'): string => fillers.c!(count, prefix);
const jsFill = (count: number, prefix = 'f'): string => fillers.javascript!(count, prefix);
const trap = 'const t = `;\nneedle(1);\nx;\n`;\n';
const namespaceBody = many(120, (at) => `int f${at}(void) {\n  return ${at};\n}\n`);
const declarationHasNeedle: SearchSpec['rule'] = { kind: 'declaration', has: { pattern: 'needle' } };

/** `count` items made by `item`, joined. */
const repeat = (count: number, item: (at: number) => string): string => Array.from({ length: count }, (_, at) => item(at)).join('');
/** A function of 48 statements (entered: over 512 units) around `snippet`, between small functions. */
const bodyAround = (language: 'c' | 'cpp' | 'javascript' | 'typescript', snippet: string): string => {
  const brace = language === 'javascript' || language === 'typescript';
  const small = (name: string) => (at: number) => (brace ? `function ${name}${at}() { return ${at}; }\n` : `int ${name}${at}(void) { return ${at}; }\n`);
  const statement = (name: string) => (at: number) => `${brace ? '  ' : '\t'}${name}${at} = ${at};\n`;
  return `${repeat(4, small('f'))}${brace ? 'function big() {\n' : 'int big(void)\n{\n'}${repeat(24, statement('x'))}${snippet}${repeat(24, statement('y'))}}\n${repeat(4, small('g'))}`;
};
/** `snippet` at the top level between 12 small functions before and after. */
const topAround = (language: 'c' | 'cpp' | 'javascript', snippet: string): string => {
  const small = (name: string) => (at: number) =>
    language === 'javascript' ? `function ${name}${at}() { return ${at}; }\n` : `int ${name}${at}(void) { return ${at}; }\n`;
  return `${repeat(12, small('f'))}${snippet}${repeat(12, small('g'))}`;
};
const pythonFill = (name: string): string => fillers.python!(3, name);
const ifHasNeedle: SearchSpec['rule'] = { kind: 'if_statement', has: { pattern: 'needle($A)' } };

// A third review's reproductions (after blocks were entered from 512 units, inside entered items
// of files with errors, and Python's nested bodies): a comment line taken for the start of a
// member although the statement goes on after it, and a tab counted as one column.
const thirdReviewFiles: Array<{ name: string; language: string; text: string; rule: SearchSpec['rule'] }> = [
  ...['do_statement', 'while_statement'].map((kind) => ({
    name: `JS: a comment line between \`do { … }\` and its \`while\` (${kind})`,
    language: 'javascript',
    text: bodyAround('javascript', '  do {\n    b();\n  }\n  // loop\n  while (needle(x));\n'),
    rule: { kind, has: { pattern: 'needle($A)' } },
  })),
  {
    name: 'C: a block comment line between `if` and `else`',
    language: 'c',
    text: bodyAround('c', '\tif (a)\n\t\tb();\n\t/* otherwise */\n\telse\n\t\tneedle(1);\n'),
    rule: { pattern: 'needle($A)' },
  },
  {
    name: 'C++: a line comment between `if` and `else`',
    language: 'cpp',
    text: bodyAround('cpp', '\tif (a)\n\t\tb();\n\t// otherwise\n\telse\n\t\tneedle(1);\n'),
    rule: { pattern: 'needle($A)' },
  },
  ...['$O.needle($A)', 'x = $V'].map((pattern) => ({
    name: `JS: a comment line inside a member chain (${pattern})`,
    language: 'javascript',
    text: bodyAround('javascript', '  x = {\n    a: 1\n  }\n  // c\n  .needle(2);\n'),
    rule: { pattern },
  })),
  {
    name: 'JS: a comment line between `}` and `else` at the top level',
    language: 'javascript',
    text: `${repeat(8, (at) => `function f${at}() { return ${at}; }\n`)}if (a) {\n  b();\n}\n// otherwise\nelse {\n  needle(1);\n}\n${repeat(8, (at) => `function g${at}() { return ${at}; }\n`)}`,
    rule: ifHasNeedle,
  },
  {
    name: 'Python: a tab and a space, as many characters as two spaces but deeper (a method)',
    language: 'python',
    text: `${pythonFill('f')}def m():\n${repeat(24, (at) => `  v${at} = ${at}\n`)}  if a:\n\t needle(1)\n${repeat(24, (at) => `  w${at} = ${at}\n`)}${pythonFill('g')}`,
    rule: ifHasNeedle,
  },
  {
    name: "Python: a tab inside a class's method (nested bodies)",
    language: 'python',
    text: `${pythonFill('f')}class C:\n${repeat(4, (at) => `    c${at} = ${at}\n`)}    def m(self):\n${repeat(24, (at) => `        v${at} = ${at}\n`)}        if a:\n\t       needle(1)\n${repeat(24, (at) => `        w${at} = ${at}\n`)}${repeat(4, (at) => `    d${at} = ${at}\n`)}${pythonFill('g')}`,
    rule: ifHasNeedle,
  },
];

const doHasNeedle: SearchSpec['rule'] = { kind: 'do_statement', has: { pattern: 'needle($A)' } };
const pythonBody = (snippet: string): string =>
  `${pythonFill('f')}def big():\n${repeat(24, (at) => `    v${at} = ${at}\n`)}${snippet}${repeat(24, (at) => `    w${at} = ${at}\n`)}${pythonFill('g')}`;

// A fourth review's reproductions: whitespace past ASCII at a line's start, a comment after `}`
// on its line (tree-sitter-javascript gives it to the block when a statement follows), Python's
// form feed and lone CR, and C struct headers ending in an attribute's `)`.
const fourthReviewFiles: Array<{ name: string; language: string; text: string; rule: SearchSpec['rule'] }> = [
  {
    name: 'JS: a no-break space before the `while` of a do-while (member)',
    language: 'javascript',
    text: bodyAround('javascript', '  do {\n    b();\n  }\n\u00a0 while (needle(x));\n'),
    rule: doHasNeedle,
  },
  {
    name: 'TS: a no-break space before the `while` of a do-while (while rule)',
    language: 'typescript',
    text: bodyAround('typescript', '  do {\n    b();\n  }\n\u00a0 while (needle(x));\n'),
    rule: { kind: 'while_statement', has: { pattern: 'needle($A)' } },
  },
  {
    name: 'JS: a no-break space at the top level',
    language: 'javascript',
    text: topAround('javascript', 'do {\n  b();\n}\n\u00a0while (needle(x));\n'),
    rule: { pattern: 'do $B while ($C)' },
  },
  {
    name: 'JS: a zero-width space at the top level',
    language: 'javascript',
    text: topAround('javascript', 'do {\n  b();\n}\n\u200bwhile (needle(x));\n'),
    rule: doHasNeedle,
  },
  {
    name: 'JS: a line comment after `}` (member)',
    language: 'javascript',
    text: bodyAround('javascript', '  x = () => {\n  } // t\n'),
    rule: { pattern: 'x = $V' },
  },
  {
    name: 'JS: a block comment after `}` of an else (member)',
    language: 'javascript',
    text: bodyAround('javascript', '  if (a) {\n    needle(1);\n  } else {\n  } /* t */\n'),
    rule: ifHasNeedle,
  },
  {
    name: 'JS: a comment after `}` of a class field',
    language: 'javascript',
    text: `class Big {\n${repeat(20, (at) => `  m${at}() { return ${at}; }\n`)}  k = () => {\n    needle(1);\n  } // t\n${repeat(20, (at) => `  n${at}() { return ${at}; }\n`)}}\n`,
    rule: { kind: 'field_definition', has: { pattern: 'needle($A)' } },
  },
  {
    name: 'JS: a comment after `}` at the top level',
    language: 'javascript',
    text: `${repeat(12, (at) => `function f${at}() { return ${at}; }\n`)}x = () => {\n  needle(1);\n} // t\ny = 1;\n${repeat(10, (at) => `function h${at}() { return ${at}; }\n`)}needle(2);\n${repeat(12, (at) => `function g${at}() { return ${at}; }\n`)}`,
    rule: { kind: 'expression_statement', has: { pattern: 'needle($A)' } },
  },
  { name: 'Python: a form feed in the indentation', language: 'python', text: pythonBody('    \fif a:\n    needle(1)\n'), rule: ifHasNeedle },
  { name: 'Python: a lone CR at a line start', language: 'python', text: pythonBody('\rif a:\n    needle(1)\n'), rule: ifHasNeedle },
  {
    name: 'Python: form feeds before a decorator and its def',
    language: 'python',
    text: pythonBody('    \f@dec\n    \fdef other():\n    needle(1)\n'),
    rule: { kind: 'decorated_definition', has: { pattern: 'needle($A)' } },
  },
  {
    name: 'C: an anonymous packed struct, its declarator on the next line',
    language: 'c',
    text: topAround('c', 'struct __attribute__((packed)) {\n\tint a;\n}\nneedle;\n'),
    rule: declarationHasNeedle,
  },
  {
    name: 'C++: an anonymous alignas struct, its declarator on the next line',
    language: 'cpp',
    text: topAround('cpp', 'struct alignas(8) {\n\tint a;\n}\nneedle;\n'),
    rule: declarationHasNeedle,
  },
  {
    name: 'C: a `//` comment going on past a backslash in a struct header',
    language: 'c',
    text: topAround('c', 'struct point // 2D point, see \\\n   make_point()\n{\n\tint x, y;\n}\nneedle;\n'),
    rule: declarationHasNeedle,
  },
];

const functionHasNeedle: SearchSpec['rule'] = { kind: 'function_definition', has: { pattern: 'needle' } };
const pythonTop = (snippet: string): string => `${fillers.python!(20, 'f')}${snippet}${fillers.python!(20, 'g')}`;

// A fifth review's reproductions: quotes in a C `#define` value (no string to the grammars),
// digit separators in C and in hex groups, a regex first in a template's `${`, a division after
// `}` or a non-null `!` read as a regex hiding brackets, Python 3.12 f-string fields, a
// backslash-CRLF in a Python string, and zero-width characters before Python's `else:`.
const fifthReviewFiles: Array<{ name: string; language: string; text: string; rule: SearchSpec['rule'] }> = [
  {
    name: 'C: a block comment opened inside a quoted `#define` value',
    language: 'c',
    text: `${cFill(20)}#define ACCEPT "*/*"\nint a;\nint needle(void)\n{\n\treturn 0;\n}\n/* doc */\nint c;\n${cFill(20, 'g')}`,
    rule: functionHasNeedle,
  },
  {
    name: 'C: an apostrophe in `#error`, then a block comment',
    language: 'c',
    text: `${cFill(20)}#error it's /* x\nint a;\nint needle;\nint b; */\nint c;\n${cFill(20, 'g')}`,
    rule: declarationHasNeedle,
  },
  {
    name: "C23: a digit separator (1'000) before a block comment",
    language: 'c',
    text: `${cFill(20)}unsigned m = 1'000; /*\nint a;\nint needle;\nint c;\n*/ int z;\n${cFill(20, 'g')}`,
    rule: declarationHasNeedle,
  },
  {
    name: 'C++: hex digit groups starting with a letter, then a block comment',
    language: 'cpp',
    text: `${cFill(20)}unsigned m = 0xFFFF'FFFF'FFFF; /*\nint a;\nint needle;\nint c;\n*/ int z;\n${cFill(20, 'g')}`,
    rule: declarationHasNeedle,
  },
  {
    name: 'C++: hex digit groups, then a raw string',
    language: 'cpp',
    text: `${cFill(20)}unsigned long m = 0xFFFF'FFFF'FFFF; const char *s = R"(\nint b;\nint needle;\nint c;\nf(\n)";\n${cFill(20, 'g')}`,
    rule: declarationHasNeedle,
  },
  {
    name: 'C++: hex digit groups around a lambda body',
    language: 'cpp',
    text: `${cFill(20)}int k = 0x1'A'2 + [] {\nint a = 5;\nint needle = 6;\nreturn 0x1'A'2; }();\nint z;\n${cFill(20, 'g')}`,
    rule: { kind: 'lambda_expression', has: { pattern: 'needle' } },
  },
  {
    name: 'JS: a regex first in a multi-line `${` field',
    language: 'javascript',
    text: `${jsFill(20)}const t = \`\${\n/}/.test(x) ?\n\`\na;\nneedle(1);\nfoo;\n\` : 2\n}\`;\n${jsFill(20, 'g')}`,
    rule: { pattern: 'needle($A)' },
  },
  {
    name: 'JS: a regex first in a multi-line `${` field (member)',
    language: 'javascript',
    text: bodyAround('javascript', '  const t = `${\n  /}/.test(x) ?\n  `\n  a;\n  needle(1);\n  foo;\n  ` : 2\n  }`;\n'),
    rule: { pattern: 'needle($A)' },
  },
  {
    name: 'JS: divisions after object literals read as regexes hiding brackets',
    language: 'javascript',
    text: `${jsFill(20)}const c = {} / 2 + g(class { y = 1 / 2\nm() {}\nk()\n{ needle(1); }\nz = {} / 2 }) / 3;\n${jsFill(20, 'g')}`,
    rule: { kind: 'method_definition', has: { pattern: 'needle($A)' } },
  },
  {
    name: 'TS: divisions after non-null `!` read as regexes hiding brackets',
    language: 'typescript',
    text: `${jsFill(20)}const c = f! / 2 + g(class { y = 1 / 2\nm() {}\nk()\n{ needle(1); }\nz = h! / 2 }) / 3;\n${jsFill(20, 'g')}`,
    rule: { kind: 'class', has: { pattern: 'needle($A)' } },
  },
  {
    name: 'TS: the same inside an entered function body',
    language: 'typescript',
    text: bodyAround('typescript', '  const r = a! / 2 + items.map((x) => { const h = x / 2;\n    needle(h);\n    other(h);\n    return h! / 2 }) / 3;\n'),
    rule: { kind: 'arrow_function', has: { pattern: 'needle($A)' } },
  },
  {
    name: 'Python 3.12: a triple-quoted f-string whose field holds a triple-quoted string',
    language: 'python',
    text: pythonTop('x = f"""{"""\ndef needle():\n    pass\n"""}"""\n'),
    rule: functionHasNeedle,
  },
  {
    name: 'Python 3.12: a `}` in a string inside an f-string field',
    language: 'python',
    text: pythonTop(`x = f"{'}' + "'''"}"\ndef a():\n    return 1\ns = '''\ndef needle():\n    pass\n'''  # '''\n`),
    rule: functionHasNeedle,
  },
  {
    name: 'Python 3.12: a one-line f-string field holding a triple-quoted string',
    language: 'python',
    text: pythonTop(`x = f"{'''\ndef needle():\n    pass\n'''}"\ny = 1  # '''\n`),
    rule: functionHasNeedle,
  },
  {
    name: 'Python: a backslash-CRLF inside a one-line string',
    language: 'python',
    text: pythonTop('x = "a\\\ndef needle(): pass  #"\ny = 1\n').replace(/\n/g, '\r\n'),
    rule: functionHasNeedle,
  },
  {
    name: 'Python: a zero-width space before a top-level `else:`',
    language: 'python',
    text: pythonTop('if a:\n    b = 1\n\u200belse:\n    needle(1)\n'),
    rule: ifHasNeedle,
  },
  {
    name: 'Python: a word joiner before `else:` in an entered body',
    language: 'python',
    text: pythonBody('    if a:\n        b = 1\n    \u2060else:\n        needle(1)\n'),
    rule: ifHasNeedle,
  },
  {
    name: "Python: a byte-order mark before a while's `else:`",
    language: 'python',
    text: pythonTop('while a:\n    b = 1\n\ufeffelse:\n    needle(1)\n'),
    rule: { kind: 'while_statement', has: { pattern: 'needle($A)' } },
  },
];

describe('region parse: a fifth review', () => {
  for (const row of fifthReviewFiles) test(row.name, async () => void (await assertPartialAgrees(row.language, row.text, row.rule)));
});

const needleFunction: SearchSpec['rule'] = functionHasNeedle;
const needleCall: SearchSpec['rule'] = { pattern: 'needle($A)' };
const tripleTail = `t = '''\ndef needle(a): return a\n'''\nu = 1  # '''\n`;
const continuedString = `;//\\\nneedle(1);//\\\n";\n`;
const fillAround = (language: string, snippet: string): string => {
  const fill = language === 'python' ? fillers.python! : language === 'c' || language === 'cpp' ? fillers.c! : fillers.javascript!;
  return `${fill(20, 'f')}${snippet}${fill(20, 'g')}`;
};

// A sixth review's reproductions (of the fifth's fixes, and around them): Python f-string
// prefixes, escapes and specs as tree-sitter reads them, one-line strings that tree-sitter takes
// on past a line break, a lambda's or walrus's `:` in a field; C raw directives (a `/` takes the
// line break with it, a `//` then a block comment), a digit separator in `#if` or after a leading
// point, `<…>` paths; a guessed regex after `}` or `!` hiding a quote; `export default /re/`.
const sixthReviewRows: Array<[name: string, language: string, snippet: string, rule: SearchSpec['rule']]> = [
  [
    'Python: `if` glued to a string is no f-string prefix',
    'python',
    `if"{'''"in s:\n    pass\nA = '''}"\ndef needle(a):\n    return a\n'''\nB = 1 # '''\n`,
    needleFunction,
  ],
  [
    'Python: a backslash in a format spec escapes nothing',
    'python',
    `s = f"""{x:\\}""" + '}'\nt = """\ndef needle(a): return a\n"""\nu = 1  # """\n`,
    needleFunction,
  ],
  ['Python: a backslash before `{` in an f-string opens a field', 'python', `x = f"""\\{'''"""'''}"""\n${tripleTail}`, needleFunction],
  ['Python: a one-line f-string going on past a line break (tree-sitter)', 'python', 'x = f"\ndef needle(a): return {a}\nz{a}"\n', needleFunction],
  [
    'Python: a string in a field starting with a line break',
    'python',
    `x = f"""{"\n'''"}"""\nt = '''}"""\ndef needle(a): return a\n'''\nu = 1  # '''\n`,
    needleFunction,
  ],
  ["Python: a lambda's `:` in a field (tree-sitter)", 'python', `x = f"{lambda: '''}"'''}"\n${tripleTail}`, needleFunction],
  ["Python: a walrus's `:` in a field (tree-sitter)", 'python', `x = f"{x:='''}"'''}"\n${tripleTail}`, needleFunction],
  ['Python: a prefix of three letters (tree-sitter)', 'python', `x = fff"{'''"\ndef needle(a): return a\n'''}" # '''\n`, needleFunction],
  ['C: a `/` at the end of a `#define` takes the line break', 'c', '#define X a /\nint needle(void) { return 1; }\n', needleFunction],
  ['C: a `/` at the end of a `#pragma` takes the line break', 'c', '#pragma foo /\nint needle(void) { return 1; }\n', needleFunction],
  ['C: a `//` then a block comment in a `#define`', 'c', '#define GLOB "*.c" // matches /*\nint needle(void) { return 1; }\n*/\n', needleFunction],
  ['C: a digit separator in `#if`', 'c', "#if 1'0 /* '\n;\nint needle(int a) { return a; }\n*/\nint z;\n#endif\n", needleFunction],
  ['C: a quote in an `#include <…>` path', 'c', '#include <a"b.h> /* "\n;\nint needle(int a) { return a; }\n*/\n', needleFunction],
  [
    'C++: a block comment opener in an `#include <…>` path',
    'cpp',
    '#include <a/*b.h>\nconst char *s = R"x(*/\nint needle(int a) { return a; }\nint y = (\n)x";\n',
    needleFunction,
  ],
  ['C: a digit separator after a leading point', 'c', "double d = .5'0; /*\n;\nint needle(int a) { return a; }\n*/\n", needleFunction],
  [
    'C++: a digit separator after a leading point, then a raw string',
    'cpp',
    'auto s = .5\'0 + R"x(\n;\nint needle(int a) { return a; }\nint y = (\n)x";\n',
    needleFunction,
  ],
  ['JS: a division after `{}` read as a regex hiding a quote', 'javascript', `x = {} / 2 + "/" + "\\\n${continuedString}`, needleCall],
  ['TS: a division after `y!` read as a regex hiding a quote', 'typescript', `x = y! / 2 + "/" + "\\\n${continuedString}`, needleCall],
  ['TS: a division after `a[i]!`', 'typescript', `x = a[i]! / 2 + "/" + "\\\n${continuedString}`, needleCall],
  ['TS: a division after `(a)!`', 'typescript', `x = (a)! / 2 + "/" + "\\\n${continuedString}`, needleCall],
  ['JS: a regex after `export default`, holding a quote', 'javascript', `export default /"/.source + "\\\n${continuedString}`, needleCall],
];

describe('region parse: a sixth review', () => {
  for (const [name, language, snippet, rule] of sixthReviewRows)
    test(name, async () => void (await assertPartialAgrees(language, fillAround(language, snippet), rule)));
});

const continuedCall = `;//\\\nneedle(1);//\\\n";\n`;
const javaAround = (snippet: string): string => `class A {\n${fillers.java!(80, 'f')}${snippet}${fillers.java!(80, 'g')}}\n`;

// A seventh review's reproductions: a `/` read as a regex or a division where the other reading
// holds (a name like `of`, a keyword after `. ` or a line break, a method named `if`, `for await
// (…)`, a prefix `++`, a spread, `extends`, a non-null `!` after any operand, a class holding
// `//`, a backslash before CRLF), a `#!` line, a C directive after code on its line or after a
// form feed, `#import` and `#include_next` (raw to the bundled grammars), Java string templates.
const seventhReviewFiles: Array<{ name: string; language: string; text: string; rule: SearchSpec['rule'] }> = [
  ...(
    [
      ['JS: a variable named `of`, then a division', 'javascript', `let of = 4;\nx = of / 2 + "/" + "\\\n${continuedCall}`],
      ['JS: `a. default` (a space after the dot), then a division', 'javascript', `x = a. default / 2 + "/" + "\\\n${continuedCall}`],
      ['JS: `a.` and `in` on the next line, then a division', 'javascript', `x = a.\n  in / 2 + "/" + "\\\n${continuedCall}`],
      ['JS: a method named `if` called, then a division', 'javascript', `x = obj.if(a) / 2 + "/" + "\\\n${continuedCall}`],
      ['TS: `obj?.for(a)`, then a division', 'typescript', `x = obj?.for(a) / 2 + "/" + "\\\n${continuedCall}`],
      ['JS: a regex after `for await (…)` holding a quote', 'javascript', `for await (const x of xs) /"/.test(x) + "\\\n${continuedCall}`],
      ['JS: a regex after a prefix `++`', 'javascript', `x = ++/"/.lastIndex + "\\\n${continuedCall}`],
      ['TS: a regex after a prefix `--`', 'typescript', `x = --/"/.lastIndex + "\\\n${continuedCall}`],
      ['JS: a regex after a spread', 'javascript', `x = [.../"/.source, "\\\n];//\\\nneedle(1);//\\\n"];\n`],
      ['JS: a regex after `extends`', 'javascript', `class Q extends /"/.constructor { m() { return "\\\n;//\\\nneedle(1);//\\\n"; } }\n`],
      ['TS: a non-null `!` after a string', 'typescript', `x = "a"! / 2 + "/" + "\\\n${continuedCall}`],
      ['TS: a non-null `!` after a template', 'typescript', `x = \`a\`! / 2 + "/" + "\\\n${continuedCall}`],
      ['TS: a non-null `!` after `{}`', 'typescript', `x = {}! / 2 + "/" + "\\\n${continuedCall}`],
      ['TS: a non-null `y !` with a space', 'typescript', `x = y ! / 2 + "/" + "\\\n${continuedCall}`],
      ['TS: a non-null `!` after a regex', 'typescript', `x = /a/! / 2 + "/" + "\\\n${continuedCall}`],
      ['TS: a non-null `!` after an instantiation `f<T>`', 'typescript', `x = f<T>! / 2 + "/" + "\\\n${continuedCall}`],
      ['JS: a guessed regex after `}` whose class holds `//`', 'javascript', `x = {} / a[b//c] / 2 + "\\\n]; y = "\\\n${continuedCall}`],
      ['TS: the same after `z!`', 'typescript', `x = z! / a[b//c] / 2 + "\\\n]; y = "\\\n${continuedCall}`],
      ['JS: a backslash before CRLF in a guessed regex', 'javascript', `x = {} / 2 + [/"/.source + "\\\r\n];//\\\nneedle(1);//\\\n"];\n`],
    ] as const
  ).map(([name, language, snippet]) => ({ name, language, text: `${jsFill(20)}${snippet}${jsFill(20, 'g')}`, rule: needleCall })),
  ...(['javascript', 'typescript'] as const).map((language) => ({
    name: `${language}: a \`#!\` line ending in \`"\\\``,
    language,
    text: `#!/usr/bin/env node "\\\nx = "\\\n${continuedCall}${jsFill(40, 'g')}`,
    rule: needleCall,
  })),
  ...(
    [
      ['C: `#define` after a comment on its line', 'c', '/* c */ #define X "/*";\nint needle;\n*/\nint z;\n'],
      ['C++: `#define` after a declaration on its line', 'cpp', 'int a; #define X "/*";\nint needle;\n*/\nint z;\n'],
      ['C: `#define` after a form feed', 'c', '\f#define X "/*";\nint needle;\n*/\nint z;\n'],
      ['C: `#define` after a vertical tab', 'c', '\v#define X "/*";\nint needle;\n*/\nint z;\n'],
      ['C: `#import` is raw to the grammar', 'c', '#import "a/*";\nint needle;\n*/\nint z;\n'],
      ['C++: `#include_next` is raw to the grammar', 'cpp', '#include_next "a/*";\nint needle;\n*/\nint z;\n'],
      ['C: an `#include_next <…>` path', 'c', '#include_next <a/*b.h>\nint needle;\n*/\nint z;\n'],
    ] as const
  ).map(([name, language, snippet]) => ({ name, language, text: `${cFill(20)}${snippet}${cFill(20, 'g')}`, rule: declarationHasNeedle })),
  {
    name: 'Java: a text block inside a string template',
    language: 'java',
    text: javaAround('  String s = STR."""\n  \\{ """\n  ;\n  int needle;\n  String t = """\n  }\n  """;\n'),
    rule: { kind: 'field_declaration', has: { pattern: 'needle' } },
  },
];

describe('region parse: a seventh review', () => {
  for (const row of seventhReviewFiles) test(row.name, async () => void (await assertPartialAgrees(row.language, row.text, row.rule)));
});

const pythonClass = (snippet: string): string =>
  `${fillers.python!(3, 'f')}class Big:\n${repeat(20, (at) => `    def m${at}(self):\n        return ${at}\n\n`)}${snippet}${repeat(20, (at) => `    def n${at}(self):\n        return ${at}\n\n`)}${fillers.python!(3, 'g')}`;
const statementHasNeedle: SearchSpec['rule'] = { kind: 'expression_statement', has: { pattern: 'needle($A)' } };

// An eighth review, by a differential fuzzer (token soup between valid items, kept where the whole
// parse is clean; about 100,000 clean files over seven languages): a C directive that takes its
// operand or its value from the next line (none on its line, a comment first, trailing blank
// space), a `/` before a backslash or a line break in a raw directive, code after `#ifdef NAME`;
// a Python line ending in an operator or a keyword, or in a header's `:` with no deeper line (an
// error to Python, read on by tree-sitter), a line of only U+FEFF; a keyword tree-sitter reads off
// a word's front (`}inneedle`); TypeScript's `f<T>` ending a line.
const eighthReviewFiles: Array<{ name: string; language: string; text: string; rule: SearchSpec['rule'] }> = [
  { name: 'C: `#ifdef` with no name on its line', language: 'c', text: fillAround('c', '#ifdef\nint needle;\n#endif\n'), rule: declarationHasNeedle },
  {
    name: 'C: `#ifdef` with a comment for its name',
    language: 'c',
    text: fillAround('c', '#\tifdef //c\nint needle(void) { return 0; }\n#endif\n\t\nint needle;\t\n'),
    rule: functionHasNeedle,
  },
  { name: 'C: `#pragma` continued onto a blank line', language: 'c', text: fillAround('c', '#pragma \\\n\nneedle(1);\n'), rule: needleCall },
  { name: 'C++: an unknown directive continued onto a blank line', language: 'cpp', text: fillAround('cpp', '#g\\\n\nneedle(1)\n'), rule: statementHasNeedle },
  {
    name: 'C: `#define X ` with blank space and no value',
    language: 'c',
    text: fillAround('c', '#define X \nint needle(void) { return 0; } '),
    rule: functionHasNeedle,
  },
  { name: 'C: a `#define` value that is a `/` and a backslash', language: 'c', text: fillAround('c', '#define SLASH /\\\nneedle(1);\n'), rule: needleCall },
  { name: 'C: an `#error` that is a `/` and a backslash', language: 'c', text: fillAround('c', '#error /\\\nneedle(1);\n'), rule: needleCall },
  {
    name: 'C: code after `#ifdef NAME` on its line',
    language: 'c',
    text: fillAround('c', 'e(d){}\n#ifdef d(X)\nneedle(1)=1;\n#endif\n'),
    rule: statementHasNeedle,
  },
  { name: 'C: code after `#endif` on its line', language: 'c', text: fillAround('c', 'e(d){}\n#if X\n#endif i needle(){}'), rule: functionHasNeedle },
  { name: 'C: `#else` continued onto a blank line', language: 'c', text: fillAround('c', '#else\\\n\nt needle(){}'), rule: functionHasNeedle },
  { name: 'C: a tab ending an `#endif` line', language: 'c', text: fillAround('c', '#endif\t\nneedle(1)'), rule: needleCall },
  { name: 'C++: a tab ending an `#endif` line', language: 'cpp', text: fillAround('cpp', '#endif\t\nneedle(1)'), rule: statementHasNeedle },
  { name: 'C: a stray backslash in `#elif`', language: 'c', text: fillAround('c', '(p);\ni(d){}\n#elif\\\\\nt needle(}'), rule: functionHasNeedle },
  // Found later by the fuzz test (test/structural/structural-fuzz.test.ts) with seed 1002.
  {
    name: 'C: a stray `#elif` (no `#if` open) is a raw directive: its `/` takes the line break',
    language: 'c',
    text: fillAround('c', 'int a;\n#elif needle/\nd;\nt needle;\n'),
    rule: declarationHasNeedle,
  },
  {
    name: 'C++: a stray `#elif` with a `/` ending its line',
    language: 'cpp',
    text: fillAround('cpp', 'int a;\n#elif needle/\nd;\nt needle;\n'),
    rule: declarationHasNeedle,
  },
  {
    name: "Python: a form feed after a header's `:` (seed 1004)",
    language: 'python',
    text: fillAround('python', 'e:\f\nx = needle(1)\n'),
    rule: statementHasNeedle,
  },
  { name: "Python: a vertical tab after a header's `:`", language: 'python', text: fillAround('python', 'e:\v\nx = needle(1)\n'), rule: statementHasNeedle },
  { name: "Python: U+200B after a header's `:`", language: 'python', text: fillAround('python', 'e:\u200b\nx = needle(1)\n'), rule: statementHasNeedle },
  { name: "Python: U+FEFF after a header's `:`", language: 'python', text: fillAround('python', 'e:\ufeff\nx = needle(1)\n'), rule: statementHasNeedle },
  {
    name: 'Python: a form feed after an operator ending a line',
    language: 'python',
    text: fillAround('python', 'x = 1 +\f\nneedle(1)\n'),
    rule: statementHasNeedle,
  },
  { name: 'JS: `-->` after `throw` on its line', language: 'javascript', text: bodyAround('javascript', 'throw-->();\nneedle(1)/'), rule: statementHasNeedle },
  { name: 'Python: a line ending in `=`', language: 'python', text: fillAround('python', 'x =\nneedle(1)\n'), rule: statementHasNeedle },
  { name: 'Python: a line of only `assert`', language: 'python', text: fillAround('python', 'assert\nneedle(1)\n'), rule: statementHasNeedle },
  { name: "Python: a header's `:` with no deeper line", language: 'python', text: fillAround('python', 'e:\nneedle(1)\n'), rule: statementHasNeedle },
  { name: 'Python: a line ending in `=` in an entered body', language: 'python', text: pythonBody('    t =\n    needle(1)\n'), rule: statementHasNeedle },
  { name: 'Python: a line ending in `=` in a class', language: 'python', text: pythonClass('    x =\n    needle(1)\n'), rule: statementHasNeedle },
  { name: 'Python: a line of only `*`', language: 'python', text: fillAround('python', "()\ndef g():\n for i in'':()\n*\nneedle(1)\n"), rule: needleCall },
  {
    name: 'Python: a line of indentation and U+FEFF',
    language: 'python',
    text: fillAround('python', '    \ufeff\nx = needle(1)\n'),
    rule: { kind: 'block', has: { pattern: 'needle($A)' } },
  },
  {
    name: 'JS: `in` read off the front of `inneedle`',
    language: 'javascript',
    text: fillAround('javascript', 'x = class {}inneedle;\n'),
    rule: { kind: 'expression_statement', has: { pattern: 'needle' } },
  },
  {
    name: 'TS: `in` read off the front of `inneedle` in a body',
    language: 'typescript',
    text: bodyAround('typescript', 'function(){}inneedle;\n'),
    rule: { kind: 'function_declaration', has: { pattern: 'needle' } },
  },
  {
    name: 'TS: `f<T>` ending a line in a body',
    language: 'typescript',
    text: bodyAround('typescript', 'f<T>\nfunction(){(1)({a:needle(1)});switch(x){case{}:{}}}\n'),
    rule: statementHasNeedle,
  },
  {
    name: 'TS: `f<T>` and a tab ending a line after a comment',
    language: 'typescript',
    text: bodyAround('typescript', 'do x = y; while (get);\n\n//a"\n\nf<T>\t\nneedle(1); '),
    rule: statementHasNeedle,
  },
];

describe('region parse: an eighth review (a fuzzer)', () => {
  for (const row of eighthReviewFiles) test(row.name, async () => void (await assertPartialAgrees(row.language, row.text, row.rule)));
});

// A ninth review (a helper session's generator of constructs, and reading the scanners): Python
// lines that tree-sitter reads on past (a conditional expression's `else`, a keyword glued to a
// number, a `,` where no trailing comma may stand, `from` with no `import` yet), a decorator at
// another indentation than its definition; JavaScript words after `#` or after a `.` and a
// comment (no keywords), TypeScript's `f<T> / 2` and `a!! / 2` (divisions).
const decoratedHasNeedle: SearchSpec['rule'] = { kind: 'decorated_definition', has: { pattern: 'needle' } };
const ninthReviewFiles: Array<{ name: string; language: string; text: string; rule: SearchSpec['rule'] }> = [
  {
    name: "Python: a conditional expression's `else` ending a line",
    language: 'python',
    text: fillAround('python', 'x = a if b else\nneedle(1)\n'),
    rule: statementHasNeedle,
  },
  { name: 'Python: `as` glued to a number ending a line', language: 'python', text: fillAround('python', 'x = 1as\nneedle(1)\n'), rule: statementHasNeedle },
  {
    name: 'Python: `in` glued to a hex number ending a line',
    language: 'python',
    text: fillAround('python', 'x = 0x1Fin\nneedle(1)\n'),
    rule: statementHasNeedle,
  },
  {
    name: 'Python: `assert a,` (no trailing comma allowed)',
    language: 'python',
    text: fillAround('python', 'assert a,\nneedle(1)\n'),
    rule: statementHasNeedle,
  },
  {
    name: "Python: a lambda's parameters ending a line in `,`",
    language: 'python',
    text: fillAround('python', 'f = lambda x,\nneedle: needle(1)\n'),
    rule: statementHasNeedle,
  },
  {
    name: 'Python: `from a` with its `import` on the next line',
    language: 'python',
    text: fillAround('python', 'from a\nimport needle\n'),
    rule: { kind: 'import_from_statement', has: { pattern: 'needle' } },
  },
  {
    name: 'Python: `from ...` with its `import` on the next line',
    language: 'python',
    text: fillAround('python', 'from ...\nimport needle\n'),
    rule: { kind: 'import_statement', has: { pattern: 'needle' } },
  },
  {
    name: 'Python: a decorator indented deeper than its definition',
    language: 'python',
    text: fillAround('python', ' @dec\ndef needle():\n    pass\n'),
    rule: decoratedHasNeedle,
  },
  {
    name: 'JS: `typeof` after a private `#` is a name',
    language: 'javascript',
    text: fillAround('javascript', `x = this.#typeof / 2 + "/" + "\\\n${continuedString}`),
    rule: needleCall,
  },
  {
    name: 'JS: `typeof` after a `.` and a comment is a name',
    language: 'javascript',
    text: fillAround('javascript', `x = a./*c*/typeof / 2 + "/" + "\\\n${continuedString}`),
    rule: needleCall,
  },
  {
    name: 'JS: `typeof` after a `.` and a line comment is a name',
    language: 'javascript',
    text: fillAround('javascript', `x = a.//c\ntypeof / 2 + "/" + "\\\n${continuedString}`),
    rule: needleCall,
  },
  {
    name: 'JS: `#if(a)` is a call, not a condition',
    language: 'javascript',
    text: fillAround('javascript', `class K { #if(a) { return a; } m() { return this.#if(a) / 2 + "/" + "\\\n}};//\\\nneedle(1);//\\\n"; } }\n`),
    rule: needleCall,
  },
  {
    name: 'TS: `f<T> / 2` divides an instantiation expression',
    language: 'typescript',
    text: fillAround('typescript', `x = f<T> / 2 + "/" + "\\\n${continuedString}`),
    rule: needleCall,
  },
  {
    name: 'TS: `a!! / 2` divides two non-null assertions',
    language: 'typescript',
    text: fillAround('typescript', `x = a!! / 2 + "/" + "\\\n${continuedString}`),
    rule: needleCall,
  },
];

describe('region parse: a ninth review', () => {
  for (const row of ninthReviewFiles) test(row.name, async () => void (await assertPartialAgrees(row.language, row.text, row.rule)));
});

describe('region parse: a third and a fourth review', () => {
  for (const row of fourthReviewFiles) test(row.name, async () => void (await assertPartialAgrees(row.language, row.text, row.rule)));

  test('Python: blocks nested 2,000 deep scan in linear time (recorded 6 deep)', () => {
    let text = '';
    for (let depth = 0; depth < 2000; depth++) text += `${' '.repeat(depth)}if a:\n${' '.repeat(depth + 1)}z = 1\n`;
    let block = topLevelRegions(text, regionSyntax('python')!)![0]!.block;
    let levels = 0;
    while (block?.inner?.some(Boolean)) {
      block = block.inner.find(Boolean);
      levels += 1;
    }
    assert.equal(levels, 6);
  });

  for (const row of thirdReviewFiles) test(row.name, async () => void (await assertPartialAgrees(row.language, row.text, row.rule)));

  test('a comment line starts a member only when code that may start one follows it', () => {
    const js = regionSyntax('javascript')!;
    const text = bodyAround('javascript', '  a();\n  // next\n  b();\n  /* c */\n  else_ish();\n  // d\n  .then();\n');
    const big = topLevelRegions(text, js)!.find((region) => text.startsWith('function big', region.start))!;
    const starts = big.block!.members.map((member) => text.slice(member, text.indexOf('\n', member)).trim());
    assert.ok(starts.includes('// next'), 'before `b();`');
    assert.ok(starts.includes('/* c */'), 'before an identifier that is no continuation');
    assert.ok(!starts.includes('// d'), 'before `.then()`: inside the statement');
  });
});

// A second review's reproductions: whole files (namespaces, large enums and switches, fillers
// around a trap) where the partial parse once disagreed.
const adversarialFiles: Array<{ name: string; language: string; text: string; rule: SearchSpec['rule'] }> = [
  {
    name: 'C++ namespace: a struct declarator on the next line',
    language: 'cpp',
    text: `namespace N {\n${namespaceBody}struct S {\n  int a;\n}\nneedle;\n${namespaceBody}}\n${cFill(20)}`,
    rule: declarationHasNeedle,
  },
  {
    name: 'C++ namespace: a typedef name on the next line',
    language: 'cpp',
    text: `namespace N {\n${namespaceBody}typedef struct {\n  int a;\n}\nneedle_t;\n${namespaceBody}}\n${cFill(20)}`,
    rule: { pattern: 'needle_t' },
  },
  {
    name: 'C++ extern "C": a typedef name on the next line',
    language: 'cpp',
    text: `extern "C" {\n${namespaceBody}typedef struct foo\n{\n\tint a;\n}\nneedle_t;\n${namespaceBody}}\n${cFill(20)}`,
    rule: { pattern: 'needle_t' },
  },
  {
    name: 'C++ namespace: a requires-clause line',
    language: 'cpp',
    text: `namespace N {\n${namespaceBody}template <typename T>\n  requires requires(T a) { a.foo(); }\nvoid needle(T t) {\n  t.foo();\n}\n${namespaceBody}}\n${cFill(20)}`,
    rule: { kind: 'template_declaration', has: { pattern: 'needle' } },
  },
  ...['struct S final', 'struct alignas(8) S', 'struct [[deprecated]] S', 'struct __attribute__((packed)) S', 'class S final : public B'].map((header) => ({
    name: `C++: \`${header} { … }\` with its declarator on the next line`,
    language: 'cpp',
    text: `${cFill(30)}${header} {\n  int a;\n}\nneedle;\n${cFill(30, 'g')}`,
    rule: declarationHasNeedle,
  })),
  {
    name: 'C: a comment in a struct header',
    language: 'c',
    text: `${cFill(30)}struct point /* 2D */\n{\n\tint x, y;\n}\norigin;\n${cFill(30, 'g')}`,
    rule: { kind: 'declaration', has: { pattern: 'origin' } },
  },
  {
    name: 'C: a line comment in a struct header',
    language: 'c',
    text: `${cFill(30)}struct point // 2D\n{\n\tint x, y;\n}\norigin;\n${cFill(30, 'g')}`,
    rule: { kind: 'declaration', has: { pattern: 'origin' } },
  },
  ...[
    ['TS: a non-null `!` then a division', 'typescript', 'const half = w! / 2; const p = `/${path}`;\n'],
    ['JS: an object literal then a division', 'javascript', "x = {} / 1 + '/' + '`';\n"],
    ['JS: a regex after `for await (…)`', 'javascript', 'for await (const x of xs) /`/.test(x);\n'],
    ['JS: a regex after `export default`', 'javascript', 'export default /`/;\n'],
    ['JS: a property named `in` then a division', 'javascript', "const r = stats.in / 2 + '/' + '`';\n"],
    ['JS: a variable named `of` then a division', 'javascript', "let of = 4; const r = of / 2 + '/' + '`';\n"],
  ].map(([name, language, line]) => ({
    name: name!,
    language: language!,
    text: `${jsFill(20)}${line!}${trap}${jsFill(20, 'g')}`,
    rule: { pattern: 'needle($A)' },
  })),
  { name: 'JS: an HTML-like comment opener', language: 'javascript', text: `<!-- a \` b\nfoo();\n${trap}${jsFill(40)}`, rule: { pattern: 'needle($A)' } },
  {
    name: 'JS: an HTML-like comment closer at a line start',
    language: 'javascript',
    text: `${jsFill(20)}x;\n--> a \` b\n${trap}${jsFill(20, 'g')}`,
    rule: { pattern: 'needle($A)' },
  },
  {
    name: "Java: an enum's body declarations",
    language: 'java',
    text: `enum E {\n  A, B;\n  <T> void needle(T t) {}\n${many(200, (at) => `  void m${at}() {\n    int x = ${at};\n  }\n`)}}\n${many(200, (at) => `class C${at} {\n  int f() { return ${at}; }\n}\n`)}`,
    rule: { kind: 'enum_body_declarations', has: { pattern: 'needle' } },
  },
  {
    name: "JS: a top-level switch's case",
    language: 'javascript',
    text: `${jsFill(300)}switch (x) {\n  case needle:\n    a();\n${many(500, (at) => `    b${at}();\n`)}  case 2:\n    c();\n}\n${jsFill(300, 'g')}`,
    rule: { kind: 'switch_case', has: { pattern: 'needle' } },
  },
  {
    name: 'Python 3.12: a quote inside an f-string field',
    language: 'python',
    text: `${fillers.python!(30, 'f')}x = f"{"#"}" + """\ndef needle():\n    pass\n"""\n# """\n${fillers.python!(30, 'g')}`,
    rule: { kind: 'function_definition', has: { pattern: 'needle' } },
  },
];

describe('region parse: adversarial files', () => {
  for (const row of adversarialFiles) test(row.name, async () => void (await assertPartialAgrees(row.language, row.text, row.rule)));
});

/** A seeded generator (a linear congruential one: the same files on every run). */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

interface FuzzLanguage {
  language: string;
  /** Items that hold no needle. */
  plain: string[];
  /** Items that hold `needle`. */
  needles: string[];
  rules: Array<SearchSpec['rule']>;
  /** Wraps the items (Java: in one class). */
  wrap?: (items: string) => string;
}

const braceTricks = ['/* } { */\n', '// }\n', 'int s = "}{";\n'];
const fuzzLanguages: FuzzLanguage[] = [
  {
    language: 'javascript',
    plain: [
      'function f() {\n  return 1;\n}\n',
      'const r = /[}]/g;\n',
      'const q = a / 2 / 3;\n',
      'const t = `a${ {b: 1}.b }}`;\n',
      'if (a) {\n} else {\n}\n',
      'do {\n  k();\n} while (z);\n',
      'const o = {\n  a() {\n  },\n};\n',
      "const s = 'it\\'s {';\n",
      'x = i-- / 2 / 3;\n',
    ],
    needles: [
      'function needle() {\n  return 1;\n}\n',
      'needle(2);\n',
      'class N {\n  m() {\n    needle(3);\n  }\n}\n',
      'if (a) {\n  needle(4);\n}\n',
      'const y = `${needle(5)}`;\n',
    ],
    rules: [
      { pattern: 'needle($A)' },
      { kind: 'function_declaration', has: { pattern: 'needle' } },
      { kind: 'statement_block', has: { pattern: 'needle($A)' } },
    ],
  },
  {
    language: 'c',
    plain: [
      'int f(void)\n{\n\treturn 1;\n}\n',
      'struct s {\n\tint a;\n};\n',
      'static const int t[] = {\n\t1,\n};\n',
      '#define M(x) { x }\n',
      '#ifdef A\nint g(void)\n{\n\treturn 0;\n}\n#else\nint g(void);\n#endif\n',
      ...braceTricks.map((text) => text.replace('int s', 'char *s')),
    ],
    needles: [
      'int needle(void)\n{\n\treturn 1;\n}\n',
      'void h(void)\n{\n\tneedle(2);\n}\n',
      'struct n {\n\tint needle;\n};\n',
      'static int k(void)\n{\n\tif (x)\n\t\treturn needle(3);\n\treturn 0;\n}\n',
    ],
    rules: [
      { pattern: 'needle($A)' },
      { kind: 'function_definition', has: { pattern: 'needle' } },
      { kind: 'compound_statement', has: { pattern: 'needle($A)' } },
    ],
  },
  {
    language: 'java',
    plain: [
      '  int f() {\n    return 1;\n  }\n',
      '  String s = "}{";\n',
      '  String b = """\n    }{\n    """;\n',
      '  @Override\n  public String toString() {\n    return "";\n  }\n',
    ],
    needles: [
      '  void h() {\n    needle(2);\n  }\n',
      '  int needle() {\n    return 1;\n  }\n',
      '  @Deprecated\n  void k() {\n    if (x) {\n      needle(3);\n    }\n  }\n',
    ],
    rules: [{ pattern: 'needle($A)' }, { kind: 'method_declaration', has: { pattern: 'needle' } }, { kind: 'class_body', has: { pattern: 'needle($A)' } }],
    wrap: (items) => `class A {\n${items}}\n`,
  },
  {
    language: 'go',
    plain: ['func f() int {\n\treturn 1\n}\n', 'var s = `}{\n}`\n', "var r = '}'\n"],
    needles: ['func h() {\n\tneedle(2)\n}\n', 'func needle() int {\n\treturn 1\n}\n'],
    rules: [{ pattern: 'needle($A)' }, { kind: 'function_declaration', has: { pattern: 'needle' } }],
  },
  {
    language: 'python',
    plain: [
      'def f():\n    return 1\n\n',
      'x = [\n1,\n]\n',
      's = """\ndef g():\n"""\n',
      '@dec\ndef d():\n    pass\n\n',
      'if a:\n    pass\nelse:\n    pass\n',
      'class K:\n    def m(self):\n        return 1\n\n    def n(self):\n        return 2\n\n',
    ],
    needles: ['def h():\n    needle(2)\n\n', 'class N:\n    def m(self):\n        return needle(3)\n\n', '@dec\ndef needle():\n    pass\n\n'],
    rules: [{ pattern: 'needle($A)' }, { kind: 'function_definition', has: { pattern: 'needle' } }, { kind: 'block', has: { pattern: 'needle($A)' } }],
  },
];

describe('region parse: generated files', () => {
  for (const fuzz of fuzzLanguages) {
    test(`${fuzz.language}: 30 files of 60 to 180 mixed items, a whole and a partial parse agree`, async () => {
      const state = await grammars.load(fuzz.language);
      if (state.state !== 'loaded') throw new Error(`no ${fuzz.language} grammar`);
      const random = seeded(fuzz.language.length * 7919);
      const pick = (list: string[]): string => list[Math.floor(random() * list.length)]!;
      const searches = fuzz.rules.map((rule) => compileSearch(grammars, state.grammar, { rule }));
      let partial = 0;
      let clean = 0;
      for (let file = 0; file < 30; file += 1) {
        const items: string[] = [];
        // Large blocks too, so that members are chosen: a class or function of many items.
        const count = 60 + Math.floor(random() * 120);
        for (let item = 0; item < count; item += 1) items.push(random() < 0.08 ? pick(fuzz.needles) : pick(fuzz.plain));
        const body = items.join('');
        const source = SourceText.fromString(fuzz.wrap ? fuzz.wrap(body) : body);
        const tree: Tree = parseSource(grammars, state.grammar, source)!;
        try {
          if (tree.rootNode.hasError) continue;
          clean += 1;
          for (const search of searches) {
            const expected: string[] = findInTree(tree, source, search).map((match) => `${match.startByte}-${match.endByte} ${JSON.stringify(match.bindings)}`);
            const parsed = parseForSearch(grammars, state.grammar, source, search);
            let actual: string[] = [];
            if (parsed !== 'no match' && parsed !== 'timed out') {
              if (parsed.partial) partial += 1;
              try {
                actual = findInTree(parsed.tree, source, search).map((match) => `${match.startByte}-${match.endByte} ${JSON.stringify(match.bindings)}`);
              } finally {
                parsed.tree.delete();
              }
            }
            assert.deepEqual(actual, expected, `file ${file}, rule ${JSON.stringify(fuzz.rules[searches.indexOf(search)])}`);
          }
        } finally {
          tree.delete();
        }
      }
      assert.ok(clean >= 20, `${fuzz.language}: only ${clean} of 30 generated files parse cleanly`);
      assert.ok(partial > 0, `${fuzz.language}: no partial parse`);
    });
  }
});
