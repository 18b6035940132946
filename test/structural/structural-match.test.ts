// Structural matching, data-driven: per language, a pattern, some code, and what must match (the
// matched texts, and for some rows the bindings). Covers metavariables ($X, $_, $$$X, repeated),
// whitespace and line breaks, trailing commas, strings and comments never matching code, each rung
// of the context ladder, rules (inside / has / not / kind / regex / constraints), and patterns
// that must be rejected with the parser's positions.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FathomError } from '../../src/base/errors.js';
import { GrammarSet, parseSource } from '../../src/index/syntax/grammars.js';
import { SourceText } from '../../src/index/syntax/source-text.js';
import { findInTree } from '../../src/structural/find.js';
import { compileSearch, type SearchSpec } from '../../src/structural/rule.js';

const grammars = new GrammarSet();

async function find(language: string, spec: SearchSpec | string, code: string) {
  const state = await grammars.load(language);
  assert.equal(state.state, 'loaded');
  if (state.state !== 'loaded') throw new Error('no grammar');
  const search = compileSearch(grammars, state.grammar, typeof spec === 'string' ? { rule: { pattern: spec } } : spec);
  const source = SourceText.fromString(code);
  const tree = parseSource(grammars, state.grammar, source)!;
  try {
    return { search, matches: findInTree(tree, source, search) };
  } finally {
    tree.delete();
  }
}

interface Row {
  pattern: string;
  code: string;
  /** The texts of the matches, in document order. */
  matches: string[];
  /** Bindings of the first match (name → text). */
  bindings?: Record<string, string>;
  /** The rung of the context ladder that parsed the pattern. */
  rung?: string;
}

