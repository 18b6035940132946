// The context ladder: the wrappers a pattern fragment is parsed in, per language, in the order
// they are tried. A fragment is code out of context (`foo($A)`, `return $X`, `get $P() {}`); the
// first wrapper in which it parses without an ERROR node, as one node spanning exactly the
// fragment, gives the pattern. Pure data, owned here; pattern.ts climbs it.
//
// The order is chosen per language so that what a user most likely means wins: where statements
// may stand at top level (TypeScript, JavaScript, Python, C, Ruby …) the top level comes first, as
// in ast-grep, so `function f() {}` is a declaration (in parentheses it would be an expression);
// where they may not (Go, Rust, Java, C#, Scala) the top level comes first too, since a
// statement fails there and moves on to a function body, while a declaration parsed inside a body
// would become something else (a Go `func f() {}` in a body is a function literal). In C and C++, `dispose(x)` at top level parses as a macro type and fails (an ERROR
// node), so the ladder goes on to the body, where it is a call.

export interface Rung {
  /** What the rung stands for, named in errors: statement, expression, member, top level, type. */
  name: 'statement' | 'expression' | 'member' | 'top level' | 'type';
  prefix: string;
  suffix: string;
  /** Prepended to every line of the fragment after the first (indentation-sensitive languages). */
  indent?: string;
}

/** Whether a fragment can be an expression at all (a statement's `;` or a block's `}` ends it). */
export function mayBeExpression(fragment: string): boolean {
  return !/[;}]$/.test(fragment);
}

const top: Rung = { name: 'top level', prefix: '', suffix: '' };

function rung(name: Rung['name'], prefix: string, suffix: string, indent?: string): Rung {
  return indent === undefined ? { name, prefix, suffix } : { name, prefix, suffix, indent };
}

const ecma: Rung[] = [rung('statement', '', ''), rung('expression', '(', ')'), rung('member', 'class __W {\n', '\n}')];

const cLike = (member: Rung | undefined): Rung[] => [
  rung('expression', 'int __w = ', ';'),
  rung('statement', '', ''),
  rung('statement', 'void __w(void) {\n', '\n}'),
  ...(member ? [member] : []),
  rung('type', 'void __w(', ' __x);'),
];

const ladders: Record<string, Rung[]> = {
  typescript: [...ecma, rung('type', 'type __W = ', ';')],
  tsx: [...ecma, rung('type', 'type __W = ', ';')],
  javascript: ecma,
  python: [rung('statement', '', ''), rung('expression', '__w = (', ')'), rung('member', 'class __W:\n    ', '', '    ')],
  go: [
    rung('statement', 'func __w() {\n', '\n}'),
    top,
    rung('expression', 'var __w = ', ''),
    rung('member', 'type __W struct {\n', '\n}'),
    rung('type', 'var __w ', ''),
  ],
  rust: [top, rung('statement', 'fn __w() {\n', '\n}'), rung('member', 'impl __W {\n', '\n}'), rung('type', 'type __W = ', ';')],
  java: [
    top,
    rung('statement', 'class __W { void __w() {\n', '\n} }'),
    rung('expression', 'class __W { Object __w = ', '; }'),
    rung('member', 'class __W {\n', '\n}'),
  ],
  c_sharp: [
    top,
    rung('statement', 'class __W { void __w() {\n', '\n} }'),
    rung('expression', 'class __W { object __w = ', '; }'),
    rung('member', 'class __W {\n', '\n}'),
  ],
  kotlin: [rung('statement', 'fun __w() {\n', '\n}'), rung('member', 'class __W {\n', '\n}'), top],
  scala: [top, rung('statement', 'object __W { def __w() = {\n', '\n} }'), rung('member', 'class __W {\n', '\n}')],
  swift: [rung('statement', '', ''), rung('member', 'class __W {\n', '\n}')],
  c: cLike(rung('member', 'struct __W {\n', '\n};')),
  cpp: cLike(rung('member', 'class __W {\n', '\n};')),
  php: [rung('statement', '<?php\n', ''), rung('member', '<?php\nclass __W {\n', '\n}')],
  ruby: [rung('statement', '', ''), rung('member', 'class W__\n', '\nend')],
};

/**
 * Kinds that a fragment parses as only because it is out of context: a clean parse with one of
 * these at the root is kept as a last resort while the later rungs are tried (`fmt.Println(x)` at
 * Go's top level is a type conversion, `dispose(x)` in a C body a macro type, `Map<K, V>` in a
 * TypeScript statement an instantiation expression rather than the type).
 */
const lastResortKinds: Record<string, readonly string[]> = {
  go: ['type_conversion_expression'],
  c: ['macro_type_specifier'],
  cpp: ['macro_type_specifier'],
  typescript: ['instantiation_expression'],
  tsx: ['instantiation_expression'],
};

export function isLastResort(language: string, kind: string): boolean {
  return lastResortKinds[language]?.includes(kind) ?? false;
}

/** The rungs for a language, in the order they are tried (the top level alone when none are listed). */
export function ladderOf(language: string): readonly Rung[] {
  return ladders[language] ?? [top];
}

/** The fragment placed in a rung: the source to parse and where the fragment starts in it. */
export function wrap(rungToUse: Rung, fragment: string): { source: string; start: number; end: number } {
  const body = rungToUse.indent === undefined ? fragment : fragment.split('\n').join(`\n${rungToUse.indent}`);
  const source = rungToUse.prefix + body + rungToUse.suffix;
  return { source, start: rungToUse.prefix.length, end: rungToUse.prefix.length + body.length };
}
