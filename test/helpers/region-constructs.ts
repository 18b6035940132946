// Generated files for the construct test of region parsing (test/structural/structural-constructs.test.ts).
// This module owns the per-language construct lists (real language forms that are hard for a
// region scanner: decorators, attributes, raw and template strings, macros, generics, labels,
// one-line compound statements, odd indentation, ASI traps…), how a snippet of one to three of
// them is built around the needle and mutated (a line break replaced by a comment, a line
// continuation, CRLF, a form feed or U+00A0; a `;` deleted; a token inserted; two lines swapped),
// and the extra rules each language is searched with (`constructRules`). The seeded generator, the
// placing of a snippet among plain items and the comparison of whole and region parses are
// region-fuzz.ts's. The lists were written by a
// review and found a Python bug on their own (a decorator indented deeper than its `def`): change
// them only knowing that a file's content, for a given seed and index, changes with them.
import { type FuzzFile, type Rule, type Rng, rng, rules, type Where, wrap } from './region-fuzz.js';

/** Where a construct may go: s = statement (top level and function body for brace languages), m = class member (Java: top level too), t = top level only, f = struct field (C, C++, Go). Python takes any construct anywhere. */
type Construct = readonly [tags: string, template: string];

/** The needle call that `$C` in a template stands for. */
const call = 'needle(1)';