const tables: Record<string, Row[]> = {
  typescript: [
    { pattern: 'foo($A)', code: 'foo(1); foo(1, 2); bar(3); foo();', matches: ['foo(1)'], bindings: { A: '1' }, rung: 'statement' },
    { pattern: 'foo($A, $B)', code: 'foo(a,\n    b,\n);', matches: ['foo(a,\n    b,\n)'], bindings: { A: 'a', B: 'b' } },
    { pattern: 'foo($$$ARGS)', code: 'foo(); foo(a, b, c,);', matches: ['foo()', 'foo(a, b, c,)'], bindings: { ARGS: '' } },
    { pattern: 'foo($$$A, c)', code: 'foo(c); foo(a, b, c); foo(a, b);', matches: ['foo(c)', 'foo(a, b, c)'] },
    { pattern: 'foo(a, $$$)', code: 'foo(a); foo(a, b); foo(b, a);', matches: ['foo(a)', 'foo(a, b)'] },
    {
      pattern: 'if ($X != null) $X.dispose()',
      code: 'if (a != null) a.dispose();\nif (a != null) b.dispose();\nif (a.b != null) a.b.dispose();',
      matches: ['if (a != null) a.dispose();', 'if (a.b != null) a.b.dispose();'],
      bindings: { X: 'a' },
    },
    { pattern: '$A == $A', code: 'x == x; x == y; f( a ) == f(a);', matches: ['x == x', 'f( a ) == f(a)'] },
    { pattern: '$_ == $_', code: 'x == y;', matches: ['x == y'], bindings: {} },
    { pattern: 'dispose(x)', code: 'const s = "dispose(x)"; // dispose(x)\n/* dispose(x) */ dispose(x);', matches: ['dispose(x)'], rung: 'statement' },
    { pattern: 'foo($A)', code: 'foo(/* why */ x);', matches: ['foo(/* why */ x)'], bindings: { A: 'x' } },
    {
      pattern: 'function $F($$$) { $$$ }',
      code: 'function a() {}\nasync function b(x) { return x; }\nconst c = function () {};',
      matches: ['function a() {}', 'async function b(x) { return x; }'],
      rung: 'statement',
    },
    {
      pattern: 'get $P(): $T { $$$ }',
      code: 'class A { get size(): number { return 1; } set size(v: number) {} }',
      matches: ['get size(): number { return 1; }'],
      rung: 'member',
    },
    { pattern: '{ a: $A }', code: 'const o = { a: 1 };', matches: ['{ a: 1 }'], rung: 'statement' },
    { pattern: 'Map<$K, $V>', code: 'let m: Map<string, number[]>;', matches: ['Map<string, number[]>'], rung: 'type' },
    { pattern: 'readonly $P: $T;', code: 'class A { readonly a: number; b: string; }', matches: ['readonly a: number'], rung: 'member' },
    { pattern: 'let $A = 1', code: 'let a = 1, b = 2; let c = 2;', matches: ['let a = 1, b = 2;'] },
    { pattern: '$X.then($$$).catch($E)', code: 'p.then(a, b).catch(e); p.then(a);', matches: ['p.then(a, b).catch(e)'], bindings: { X: 'p', E: 'e' } },
  ],
  javascript: [
    { pattern: 'require($M)', code: "const a = require('a');\nconst b = require(`b`);", matches: ["require('a')", 'require(`b`)'] },
    { pattern: "'use strict'", code: '\'use strict\';\n"use strict";', matches: ["'use strict'"] },
    { pattern: 'new $C($$$)', code: 'new A(); new B(1, 2); A();', matches: ['new A()', 'new B(1, 2)'] },
    { pattern: 'class $C extends $B { $$$ }', code: 'class A extends B { m() {} }\nclass C {}', matches: ['class A extends B { m() {} }'] },
  ],
  python: [
    {
      pattern: 'def $F($$$A): $$$B',
      code: 'def f(a, b):\n    return a\n\nasync def g():\n    pass\n',
      matches: ['def f(a, b):\n    return a', 'async def g():\n    pass'],
      bindings: { F: 'f', A: 'a, b', B: 'return a' },
    },
    { pattern: 'print($$$)', code: 'print()\nprint(1, end="")\nlog("print(1)")  # print(2)\n', matches: ['print()', 'print(1, end="")'] },
    { pattern: 'isinstance($X, $T)', code: 'isinstance(a, int)\nisinstance(a, (int, str))\n', matches: ['isinstance(a, int)', 'isinstance(a, (int, str))'] },
    { pattern: 'if $X is None:\n    $X = $D', code: 'if a is None:\n    a = 1\nif a is None:\n    b = 1\n', matches: ['if a is None:\n    a = 1'] },
    { pattern: 'self.$A = $A', code: 'class C:\n    def __init__(self, x, y):\n        self.x = x\n        self.y = x\n', matches: ['self.x = x'] },
    { pattern: 'return $A', code: 'def f():\n    return 1\n    return\n', matches: ['return 1'] },
    { pattern: 'for $X in $Y: $$$', code: 'for i in range(3):\n    print(i)\n', matches: ['for i in range(3):\n    print(i)'] },
  ],
  go: [
    {
      pattern: 'fmt.Println($$$)',
      code: 'package main\nfunc main() {\n\tfmt.Println("a", 1)\n\tfmt.Printf("b")\n}\n',
      matches: ['fmt.Println("a", 1)'],
      rung: 'statement',
    },
    { pattern: 'dispose(x)', code: 'package main\nfunc f() { dispose(x) }\n', matches: ['dispose(x)'], rung: 'statement' },
    {
      pattern: 'if err != nil { return $$$ }',
      code: 'package main\nfunc f() error {\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\tif err == nil {\n\t\treturn nil\n\t}\n}\n',
      matches: ['if err != nil {\n\t\treturn nil, err\n\t}'],
    },
    {
      pattern: 'func $F($$$) $R { $$$ }',
      code: 'package main\nfunc a() int { return 1 }\nfunc b() {}\n',
      matches: ['func a() int { return 1 }'],
      rung: 'top level',
    },
    { pattern: '$X := $Y', code: 'package main\nfunc f() {\n\ta := 1\n\tb = 2\n}\n', matches: ['a := 1'] },
    { pattern: 'map[$K]$V', code: 'package main\nvar m map[string]int\n', matches: ['map[string]int'] },
  ],
  rust: [
    { pattern: '$X.unwrap()', code: 'fn f() { let a = b.unwrap(); c.expect("x"); d.e().unwrap(); }', matches: ['b.unwrap()', 'd.e().unwrap()'] },
    { pattern: 'fn $F($$$) -> $R { $$$ }', code: 'fn a() -> i32 { 1 }\nfn b() {}\n', matches: ['fn a() -> i32 { 1 }'] },
    { pattern: 'println!($$$)', code: 'fn main() { println!("{}", 1); print!("x"); }', matches: ['println!("{}", 1)'] },
    { pattern: 'let $X = $Y;', code: 'fn f() { let a = 1; let mut b = 2; }', matches: ['let a = 1;'] },
    {
      pattern: 'pub fn $F(&self) -> $R { $$$ }',
      code: 'impl A {\n    pub fn len(&self) -> usize { 0 }\n    fn x(&self) {}\n}\n',
      matches: ['pub fn len(&self) -> usize { 0 }'],
    },
  ],
  java: [
    {
      pattern: 'System.out.println($A)',
      code: 'class A { void f() { System.out.println("x"); System.err.println("y"); } }',
      matches: ['System.out.println("x")'],
      rung: 'top level',
    },
    {
      pattern: 'public void $M() { $$$ }',
      code: 'class A { public void run() { go(); } private void stop() {} }',
      matches: ['public void run() { go(); }'],
      rung: 'top level',
    },
    {
      pattern: 'if ($A == null) { $$$ }',
      code: 'class A { void f() { if (x == null) { return; } if (x != null) {} } }',
      matches: ['if (x == null) { return; }'],
    },
    {
      pattern: 'new ArrayList<>()',
      code: 'class A { List<String> a = new ArrayList<>(); List<String> b = new LinkedList<>(); }',
      matches: ['new ArrayList<>()'],
    },
    {
      pattern: 'try { $$$ } catch ($T $E) { $$$ }',
      code: 'class A { void f() { try { g(); } catch (IOException e) { h(); } } }',
      matches: ['try { g(); } catch (IOException e) { h(); }'],
      bindings: { T: 'IOException', E: 'e' },
    },
  ],
  c: [
    {
      pattern: 'kmalloc($S, $F)',
      code: 'void f(void) {\n\tp = kmalloc(sizeof(*p), GFP_KERNEL);\n\tq = kzalloc(n, GFP_KERNEL);\n}\n',
      matches: ['kmalloc(sizeof(*p), GFP_KERNEL)'],
      bindings: { S: 'sizeof(*p)', F: 'GFP_KERNEL' },
    },
    { pattern: 'dispose(x)', code: 'void f(void) { dispose(x); /* dispose(x) */ }', matches: ['dispose(x)'], rung: 'expression' },
    {
      pattern: 'if ($P == NULL) return $E;',
      code: 'int f(void) {\n\tif (p == NULL) return -ENOMEM;\n\tif (p == NULL) { return 1; }\n}\n',
      matches: ['if (p == NULL) return -ENOMEM;'],
    },
    { pattern: 'if (!$A) { $$$ }', code: 'void f(void) { if (!p) { g(); h(); } if (p) {} }', matches: ['if (!p) { g(); h(); }'] },
    { pattern: 'for ($A; $B; $C) $D', code: 'void f(void) { for (i = 0; i < n; i++) g(i); }', matches: ['for (i = 0; i < n; i++) g(i);'] },
    { pattern: 'int $X = $V;', code: 'int a = 1; long b = 2;', matches: ['int a = 1;'], rung: 'statement' },
    { pattern: 'struct $S *$V', code: 'void f(void) { struct page *p; struct page q; }', matches: ['struct page *p;'] },
    { pattern: '$A->$B = $C;', code: 'void f(void) { a->b = 1; a.b = 2; }', matches: ['a->b = 1;'] },
    {
      pattern: 'static int $F($$$) { $$$ }',
      code: 'static int a(void) { return 0; }\nint b(void) { return 1; }\n',
      matches: ['static int a(void) { return 0; }'],
    },
  ],
  cpp: [
    {
      pattern: 'std::make_unique<$T>($$$)',
      code: 'void f() { auto a = std::make_unique<A>(1); auto b = std::make_shared<B>(); }',
      matches: ['std::make_unique<A>(1)'],
    },
    { pattern: 'delete $P;', code: 'void f() { delete p; delete[] q; }', matches: ['delete p;'] },
  ],
};

