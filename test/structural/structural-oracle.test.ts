// Oracle: Fathom's structural matches equal ast-grep's (`ast-grep run -p PATTERN -l LANG --json`,
// the binary the @ast-grep/cli npm package ships) on the same files: match ranges as byte
// offsets, pattern by pattern, over installed real code (TypeScript's lib .d.ts files,
// vscode-jsonrpc's JavaScript, the Python standard library) and fixture files in Go, Rust, Java and
// C. Where the two differ on purpose, the row names the difference and pins it. Each row also
// checks that both ways of finding candidates (find.ts), and matching on the flattened tree
// (flat-tree.ts), give the same answer.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import type { Tree } from 'web-tree-sitter';
import { FlatTree } from '../../src/index/syntax/flat-tree.js';
import { GrammarSet, parseSource, wasmBinding } from '../../src/index/syntax/grammars.js';
import { SourceText } from '../../src/index/syntax/source-text.js';
import { findInTree } from '../../src/structural/find.js';
import { compileSearch } from '../../src/structural/rule.js';
import { tempDir } from '../helpers/fixture.js';

const repository = fileURLToPath(new URL('../../../', import.meta.url));
const astGrep = path.join(repository, 'node_modules', '.bin', 'ast-grep');
const grammars = new GrammarSet();

interface Row {
  pattern: string;
  /** A difference on purpose: the matches only one side finds (`file:start-end`, or how many) and why. */
  differs?: { onlyFathom: string[] | number; onlyAstGrep: string[] | number; why: string };
}

interface Corpus {
  name: string;
  language: string;
  /** ast-grep's name for it. */
  astGrepLanguage: string;
  files: () => string[];
  rows: Row[];
}

function pythonStdlib(): string {
  const out = execFileSync('python3', ['-c', 'import json, os; print(os.path.dirname(os.path.dirname(json.__file__)))'], { encoding: 'utf8' });
  return out.trim();
}

/** Fixture files in languages no installed package gives us, written once. */
const fixtures = tempDir('fathom-oracle-');
function fixture(name: string, text: string): string {
  const file = path.join(fixtures, name);
  fs.writeFileSync(file, text);
  return file;
}