const js: readonly Construct[] = [
  ['m', 'static {\n  $C;\n}'],
  ['m', 'get x() { return $C; }'],
  ['m', 'set x(v) { $C; }'],
  ['m', '#p = $C;'],
  ['m', 'static #q() { return this.#p / 2; }'],
  ['m', '@dec({a: /re/})\nm() { $C; }'],
  ['m', '@dec\np = 1;'],
  ['m', 'static async *gen() { yield $C; }'],
  ['m', '#typeof = 1;\nm2() { return this.#typeof / 2 / $C; }'],
  ['m', 'static has(o) { return #p in o; }'],
  ['m', 'constructor(a) { super(a); $C; }'],
  ['m', 'static\nx = $C'],
  ['m', 'get\nneedle() {}'],
  ['m', 'async\nm3() { $C }'],
  ['m', '"quoted"() { $C; }'],
  ['m', '[Symbol.iterator]() { return $C; }'],
  ['m', 'x = () => {\n  $C;\n}'],
  ['m', 'y = {}\nz = $C'],
  ['m', 'static = 1;'],
  ['m', 'in = $C;'],
  ['m', 'accessor k = $C;'],
  ['s', 'class C1 {\n  static {\n    $C;\n  }\n  get a() { return 1 }\n  set a(v) {}\n  #p = 1\n  m() { return this.#p / 2 }\n}'],
  ['s', '@dec\nclass D1 {\n  @dec() m() { $C; }\n}'],
  ['s', 'x = a?.b?.($C)?.[0] / 2;'],
  ['s', 'x = f(a) / 2 / $C;'],
  ['s', 'x = a < b && c > ($C);'],
  ['s', 'x = a < b > /re/.test($C);'],
  ['s', 'const f = () => ({ a: $C });'],
  ['s', 'const f2 = async (x) => {\n  $C;\n};'],
  ['s', 'let a = 1\nlet b = a\n($C)'],
  ['s', 'x = y\n[1, 2].forEach(z => $C)'],
  ['s', 'a = b\n/$C/g.exec(c)'],
  ['s', 'outer: for (const a of b) {\n  inner: while (a) {\n    $C;\n    break outer;\n  }\n}'],
  ['t', 'export default class {\n  m() { $C; }\n}'],
  ['t', 'export default function () {\n  $C;\n}'],
  ['t', 'export default { a: $C };'],
  ['t', 'export default $C;'],
  ['s', 'x = `a${`b${ {c: $C}.c }`}`;'],
  ['s', 'x = tag`${$C}` / 2;'],
  ['s', 'x = `${a}}{` + $C;'],
  ['s', 'x = a ? b : c ? /re/ : $C;'],
  ['s', 'const o = { get: 1, set() { $C; }, static: 2, async *gen() { yield $C; }, if() { return 1 } };'],
  ['s', 'x = o.if(a) / 2 / $C;'],
  ['s', 'x = o.return / 2 / $C;'],
  ['s', 'function* g() {\n  yield\n  $C;\n}'],
  ['s', 'async function a() {\n  await\n  $C;\n}'],
  ['s', 'x = a\n++b\n$C'],
  ['s', 'if (a) {\n  $C;\n}\nelse if (b) {\n}\nelse {\n}'],
  ['s', 'try {\n  $C;\n}\ncatch {\n}\nfinally {\n}'],
  ['s', 'do {\n  $C;\n}\nwhile (a)'],
  ['s', 'switch (a) {\n  case 1: {\n    $C;\n  }\n  default:\n}'],
  ['t', 'import x, { y as z } from "m";'],
  ['t', 'export * as ns from "m";'],
  ['s', 'x = new.target ?? import.meta;'],
  ['s', 'x = /[/]{2}/.test(s) / $C;'],
  ['s', 'x = a\n/ b / $C'],
  ['s', 'label:\n$C;'],
  ['s', 'x = function () {}\n/ 2;'],
  ['s', 'x = {}\n/ 2 / $C;'],
  ['s', 'if (a) /re/.test($C);'],
  ['s', 'x = a++ / 2 / $C;'],
  ['s', 'x = [] / $C;'],
  ['s', 'let async = 1;\nasync\n/ 2 / $C;'],
  ['s', 'x = a\n?.b($C)'],
  ['s', 'x = `\n}\n${$C}\n{`;'],
  ['s', 'var let = 1;\nlet\n/ 2;'],
  ['s', 'for (const [k, v] of Object.entries(o)) $C;'],
  ['s', 'while (a) $C;'],
  ['s', 'x = y /* } */ / $C;'],
  ['s', 'x = "\\\n}\\\n" + $C;'],
  ['s', "x = '\\'' + $C;"],
  ['s', 'x = a ?? /re/;'],
  ['s', 'x = a || /}/;'],
  ['s', 'x = {a, b} = c;'],
  ['s', '({ a: $C } = o);'],
  ['s', 'x = async function* () { yield* $C; };'],
];
const tsOnly: readonly Construct[] = [
  ['t', 'declare module "m" {\n  export function needle(): void;\n}'],
  ['t', 'namespace N.M {\n  export const a = $C;\n}'],
  ['t', 'function needle(a: string): void;\nfunction needle(a: any) {\n  $C;\n}'],
  ['t', 'abstract class Q {\n  abstract m(): void;\n  n() { $C; }\n}'],
  ['t', 'enum E {\n  A = 1 << 2,\n  B = A | 4,\n  C = "x".length,\n}'],
  ['t', 'const enum F {\n  A = 1,\n}'],
  ['t', 'declare global {\n  interface Window {\n    needle: 1;\n  }\n}'],
  ['s', 'let x: <T>(x: T) => T = needle;'],
  ['s', 'let v = <any>$C;'],
  ['s', 'type A<T> = T extends Array<infer U> ? U : never;'],
  ['s', 'for (let i = 0; i < n; i++) {\n  $C;\n}'],
  ['s', 'if (a < b) {\n  $C;\n} else if (b > c) {\n}'],
  ['s', 'const c = { a: 1 } satisfies R;'],
  ['s', 'x = f<T>($C) / 2;'],
  ['s', 'const y = a<b>(c) + $C;'],
  ['s', 'x = a! / 2 / $C;'],
  ['s', 'type X = {\n  a: 1\n}\ntype Y = 2'],
  ['s', 'let m: { [K in keyof T]: T[K] } = $C;'],
  ['s', 'type T1 = `a${string}`;'],
  ['s', 'function assertIsString(val: any): asserts val is string {\n  $C;\n}'],
  ['s', 'function isS(x): x is {}\n{\n  return $C;\n}'],
  ['s', 'x = y as unknown as T / 2;'],
  ['t', 'export = $C;'],
  ['t', 'import type { T } from "m";'],
  ['s', 'declare const dc: number;'],
  ['m', 'private constructor(private a: number) { $C; }'],
  ['m', 'readonly r: number = $C;'],
  ['m', 'override m() { $C; }'],
  ['m', '[k: string]: any;'],
  ['m', 'declare d: number;'],
  ['m', 'm<T>(a: T): T;\nm(a) { return $C; }'],
  ['m', 'abstract z: number;'],
  ['s', 'let fn = <T,>(a: T) => /re/.test($C);'],
  ['s', 'x = a < (b) > /re/;'],
  ['s', 'x = a<b>\n(c) + $C;'],
  ['s', 'x = (a < b) > c / $C;'],
  ['s', 'interface I {\n  a(): {}\n  b: number\n}'],
  ['s', 'function f(): {}\n{\n  $C;\n}'],
  ['s', 'let u: A | {\n}\n| B = $C;'],
];
const c: readonly Construct[] = [
  ['t', 'int needle(void);'],
  ['t', '__attribute__((noinline)) void f(void) {\n  $C;\n}'],
  ['t', 'void f(void) __attribute__((cold));'],
  ['t', 'int f(a, b)\n  int a;\n  char *b;\n{\n  $C;\n}'],
  ['s', '#if 0\n{ unbalanced\n#endif'],
  ['s', '#if 0\n}\n#else\n#endif'],
  ['t', 'in\\\nt needle = 1;'],
  ['s', '// comment \\\n$C;'],
  ['s', 'needle\\\n(1);'],
  ['t', '#define X \\\n  needle(1)'],
  ['s', "x = '??/'';"],
  ['t', '??=define Y 1'],
  ['s', "x = '\\'' + L'\"' + '\\\\' + '\\x7f';"],
  ['s', "x = 1'000'000 + 0b1010'1010;"],
  ['t', 'FOREACH(x, list) {\n  $C;\n}'],
  ['t', 'TEST(Suite, Name) {\n  $C;\n}'],
  ['t', 'BEGIN_NS(x)\nint needle;\nEND_NS(x)'],
  ['t', 'typedef struct S {\n  int a;\n} S_t, *needle;'],
  ['s', 'x = (struct S){ .a = $C };'],
  ['t', 'int arr[] = { [0] = 1, [1] = $C };'],
  ['s', 'x = _Generic(a, int: 1, default: $C);'],
  ['t', '_Static_assert(sizeof(int) == 4, "}");'],
  ['s', 'x = ({ $C; 1; });'],
  ['s', 'asm volatile ("" ::: "memory");'],
  ['t', 'void (*signal(int sig, void (*func)(int)))(int) {\n  return $C;\n}'],
  ['s', 'goto out;\nout:\n  $C;'],
  ['s', 'switch (a) {\ncase 1:\n  $C;\n  break;\ndefault:\n  break;\n}'],
  ['t', 'struct S {\n  int a;\n} needle;'],
  ['t', 'enum E {\n  A,\n  B\n};'],
  ['t', 'static const char *s = "}" "{";'],
  ['s', 'if (a)\n  $C;\nelse\n  b();'],
  ['s', 'do\n  $C;\nwhile (a);'],
  ['t', 'int x = 1,\n  needle = 2;'],
  ['t', '#ifdef A\nint f(void) {\n#else\nint f(int a) {\n#endif\n  return $C;\n}'],
  ['t', '#pragma once'],
  ['t', '#include <stdio.h>'],
  ['t', 'int\nneedle\n(void)\n{\n  return 0;\n}'],
  ['t', 'struct S *\nf(void)\n{\n  return $C;\n}'],
  ['t', 'const int a = 1; int b(void) {\n  return $C;\n}'],
  ['t', 'typedef int (*fp)(int);\nfp needle;'],
  ['t', 'union U {\n  int a;\n  float b;\n}\nneedle;'],
  ['t', 'int needle(void) {\n  return 0;\n} int z;'],
  ['s', 'for (;;) {\n  $C;\n}'],
  ['t', 'static inline int f(void) { return $C; }'],
  ['t', 'extern int a;\nint b = sizeof(struct { int c; });'],
  ['s', 'x = a ? b : $C;'],
  ['s', 'x = "a\\\n}\\\n" + $C;'],
  ['t', 'char s[] = "/*";\nint needle;'],
  ['t', "char c = '\"';\nint needle;"],
  ['f', 'int needle;'],
  ['f', 'struct {\n  int a;\n} needle;'],
  ['f', 'int a : 3, needle : 2;'],
  ['f', 'union {\n  int b;\n};'],
  ['f', 'void (*needle)(int);'],
];
const cppOnly: readonly Construct[] = [
  ['t', 'template <typename T>\nrequires std::is_integral_v<T>\nT needle(T a) { return a; }'],
  ['t', 'template <class T> requires (sizeof(T) > 1) void f(T t) {\n  $C;\n}'],
  ['t', 'auto l = [&](int a) -> int { return $C; };'],
  ['s', 'auto l = [=]() mutable {\n  $C;\n};'],
  ['s', '[](){\n  $C;\n}();'],
  ['t', '[[nodiscard]] int f() {\n  return $C;\n}'],
  ['t', '[[maybe_unused]] static int q = $C;'],
  ['t', 'struct [[gnu::packed]] S {\n  int a;\n};'],
  ['t', 'extern "C" {\nint needle(void);\n}'],
  ['t', 'extern "C" int needle(void) { return 0; }'],
  ['t', 'extern "C++" {\nvoid f() {\n  $C;\n}\n}'],
  ['t', 'std::vector<std::vector<int>> v = {{1}};'],
  ['t', 'template <typename T> using V = std::map<int, std::vector<T>>;'],
  ['t', 'bool operator<(const A& a, const A& b) {\n  return $C;\n}'],
  ['t', 'A& A::operator=(const A&) = default;'],
  ['m', 'auto operator<=>(const A&) const = default;'],
  ['m', 'int operator()(int a) {\n  return $C;\n}'],
  ['m', 'operator bool() const {\n  return $C;\n}'],
  ['t', 'void* operator new(size_t n) {\n  return $C;\n}'],
  ['s', 'auto s = R"xy(a)x")xy" + $C;'],
  ['s', 'auto s = R"(\n})\n)" + $C;'],
  ['s', 'auto s = R"--(})--";'],
  ['s', 'auto s = u8R"*(x)*";'],
  ['s', 'auto s = LR"(")";'],
  ['s', "auto c = u8'x' + U'\\U0001F600';"],
  ['s', "auto d = 1'000.0'1e1'0;"],
  ['t', 'namespace a::b {\nint needle;\n}'],
  ['t', 'inline namespace v1 {\nint f() {\n  return $C;\n}\n}'],
  ['t', 'namespace {\nint needle;\n}'],
  ['t', 'enum class E : std::uint8_t {\n  A = 1,\n};'],
  ['t', 'S::S() : a(1), b{2} {\n  $C;\n}'],
  ['t', 'void f() try {\n  $C;\n} catch (...) {\n}'],
  ['t', 'template <typename T> concept Cn = requires(T a) { a.f(); };'],
  ['t', 'static_assert(sizeof(int) == 4, "}");'],
  ['t', 'using namespace std;'],
  ['m', 'public:\n  int needle;'],
  ['m', 'virtual void m() = 0;'],
  ['m', 'S(int a) : x{a} {\n  $C;\n}'],
  ['m', 'template <typename U>\nvoid m(U u) {\n  $C;\n}'],
  ['m', 'friend bool operator==(const S&, const S&) = default;'],
  ['m', 'static constexpr int k = $C;'],
  ['t', 'template <>\nstruct H<int> {\n  int a;\n};'],
  ['t', 'class X : public B<(1 > 0)> {\n  int a;\n};'],
  ['t', 'auto f() -> decltype(x) {\n  return $C;\n}'],
  ['t', 'void f() noexcept(noexcept(g())) {\n  $C;\n}'],
  ['t', 'int f() const & {\n  return $C;\n}'],
  ['t', 'struct S final {\n  int a;\n}\nneedle;'],
  ['s', 'if constexpr (a > b) {\n  $C;\n}'],
  ['s', 'for (auto& [k, v] : m) {\n  $C;\n}'],
  ['s', 'co_await $C;'],
  ['t', 'template <typename T>\nstruct X {\n  T a;\n}\nneedle;'],
  ['t', 'auto [a, b] = f();'],
  ['t', 'decltype(auto) f() {\n  return $C;\n}'],
];
const java: readonly Construct[] = [
  ['m', '@SuppressWarnings({"a", "b"})\n@Anno(value = "}", x = {1, 2})\nvoid m() {\n  $C;\n}'],
  ['m', '<T extends Comparable<? super T>> T needle(List<? extends T> a) {\n  return null;\n}'],
  ['m', 'Map<String, List<Map<Integer, String>>> m = new HashMap<>();'],
  ['s', 'Runnable r = () -> {\n  $C;\n};'],
  ['s', 'Function<Integer, Integer> f = x -> $C;'],
  ['s', 'Supplier<X> s = this::needle;'],
  ['s', 'String s = """\n  }{ "quoted" \\"""\n  needle(1);\n  """;'],
  ['m', 'String t = """\n  }\n  """ + $C;'],
  ['s', 'int r = switch (x) {\n  case 1 -> $C;\n  case 2 -> {\n    yield 3;\n  }\n  default -> throw new X();\n};'],
  ['m', 'record R(int a, int b) {\n  R {\n    $C;\n  }\n}'],
  ['m', 'sealed interface S permits A, B {}'],
  ['m', 'non-sealed class A implements S {}'],
  ['m', 'Object o = new Object() {\n  public String toString() {\n    return $C;\n  }\n};'],
  ['m', 'enum E {\n  A {\n    void f() {\n      $C;\n    }\n  },\n  B;\n  void f() {}\n}'],
  ['m', '{\n  $C;\n}'],
  ['m', 'static {\n  $C;\n}'],
  ['m', 'int[] a = {1, 2}, b[] = new int[]{3};'],
  ['s', 'outer:\nfor (;;) {\n  $C;\n  break outer;\n}'],
  ['s', "char c = '\\u0022' + '\"' + '\\'';"],
  ['m', 'interface I {\n  default void m() {\n    $C;\n  }\n}'],
  ['s', 'var v = $C;'],
  ['s', 'try (var r = open()) {\n  $C;\n} catch (A | B e) {\n} finally {\n}'],
  ['m', '@interface A {\n  String value() default "}";\n}'],
  ['s', 'x = Collections.<String>emptyList();'],
  ['s', 'if (o instanceof R(int a, int b)) {\n  $C;\n}'],
  ['s', 'switch (o) {\n  case R(var a, var b) when a > 0 -> $C;\n  default -> {}\n}'],
  ['s', 'assert x : "}";'],
  ['s', 'synchronized (this) {\n  $C;\n}'],
  ['s', 'int yield = 1;'],
  ['s', 'x = a < b ? c : d > e ? $C : 1;'],
  ['s', 'List<int[]> l = new ArrayList<>() {{\n  add(null);\n}};'],
  ['m', 'public <T> void g(T... a) {\n  $C;\n}'],
  ['m', 'void h() throws A, B {\n  $C;\n}'],
  ['s', 'if (a)\n  $C;\nelse\n  b();'],
  ['s', 'do {\n  $C;\n} while (a);'],
  ['s', 'class Local {\n  void m() {\n    $C;\n  }\n}'],
  ['m', 'final int needle;'],
  ['m', 'int needle() {\n  return 1;\n}'],
  ['s', 'switch (x) {\n  case 1:\n    $C;\n  default:\n}'],
  ['m', 'void m(@A("}") int a) {\n  $C;\n}'],
  ['m', '@A\n// c\n/* d */\nint needle;'],
  ['s', 'x = y\n  instanceof Z;'],
  ['s', 'String s = "\\u0022" + $C;'],
  ['m', 'record P<T>(T a) implements Q {}'],
  ['s', 'x = new int[] {1}\n.length;'],
];
const go: readonly Construct[] = [
  ['t', 'var s = `}{\n"` + "`" + needle(1)'],
  ['f', 'Name string `json:"name,omitempty"`'],
  ['t', 'func Map[T, U any](s []T, f func(T) U) []U {\n\tneedle(1)\n\treturn nil\n}'],
  ['t', 'type List[T any] struct {\n\tnext *List[T]\n\tneedle int\n}'],
  ['t', 'type Number interface {\n\t~int | ~float64\n}'],
  ['s', 'L:\n\tfor {\n\t\tneedle(1)\n\t\tbreak L\n\t}'],
  ['s', 'select {\ncase v := <-ch:\n\tneedle(v)\ndefault:\n}'],
  ['t', 'var m = map[string][]int{\n\t"a": {1, 2},\n\t"b": {needle(1)},\n}'],
  ['t', 'var f = func(x int) int {\n\treturn needle(x)\n}'],
  ['s', 'go func() {\n\tneedle(1)\n}()'],
  ['s', 'defer func() {\n}()'],
  ['s', "r := '\\'' + '\"' + '`' + '\\x00'"],
  ['s', 'switch x := y.(type) {\ncase int:\n\tneedle(x)\n}'],
  ['t', 'func (r *T) needle() {}'],
  ['t', 'const (\n\tA = iota\n\tB\n)'],
  ['s', 'goto end\nend:\n\tneedle(1)'],
  ['s', 'if err := f(); err != nil {\n\tneedle(err)\n}'],
  ['s', 'if x == (T{}) {\n\tneedle(1)\n}'],
  ['s', 'needle(\n\t1,\n)'],
  ['s', 'for i := range 10 {\n\tneedle(i)\n}'],
  ['t', 'var x = T{\n\tA: 1,\n}\n'],
  ['t', 'var (\n\ta = 1\n\tneedle = 2\n)'],
  ['t', 'type (\n\tA int\n\tB struct {\n\t\tneedle int\n\t}\n)'],
  ['t', 'import (\n\t"fmt"\n\t_ "embed"\n)'],
  ['t', '//go:embed x\nvar needle string'],
  ['s', 'x := []int{\n\t1,\n}\nneedle(1)'],
  ['s', 'x := func() int {\n\treturn 1\n}()\nneedle(x)'],
  ['s', 'if a {\n} else if b {\n\tneedle(1)\n} else {\n}'],
  ['s', 'for {\n\tselect {\n\tcase <-a:\n\t}\n}'],
  ['f', 'needle, b int'],
  ['f', 'embedded.Type'],
  ['f', '*Ptr `tag:"}"`'],
  ['t', 'func init() { needle(1) }'],
  ['s', 's := "/*" + `*/`\nneedle(1)'],
  ['s', 'x := a /\n\tb'],
  ['t', 'var _ = needle(1) /* } */'],
  ['t', 'type F func(int) (int, error)'],
  ['t', 'func (T) M() (x int, err error) {\n\tneedle(1)\n\treturn\n}'],
  ['s', 'ch <- needle(1)'],
];
const py: readonly Construct[] = [
  ['s', '@a\n@b.c(1)\n@d[0]\ndef needle(): pass'],
  ['s', '@(lambda f: f)\ndef g():\n    $C'],
  ['s', 'if a:\n if b:\n  if c:\n   if d:\n    if e:\n     if f:\n      if g:\n       if h:\n        $C'],
  [
    's',
    'match x:\n    case 1 if y:\n        $C\n    case {"a": 1, **rest}:\n        pass\n    case [1, *rest]:\n        pass\n    case Point(x=0):\n        pass\n    case _:\n        $C',
  ],
  ['s', 'match = 1'],
  ['s', 'match(x)'],
  ['s', 'if (n := len(a)) > 10:\n    $C'],
  ['s', 'y = [y for x in a if (y := f(x))]'],
  ['s', 'f = lambda: $C'],
  ['s', 'f = lambda x, /, y=1, *a, **k: $C'],
  ['s', 'if a and \\\n   b:\n    $C'],
  ['s', 'x = 1 + \\\n2'],
  ['s', 'with \\\n  open(x) as f:\n    $C'],
  ['s', 'def f(\\\n):\n    $C'],
  ['s', "s = '''a'b''c'''"],
  ['s', 'r = r"""\\""""'],
  ['s', 'x = f"{f\'{x!r:>{w}}\'}"'],
  ['s', 'x = f"{\'\\n\'.join(a)}"'],
  ['s', "x = f\"{x:{'>' if a else '<'}10}\""],
  ['s', 'x = f"{x=!r:^20}"'],
  ['s', 'x = f\'{a["b"]}\''],
  ['s', 'x = f"{\'{\'}"'],
  ['s', 'x = f"{{}}"'],
  ['s', 'x = f"{x:%Y-%m-%d}"'],
  ['s', 'x = f"{x:{y}.{z}}"'],
  ['s', 'async def f():\n    async with a as b:\n        $C\n    async for x in y:\n        $C\n    await $C'],
  ['s', 'def g():\n    global a\n    nonlocal b\n    $C'],
  ['s', 'x = 1; $C; y = 2'],
  ['s', 'if x: $C'],
  ['s', 'while x: $C; break'],
  ['s', 'class A: pass'],
  ['s', 'def f(): return $C'],
  ['s', 'for x in y: $C'],
  ['s', 'with a: $C'],
  ['s', 'try: $C\nexcept: pass'],
  ['s', 'if a: pass\nelse: $C'],
  ['s', 'def f(a: int = 1, *, b: "str") -> Dict[str, int]:\n    $C'],
  ['s', 'x: int = $C'],
  ['s', 'type Alias[T] = list[T]'],
  ['s', 'def f[T](x: T) -> T:\n    $C'],
  ['s', 'class C[T]:\n    $C'],
  ['s', 'print >>sys.stderr, "x"'],
  ['s', 'exec "code"'],
  ['s', 'del a, b'],
  ['s', 'raise X from $C'],
  ['s', 'assert a, "m"'],
  ['s', 'def g():\n    yield from $C'],
  ['s', '*a, b = $C'],
  ['s', 'x = Rb"a" + bR"b" + U"c"'],
  ['s', 'return (\n    $C\n)'],
  ['s', 'if x:\n    pass\n# comment\nelif y:\n    $C'],
  ['s', 'try:\n    pass\nexcept* E:\n    $C'],
  ['s', 'x = ...'],
  ['s', '...'],
  ['s', 'class A(B, metaclass=M):\n    @property\n    def p(self):\n        return $C'],
  ['s', '@dec\n# c\ndef f():\n    $C'],
  ['s', 'if True:\n    pass\n  # misindented comment\n    $C'],
  ['s', 'def f():\n    \n    $C'],
  ['s', 'def f():\n\t$C'],
  ['s', 'if a:\n    b = 1\nelse:\n    $C'],
  ['s', 'for x in y:\n    $C\nelse:\n    pass'],
  ['s', 'while a:\n    $C\nelse:\n    pass'],
  ['s', 'try:\n    $C\nexcept E as e:\n    pass\nelse:\n    pass\nfinally:\n    pass'],
  ['s', 'x = {**a, "b": $C}'],
  ['s', 'x = [\n    1,\n]\n$C'],
  ['s', 'def f(): pass; $C'],
  ['s', 'if a: pass\nelif b: $C\nelse: pass'],
  ['s', 'class K:\n    """doc"""\n    x = $C'],
  ['s', 'x = (yield)'],
  ['s', 'x = not a'],
  ['s', 'print(a, end="")'],
  ['s', 'x = a if b else c'],
  ['s', 'x = a[1:2, ::3]'],
  ['s', 'x = `a`'],
  ['s', 'def f(*, a): $C'],
  ['s', 'lambda: (yield)'],
  ['s', 'x = """\n"""\\\n"x"'],
  ['s', "x = f'''{\n$C\n}'''"],
  ['s', 'x = f"{x!r}" f"{y}"'],
  ['s', 'from . import (a,\n  b)'],
  ['s', 'from .m import *'],
  ['s', 'import a.b as c'],
  ['s', 'x = a @ b'],
  ['s', 'with (a as b, c as d):\n    $C'],
  ['s', 'case = 1'],
  ['s', 'type = 1'],
  ['s', 'if a:\n    pass\n\n\n\nx = 1'],
  ['s', 'def f():\n    return\\\n        $C'],
  ['s', 'x = [i\n     for i in y\n     if i]'],
];