for (const [language, rows] of Object.entries(tables)) {
  describe(`structural match: ${language}`, () => {
    for (const row of rows) {
      test(`${row.pattern.replace(/\n/g, '\\n')}  on  ${row.code.slice(0, 60).replace(/\n/g, '\\n')}`, async () => {
        const { search, matches } = await find(language, row.pattern, row.code);
        assert.deepEqual(
          matches.map((match) => match.text),
          row.matches,
        );
        if (row.bindings) assert.deepEqual(Object.fromEntries(Object.entries(matches[0]!.bindings).map(([name, bound]) => [name, bound.text])), row.bindings);
        if (row.rung) assert.equal(search.rule.pattern?.rung, row.rung);
      });
    }
  });
}

describe('structural rules', () => {
  const code = 'function a(x) { if (x) { x.dispose(); } }\nfunction b(y) { y.dispose(); }\nclass C { m(z) { z.dispose(); } }\n';
  const rows: Array<{ name: string; spec: SearchSpec; matches: string[] }> = [
    { name: 'inside (any distance)', spec: { rule: { pattern: '$X.dispose()', inside: { kind: 'if_statement' } } }, matches: ['x.dispose()'] },
    {
      name: 'inside, shared metavariable',
      spec: { rule: { pattern: '$X.dispose()', inside: { pattern: 'function $F($X) { $$$ }' } } },
      matches: ['x.dispose()', 'y.dispose()'],
    },
    {
      name: 'inside stopBy neighbor',
      spec: { rule: { pattern: '$X.dispose()', inside: { kind: 'expression_statement', stopBy: 'neighbor' } } },
      matches: ['x.dispose()', 'y.dispose()', 'z.dispose()'],
    },
    {
      name: 'not inside',
      spec: { rule: { pattern: '$X.dispose()', not: { inside: { kind: 'class_declaration' } } } },
      matches: ['x.dispose()', 'y.dispose()'],
    },
    {
      name: 'has',
      spec: { rule: { kind: 'function_declaration', has: { pattern: 'if ($A) { $$$ }' } } },
      matches: ['function a(x) { if (x) { x.dispose(); } }'],
    },
    {
      name: 'any',
      spec: { rule: { any: [{ pattern: 'function a($$$) { $$$ }' }, { kind: 'method_definition' }] } },
      matches: ['function a(x) { if (x) { x.dispose(); } }', 'm(z) { z.dispose(); }'],
    },
    { name: 'regex', spec: { rule: { kind: 'identifier', regex: '^[xy]$' } }, matches: ['x', 'x', 'x', 'y', 'y'] },
    { name: 'constraints', spec: { rule: { pattern: '$X.dispose()' }, constraints: { X: { regex: '^z' } } }, matches: ['z.dispose()'] },
  ];
  for (const row of rows) {
    test(row.name, async () => {
      const { matches } = await find('typescript', row.spec, code);
      assert.deepEqual(
        matches.map((match) => match.text),
        row.matches,
      );
    });
  }
});