const corpora: Corpus[] = [
  {
    name: 'typescript lib .d.ts',
    language: 'typescript',
    astGrepLanguage: 'ts',
    files: () => ['lib.es5.d.ts', 'lib.dom.d.ts', 'lib.es2015.promise.d.ts'].map((name) => path.join(repository, 'node_modules/typescript/lib', name)),
    rows: [
      { pattern: 'interface $I { $$$ }' },
      { pattern: 'interface $I extends $B { $$$ }' },
      { pattern: 'type $T = $U;' },
      { pattern: 'declare var $V: $T;' },
      { pattern: 'declare function $F($$$): $R;' },
      {
        pattern: 'Promise<$T>',
        differs: {
          onlyFathom: 239,
          onlyAstGrep: 0,
          why: 'ast-grep reads `Promise<$T>` as an instantiation expression and finds none in a .d.ts; Fathom tries the type rung before taking that reading',
        },
      },
      { pattern: 'interface $I<$T> { $$$ }' },
      { pattern: 'declare var $V: { $$$ };' },
    ],
  },
  {
    name: 'vscode-jsonrpc JavaScript',
    language: 'javascript',
    astGrepLanguage: 'js',
    files: () => {
      const folder = path.join(repository, 'node_modules/vscode-jsonrpc/lib/common');
      return fs
        .readdirSync(folder)
        .filter((name) => name.endsWith('.js'))
        .sort()
        .map((name) => path.join(folder, name));
    },
    rows: [
      { pattern: '$A($$$)' },
      { pattern: 'new $C($$$)' },
      { pattern: 'if ($A) { $$$ }' },
      { pattern: 'if ($A) { $$$ } else { $$$ }' },
      { pattern: 'function $F($$$) { $$$ }' },
      { pattern: '$X.$Y = $Z' },
      { pattern: 'exports.$A = $B;' },
      { pattern: 'throw new Error($$$)' },
      { pattern: '$A === undefined' },
      { pattern: 'for (const $X of $Y) $Z' },
      { pattern: 'try { $$$ } catch ($E) { $$$ }' },
      { pattern: 'Object.defineProperty($$$)' },
      { pattern: 'class $C extends $B { $$$ }' },
      { pattern: 'typeof $X' },
      { pattern: '$A ? $B : $C' },
    ],
  },
  {
    name: 'Python standard library',
    language: 'python',
    astGrepLanguage: 'python',
    files: () => {
      const stdlib = pythonStdlib();
      return ['json/__init__.py', 'json/decoder.py', 'json/encoder.py', 'argparse.py', 'shutil.py', 'textwrap.py']
        .map((name) => path.join(stdlib, name))
        .filter((file) => fs.existsSync(file));
    },
    rows: [
      { pattern: 'def $F($$$A): $$$B' },
      { pattern: 'if $A: $$$B' },
      { pattern: 'raise $E($$$)' },
      { pattern: '$A.append($B)' },
      { pattern: 'return $A' },
      { pattern: 'isinstance($X, $T)' },
      { pattern: 'for $X in $Y: $$$' },
      { pattern: 'self.$A = $B' },
      { pattern: 'try: $$$A\nexcept $E: $$$B' },
      { pattern: '$X is None' },
      { pattern: 'from $M import $$$N' },
      { pattern: '$A[$B]' },
      { pattern: 'not $A' },
    ],
  },
  {
    name: 'Go fixture',
    language: 'go',
    astGrepLanguage: 'go',
    files: () => [
      fixture(
        'main.go',
        'package main\n\nimport (\n\t"errors"\n\t"fmt"\n)\n\ntype Store struct {\n\titems map[string]int\n}\n\nfunc (s *Store) Get(key string) (int, error) {\n\tv, ok := s.items[key]\n\tif !ok {\n\t\treturn 0, errors.New("missing")\n\t}\n\treturn v, nil\n}\n\nfunc main() {\n\ts := &Store{items: map[string]int{"a": 1}}\n\tv, err := s.Get("a")\n\tif err != nil {\n\t\tfmt.Println("error:", err)\n\t\treturn\n\t}\n\tfmt.Println(v)\n\tfor i := 0; i < 3; i++ {\n\t\tfmt.Printf("%d\\n", i)\n\t}\n}\n',
      ),
    ],
    rows: [
      {
        pattern: 'fmt.Println($$$)',
        differs: {
          onlyFathom: ['main.go:322-348', 'main.go:362-376'],
          onlyAstGrep: [],
          why: "at Go's top level `fmt.Println(x)` parses as a type conversion, which ast-grep searches for; Fathom's ladder takes that reading last and finds the calls",
        },
      },
      { pattern: 'if err != nil { $$$ }' },
      { pattern: '$A, $B := $C' },
      { pattern: 'func ($R *$T) $M($$$) ($$$) { $$$ }' },
      { pattern: 'errors.New($M)', differs: { onlyFathom: ['main.go:180-201'], onlyAstGrep: [], why: 'a type conversion at top level, as above' } },
      { pattern: 's.items[$K]' },
    ],
  },
  {
    name: 'Rust fixture',
    language: 'rust',
    astGrepLanguage: 'rust',
    files: () => [
      fixture(
        'lib.rs',
        'use std::collections::HashMap;\n\npub struct Cache {\n    map: HashMap<String, u32>,\n}\n\nimpl Cache {\n    pub fn new() -> Self {\n        Cache { map: HashMap::new() }\n    }\n\n    pub fn get(&self, key: &str) -> Option<u32> {\n        self.map.get(key).copied()\n    }\n\n    pub fn load(&mut self, text: &str) -> Result<(), String> {\n        for line in text.lines() {\n            let (k, v) = line.split_once(\'=\').unwrap();\n            let n: u32 = v.parse().map_err(|e| format!("{:?}", e))?;\n            self.map.insert(k.to_string(), n);\n        }\n        println!("{} entries", self.map.len());\n        Ok(())\n    }\n}\n',
      ),
    ],
    rows: [
      { pattern: '$X.unwrap()' },
      { pattern: 'pub fn $F($$$) -> $R { $$$ }' },
      { pattern: 'println!($$$)' },
      { pattern: 'let $P = $E;' },
      { pattern: 'self.map.$M($$$)' },
    ],
  },
  {
    name: 'Java fixture',
    language: 'java',
    astGrepLanguage: 'java',
    files: () => [
      fixture(
        'Main.java',
        'import java.util.ArrayList;\nimport java.util.List;\n\npublic class Main {\n    private final List<String> names = new ArrayList<>();\n\n    public void add(String name) {\n        if (name == null) {\n            throw new IllegalArgumentException("name");\n        }\n        names.add(name);\n    }\n\n    public static void main(String[] args) {\n        Main m = new Main();\n        for (String a : args) {\n            m.add(a);\n        }\n        System.out.println(m.names.size());\n        try {\n            m.add(null);\n        } catch (IllegalArgumentException e) {\n            System.err.println(e.getMessage());\n        }\n    }\n}\n',
      ),
    ],
    rows: [
      { pattern: 'System.out.println($A)' },
      { pattern: 'if ($A == null) { $$$ }' },
      { pattern: 'new $T($$$)' },
      { pattern: 'try { $$$ } catch ($T $E) { $$$ }' },
      { pattern: '$O.add($X)' },
    ],
  },
  {
    name: 'C fixture',
    language: 'c',
    astGrepLanguage: 'c',
    files: () => [
      fixture(
        'buf.c',
        '#include <stdlib.h>\n#include <string.h>\n\nstruct buf {\n\tchar *data;\n\tsize_t len;\n};\n\nstatic int buf_init(struct buf *b, size_t n)\n{\n\tb->data = malloc(n);\n\tif (b->data == NULL)\n\t\treturn -1;\n\tb->len = n;\n\treturn 0;\n}\n\nint buf_copy(struct buf *dst, const struct buf *src)\n{\n\tint err;\n\n\terr = buf_init(dst, src->len);\n\tif (err)\n\t\tgoto out;\n\tmemcpy(dst->data, src->data, src->len);\n\tif (dst->len != src->len) /* cannot happen */\n\t\tgoto out;\n\tfor (size_t i = 0; i < dst->len; i++)\n\t\tdst->data[i] ^= 1;\nout:\n\treturn err;\n}\n',
      ),
    ],
    rows: [
      {
        pattern: 'malloc($N)',
        differs: {
          onlyFathom: ['buf.c:142-151'],
          onlyAstGrep: [],
          why: 'as a C statement `malloc(n)` parses as a macro type, which ast-grep searches for; Fathom tries an expression first and finds the call',
        },
      },
      { pattern: 'b->data = malloc($N);' },
      { pattern: 'if ($A == NULL) return $E;' },
      { pattern: '$A->$B = $C;' },
      { pattern: 'memcpy($D, $S, $N)' },
      { pattern: 'static int $F($$$) { $$$ }' },
      { pattern: 'for ($T $I = 0; $C; $U) $B' },
      { pattern: 'return $E;' },
      {
        pattern: 'if ($C) goto $L;',
        differs: {
          onlyFathom: ['buf.c:377-434'],
          onlyAstGrep: [],
          why: 'a comment between `if (…)` and `goto`: Fathom ignores comments everywhere in a match, ast-grep 0.51 only in some positions',
        },
      },
    ],
  },
];