const sets: Readonly<Record<string, readonly Construct[]>> = {
  javascript: js,
  typescript: [...js, ...tsOnly],
  c,
  cpp: [...c, ...cppOnly],
  java,
  go,
  python: py,
};

// ---------------- Rules ----------------
const jsExtra: Rule[] = [
  { kind: 'method_definition', has: { pattern: 'needle($A)' } },
  { kind: 'class_declaration', has: { pattern: 'needle' } },
  { kind: 'arrow_function', has: { pattern: 'needle($A)' } },
  { kind: 'if_statement', has: { pattern: 'needle($A)' } },
];
const cExtra: Rule[] = [
  { kind: 'struct_specifier', has: { pattern: 'needle' } },
  { kind: 'if_statement', has: { pattern: 'needle($A)' } },
  { kind: 'field_declaration', has: { pattern: 'needle' } },
];
const extraRules: Readonly<Record<string, readonly Rule[]>> = {
  javascript: [...jsExtra, { kind: 'field_definition', has: { pattern: 'needle' } }],
  typescript: [
    ...jsExtra,
    { kind: 'public_field_definition', has: { pattern: 'needle' } },
    { kind: 'interface_declaration', has: { pattern: 'needle' } },
    { kind: 'enum_declaration', has: { pattern: 'needle' } },
    { kind: 'type_alias_declaration', has: { pattern: 'needle' } },
  ],
  c: cExtra,
  cpp: [
    ...cExtra,
    { kind: 'lambda_expression', has: { pattern: 'needle' } },
    { kind: 'class_specifier', has: { pattern: 'needle' } },
    { kind: 'namespace_definition', has: { pattern: 'needle' } },
  ],
  python: [
    { pattern: 'needle' },
    { kind: 'decorated_definition', has: { pattern: 'needle' } },
    { kind: 'if_statement', has: { pattern: 'needle($A)' } },
    { kind: 'case_clause', has: { pattern: 'needle($A)' } },
    { kind: 'import_from_statement', has: { pattern: 'needle' } },
  ],
  java: [
    { kind: 'class_declaration', has: { pattern: 'needle' } },
    { kind: 'lambda_expression', has: { pattern: 'needle' } },
    { kind: 'expression_statement', has: { pattern: 'needle($A)' } },
    { kind: 'local_variable_declaration', has: { pattern: 'needle' } },
    { kind: 'record_declaration', has: { pattern: 'needle' } },
  ],
  go: [
    { kind: 'expression_statement', has: { pattern: 'needle($A)' } },
    { kind: 'func_literal', has: { pattern: 'needle' } },
    { kind: 'type_declaration', has: { pattern: 'needle' } },
    { kind: 'short_var_declaration', has: { pattern: 'needle' } },
    { kind: 'labeled_statement', has: { pattern: 'needle' } },
  ],
};