describe('patterns and rules that are rejected', () => {
  const rows: Array<{ language: string; spec: SearchSpec | string; error: RegExp; field?: string }> = [
    {
      language: 'typescript',
      spec: 'foo($A',
      error: /pattern does not parse as TypeScript code \(1:1 .*\); tried as statement, expression, member, type/,
      field: 'pattern',
    },
    { language: 'python', spec: 'def f(:', error: /pattern does not parse as Python code/ },
    { language: 'c', spec: 'if (', error: /pattern does not parse as C code/ },
    { language: 'go', spec: 'a := 1; b := 2', error: /not one Go syntax node/ },
    { language: 'typescript', spec: '   ', error: /empty pattern/ },
    { language: 'typescript', spec: { rule: { pattern: 'a', colour: 'red' } as never }, error: /rule: unknown key "colour"/ },
    { language: 'typescript', spec: { rule: { kind: 'no_such_kind' } }, error: /rule\.kind: "no_such_kind" is not a node kind/ },
    { language: 'typescript', spec: { rule: { pattern: 'a', regex: '(' } }, error: /rule\.regex: Invalid regular expression/ },
    { language: 'typescript', spec: { rule: { pattern: 'a', inside: { stopBy: 'end' } } }, error: /rule\.inside: empty rule/ },
    {
      language: 'typescript',
      spec: { rule: { pattern: 'a', inside: { pattern: 'b', stopBy: 'parent' as never } } },
      error: /stopBy: must be "neighbor" or "end"/,
    },
    { language: 'typescript', spec: { rule: { pattern: 'a', all: [] } }, error: /rule\.all: must be a non-empty array/ },
    { language: 'typescript', spec: { rule: { pattern: 'a', has: { pattern: 'f(' } } }, error: /rule\.has\.pattern: pattern does not parse/ },
    { language: 'typescript', spec: { rule: { pattern: 'a' }, constraints: { x: { regex: 'a' } } }, error: /constraints\.x: not a metavariable name/ },
  ];
  for (const row of rows) {
    test(`${row.language}: ${JSON.stringify(row.spec)}`, async () => {
      await assert.rejects(find(row.language, row.spec, ''), (error: unknown) => {
        assert.ok(error instanceof FathomError, String(error));
        assert.equal(error.kind, 'invalidParams');
        assert.match(error.message, row.error);
        if (row.field) assert.equal((error.data as { field: string }).field, row.field);
        return true;
      });
    });
  }

  test('the parser positions point into the pattern as written', async () => {
    await assert.rejects(find('python', 'x = [1,\n  2,,]', ''), (error: unknown) => {
      const problems = (error as FathomError).data as { problems: Array<{ line: number; column: number }> };
      assert.ok((problems as unknown as { problems: unknown[] }).problems.length > 0);
      const first = (problems as unknown as { problems: Array<{ line: number; column: number }> }).problems[0]!;
      assert.equal(first.line, 2, JSON.stringify(problems));
      return true;
    });
  });
});
