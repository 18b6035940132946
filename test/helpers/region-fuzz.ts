// Generated files for the differential test of region parsing (test/structural/structural-fuzz.test.ts): a
// seeded random source per language family (JavaScript/TypeScript, C/C++, Python, Java, Go), a
// snippet placed among plain items at top level, in a function body or in a class, the rules to
// search each language with, and the comparison of what a whole parse and a region parse
// (`parseForSearch`) find. A snippet mixes structured items whose holes hold more of the same,
// traps (lines that would parse as code holding the needle, inside strings, comments, templates,
// raw strings, preprocessor lines…) and raw token soup. The exact choices below found the region
// scanners' bugs: change them only knowing that a file's content, for a given seed and index,
// changes with them.
import type { GrammarSet, LoadedGrammar } from '../../src/index/syntax/grammars.js';
import { parseSource } from '../../src/index/syntax/grammars.js';
import { SourceText } from '../../src/index/syntax/source-text.js';
import { findInTree } from '../../src/structural/find.js';
import { parseForSearch } from '../../src/structural/region-parse.js';
import { type CompiledSearch, compileSearch, type SearchSpec } from '../../src/structural/rule.js';

export type Rule = SearchSpec['rule'];

export interface Rng {
  /** A number in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  pick<T>(list: readonly T[]): T;
  chance(p: number): boolean;
  /** lo to hi (inclusive) results of `f`, joined. */
  many(lo: number, hi: number, f: (index: number) => string): string;
}

/** A seeded generator (mulberry32). */
export function rng(seed: number): Rng {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    pick: (list) => list[Math.floor(next() * list.length)]!,
    chance: (p) => next() < p,
    many: (lo, hi, f) => {
      const n = lo + Math.floor(next() * (hi - lo + 1));
      let s = '';
      for (let i = 0; i < n; i++) s += f(i);
      return s;
    },
  };
}

const ws = [' ', ' ', ' ', '\t', '\n', '\r\n', '\f', '\u00a0', '\u2028', '\ufeff', '\v', ''];

// ---------------- JavaScript / TypeScript ----------------
const jsAtoms = [
  '"',
  "'",
  '`',
  '${',
  '}',
  '{',
  '(',
  ')',
  '[',
  ']',
  '/',
  '//',
  '/*',
  '*/',
  '/a/',
  '/[/]/',
  '/"/',
  "/'/",
  '/`/',
  '/\\//',
  '\\',
  '\\\n',
  '\n',
  '\r\n',
  '\t',
  '\f',
  '\u00a0',
  '\u2028',
  '!',
  '++',
  '--',
  ';',
  ',',
  '=',
  '+',
  '-',
  '.',
  '...',
  '?.',
  '<',
  '>',
  '?',
  ':',
  'x',
  'a.b',
  '1',
  '1_000',
  '0x1F',
  '.5',
  'return',
  'typeof',
  'of',
  'in',
  'instanceof',
  'await',
  'yield',
  'let',
  'async',
  'if (a)',
  'while (a)',
  'for (;;)',
  'else',
  'do',
  'case',
  'default',
  'new',
  'delete',
  'void',
  'throw',
  'extends',
  'from',
  'as',
  'satisfies',
  'get',
  'set',
  'static',
  '=>',
  '#x',
  '@dec',
  '"a/b"',
  "'a`b'",
  '`a${b}c`',
  '`${`${x}`}`',
  '<!--',
  '-->',
  'needle(1);',
  'needle',
  ' ',
  ' ',
  '\n',
  '\n',
  ') /',
  '] /',
  '} /',
  'x!',
  'f<T>',
];
const tsAtoms = [
  'x!',
  '<T>',
  'as T',
  'satisfies T',
  'type T = ',
  'interface I {',
  'enum E {',
  'declare ',
  'namespace N {',
  'abstract ',
  'readonly ',
  'keyof ',
  '?:',
  '!:',
  'T[]',
  'import type ',
];