function astGrepMatches(pattern: string, language: string, files: string[]): Set<string> {
  const run = spawnSync(astGrep, ['run', '-p', pattern, '-l', language, '--json=stream', ...files], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // ast-grep exits 1 when nothing matched.
  assert.ok(run.status === 0 || (run.status === 1 && run.stdout.trim() === ''), `ast-grep failed on ${JSON.stringify(pattern)}: ${run.stderr}`);
  const found = new Set<string>();
  for (const line of run.stdout.split('\n')) {
    if (line.trim() === '') continue;
    const match = JSON.parse(line) as { file: string; range: { byteOffset: { start: number; end: number } } };
    found.add(`${path.resolve(match.file)}:${match.range.byteOffset.start}-${match.range.byteOffset.end}`);
  }
  return found;
}

for (const corpus of corpora) {
  describe(`ast-grep oracle: ${corpus.name}`, () => {
    const parsed: Array<{ file: string; source: SourceText; tree: Tree; flat: FlatTree }> = [];
    const load = async () => {
      if (parsed.length > 0) return (await grammars.load(corpus.language)) as { state: 'loaded'; grammar: never };
      const state = await grammars.load(corpus.language);
      assert.equal(state.state, 'loaded');
      if (state.state !== 'loaded') throw new Error('no grammar');
      for (const file of corpus.files()) {
        const source = new SourceText(fs.readFileSync(file));
        const tree = parseSource(grammars, state.grammar, source)!;
        parsed.push({ file, source, tree, flat: FlatTree.of(tree, source.text, wasmBinding()) });
      }
      assert.ok(parsed.length > 0, `${corpus.name}: no files`);
      return state;
    };
    for (const row of corpus.rows) {
      test(row.pattern.replace(/\n/g, '\\n'), async () => {
        const state = await load();
        const search = compileSearch(grammars, state.grammar, { rule: { pattern: row.pattern } });
        const ours = new Set<string>();
        for (const { file, source, tree, flat } of parsed) {
          const found = findInTree(tree, source, search);
          for (const match of found) ours.add(`${file}:${match.startByte}-${match.endByte}`);
          // Candidates from the rarest literal's occurrences, or from a walk of the whole tree, or
          // on the flat tree: the same matches, bindings and order every way.
          for (const strategy of ['occurrences', 'walk'] as const)
            assert.deepEqual(findInTree(tree, source, search, Number.POSITIVE_INFINITY, strategy), found, `${strategy} on ${path.basename(file)}`);
          // And on the tree flattened into arrays, as structural workers keep trees.
          assert.deepEqual(findInTree(flat, source, search), found, `flat tree of ${path.basename(file)}`);
        }
        const theirs = astGrepMatches(
          row.pattern,
          corpus.astGrepLanguage,
          parsed.map((entry) => entry.file),
        );
        const short = (key: string): string => path.basename(key);
        const onlyFathom = [...ours]
          .filter((key) => !theirs.has(key))
          .map(short)
          .sort();
        const onlyAstGrep = [...theirs]
          .filter((key) => !ours.has(key))
          .map(short)
          .sort();
        const expected = row.differs ?? { onlyFathom: [], onlyAstGrep: [] };
        const shape = (list: string[], like: string[] | number): string[] | number => (typeof like === 'number' ? list.length : list);
        assert.deepEqual(
          { onlyFathom: shape(onlyFathom, expected.onlyFathom), onlyAstGrep: shape(onlyAstGrep, expected.onlyAstGrep) },
          { onlyFathom: expected.onlyFathom, onlyAstGrep: expected.onlyAstGrep },
          row.differs?.why,
        );
        assert.ok(ours.size > 0 || theirs.size > 0, `${row.pattern}: neither found anything; pick a pattern that matches`);
      });
    }
  });
}