export const constructLanguages = ['c', 'cpp', 'javascript', 'typescript', 'python', 'java', 'go'] as const;

/** The rules each language's construct files are searched with: region-fuzz.ts's, then nodes of more kinds holding the needle. */
export const constructRules: Readonly<Record<string, readonly Rule[]>> = Object.fromEntries(
  constructLanguages.map((language) => [language, [...rules[language]!, ...extraRules[language]!]]),
);

// ---------------- Snippets ----------------
const needleStatement: Readonly<Record<string, string>> = {
  javascript: 'needle(1);',
  typescript: 'needle(1);',
  c: 'needle(1);',
  cpp: 'needle(1);',
  java: 'needle(1);',
  go: 'needle(1)',
  python: 'needle(1)',
};
const needleMember: Readonly<Record<string, string>> = {
  javascript: 'needle() {}',
  typescript: 'needle() {}',
  c: 'int needle;',
  cpp: 'int needle;',
  java: 'int needle;',
  go: 'needle int',
  python: 'needle(1)',
};

function allowed(language: string, tags: string, where: Where): boolean {
  if (language === 'python') return true;
  if (language === 'java') return tags.includes(where === 'body' ? 's' : 'm');
  if (where === 'cls') {
    if (language === 'cpp') return tags.includes('m') || tags.includes('f');
    return tags.includes(language === 'c' || language === 'go' ? 'f' : 'm');
  }
  if (where === 'body') return tags.includes('s');
  return tags.includes('s') || tags.includes('t');
}