/** Lines that would parse cleanly as code, holding the needle. */
function jsTrap(r: Rng): string {
  return r.pick([
    '\n;needle(1);\n',
    '\nneedle(1);\nx;\n',
    ';needle(1);//',
    '\nneedle(1);\n',
    '\n}\nneedle(1);\nfunction q() {\n',
    '\n*/needle(1);/*\n',
    '\n`;needle(1);`\n',
    '\n";needle(1);"\n',
    "\n';needle(1);'\n",
    '\n/needle(1);/\n',
  ]);
}
function jsStrBody(r: Rng, q: string): string {
  return r.many(0, 4, () =>
    r.chance(0.2)
      ? jsTrap(r).replace(/\n/g, '\\\n')
      : r
          .pick(['a', ' ', '/', '//', '/*', '*/', '`', '"', "'", '${', '}', '{', '\\\\', '\\' + q, '\\\n', '\\\r\n', '\\u2028', '\u2028', '\\x41', '#', '!'])
          .replace(q, '\\' + q),
  );
}
function jsString(r: Rng): string {
  const q = r.pick(['"', "'"]);
  return q + jsStrBody(r, q) + q;
}
function jsTemplate(r: Rng, d = 0): string {
  let s = '`';
  s += r.many(0, 4, () => {
    const k = r.int(10);
    if (k < 2 && d < 2) return '${' + jsExpr(r, d + 1) + '}';
    if (k < 4) return jsTrap(r);
    return r.pick(['a', '/', '//', '/*', '*/', '"', "'", '{', '}', '$', '\\`', '\\${', '\\\n', '\n', '\r\n', '$ {', '$$', '\\\\']);
  });
  return s + '`';
}
function jsRegex(r: Rng): string {
  return (
    '/' +
    r.many(1, 3, () =>
      r.pick(['a', '[/]', '\\/', '"', "'", '`', '[`"]', '(', ')', '{', '}', '[', ']'].filter((x) => x !== '[' && x !== ']')).replace(/^\*/, 'a'),
    ) +
    '/' +
    r.pick(['', 'g', 'u', 'v'])
  );
}
function jsExpr(r: Rng, d = 0): string {
  const k = r.int(16);
  if (d > 3) return 'x';
  switch (k) {
    case 0:
      return jsString(r);
    case 1:
      return jsTemplate(r, d);
    case 2:
      return jsRegex(r);
    case 3:
      return `${jsExpr(r, d + 1)} / ${jsExpr(r, d + 1)}`;
    case 4:
      return `(${jsExpr(r, d + 1)})`;
    case 5:
      return r.pick([
        'i++',
        'i--',
        '++i',
        'x!',
        'a.b',
        'a?.b',
        'of',
        'yield',
        'await',
        'let',
        'get',
        'obj.if',
        'a. default',
        '{}',
        '[]',
        '1_0',
        '0.5',
        'this',
        'super.x',
      ]);
    case 6:
      return `{ a: ${jsExpr(r, d + 1)} }`;
    case 7:
      return `[${jsExpr(r, d + 1)}, ${jsExpr(r, d + 1)}]`;
    case 8:
      return `${jsExpr(r, d + 1)}${r.pick(ws)}${r.pick(['+', '-', '*', '%', '<', '>', '&&', '||', '??', '==', 'in', 'instanceof', '/'])}${r.pick(ws)}${jsExpr(r, d + 1)}`;
    case 9:
      return `(${r.pick(['a', '', 'a, b'])}) => ${r.chance(0.5) ? jsExpr(r, d + 1) : '{ ' + jsStmt(r, d + 1) + ' }'}`;
    case 10:
      return `f(${jsExpr(r, d + 1)})`;
    case 11:
      return `${r.pick(['typeof', 'void', '!', '-', '+', '~', 'new', 'delete', 'await'])} ${jsExpr(r, d + 1)}`;
    case 12:
      return `function () {${r.pick(ws)}${jsStmt(r, d + 1)}${r.pick(ws)}}`;
    case 13:
      return `class extends ${jsExpr(r, d + 1)} {}`;
    case 14:
      return `a ? ${jsExpr(r, d + 1)} : ${jsExpr(r, d + 1)}`;
    default:
      return r.pick(['x', 'y', '1', 'needle(1)', 'needle']);
  }
}
function jsComment(r: Rng): string {
  if (r.chance(0.5)) return '//' + r.many(0, 3, () => r.pick(['a', '*/', '/*', '"', '`', "'", '\\', ' ', 'needle(1);'])) + '\n';
  return (
    '/*' + r.many(0, 3, () => (r.chance(0.3) ? jsTrap(r).replace(/\*\//g, '* /') : r.pick(['a', '/*', '*', '/', '"', '`', "'", '\\', '\n', ' ', '//']))) + '*/'
  );
}
function jsStmt(r: Rng, d = 0): string {
  const k = r.int(18);
  const e = (): string => jsExpr(r, d + 1);
  if (d > 3) return 'x;';
  switch (k) {
    case 0:
      return `const t = ${e()};`;
    case 1:
      return `${e()};`;
    case 2:
      return `if (${e()}) ${jsStmt(r, d + 1)}${r.chance(0.4) ? `${r.pick(ws)}${r.chance(0.3) ? jsComment(r) : ''}else ${jsStmt(r, d + 1)}` : ''}`;
    case 3:
      return `{${r.pick(ws)}${jsStmt(r, d + 1)}${r.pick(ws)}}`;
    case 4:
      return jsComment(r);
    case 5:
      return `x = ${e()}${r.pick(['', ';', '\n'])}`;
    case 6:
      return `function g${r.int(9)}() {${r.pick(ws)}${r.many(0, 3, () => jsStmt(r, d + 1) + r.pick(ws))}}`;
    case 7:
      return `class K${r.int(9)} ${r.chance(0.3) ? 'extends ' + e() + ' ' : ''}{${r.pick(ws)}${r.pick(['m() {}', 'static x = 1;', 'get a() { return 1; }', '#p = /a/;', 'static { x; }', `m() { ${jsStmt(r, d + 1)} }`, ''])}${r.pick(ws)}}`;
    case 8:
      return `while (${e()}) ${jsStmt(r, d + 1)}`;
    case 9:
      return `do ${jsStmt(r, d + 1)} while (${e()});`;
    case 10:
      return `label: for (const a of ${e()}) ${jsStmt(r, d + 1)}`;
    case 11:
      return `return ${e()};`;
    case 12:
      return `import ${r.pick(['x', '{ a }', '* as n', '{\n a,\n}'])}${r.pick([' ', '\n'])}from ${jsString(r)};`;
    case 13:
      return `export ${r.pick(['default ', 'const a = ', ''])}${e()};`;
    case 14:
      return `switch (${e()}) {${r.pick(ws)}case ${e()}: ${jsStmt(r, d + 1)}${r.pick(ws)}default: ${jsStmt(r, d + 1)}}`;
    case 15:
      return `try { ${jsStmt(r, d + 1)} }${r.pick(ws)}catch { ${jsStmt(r, d + 1)} }`;
    case 16:
      return `let ${r.pick(['of', 'yield', 'async', 'get', 'a'])} = ${e()};`;
    default:
      return 'needle(1);';
  }
}
function tsExtra(r: Rng): string {
  // Every alternative is built (drawing from `r`) before one is picked.
  return r.pick([
    `let v: ${r.pick(['T', 'T[]', 'A<B<C>>', '`a${string}`', '"x" | \'y\'', '{ a: 1 }'])} = ${jsExpr(r)};`,
    `type T${r.int(9)} = ${r.pick(['`${"a"}/b`', 'A<B>', '{\n a: string;\n}', '[a: 1]', 'keyof X'])};`,
    `interface I${r.int(9)} {${r.pick(ws)}${r.pick(['a: string;', 'm(): void;', '[k: string]: 1;', "'/': 1;"])}${r.pick(ws)}}`,
    `enum E${r.int(9)} {${r.pick(ws)}A = ${r.pick(['1', '"/"', '`x`'])},${r.pick(ws)}}`,
    `namespace N${r.int(9)} {${r.pick(ws)}${jsStmt(r, 1)}${r.pick(ws)}}`,
    `declare module ${jsString(r)} {${r.pick(ws)}${jsStmt(r, 2)}${r.pick(ws)}}`,
    `x = y! / ${jsExpr(r)};`,
    `x = f<T>(${jsExpr(r)}) / 2;`,
    `@dec${r.pick(['', '()', '(/a/)'])}\nclass D${r.int(9)} {}`,
    `abstract class Q${r.int(9)} {\n  abstract m(): void;\n}`,
    `x = <T>${jsExpr(r)};`,
    `x = ${jsExpr(r)} as ${r.pick(['T', 'const', 'unknown as T'])};`,
  ]);
}

function jsSnippet(r: Rng, ts: boolean): string {
  const parts: string[] = [];
  const n = 1 + r.int(5);
  for (let i = 0; i < n; i++) {
    const k = r.int(10);
    if (k < 6) parts.push(jsStmt(r));
    else if (k < 7 && ts) parts.push(tsExtra(r));
    else if (k < 9) parts.push(r.many(1, 6, () => r.pick(r.chance(0.2) && ts ? tsAtoms : jsAtoms)));
    else if (k < 10 && r.chance(0.5)) parts.push(jsTrap(r));
    else
      parts.push(
        r.pick([
          'x = a +',
          'x = {}',
          'x = a',
          'x = class {}',
          'x = function () {}',
          'if (a) {}',
          'x = () => {}',
          'let x',
          'x = a.',
          'x = a?.',
          'x = `a`',
          'x = /a/',
          'x = a\n++',
          'x = a\n--',
          'return',
          'throw',
          'label:',
          'x = a ?',
          'x = a ? b :',
          'async',
          'x = yield',
          'export',
          'export default',
          'import',
          'abstract class Q {}',
          'declare',
          'x = <T>',
          'type T =',
        ]) +
          r.pick(['\n', ' ', '', '\n// c\n', '/*\n*/', '\r\n', '\u2028', '\n\n']) +
          r.pick([
            'needle(1);',
            'inneedle;',
            'instanceof needle;',
            'in needle;',
            '(needle(1));',
            '[needle(1)];',
            '.needle(1);',
            '`${needle(1)}`;',
            '/needle(1)/;',
            'as needle;',
            'satisfies needle;',
            'from "needle";',
            'needle: 1;',
            '<needle>1;',
            'extends needle {}',
            '{ needle(1); }',
            'const a = needle;',
            'function needle() {}',
          ]),
      );
  }
  if (r.chance(0.7)) parts.splice(r.int(parts.length + 1), 0, 'needle(1);');
  return parts.map((p) => p + r.pick(['\n', '\n', '\n', ' ', '', '\r\n', '\n\n', '\u2028', '\t\n'])).join('');
}

// ---------------- C / C++ ----------------
const cAtoms = [
  '"',
  "'",
  "'a'",
  "'\\''",
  '"\\""',
  '\\\n',
  '\\\r\n',
  '//',
  '/*',
  '*/',
  '{',
  '}',
  '(',
  ')',
  ';',
  ',',
  '=',
  '*',
  '&',
  '#',
  '\n',
  '\r\n',
  '\t',
  '\f',
  '\v',
  ' ',
  ' ',
  '#define X',
  '#define Y(a) a',
  '#if 0',
  '#if 1',
  '#ifdef X',
  '#else',
  '#elif 1',
  '#endif',
  '#include <a//b>',
  '#include "a"',
  '#pragma x',
  "#error don't",
  '#undef X',
  '#line 3',
  'R"(',
  ')"',
  'R"d(',
  ')d"',
  "1'000",
  "0x1'F",
  'u8"x"',
  "L'x'",
  'struct S {',
  'typedef',
  'extern "C" {',
  'namespace N {',
  'template <typename T>',
  'requires',
  'int',
  'x',
  'needle(1);',
  'int needle;',
  'needle',
  'else',
  'case 1:',
  'return',
  'enum E {',
  'union U {',
  '__attribute__((x))',
  'static',
  'const',
  '??/',
  '::',
  '->',
  '<',
  '>',
  '>>',
];
function cTrap(r: Rng): string {
  return r.pick([
    '\nneedle(1);\n',
    '\nint needle;\n',
    '\n;needle(1);\nint z;\n',
    '\n}\nint needle;\nint q(void) {\n',
    '\nneedle(1);\nint z(\n',
    '\nint needle(void) { return 1; }\n',
    '\nstruct {\n\tint a;\n}\nneedle;\n',
  ]);
}
function cStrBody(r: Rng, q: string): string {
  return r.many(0, 4, () =>
    r.chance(0.25)
      ? cTrap(r).replace(/\n/g, '\\\n')
      : r
          .pick(['a', ' ', '/', '//', '/*', '*/', '"', "'", '{', '}', '\\\\', '\\' + q, '\\\n', '\\\r\n', '??/', '#', '\\x41'])
          .replace(q === '"' ? /"/ : /'/, '\\' + q),
  );
}
function cExpr(r: Rng, cpp: boolean, d = 0): string {
  if (d > 3) return 'x';
  const k = r.int(12);
  switch (k) {
    case 0:
      return r.pick(['', 'L', 'u8', 'u', 'U']) + '"' + cStrBody(r, '"') + '"';
    case 1:
      return r.pick(["'a'", "'\\''", "'\"'", "'/'", "'{'", "'}'", "'\\\\'", "'\\\n'", "'\\n'"]);
    case 2: {
      if (cpp) {
        const dl = r.pick(['', 'd', 'xy']);
        return (
          r.pick(['R', 'LR', 'u8R']) +
          '"' +
          dl +
          '(' +
          r.many(0, 3, () => (r.chance(0.4) ? cTrap(r) : r.pick(['a', ')', '"', ')x"', '\\', '/*', '//', '\n', '{', '}']))) +
          ')' +
          dl +
          '"'
        );
      }
      return 'x';
    }
    case 3:
      return `${cExpr(r, cpp, d + 1)} / ${cExpr(r, cpp, d + 1)}`;
    case 4:
      return cpp ? r.pick(["1'000", "0x1'F", "1'0.5'0", "0b1'0", "1'2u", "'a'"]) : r.pick(['1', '0x1F', '1.5e3', "'a'"]);
    case 5:
      return `f(${cExpr(r, cpp, d + 1)}${r.chance(0.3) ? ', ' + cExpr(r, cpp, d + 1) : ''})`;
    case 6:
      return `(${cExpr(r, cpp, d + 1)})`;
    case 7:
      return `${cExpr(r, cpp, d + 1)}${r.pick(ws)}${r.pick(['+', '-', '<', '>', '<<', '>>', '&&', '?' + cExpr(r, cpp, d + 1) + ':'])}${r.pick(ws)}${cExpr(r, cpp, d + 1)}`;
    case 8:
      return cpp ? `[](${r.pick(['', 'int a'])}) { ${cStmt(r, cpp, d + 1)} }` : 'x';
    case 9:
      return `{ ${cExpr(r, cpp, d + 1)}, ${cExpr(r, cpp, d + 1)} }`;
    default:
      return r.pick(['x', 'a.b', 'p->c', 'sizeof(int)', 'needle(1)', 'needle', 'a[1]']);
  }
}
function cComment(r: Rng): string {
  if (r.chance(0.5)) return '//' + r.many(0, 3, () => r.pick(['a', '*/', '/*', '"', "'", '\\', ' ', 'needle(1);', '\\\n', '\\\r\n', '\\ \n'])) + '\n';
  return '/*' + r.many(0, 3, () => (r.chance(0.3) ? cTrap(r) : r.pick(['a', '/*', '*', '/', '"', "'", '\\', '\n', ' ', '//', '#if 0']))) + '*/';
}
function cDirective(r: Rng): string {
  const name = r.pick(['define X', 'define F(a) a', 'include', 'if', 'elif', 'pragma', 'error', 'warning', 'undef', 'ifdef', 'line', 'include_next', 'import']);
  const rest = r.many(0, 4, () =>
    r.chance(0.2)
      ? cTrap(r).replace(/\n/g, r.pick(['\\\n', '\\\r\n']))
      : r.pick([
          ' a',
          ' "x"',
          ' "a//b"',
          " 'a'",
          " '\"'",
          ' <a/b>',
          ' <a//b>',
          ' //c',
          ' /* c */',
          ' /* c',
          ' */',
          '\\\n',
          ' 1',
          " 1'0",
          ' defined(X)',
          ' \\',
          ' "\\"',
          ' /',
          '//\\\n',
        ]),
  );
  const ifs = name === 'if' || name === 'ifdef';
  let s = `#${r.pick(['', ' ', '\t', '  '])}${name}${rest}\n`;
  if (ifs || name === 'elif')
    s += r.chance(0.5) ? `${cStmt(r, false, 2)}\n#${r.pick(['else', 'elif 1'])}\n${cStmt(r, false, 2)}\n#endif\n` : `${cStmt(r, false, 2)}\n#endif\n`;
  return s;
}
function cDirLine(r: Rng): string {
  const code = (): string =>
    r.pick(['needle(1);', 'int needle;', 'x = "a', "'\\''", '/*', '*/', '//', '{', '}', ';', '"\\', 'int needle(void) { return 0; }', '(X)', '= 1;', '']);
  const dir = r.pick([
    '#ifdef',
    '#ifndef',
    '#if',
    '#elif',
    '#else',
    '#endif',
    '#define',
    '#include',
    '#undef',
    '#pragma',
    '#line',
    '#t',
    '#error',
    '#ifdef X',
    '#ifndef X',
    '#define X',
    '#if X',
    '#if defined',
    '#elifdef',
    '#elifndef X',
    '#import',
    '#include_next',
  ]);
  const sep = r.pick([' ', '\n', '\\\n', '\\\n\n', '//c\n', '/*c*/', '/*\n*/', ' \t', '\r\n', '\\\r\n\n', '\n\n']);
  const opens = /#(if|ifdef|ifndef)\b/.test(dir);
  return (
    dir +
    sep +
    r.many(1, 2, () => code() + r.pick(['\n', ' ', ''])) +
    (opens ? r.pick(['\n#endif\n', '\n#else\n' + code() + '\n#endif ' + code() + '\n', '\n#endif\n']) : '\n')
  );
}
function cStmt(r: Rng, cpp: boolean, d = 0): string {
  if (d > 3) return 'x;';
  const e = (): string => cExpr(r, cpp, d + 1);
  const k = r.int(20);
  switch (k) {
    case 0:
      return `const char *s = ${e()};`;
    case 1:
      return `${e()};`;
    case 2:
      return `if (${e()}) ${cStmt(r, cpp, d + 1)}${r.chance(0.4) ? `${r.pick(ws)}${r.chance(0.3) ? cComment(r) : ''}else ${cStmt(r, cpp, d + 1)}` : ''}`;
    case 3:
      return `{${r.pick(ws)}${cStmt(r, cpp, d + 1)}${r.pick(ws)}}`;
    case 4:
      return cComment(r);
    case 5:
      return r.chance(0.5) ? cDirective(r) : cDirLine(r);
    case 6:
      return `int g${r.int(9)}(void)${r.pick([' ', '\n'])}{${r.pick(ws)}${r.many(0, 3, () => cStmt(r, cpp, d + 1) + r.pick(ws))}}`;
    case 7:
      return `${r.pick(['struct', 'union', 'enum'])} ${r.pick(['', 'S ', '__attribute__((packed)) '])}{${r.pick(ws)}${r.pick(['int a;', 'A, B', 'char *p;', 'int needle;'])}${r.pick(ws)}}${r.pick([' ', '\n'])}${r.pick(['', 'v', 'needle', 'x = {0}'])};`;
    case 8:
      return `typedef ${r.pick(['int', 'struct {\n\tint a;\n}', 'void (*fp)(int)'])}${r.pick([' ', '\n'])}${r.pick(['t', 'needle_t'])};`;
    case 9:
      return `int ${r.pick(['a', 'needle', 'arr[]'])} = ${e()};`;
    case 10:
      return `switch (${e()}) {${r.pick(ws)}case ${e()}: ${cStmt(r, cpp, d + 1)}${r.pick(ws)}default: break;\n}`;
    case 11:
      return `return ${e()};`;
    case 12:
      return cpp ? `namespace ${r.pick(['N', '', 'a::b'])} {${r.pick(ws)}${cStmt(r, cpp, d + 1)}${r.pick(ws)}}` : `int k(a)\nint a;\n{\n\treturn a;\n}`;
    case 13:
      return cpp
        ? `template <typename T>${r.pick([' ', '\n'])}${r.pick(['', 'requires requires(T a) { a.f(); }\n', 'requires C<T>\n'])}${r.pick(['void f(T t) {}', 'struct Q {};', 'T v = T();'])}`
        : `int (*fp)(int) = 0;`;
    case 14:
      return cpp
        ? `class C${r.int(9)}${r.pick(['', ' : public B'])} {${r.pick(ws)}${r.pick(['public:', 'int a;', 'void m() { x; }', 'C() : a(1) {}', 'friend class X;', ''])}${r.pick(ws)}};`
        : `static const int q = ${e()};`;
    case 15:
      return cpp ? `extern "C" {${r.pick(ws)}${cStmt(r, cpp, d + 1)}${r.pick(ws)}}` : `extern int q;`;
    case 16:
      return `x = ${e()};`;
    case 17:
      return `while (${e()}) ${cStmt(r, cpp, d + 1)}`;
    case 18:
      return `do ${cStmt(r, cpp, d + 1)} while (${e()});`;
    default:
      return r.pick(['needle(1);', 'int needle;', 'int needle(void) { return 0; }']);
  }
}
function cSnippet(r: Rng, cpp: boolean): string {
  const parts: string[] = [];
  const n = 1 + r.int(5);
  for (let i = 0; i < n; i++) {
    const k = r.int(10);
    if (k < 7) parts.push(cStmt(r, cpp));
    else if (k < 9) parts.push(r.many(1, 6, () => r.pick(cAtoms)));
    else parts.push(cTrap(r));
  }
  if (r.chance(0.7)) parts.splice(r.int(parts.length + 1), 0, r.pick(['needle(1);', 'int needle;', 'int needle(void) { return 0; }']));
  return parts.map((p) => p + r.pick(['\n', '\n', '\n', ' ', '', '\r\n', '\n\n', '\t\n', '\\\n'])).join('');
}

// ---------------- Python ----------------
const pyPrefixes = ['f', 'f', 'rf', 'fr', 'F', 'Rf', 'fR', 'b', 'rb', 'br', '', '', 'u', 'r', 'R'];
const pyQuotes = ["'", '"', "'''", '"""'];
function pyTrap(r: Rng): string {
  return r.pick([
    '\ndef needle(): pass\n',
    '\nneedle(1)\n',
    '\nx = 1\nneedle(1)\ndef z(): pass\n',
    '\n    needle(1)\n',
    '\nclass K:\n    needle(1)\n',
    '\n@dec\ndef needle(): pass\n',
  ]);
}
function pyStr(r: Rng, depth = 0): string {
  const p = r.pick(pyPrefixes);
  const q = r.pick(pyQuotes);
  const f = /f/i.test(p);
  const triple = q.length === 3;
  let body = '';
  const n = r.int(5);
  for (let i = 0; i < n; i++) {
    const k = r.next();
    if (f && k < 0.35 && depth < 3) body += pyField(r, depth);
    else if (k < 0.5) body += triple ? pyTrap(r) : pyTrap(r).replace(/\n/g, '\\\n');
    else
      body += r.pick([
        'a',
        ' ',
        '{{',
        '}}',
        '\\',
        '\\{',
        '\\}',
        '\\N{DASH}',
        '\\\\',
        '#',
        ':',
        '!',
        "'",
        '"',
        '\\n',
        '\\\n',
        '\\\r\n',
        '\n',
        '\\"',
        "\\'",
        '%',
        '=',
        "'''",
        '"""',
        '\t',
        '\f',
      ]);
  }
  return p + q + body + q;
}
function pyExpr(r: Rng, depth = 0): string {
  if (depth > 3) return 'x';
  const k = r.int(14);
  switch (k) {
    case 0:
    case 1:
    case 2:
      return pyStr(r, depth + 1);
    case 3:
      return `${pyExpr(r, depth + 1)} ${r.pick(['+', 'if c else', 'and', '/', '//', '%', '@'])} ${pyExpr(r, depth + 1)}`;
    case 4:
      return `(${r.pick(['', '\n', '\\\n'])}${pyExpr(r, depth + 1)}${r.pick(['', '\n', ',\n', ' # c\n'])})`;
    case 5:
      return `[${pyExpr(r, depth + 1)} for i in y]`;
    case 6:
      return `{${pyExpr(r, depth + 1)}: ${pyExpr(r, depth + 1)}}`;
    case 7:
      return r.pick([
        '1if c else 2',
        '0x1_0',
        '1_000',
        '1j',
        '.5',
        'lambda y: y',
        '(a := 1)',
        'x[1:2]',
        'a.b',
        '...',
        'not x',
        'await x',
        '*x',
        'needle(1)',
        'needle',
      ]);
    case 8:
      return `f(${pyExpr(r, depth + 1)}${r.pick(['', ',', ', k=1', '\n'])})`;
    case 9:
      return pyStr(r, depth + 1) + ' ' + pyStr(r, depth + 1);
    default:
      return r.pick(['x', 'y', '1', 'None']);
  }
}
function pyField(r: Rng, depth: number): string {
  let s = '{' + r.pick(['', ' ']) + pyExpr(r, depth + 1);
  if (r.chance(0.2)) s += '=';
  if (r.chance(0.2)) s += r.pick(['!r', '!s', '!a']);
  if (r.chance(0.4)) {
    s += ':';
    s += r.many(0, 2, () => (r.chance(0.3) ? pyField(r, depth + 1) : r.pick(['>10', '\\', '"', "'", '#', '!', 'x', '%H', ' ', '{{', '}}'])));
  }
  return s + '}';
}
function pyComment(r: Rng): string {
  return '#' + r.many(0, 3, () => r.pick(['a', '"', "'", '"""', '\\', ' ', 'needle(1)', '{', '\f']));
}
function pyStmt(r: Rng, indent: string, depth = 0): string {
  const ind = indent;
  const sub = indent + r.pick(['    ', '  ', '\t', ' \t', '\t ']);
  const body = (): string =>
    r.many(1, 3, () => sub + pyStmt(r, sub, depth + 1) + r.pick(['\n', '\n', '\r\n', ' # c\n', '\n\n', '\n' + r.pick(['', '#c', '    #c', '\f']) + '\n']));
  if (depth > 2) return r.pick(['pass', 'x = 1', 'needle(1)']);
  const k = r.int(19);
  switch (k) {
    case 0:
    case 1:
      return `x = ${pyExpr(r)}`;
    case 2:
      return `${pyExpr(r)}`;
    case 3:
      return `if ${pyExpr(r)}:\n${body()}${r.chance(0.4) ? ind + r.pick(['', '#c\n' + ind]) + 'else:\n' + body() : ''}`.replace(/\n$/, '');
    case 4:
      return `def g${r.int(9)}(${r.pick(['', 'a', 'a=1', 'a,\n b'])}):${r.chance(0.2) ? ' ' + r.pick(['pass', 'return 1']) : '\n' + body()}`.replace(/\n$/, '');
    case 5:
      return `class K${r.int(9)}:\n${body()}`.replace(/\n$/, '');
    case 6:
      return `@${r.pick(['dec', 'dec()', 'a.b(1)'])}\n${ind}def h${r.int(9)}():\n${body()}`.replace(/\n$/, '');
    case 7:
      return pyComment(r);
    case 8:
      return `x = ${pyExpr(r)} \\\n${ind}${r.pick(['+ 1', '', '+ y', '  if c else z'])}`;
    case 9:
      return `with ${pyExpr(r)} as f:\n${body()}`.replace(/\n$/, '');
    case 10:
      return `try:\n${body()}${ind}except E:\n${body()}`.replace(/\n$/, '');
    case 11:
      return `for i in ${pyExpr(r)}:\n${body()}`.replace(/\n$/, '');
    case 12:
      return `return ${pyExpr(r)}`;
    case 13:
      return `match x:\n${sub}case ${r.pick(['1', '"a"', '[a, b]', '_'])}:\n${sub}    ${pyStmt(r, sub + '    ', depth + 2)}`;
    case 14:
      return `x = 1; y = ${pyExpr(r)}`;
    case 15:
      return `async def q():\n${body()}`.replace(/\n$/, '');
    case 16:
      return (
        r.pick([
          'x =',
          'x = a +',
          'x = a.',
          'e:',
          'else:',
          'assert',
          'import',
          'x = not',
          'x = lambda:',
          'del',
          'x = a if',
          'from',
          'raise',
          'with',
          'x = a and',
          'print',
          'x = -',
          'type',
          'match',
          'case',
          'x = a,',
          'global',
          'x = a |',
          'async',
          'await',
          'x = yield',
          'x = a ==',
          'x = a in',
          'x = a is',
          'x = a not in',
          'x: int =',
          'def f() ->',
          'class',
          'x = *',
          'x = **',
        ]) +
        r.pick(['\n', '\n', ' #c\n', '\n\n', '\r\n', '\\\n', '\n#c\n']) +
        r.pick(['needle(1)', 'def needle(): pass', 'needle', 'x\nneedle(1)'])
      );
    default:
      return r.pick(['needle(1)', 'def needle(): pass', 'x = needle(1)']);
  }
}
function pySnippet(r: Rng, indent = ''): string {
  const parts: string[] = [];
  const n = 1 + r.int(4);
  for (let i = 0; i < n; i++) {
    if (r.chance(0.1))
      parts.push(
        r.many(1, 5, () =>
          r.pick([
            '"',
            "'",
            '"""',
            "'''",
            'f"',
            '{',
            '}',
            '\\\n',
            '#',
            ':',
            '\n',
            '\t',
            '\f',
            '\r\n',
            '\r',
            '\u00a0',
            '\ufeff',
            'needle(1)',
            'x',
            ' ',
            '    ',
            'else:',
            'def',
            '(',
            ')',
            '[',
            ']',
          ]),
        ),
      );
    else parts.push(indent + pyStmt(r, indent));
  }
  if (r.chance(0.7)) parts.splice(r.int(parts.length + 1), 0, indent + r.pick(['needle(1)', 'def needle(): pass', 'x = needle(1)']));
  return parts.map((p) => p + r.pick(['\n', '\n', '\n', '\r\n', '\n\n', ' # x\n', '\\\n', '\n\f\n'])).join('');
}

// ---------------- Java ----------------
function javaTrap(r: Rng): string {
  return r.pick(['\nneedle(1);\n', '\n  int needle;\n', '\n}\n  int needle;\n  void q() {\n', '\n  void needle() {}\n', '\n";needle(1);"\n']);
}
function javaExpr(r: Rng, d = 0): string {
  if (d > 3) return 'x';
  const k = r.int(12);
  switch (k) {
    case 0:
      return (
        '"' +
        r.many(0, 3, () =>
          r.chance(0.2)
            ? javaTrap(r).replace(/\n/g, '\\n')
            : r.pick(['a', '/', '//', '/*', '*/', "'", '\\"', '\\\\', '{', '}', '\\u0022', '\\u005c\\u005c', '\\s', '\\{x}']),
        ) +
        '"'
      );
    case 1:
      return '"""\n' + r.many(0, 3, () => (r.chance(0.3) ? javaTrap(r) : r.pick(['a', '"', '""', '\\"""', '\\\n', '/*', '//', '{', '}', "'", '\\\\']))) + '"""';
    case 2:
      return r.pick(["'a'", "'\\''", "'\"'", "'{'", "'}'", "'/'", "'\\u0027'", "'\\\\'"]);
    case 3:
      return `${javaExpr(r, d + 1)} / ${javaExpr(r, d + 1)}`;
    case 4:
      return `(${r.pick(['a', '', 'int a'])}) -> ${r.chance(0.5) ? javaExpr(r, d + 1) : '{ ' + javaStmt(r, d + 1) + ' }'}`;
    case 5:
      return `new Object() {${r.pick([' ', '\n'])}${r.pick(['', 'int a;', 'void m() {}'])}${r.pick([' ', '\n'])}}`;
    case 6:
      return `f(${javaExpr(r, d + 1)})`;
    case 7:
      return r.pick(['1_000', '0x1F', '1L', '.5f', 'a.b', 'List<List<T>>', 'x instanceof T t', 'needle(1)', 'needle', 'T.class', 'this', 'int[].class']);
    case 8:
      return `${javaExpr(r, d + 1)} ${r.pick(['+', '>>', '>>>', '<', '&&'])} ${javaExpr(r, d + 1)}`;
    default:
      return 'x';
  }
}
function javaStmt(r: Rng, d = 0): string {
  if (d > 3) return 'x;';
  const k = r.int(12);
  switch (k) {
    case 0:
      return `x = ${javaExpr(r)};`;
    case 1:
      return `if (${javaExpr(r)}) ${javaStmt(r, d + 1)}${r.chance(0.4) ? '\n// c\nelse ' + javaStmt(r, d + 1) : ''}`;
    case 2:
      return `{ ${javaStmt(r, d + 1)} }`;
    case 3:
      return '//' + r.pick(['a', '\\u000a needle(1);', '*/', 'needle(1);']) + '\n';
    case 4:
      return '/*' + r.many(0, 3, () => (r.chance(0.3) ? javaTrap(r) : r.pick(['a', '/*', '"', "'", '\n', '\\u002a/']))) + '*/';
    case 5:
      return `String s = ${javaExpr(r)};`;
    case 6:
      return `switch (x) {\n  case 1 -> ${javaExpr(r)};\n  default -> {}\n}`;
    default:
      return 'needle(1);';
  }
}
function javaMember(r: Rng): string {
  const k = r.int(12);
  switch (k) {
    case 0:
      return `  int a${r.int(9)} = ${javaExpr(r)};`;
    case 1:
      return `  void m${r.int(9)}() {${r.pick([' ', '\n'])}${r.many(0, 3, () => javaStmt(r) + '\n')}  }`;
    case 2:
      return `  @${r.pick(['Override', 'A(1)', 'A(x = "}")', 'interface B'])}\n  void n${r.int(9)}() {}`;
    case 3:
      return `  class C${r.int(9)} {${r.pick([' ', '\n'])}${javaMember(r)}\n  }`;
    case 4:
      return `  enum E${r.int(9)} { A, B; int x; }`;
    case 5:
      return `  static {${javaStmt(r)}}`;
    case 6:
      return `  record R${r.int(9)}(int a) {}`;
    case 7:
      return `  /*` + r.many(0, 2, () => (r.chance(0.4) ? javaTrap(r) : r.pick(['a', '"', "'", '\n']))) + '*/';
    case 8:
      return `  Object o${r.int(9)} = new Object() {\n  }\n  ${r.pick(['', 'instanceof Object ? 1 : 2'])};`.replace(/\n {2};$/, ';');
    case 9:
      return `  String t${r.int(9)} = ${javaExpr(r)};`;
    default:
      return r.pick(['  int needle;', '  void needle() {}', '  int q = needle(1);']);
  }
}
function javaSnippet(r: Rng, inBody: boolean): string {
  const parts: string[] = [];
  const n = 1 + r.int(4);
  for (let i = 0; i < n; i++) {
    if (r.chance(0.1))
      parts.push(
        r.many(1, 5, () => r.pick(['"', "'", '"""', '\\u000a', '\\u0022', '{', '}', ';', '//', '/*', '*/', '\n', '\t', '\f', '@', 'needle(1);', 'x', ' '])),
      );
    else parts.push(inBody ? '    ' + javaStmt(r) : javaMember(r));
  }
  if (r.chance(0.7)) parts.splice(r.int(parts.length + 1), 0, inBody ? 'needle(1);' : r.pick(['  int needle;', '  void needle() {}']));
  return parts.map((p) => p + r.pick(['\n', '\n', '\r\n', ' ', '\n\n'])).join('');
}

// ---------------- Go ----------------
function goTrap(r: Rng): string {
  return r.pick(['\nneedle(1)\n', '\nvar needle int\n', '\n}\nfunc needle() {\n', '\nfunc needle() {}\n']);
}
function goExpr(r: Rng, d = 0): string {
  if (d > 3) return 'x';
  const k = r.int(10);
  switch (k) {
    case 0:
      return '"' + r.many(0, 3, () => r.pick(['a', '/', '//', '/*', '`', "'", '\\"', '\\\\', '{', '}', '\\n'])) + '"';
    case 1:
      return '`' + r.many(0, 3, () => (r.chance(0.4) ? goTrap(r) : r.pick(['a', '"', "'", '\\', '/*', '//', '{', '}', '\n', '\r\n']))) + '`';
    case 2:
      return r.pick(["'a'", "'\\''", "'\"'", "'`'", "'{'", "'}'", "'/'", "'\\\\'"]);
    case 3:
      return `${goExpr(r, d + 1)} / ${goExpr(r, d + 1)}`;
    case 4:
      return `func() {${r.pick([' ', '\n'])}${goStmt(r, d + 1)}${r.pick([' ', '\n'])}}`;
    case 5:
      return `f(${goExpr(r, d + 1)})`;
    case 6:
      return `T{${r.pick(['', 'a: 1', '\n a: 1,\n'])}}`;
    case 7:
      return r.pick(['1_000', '0x1F', '0o7', '1i', 'a.b', 'needle(1)', 'needle', '<-ch']);
    default:
      return 'x';
  }
}
function goStmt(r: Rng, d = 0): string {
  if (d > 3) return 'x = 1';
  const k = r.int(10);
  switch (k) {
    case 0:
      return `x = ${goExpr(r)}`;
    case 1:
      return `if ${goExpr(r)} {\n${goStmt(r, d + 1)}\n}${r.chance(0.4) ? ' else {\n' + goStmt(r, d + 1) + '\n}' : ''}`;
    case 2:
      return '//' + r.pick(['a', '`', '*/', 'needle(1)']) + '\n';
    case 3:
      return '/*' + r.many(0, 3, () => (r.chance(0.3) ? goTrap(r) : r.pick(['a', '/*', '`', '"', '\n']))) + '*/';
    case 4:
      return `s := ${goExpr(r)}`;
    case 5:
      return `switch x {\ncase 1:\n${goStmt(r, d + 1)}\n}`;
    default:
      return 'needle(1)';
  }
}
function goTop(r: Rng): string {
  const k = r.int(10);
  switch (k) {
    case 0:
      return `var v${r.int(9)} = ${goExpr(r)}`;
    case 1:
      return `func h${r.int(9)}() {\n${goStmt(r)}\n}`;
    case 2:
      return `type T${r.int(9)} struct {\n\ta int ${r.pick(['`json:"a"`', '"tag"', ''])}\n}`;
    case 3:
      return `const (\n\tA = ${goExpr(r)}\n)`;
    case 4:
      return `//go:build x\n`;
    case 5:
      return `/*` + r.many(0, 3, () => (r.chance(0.4) ? goTrap(r) : r.pick(['a', '`', '"', '\n']))) + '*/';
    case 6:
      return `var s = ${goExpr(r)}`;
    case 7:
      return `import ${r.pick(['"fmt"', '(\n\t"a"\n)', 'x "y"'])}`;
    default:
      return r.pick(['var needle int', 'func needle() {}', 'var x = needle(1)']);
  }
}
function goSnippet(r: Rng, where: Where): string {
  const parts: string[] = [];
  const n = 1 + r.int(4);
  for (let i = 0; i < n; i++) {
    if (r.chance(0.1)) parts.push(r.many(1, 5, () => r.pick(['"', "'", '`', '{', '}', '//', '/*', '*/', '\n', '\t', 'needle(1)', 'x', ' ', ';'])));
    // The last field draws an expression it does not use: kept, so that files stay as they were.
    else
      parts.push(
        where === 'body'
          ? '\t' + goStmt(r)
          : where === 'cls'
            ? '\t' + r.pick(['a int', 'b string `json:"b"`', 'c int // x', 'needle int', `d int ${goExpr(r).startsWith('`') ? '' : ''}`])
            : goTop(r),
      );
  }
  if (r.chance(0.7))
    parts.splice(
      r.int(parts.length + 1),
      0,
      where === 'body' ? '\tneedle(1)' : where === 'cls' ? '\tneedle int' : r.pick(['var needle int', 'func needle() {}']),
    );
  return parts.map((p) => p + r.pick(['\n', '\n', '\r\n', '\n\n'])).join('');
}

// ---------------- Placing a snippet ----------------
const repeat = (n: number, f: (index: number) => string): string => Array.from({ length: n }, (_, i) => f(i)).join('');

/** n plain items named p0, p1…: functions (Java: methods). */
const fill: Record<string, (n: number, p: string) => string> = {
  c: (n, p) => repeat(n, (i) => `int ${p}${i}(void)\n{\n\treturn ${i};\n}\n`),
  javascript: (n, p) => repeat(n, (i) => `function ${p}${i}() {\n  return ${i};\n}\n`),
  python: (n, p) => repeat(n, (i) => `def ${p}${i}():\n    return ${i}\n\n`),
  java: (n, p) => repeat(n, (i) => `  int ${p}${i}() {\n    return ${i};\n  }\n`),
  go: (n, p) => repeat(n, (i) => `func ${p}${i}() int {\n\treturn ${i}\n}\n`),
};
fill.cpp = fill.c!;
fill.typescript = fill.javascript!;

export type Where = 'top' | 'body' | 'cls';

function fillOf(language: string): (n: number, p: string) => string {
  const f = fill[language];
  if (!f) throw new Error(`no generator for ${language}`);
  return f;
}

/** Where the snippet goes: among top-level items (Java: class members), in a large function body, in a large class (C: struct; Go: struct type). */
export const wrap: Record<Where, (language: string, snippet: string) => string> = {
  top: (language, snippet) =>
    language === 'java'
      ? `class A {\n${fillOf('java')(80, 'f')}${snippet}${fillOf('java')(80, 'g')}}\n`
      : `${fillOf(language)(20, 'f')}${snippet}${fillOf(language)(20, 'g')}`,
  body: (language, snippet) => {
    const brace = language === 'javascript' || language === 'typescript';
    if (language === 'python')
      return `${fillOf('python')(3, 'f')}def big():\n${repeat(24, (i) => `    v${i} = ${i}\n`)}${snippet}${repeat(24, (i) => `    w${i} = ${i}\n`)}${fillOf('python')(3, 'g')}`;
    if (language === 'go')
      return `${fillOf('go')(4, 'f')}func big() {\n${repeat(24, (i) => `\tx${i} = ${i}\n`)}${snippet}${repeat(24, (i) => `\ty${i} = ${i}\n`)}}\n${fillOf('go')(4, 'g')}`;
    if (language === 'java')
      return `class A {\n${fillOf('java')(4, 'f')}  void big() {\n${repeat(24, (i) => `    x${i} = ${i};\n`)}${snippet}${repeat(24, (i) => `    y${i} = ${i};\n`)}  }\n${fillOf('java')(4, 'g')}}\n`;
    const small =
      (name: string) =>
      (i: number): string =>
        brace ? `function ${name}${i}() { return ${i}; }\n` : `int ${name}${i}(void) { return ${i}; }\n`;
    const statement =
      (name: string) =>
      (i: number): string =>
        `${brace ? '  ' : '\t'}${name}${i} = ${i};\n`;
    return `${repeat(4, small('f'))}${brace ? 'function big() {\n' : 'int big(void)\n{\n'}${repeat(24, statement('x'))}${snippet}${repeat(24, statement('y'))}}\n${repeat(4, small('g'))}`;
  },
  cls: (language, snippet) => {
    if (language === 'python')
      return `${fillOf('python')(3, 'f')}class Big:\n${repeat(20, (i) => `    def m${i}(self):\n        return ${i}\n\n`)}${snippet}${repeat(20, (i) => `    def n${i}(self):\n        return ${i}\n\n`)}${fillOf('python')(3, 'g')}`;
    if (language === 'cpp' || language === 'c')
      return `${fillOf('c')(4, 'f')}${language === 'c' ? 'struct Big' : 'class Big'} {\n${repeat(20, (i) => (language === 'c' ? `  int m${i};\n` : `  int m${i}() { return ${i}; }\n`))}${snippet}${repeat(20, (i) => (language === 'c' ? `  int n${i};\n` : `  int n${i}() { return ${i}; }\n`))}};\n${fillOf('c')(4, 'g')}`;
    if (language === 'go')
      return `${fillOf('go')(4, 'f')}type Big struct {\n${repeat(40, (i) => `\tm${i} int\n`)}${snippet}${repeat(40, (i) => `\tn${i} int\n`)}}\n${fillOf('go')(4, 'g')}`;
    if (language === 'java') return wrap.top(language, snippet);
    return `${fillOf('javascript')(4, 'f')}class Big {\n${repeat(20, (i) => `  m${i}() { return ${i}; }\n`)}${snippet}${repeat(20, (i) => `  n${i}() { return ${i}; }\n`)}}\n${fillOf('javascript')(4, 'g')}`;
  },
};

// ---------------- Files and rules ----------------
const jsRules: Rule[] = [
  { pattern: 'needle($A)' },
  { kind: 'expression_statement', has: { pattern: 'needle($A)' } },
  { kind: 'function_declaration', has: { pattern: 'needle' } },
  { kind: 'statement_block', has: { pattern: 'needle($A)' } },
  { kind: 'lexical_declaration', has: { pattern: 'needle' } },
];
const cRules: Rule[] = [
  { pattern: 'needle($A)' },
  { kind: 'declaration', has: { pattern: 'needle' } },
  { kind: 'function_definition', has: { pattern: 'needle' } },
  { kind: 'compound_statement', has: { pattern: 'needle($A)' } },
  { kind: 'expression_statement', has: { pattern: 'needle($A)' } },
];

/** The rules each language's files are searched with: the needle as a call, and nodes of several kinds holding it. */
export const rules: Readonly<Record<string, readonly Rule[]>> = {
  javascript: jsRules,
  typescript: jsRules,
  c: cRules,
  cpp: [...cRules, { kind: 'template_declaration', has: { pattern: 'needle' } }],
  python: [
    { pattern: 'needle($A)' },
    { kind: 'function_definition', has: { pattern: 'needle' } },
    { kind: 'block', has: { pattern: 'needle($A)' } },
    { kind: 'expression_statement', has: { pattern: 'needle($A)' } },
    { kind: 'class_definition', has: { pattern: 'needle' } },
  ],
  java: [
    { pattern: 'needle($A)' },
    { kind: 'method_declaration', has: { pattern: 'needle' } },
    { kind: 'field_declaration', has: { pattern: 'needle' } },
    { kind: 'block', has: { pattern: 'needle($A)' } },
  ],
  go: [
    { pattern: 'needle($A)' },
    { kind: 'function_declaration', has: { pattern: 'needle' } },
    { kind: 'var_declaration', has: { pattern: 'needle' } },
    { kind: 'block', has: { pattern: 'needle($A)' } },
    { kind: 'field_declaration', has: { pattern: 'needle' } },
  ],
};

export const fuzzLanguages = ['c', 'cpp', 'javascript', 'typescript', 'python', 'java', 'go'] as const;

export interface FuzzFile {
  where: Where;
  snippet: string;
  text: string;
}

/**
 * File `index` of `seed` for `language`: a snippet placed at top level (half the files), in a
 * function body or in a class. Depends on nothing but its arguments. C snippets in a struct are
 * mostly not clean C; they are kept anyway.
 */
export function makeFile(language: string, seed: number, index: number): FuzzFile {
  const r = rng((seed * 1000003 + index) >>> 0);
  const where = r.pick<Where>(['top', 'top', 'body', 'cls']);
  let snippet: string;
  if (language === 'javascript' || language === 'typescript') snippet = jsSnippet(r, language === 'typescript');
  else if (language === 'c' || language === 'cpp') snippet = cSnippet(r, language === 'cpp');
  else if (language === 'python') snippet = pySnippet(r, where === 'body' ? '    ' : where === 'cls' ? '    ' : '');
  else if (language === 'java') snippet = javaSnippet(r, where === 'body');
  else if (language === 'go') snippet = goSnippet(r, where);
  else throw new Error(`no generator for ${language}`);
  return { where, snippet, text: wrap[where](language, snippet) };
}

// ---------------- Whole parse against region parse ----------------
export type ParseKind = 'whole' | 'partial' | 'no match' | 'timed out';

export interface Comparison {
  rule: Rule;
  /** What `parseForSearch` did: a whole parse, a partial one, nothing (no region may match), or ran out of time. */
  kind: ParseKind;
  /** The region parse found exactly the whole parse's matches (same ranges, same bindings). */
  same: boolean;
  /** The whole parse's matches, as `start-end bindings`. */
  expected: string[];
  /** The region parse's. */
  actual: string[];
}

const compiled = new WeakMap<GrammarSet, Map<string, CompiledSearch>>();

function searchFor(grammars: GrammarSet, grammar: LoadedGrammar, language: string, rule: Rule): CompiledSearch {
  let searches = compiled.get(grammars);
  if (!searches) {
    searches = new Map();
    compiled.set(grammars, searches);
  }
  const key = `${language} ${JSON.stringify(rule)}`;
  let search = searches.get(key);
  if (!search) {
    search = compileSearch(grammars, grammar, { rule });
    searches.set(key, search);
  }
  return search;
}

const matchKey = (match: { startByte: number; endByte: number; bindings: unknown }): string =>
  `${match.startByte}-${match.endByte} ${JSON.stringify(match.bindings)}`;

/** For each rule, the whole parse's matches against the region parse's; undefined when the whole parse has an error (no reference to compare with). */
export function compareWholeAndPartial(
  grammars: GrammarSet,
  grammar: LoadedGrammar,
  language: string,
  text: string,
  searchRules: readonly Rule[],
): Comparison[] | undefined {
  const source = SourceText.fromString(text);
  const tree = parseSource(grammars, grammar, source);
  if (!tree) throw new Error(`${language}: the whole parse timed out`);
  try {
    if (tree.rootNode.hasError) return undefined;
    return searchRules.map((rule) => {
      const search = searchFor(grammars, grammar, language, rule);
      const expected = findInTree(tree, source, search).map(matchKey);
      const parsed = parseForSearch(grammars, grammar, source, search);
      let actual: string[] = [];
      let kind: ParseKind;
      if (parsed === 'no match' || parsed === 'timed out') kind = parsed;
      else {
        kind = parsed.partial ? 'partial' : 'whole';
        try {
          actual = findInTree(parsed.tree, source, search).map(matchKey);
        } finally {
          parsed.tree.delete();
        }
      }
      const same = kind !== 'timed out' && JSON.stringify(actual) === JSON.stringify(expected);
      return { rule, kind, same, expected, actual };
    });
  } finally {
    tree.delete();
  }
}