/** The offsets of `character` in `text`. */
function offsets(text: string, character: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(character); at >= 0; at = text.indexOf(character, at + 1)) found.push(at);
  return found;
}

/** Indents every non-empty line of `text` by `indent`. */
const indented = (text: string, indent: string): string =>
  text
    .split('\n')
    .map((line) => (line === '' ? line : indent + line))
    .join('\n');

function constructSnippet(r: Rng, language: string, where: Where): string {
  const set = sets[language];
  if (!set) throw new Error(`no constructs for ${language}`);
  const candidates = set.filter(([tags]) => allowed(language, tags, where));
  const semicolons = language !== 'go' && language !== 'python';
  const statement = needleStatement[language]!;
  const comment = language === 'python' ? '# c' : '// c';
  const parts: string[] = [];
  const n = 1 + r.int(3);
  for (let i = 0; i < n; i++) parts.push(r.pick(candidates)[1].replaceAll('$C', call));
  if (r.chance(0.6)) parts.splice(r.int(parts.length + 1), 0, where === 'cls' ? needleMember[language]! : statement);
  let s = parts.map((part) => part + r.pick(['\n', '\n', '\n\n', ' ', `\n${comment}\n`, '\r\n', '\t\n'])).join('');
  const mutations = r.int(3);
  for (let m = 0; m < mutations; m++) {
    const k = r.int(8);
    const breaks = offsets(s, '\n');
    if (k < 3 && breaks.length > 0) {
      // A line break becomes something else that ends (or continues) the line.
      const at = r.pick(breaks);
      const continuation = language === 'python' || language === 'c' || language === 'cpp' ? '\\\n' : ' /* c */\n';
      s =
        s.slice(0, at) +
        r.pick([' ', '\n\n', `\n${comment}\n`, '\r\n', '\t\n', continuation, '\n    ', '\n\t', ' ' + comment + '\n', '\f\n', '\u00a0\n']) +
        s.slice(at + 1);
    } else if (k < 4 && semicolons) {
      const found = offsets(s, ';');
      if (found.length > 0) {
        const at = r.pick(found);
        s = s.slice(0, at) + s.slice(at + 1);
      }
    } else if (k < 5) {
      const at = r.int(s.length + 1);
      s =
        s.slice(0, at) +
        r.pick([
          statement,
          call,
          'needle',
          '\n' + statement + '\n',
          ' /',
          '/',
          '{',
          '}',
          '(',
          ')',
          ':',
          '\\',
          '"',
          "'",
          '`',
          '#',
          '@dec\n',
          'else',
          'in',
          'as',
        ]) +
        s.slice(at);
    } else if (k < 6) {
      const lines = s.split('\n');
      if (lines.length > 2) {
        const a = r.int(lines.length - 1);
        [lines[a], lines[a + 1]] = [lines[a + 1]!, lines[a]!];
        s = lines.join('\n');
      }
    }
  }
  if (language === 'python' && where !== 'top') s = indented(s, '    ');
  if (language === 'go' && where === 'body') s = indented(s, '\t');
  if (language === 'java' && where !== 'body') s = indented(s, '  ');
  return s;
}

/**
 * Construct file `index` of `seed` for `language`: one to three constructs (and, in 60% of the
 * files, the needle as a statement or member of its own), mutated up to twice, placed at top level
 * (half the files), in a function body or in a class. Depends on nothing but its arguments; for
 * seed s, index i is the review generator's file i of seed s.
 */
export function makeConstructFile(language: string, seed: number, index: number): FuzzFile {
  const r = rng((seed * 7919 + index) >>> 0);
  const where = r.pick<Where>(['top', 'top', 'body', 'cls']);
  const snippet = constructSnippet(r, language, where);
  return { where, snippet, text: wrap[where](language, snippet) };
}
