// The seeded protocol fuzzer of test/reliability/protocol-fuzz.test.ts: frames a hostile client
// sends (well-framed requests with wrong-typed params for every method the protocol documents,
// bodies that are not JSON, messages that are not requests, odd but valid headers, bodies split
// across writes) and frames that break the framing (garbage or truncated headers, a wrong or
// absurd Content-Length, an unterminated header, raw bytes). Strings that could name a real folder
// come only from pools of the fuzz fixture's own paths: a fuzzed root never opens /, $HOME or /tmp.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Methods } from '../../src/protocol/methods.js';
import { ErrorCodes } from '../../src/protocol/errors.js';
import { repository } from './oracle-answers.js';
import type { SeededRandom } from './seeded-random.js';
import { frame } from './strict-client.js';

/** The fuzz fixture: a tiny workspace, and beside it a canary folder nothing may write into. */
export interface FuzzFixture {
  base: string;
  workspace: string;
  canary: string;
  /** Where fathom/exportIndex may write (its `out` is the user's to choose). */
  scratch: string;
}

export function writeFuzzFixture(base: string): FuzzFixture {
  const workspace = path.join(base, 'ws');
  const canary = path.join(base, 'canary');
  const scratch = path.join(base, 'scratch');
  const files: Record<string, string> = {
    'src/app.ts':
      'import { helper } from "./util";\n\nexport class App {\n  run(): number {\n    return helper(JSON.parse("1"));\n  }\n}\n\nexport function start(): App {\n  const app = new App();\n  app.run();\n  return app;\n}\n',
    'src/util.ts': 'export function helper(value: number): number {\n  // TODO: something better\n  return value + 1;\n}\n',
    'lib/legacy.js': 'function legacy(a, b) {\n  return a + b;\n}\nmodule.exports = { legacy };\n',
    'README.md': '# Fuzz fixture\n\nA tiny workspace for the protocol fuzzer.\n',
    'notes.txt': 'retry with backoff after each failure\n',
  };
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(workspace, name)), { recursive: true });
    fs.writeFileSync(path.join(workspace, name), text);
  }
  fs.mkdirSync(canary);
  fs.writeFileSync(path.join(canary, 'canary.txt'), 'untouched\n');
  fs.mkdirSync(scratch);
  return { base, workspace, canary, scratch };
}

/** What changed outside the workspace: entries beside it, the canary's content. Empty when nothing. */
export function writesOutside(fixture: FuzzFixture): string[] {
  const problems: string[] = [];
  const beside = fs.readdirSync(fixture.base).sort();
  if (beside.join(',') !== 'canary,scratch,ws') problems.push(`the folder holding the workspace now holds ${JSON.stringify(beside)}`);
  const canary = fs.readdirSync(fixture.canary);
  if (canary.join(',') !== 'canary.txt') problems.push(`the canary folder now holds ${JSON.stringify(canary)}`);
  else if (fs.readFileSync(path.join(fixture.canary, 'canary.txt'), 'utf8') !== 'untouched\n') problems.push('canary.txt was rewritten');
  const scratch = fs.readdirSync(fixture.scratch).filter((name) => !/^export-\d+\.bin$/.test(name));
  if (scratch.length > 0) problems.push(`the scratch folder holds ${JSON.stringify(scratch)} (only exports were asked for)`);
  return problems;
}

/** The folders a fuzzed daemon's working folder holds: a relative path resolved there (not against a root) would find them. */
export function prepareFuzzCwd(cwd: string): void {
  for (const folder of ['src', 'lib']) fs.mkdirSync(path.join(cwd, folder));
}

/** What a fuzzed daemon wrote into its own working folder (nothing may land there). */
export function writesInCwd(cwd: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(cwd)) {
    if (entry !== 'src' && entry !== 'lib') found.push(`the daemon's working folder holds ${entry}`);
    else for (const inside of fs.readdirSync(path.join(cwd, entry))) found.push(`a write landed in the daemon's working folder: ${entry}/${inside}`);
  }
  return found;
}

/** Every method docs/protocol.md documents (headings and the lifecycle notes), and every name in Methods. */
export function documentedMethods(): string[] {
  const doc = fs.readFileSync(path.join(repository, 'docs', 'protocol.md'), 'utf8');
  const methods = new Set<string>(['initialized', '$/setTrace', 'textDocument/didSave', '$/cancelRequest']);
  for (const heading of doc.split('\n').filter((line) => line.startsWith('### '))) {
    let prefix = '';
    for (const [, name] of heading.matchAll(/`([^`]+)`/g)) {
      if (name!.includes('/')) {
        prefix = name!.slice(0, name!.lastIndexOf('/') + 1);
        methods.add(name!);
      } else methods.add(prefix + name!);
    }
  }
  for (const method of Object.values(Methods)) methods.add(method);
  return [...methods].sort();
}

export const notificationMethods = new Set([
  'initialized',
  'exit',
  '$/setTrace',
  '$/cancelRequest',
  'textDocument/didOpen',
  'textDocument/didChange',
  'textDocument/didClose',
  'textDocument/didSave',
  'workspace/didChangeWorkspaceFolders',
]);

/** Methods that end a session or the daemon: sent only as the last frame of a stdio session. */
export const endingMethods = new Set(['shutdown', 'exit', Methods.stop]);

export const documentedCodes = new Set<number>(Object.values(ErrorCodes));

type Generator = (random: SeededRandom) => unknown;

/** Pools of strings for fields that name places. */
interface Pools {
  roots: string[];
  paths: string[];
  uris: string[];
  programs: string[];
  outs: string[];
}

function pools(fixture: FuzzFixture): Pools {
  const ws = fixture.workspace;
  const canary = fixture.canary;
  const roots = [
    ws,
    ws,
    pathToFileURL(ws).href,
    path.join(ws, 'src'),
    path.join(ws, 'src', 'app.ts'),
    path.join(ws, '..', 'ws'),
    path.join(fixture.base, 'missing'),
    'relative-missing-folder',
    '',
    'file://otherhost/tmp',
    'file:///nonexistent-fathom-fuzz',
    'untitled:Untitled-1',
    `${ws}\0`,
    `${ws}/${'deep/'.repeat(200)}`,
  ];
  const paths = [
    'src/app.ts',
    'src/util.ts',
    path.join(ws, 'lib', 'legacy.js'),
    pathToFileURL(path.join(ws, 'README.md')).href,
    'notes.txt',
    'missing.ts',
    'src',
    '',
    '..',
    '../canary/canary.txt',
    path.join(canary, 'canary.txt'),
    path.join(canary, 'planted.txt'),
    pathToFileURL(path.join(canary, 'planted.txt')).href,
    `${ws}/src/../../canary/planted.txt`,
    '/etc/passwd',
    'src/fuzzed-new.ts',
    'src/\u00e9t\u00e9.ts',
    'a'.repeat(300),
  ];
  const uris = [
    ...paths.filter((item) => item.startsWith('file:')),
    ...paths.filter((item) => path.isAbsolute(item)).map((item) => pathToFileURL(item).href),
    pathToFileURL(path.join(ws, 'src', 'app.ts')).href,
    'untitled:1',
    'file://otherhost/x.ts',
    'not a uri',
    '',
  ];
  const programs = [
    path.join(ws, 'src', 'app.ts'),
    path.join(ws, 'notes.txt'),
    path.join(ws, 'missing.py'),
    path.join(ws, 'missing.go'),
    'relative-missing.py',
    '',
  ];
  const outs = ['relative-export.bin', path.join(fixture.base, 'missing', 'export.bin'), ''];
  return { roots, paths, uris, programs, outs };
}

const junkKeys = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', 'length', 'then', 'x', '', '\u0000', 'k'.repeat(200)];
const oddStrings = [
  '',
  ' ',
  '\u0000',
  '\u001f\u007f',
  '\ud800',
  '\udfff\ud800',
  '𝔘ñí©ødé ☃',
  '\u202e\u2066',
  '${HOME}',
  '%00%2e%2e',
  '\\\\?\\C:\\',
  '../'.repeat(16) + 'etc/passwd',
  'file:///',
  'null',
  'undefined',
  'NaN',
  '-0',
  '1e309',
  '{"a":1}',
  '[]',
  '*'.repeat(40),
  '(?<=a)b',
  '(',
  '\\',
  '\n\r\n',
];
const numbers = [0, -0, 1, -1, 2, 7, 0.5, -3.25, 255, 65_536, 2 ** 31, 2 ** 31 - 1, -(2 ** 31), 2 ** 53 - 1, -(2 ** 53 - 1), 1e21, 1e308, -1e308, 5e-324];

/** A letter-led random string: never an absolute path, never `.` or `..`. */
function randomWord(random: SeededRandom, maxLength = 24): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./*?[]{}()$^|+ ';
  let out = 'abcdefghijklmnopqrstuvwxyz'[random.int(26)]!;
  const length = random.int(maxLength);
  for (let index = 0; index < length; index++) out += alphabet[random.int(alphabet.length)];
  return out;
}

/** A value of any JSON type, often not the one a field wants. `strings` replaces the free-form strings (for fields that name places). */
export function wild(random: SeededRandom, strings?: readonly string[], depth = 0): unknown {
  if (strings?.length === 0) throw new Error('wild: an empty string pool');
  const roll = random.int(depth > 2 ? 7 : 11);
  switch (roll) {
    case 0:
      return random.pick(numbers);
    case 1:
      return random.int(1_000_000) - 500_000;
    case 2:
      return random.chance(0.5);
    case 3:
      return null;
    case 4:
    case 5:
      if (strings) return random.pick(strings);
      return random.chance(0.5) ? random.pick(oddStrings) : randomWord(random);
    case 6:
      if (strings) return random.pick(strings);
      return random.chance(0.9) ? randomWord(random, 200) : 'x'.repeat(random.pick([1_000, 10_000, 100_000]));
    case 7:
      return [];
    case 8:
      return Array.from({ length: random.int(4) + 1 }, () => wild(random, strings, depth + 1));
    case 9: {
      const object: Record<string, unknown> = {};
      for (let index = random.int(4); index >= 0; index--) object[random.pick(junkKeys)] = wild(random, strings, depth + 1);
      return object;
    }
    default: {
      // Deep nesting: arrays or objects a thousand levels down.
      let value: unknown = random.pick([1, 'x', null]);
      const levels = random.pick([50, 500, 2_000]);
      for (let level = 0; level < levels; level++) value = random.chance(0.5) ? [value] : { a: value };
      return value;
    }
  }
}

function position(random: SeededRandom, lsp: boolean): unknown {
  return lsp
    ? { line: random.pick([0, 1, 3, 100, -1]), character: random.pick([0, 2, 10, 1e6]) }
    : { line: random.pick([1, 2, 5, 100, 0, -1]), column: random.pick([1, 3, 12, 1e6, 0]) };
}

function range(random: SeededRandom, lsp: boolean): unknown {
  return { start: position(random, lsp), end: position(random, lsp) };
}

/** For each method, its fields with a generator of plausible values (from docs/protocol.md). */
export function methodFields(fixture: FuzzFixture): Record<string, Record<string, Generator>> {
  const pool = pools(fixture);
  const root: Generator = (random) => random.pick(pool.roots);
  const filePath: Generator = (random) => random.pick(pool.paths);
  const uri: Generator = (random) => random.pick(pool.uris);
  const int =
    (...values: number[]): Generator =>
    (random) =>
      random.pick(values);
  const bool: Generator = (random) => random.chance(0.5);
  const text: Generator = (random) => random.pick(['', 'export const fuzzed = 1;\n', 'x'.repeat(2_000), '\ud800 lone surrogate\n', randomWord(random, 80)]);
  const pattern: Generator = (random) =>
    random.pick(['export', 'function \\w+', 'a(b', '[', '\\u{1F600}', '(?<=x)y', '.*', '', '\\bhelper\\b', 'TODO|FIXME', '\\p{L}+', '(?:', '^$']);
  const query: Generator = (random) =>
    random.pick(['helper', 'App', 'where is the number incremented', '', 'retry backoff', 'App.run', 'a(b', 'x'.repeat(1_000)]);
  const glob: Generator = (random) => random.pick(['*.ts', ['src/**'], '!*.md', '**/*', '*'.repeat(9), '', ['{a,b', '[z-a]'], '/src/*.ts']);
  const languages: Generator = (random) => random.pick([['typescript'], ['ts', 'python'], ['cobol'], 'typescript', [], ['C++']]);
  const language: Generator = (random) => random.pick(['typescript', 'ts', 'javascript', 'python', 'cobol', '', 'C++']);
  const token: Generator = (random) => random.pick(['w1', 7, '', -1]);
  const rule: Generator = (random) =>
    random.pick([
      { pattern: 'helper($A)' },
      { kind: 'call_expression', inside: { kind: 'class_declaration' } },
      { any: [{ pattern: 'a' }, { regex: '(' }] },
      { not: { not: { not: {} } } },
      { has: { stopBy: 'sideways', kind: 1 } },
      { all: 'no' },
    ]);
  const target = {
    root,
    symbol: (random: SeededRandom) => random.pick(['helper', 'App.run', 'start', '', 'nothing']),
    path: filePath,
    position: (random: SeededRandom) => position(random, false),
    range: (random: SeededRandom) => range(random, false),
    minConfidence: (random: SeededRandom) => random.pick(['exact', 'unique', 'name-only', 'sure']),
  };
  const textDocument: Generator = (random) => ({
    uri: uri(random),
    languageId: random.pick(['typescript', 'plaintext', '']),
    version: int(1, 2, -1, 1e9)(random),
    text: text(random),
  });
  const session = {
    session: (random: SeededRandom) => random.pick(['s1', '']),
    conversation: (random: SeededRandom) => random.pick(['agent-1', '', 'x'.repeat(500)]),
  };
  return {
    initialize: {
      processId: int(1, 0, -1),
      rootUri: uri,
      rootPath: root,
      workspaceFolders: (random) => [
        { uri: pathToFileURL(fixture.workspace).href, name: 'ws' },
        ...(random.chance(0.5) ? [{ uri: random.pick(pool.uris), name: 1 }] : []),
      ],
      capabilities: () => ({}),
      initializationOptions: (random) => wild(random, pool.roots),
    },
    initialized: {},
    shutdown: {},
    exit: {},
    '$/setTrace': { value: (random) => random.pick(['off', 'messages', 'verbose', 'loud']) },
    '$/cancelRequest': { id: (random) => random.pick([1, 2, 3, 'f-1', 1e9]) },
    'textDocument/didOpen': { textDocument },
    'textDocument/didChange': {
      textDocument: (random) => ({ uri: uri(random), version: int(2, 3, 0)(random) }),
      contentChanges: (random) =>
        random.pick([[{ text: text(random) }], [{ range: range(random, true), text: 'y' }], [{ range: range(random, true), rangeLength: -4, text: '' }], []]),
    },
    'textDocument/didClose': { textDocument: (random) => ({ uri: uri(random) }) },
    'textDocument/didSave': { textDocument: (random) => ({ uri: uri(random) }), text },
    'workspace/didChangeWorkspaceFolders': {
      event: (random) => ({
        added: random.pick([[], [{ uri: pathToFileURL(fixture.workspace).href, name: 'ws' }], [{ uri: random.pick(pool.uris), name: 'x' }]]),
        removed: [],
      }),
    },
    'workspace/symbol': { query },
    'textDocument/documentSymbol': { textDocument: (random) => ({ uri: uri(random) }) },
    'textDocument/definition': { textDocument: (random) => ({ uri: uri(random) }), position: (random) => position(random, true) },
    'textDocument/references': {
      textDocument: (random) => ({ uri: uri(random) }),
      position: (random) => position(random, true),
      context: (random) => ({ includeDeclaration: random.chance(0.5) }),
    },
    [Methods.index]: { root, wait: bool, workDoneToken: token },
    [Methods.status]: { root },
    [Methods.files]: { root, glob, limit: int(1, 0, 5, -1, 1e9), workDoneToken: token },
    [Methods.merkle]: { root, path: filePath, workDoneToken: token },
    [Methods.grep]: {
      root,
      pattern,
      fixedStrings: bool,
      ignoreCase: bool,
      wordRegexp: bool,
      multiline: bool,
      glob,
      maxResults: int(1, 10, 0, -5, 1e7),
      languages,
      context: int(0, 2, 1_000, 5_000, -1),
      beforeContext: int(0, 3),
      afterContext: int(0, 3, 1_001),
      workDoneToken: token,
    },
    [Methods.codeSearch]: {
      root,
      query,
      mode: (random) => random.pick(['auto', 'lexical', 'semantic', 'hybrid', 'regex', 'literal', 'nope']),
      glob,
      languages,
      paths: (random) => random.pick([['src'], ['/etc'], ['missing'], []]),
      maxResults: int(1, 20, 0, 10_001),
      snippetLines: int(1, 5, 0, 51),
      ignoreCase: bool,
      hybridWeight: int(0, 0.5, 1, 2, -1),
      maxInlineBytes: int(0, 100, 262_144),
      workDoneToken: token,
    },
    [Methods.exportIndex]: {
      root,
      out: (random) => (random.chance(0.5) ? path.join(fixture.scratch, `export-${random.int(4)}.bin`) : random.pick(pool.outs)),
      keyFile: (random) => random.pick([path.join(fixture.workspace, 'README.md'), path.join(fixture.base, 'missing.key')]),
      workDoneToken: token,
    },
    [Methods.teamPush]: {
      root,
      url: (random) =>
        random.pick([
          'host=/nonexistent-fathom-fuzz port=1 dbname=x user=y connect_timeout=1',
          'postgresql://y@%2Fnonexistent-fathom-fuzz:1/x',
          'nonsense',
          '',
        ]),
      keyFile: (random) => random.pick([path.join(fixture.workspace, 'README.md'), path.join(fixture.base, 'missing.key'), 'relative.key']),
      connectTimeoutMs: int(100, 0, 1e9),
      workDoneToken: token,
    },
    [Methods.teamStatus]: {
      root,
      url: (random) => random.pick(['host=/nonexistent-fathom-fuzz port=1 dbname=x user=y', 'bad=key', '']),
      keyFile: (random) => random.pick([path.join(fixture.workspace, 'README.md'), path.join(fixture.base, 'missing.key')]),
      workDoneToken: token,
    },
    [Methods.teamJoin]: {
      root,
      url: (random) => random.pick(['host=/nonexistent-fathom-fuzz port=1 dbname=x user=y connect_timeout=1', 'nonsense', '']),
      keyFile: (random) => random.pick([path.join(fixture.workspace, 'README.md'), path.join(fixture.base, 'missing.key'), 'relative.key']),
      connectTimeoutMs: int(100, 0, 1e9),
      workDoneToken: token,
    },
    [Methods.modelUse]: { root, model: (random) => random.pick(['default', null, fixture.workspace, 'someone/model', '']) },
    [Methods.modelPull]: { id: (random) => random.pick(['someone/some-model', '../etc', '', 'a/b/c']) },
    [Methods.debugLaunch]: {
      program: (random) => random.pick(pool.programs),
      args: (random) => random.pick([[], ['--x'], [1]]),
      cwd: root,
      env: (random) => random.pick([{}, { A: '1' }, { A: 1 }]),
      breakpoints: (random) => [{ path: filePath(random), line: int(1, 0, -1)(random) }],
      stopOnEntry: bool,
      ...session,
      timeoutMs: int(10, 100, -1),
    },
    [Methods.debugState]: { ...session, frames: int(1, 0, 1e6), localsOf: (random) => random.pick([[1], [], ['x']]), maxValue: int(1, 200, -1) },
    [Methods.debugEvaluate]: { expression: (random) => random.pick(['1+1', '', 'x'.repeat(10_000)]), frameId: int(0, 1, -1), ...session },
    [Methods.debugContinue]: { ...session },
    [Methods.debugStep]: { kind: (random) => random.pick(['in', 'over', 'out', 'sideways']), ...session },
    [Methods.debugSetBreakpoints]: { path: filePath, breakpoints: (random) => random.pick([[], [{ line: 1 }], [{ line: -1, condition: 1 }]]), ...session },
    [Methods.debugTerminate]: { ...session },
    [Methods.chunks]: { root, path: filePath, budgetBytes: int(64, 1_500, 3, 1_000_001), includeText: bool, workDoneToken: token },
    [Methods.symbols]: { root, query, kinds: (random) => random.pick([['function'], ['class', 'nope'], []]), glob, limit: int(1, 100, 0, 10_001) },
    [Methods.outline]: { root, path: filePath },
    [Methods.definition]: { ...target },
    [Methods.references]: { ...target, includeDeclaration: bool, limit: int(1, 1_000, 0, 100_001) },
    [Methods.callers]: { ...target, depth: int(1, 2, 10, 11, 0), limit: int(1, 200, 0) },
    [Methods.callees]: { ...target, depth: int(1, 3, 50), limit: int(1, 200, -1) },
    [Methods.impact]: { ...target, depth: int(1, 3, 11), limit: int(1, 1_000, 0) },
    [Methods.structuralSearch]: {
      root,
      language,
      pattern: (random) => random.pick(['helper($A)', '$X.run()', 'new $C()', 'foo($A', '', '$$$', 'a; b']),
      rule,
      constraints: (random) => random.pick([{ A: { regex: '^1' } }, { Z: {} }, []]),
      glob,
      paths: (random) => random.pick([['src'], ['/etc'], []]),
      maxResults: int(1, 1_000, 0, 1e9),
      workDoneToken: token,
    },
    [Methods.structuralRewrite]: {
      root,
      language,
      pattern: (random) => random.pick(['helper($A)', 'legacy($A, $B)', '']),
      rewrite: (random) => random.pick(['helper2($A)', '$B($A)', '']),
      rule,
      paths: (random) => random.pick([['src'], []]),
      workDoneToken: token,
    },
    [Methods.applyRewrite]: { token: (random) => random.pick(['nope', '0'.repeat(32), '']) },
    [Methods.discardRewrite]: { token: (random) => random.pick(['nope', '0'.repeat(32), '']) },
    [Methods.editFile]: {
      root,
      path: filePath,
      edits: (random) => random.pick([[{ range: range(random, true), newText: 'x' }], [{ range: 1 }], []]),
      newText: text,
      expectedVersion: int(0, 1, -1),
      conversation: session.conversation,
      includeHints: bool,
    },
    [Methods.writeFile]: { root, path: filePath, text, expectedVersion: int(0, 1), conversation: session.conversation, includeHints: bool },
    [Methods.newDiagnostics]: { root, path: filePath, conversation: session.conversation, includeHints: bool },
    [Methods.trust]: { path: root, trusted: bool },
    [Methods.stop]: {},
  };
}

/**
 * Fields whose string values must come from the pools (they name folders or files to open, run or
 * write), and which pool. `out` is where fathom/exportIndex writes (the user's choice, so never the
 * canary); `program` is what a debugger would run (never a folder: delve would build it).
 */
function placePool(field: string, pool: Pools): string[] | undefined {
  if (field === 'out') return [...pool.roots, ...pool.outs];
  if (field === 'program') return pool.programs;
  return placeFields.has(field) ? [...pool.roots, ...pool.paths] : undefined;
}
const placeFields = new Set([
  'root',
  'rootUri',
  'rootPath',
  'workspaceFolders',
  'event',
  'initializationOptions',
  'cwd',
  'keyFile',
  'model',
  'path',
  'paths',
  'textDocument',
  'breakpoints',
]);

/** Params for `method`: a random subset of its fields, each plausible or of a random type; now and then not an object at all. */
export function fuzzParams(random: SeededRandom, fields: Record<string, Generator>, fixture: FuzzFixture): unknown {
  const pool = pools(fixture);
  const roll = random.next();
  if (roll < 0.03) return undefined;
  if (roll < 0.07) return random.pick([null, [], [fixture.workspace], 'params', 42, true]);
  const params: Record<string, unknown> = {};
  for (const [field, plausible] of Object.entries(fields)) {
    if (!random.chance(0.7)) continue;
    params[field] = random.chance(0.55) ? plausible(random) : wild(random, placePool(field, pool));
  }
  if (random.chance(0.1)) params[random.pick(junkKeys)] = wild(random, pool.roots);
  return params;
}

/** How a frame is broken or odd. In-sync kinds leave the stream framed; breakers may not. */
export const inSyncKinds = [
  'request',
  'notification',
  'invalid-json',
  'bad-message',
  'unknown-method',
  'padded-length',
  'header-variant',
  'big-body',
  'split',
  'batch-write',
] as const;
export const breakerKinds = [
  'garbage-header',
  'truncated-header',
  'no-length',
  'short-length',
  'negative-length',
  'nan-length',
  'lf-only',
  'random-bytes',
  'oversized',
  'unterminated',
  'exit',
  'shutdown-exit',
  'stop',
] as const;
export type InSyncKind = (typeof inSyncKinds)[number];
export type BreakerKind = (typeof breakerKinds)[number];

const inSyncWeights: [InSyncKind, number][] = [
  ['request', 56],
  ['notification', 10],
  ['invalid-json', 8],
  ['bad-message', 7],
  ['unknown-method', 5],
  ['padded-length', 3],
  ['header-variant', 4],
  ['big-body', 1],
  ['split', 4],
  ['batch-write', 2],
];

export function pickInSyncKind(random: SeededRandom): InSyncKind {
  let roll = random.int(100);
  for (const [kind, weight] of inSyncWeights) {
    if (roll < weight) return kind;
    roll -= weight;
  }
  return 'request';
}

/** One write (or several, for split frames) of a fuzzed frame, and the ids it asks to be answered. */
export interface FuzzFrame {
  kind: InSyncKind | BreakerKind;
  method?: string;
  params?: unknown;
  writes: Buffer[];
  /** Requests with a valid id: each must be answered exactly once. */
  mustAnswer: (string | number)[];
  /** Ids that may be answered (bad messages carrying them). */
  mayAnswer: (string | number)[];
  /** Several frames in one write: each counts as a frame of its own. */
  parts?: FuzzFrame[];
}

export class FrameFactory {
  private counter = 0;
  private methodTurn = 0;
  readonly fields: Record<string, Record<string, Generator>>;
  readonly methods: string[];
  /** Requests sent per method (wrong-typed or not), for the report. */
  readonly perMethod = new Map<string, number>();

  constructor(
    private readonly random: SeededRandom,
    private readonly fixture: FuzzFixture,
    private readonly label: string,
  ) {
    this.fields = methodFields(fixture);
    this.methods = documentedMethods().filter((method) => !endingMethods.has(method));
  }

  /** A fresh id, unique in this run: numbers of several shapes and strings. */
  private id(): string | number {
    const n = ++this.counter;
    switch (this.random.int(5)) {
      case 0:
        return -n;
      case 1:
        return `${this.label}-${n}`;
      case 2:
        return n + 0.5;
      case 3:
        return 1e15 + n;
      default:
        return 1_000_000 + n;
    }
  }

  /** Round-robin over the documented methods, so each gets its share. */
  private nextMethod(): string {
    const method = this.methods[this.methodTurn++ % this.methods.length]!;
    this.perMethod.set(method, (this.perMethod.get(method) ?? 0) + 1);
    return method;
  }

  private message(method: string, withId: boolean): { body: Record<string, unknown>; id?: string | number; params: unknown } {
    const params = fuzzParams(this.random, this.fields[method] ?? {}, this.fixture);
    const body: Record<string, unknown> = { jsonrpc: '2.0', method };
    if (params !== undefined) body.params = params;
    if (!withId) return { body, params };
    const id = this.id();
    body.id = id;
    return { body, id, params };
  }

  inSync(kind: InSyncKind = pickInSyncKind(this.random)): FuzzFrame {
    const random = this.random;
    switch (kind) {
      case 'request': {
        const method = this.nextMethod();
        // Notifications go as notifications, with a request's id now and then (MethodNotFound).
        const asRequest = !notificationMethods.has(method) || random.chance(0.15);
        const { body, id, params } = this.message(method, asRequest);
        return { kind, method, params, writes: [frame(JSON.stringify(body))], mustAnswer: id === undefined ? [] : [id], mayAnswer: [] };
      }
      case 'notification': {
        const method = random.pick([...notificationMethods].filter((name) => name !== 'exit'));
        const { body, params } = this.message(method, false);
        return { kind, method, params, writes: [frame(JSON.stringify(body))], mustAnswer: [], mayAnswer: [] };
      }
      case 'invalid-json': {
        const valid = JSON.stringify({ jsonrpc: '2.0', id: this.id(), method: 'fathom/status', params: {} });
        const body = random.pick([
          () => random.bytes(random.between(1, 400)),
          () => Buffer.from(valid.slice(0, random.int(valid.length))),
          () => Buffer.from(`${valid}}`),
          () => Buffer.from('{"jsonrpc":"2.0","id":1,"method":"fathom/status","params":{"root":"\\ud800\\x"}}'),
          () => Buffer.from([0xef, 0xbb, 0xbf, ...Buffer.from(valid)]),
          () => Buffer.from(`{${'"a":'.repeat(100)}`),
          () => Buffer.from('NaN'),
          () => Buffer.alloc(random.between(1, 64), 0),
        ])();
        return { kind, writes: [frame(body)], mustAnswer: [], mayAnswer: [] };
      }
      case 'bad-message': {
        const id = this.id();
        const body = random.pick([
          [{ jsonrpc: '2.0', id, method: 'fathom/status' }],
          42,
          'just a string',
          null,
          { jsonrpc: '2.0', id },
          { jsonrpc: '2.0', id, method: 42 },
          { jsonrpc: '2.0', id: { nested: true }, method: 'fathom/status' },
          { jsonrpc: '2.0', id: [1], method: 'fathom/status' },
          { jsonrpc: '2.0', id: true, method: 'fathom/status' },
          { jsonrpc: '1.0', id, method: 'fathom/status', params: {} },
          { id, method: 'fathom/status', params: {} },
          { jsonrpc: '2.0', id, result: { fake: 'response' } },
          { jsonrpc: '2.0', id, error: { code: 'x', message: 1 } },
          { jsonrpc: '2.0', id, method: 'fathom/status', params: {}, result: 1 },
        ]);
        return { kind, writes: [frame(JSON.stringify(body))], mustAnswer: [], mayAnswer: [id] };
      }
      case 'unknown-method': {
        const id = this.id();
        const method = random.pick([
          'fathom/nope',
          'constructor',
          '__proto__',
          'hasOwnProperty',
          'fathom/',
          '',
          'rpc.on',
          '$/progress',
          'window/showMessage',
          `fathom/${randomWord(random)}`,
        ]);
        return { kind, method, writes: [frame(JSON.stringify({ jsonrpc: '2.0', id, method, params: wild(random) }))], mustAnswer: [id], mayAnswer: [] };
      }
      case 'padded-length': {
        // A Content-Length larger than the JSON, the rest filled: whitespace (still JSON) or junk.
        const id = this.id();
        const json = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, method: 'fathom/status', params: {} }));
        const pad = random.chance(0.5) ? Buffer.alloc(random.between(1, 64), ' ') : random.bytes(random.between(1, 64));
        const body = Buffer.concat([json, pad]);
        return { kind, writes: [Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body])], mustAnswer: [], mayAnswer: [id] };
      }
      case 'header-variant': {
        const id = this.id();
        const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, method: 'fathom/status', params: {} }));
        const header = random.pick([
          `Content-Length: ${body.length}\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n`,
          `Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: ${body.length}\r\n\r\n`,
          `content-length: ${body.length}\r\n\r\n`,
          `Content-Length:    ${body.length}   \r\n\r\n`,
          `Content-Length: ${body.length}\r\nX-Extra: ${'y'.repeat(random.int(2_000))}\r\n\r\n`,
          `Content-Length: 0${body.length}\r\n\r\n`,
        ]);
        return { kind, writes: [Buffer.concat([Buffer.from(header), body])], mustAnswer: [], mayAnswer: [id] };
      }
      case 'big-body': {
        const id = this.id();
        const method = random.pick([Methods.grep, Methods.status, 'textDocument/didOpen', Methods.symbols]);
        const big = 'z'.repeat(random.pick([64 << 10, 256 << 10]));
        const params =
          method === 'textDocument/didOpen'
            ? { textDocument: { uri: pathToFileURL(path.join(this.fixture.workspace, 'src', 'big.ts')).href, languageId: 'typescript', version: 1, text: big } }
            : { root: this.fixture.workspace, pattern: big, query: big };
        const isRequest = method !== 'textDocument/didOpen';
        const body = { jsonrpc: '2.0', method, params, ...(isRequest ? { id } : {}) };
        return { kind, method, writes: [frame(JSON.stringify(body))], mustAnswer: isRequest ? [id] : [], mayAnswer: [] };
      }
      case 'split': {
        const inner = this.inSync('request');
        const bytes = Buffer.concat(inner.writes);
        const writes: Buffer[] = [];
        for (let offset = 0; offset < bytes.length;) {
          const size = Math.min(bytes.length - offset, random.between(1, 40));
          writes.push(bytes.subarray(offset, offset + size));
          offset += size;
        }
        return { ...inner, kind, writes };
      }
      case 'batch-write': {
        const parts = Array.from({ length: random.between(2, 6) }, () =>
          this.inSync(random.pick(['request', 'notification', 'invalid-json', 'unknown-method'] as const)),
        );
        return { kind, writes: [Buffer.concat(parts.flatMap((part) => part.writes))], mustAnswer: [], mayAnswer: [], parts };
      }
    }
  }

  /** A frame that may break the framing; `oversizedBytes` bounds the stream after an absurd Content-Length. */
  breaker(kind: BreakerKind, oversizedBytes = 16 << 20): FuzzFrame {
    const random = this.random;
    const status = (): Buffer => Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: this.id(), method: 'fathom/status', params: {} }));
    const simple = (bytes: Buffer | string): FuzzFrame => ({
      kind,
      writes: [typeof bytes === 'string' ? Buffer.from(bytes) : bytes],
      mustAnswer: [],
      mayAnswer: [],
    });
    switch (kind) {
      case 'garbage-header':
        return simple(Buffer.concat([Buffer.from(randomWord(random, 60).replace(/:/g, '')), Buffer.from('\r\n\r\n'), status()]));
      case 'truncated-header': {
        const body = status();
        const header = `Content-Length: ${body.length}\r\n\r\n`;
        return simple(Buffer.concat([Buffer.from(header.slice(0, random.between(1, header.length - 5))), Buffer.from('\r\n\r\n'), body]));
      }
      case 'no-length':
        return simple(Buffer.concat([Buffer.from('Content-Type: application/vscode-jsonrpc\r\n\r\n'), status()]));
      case 'short-length': {
        const body = status();
        return simple(Buffer.concat([Buffer.from(`Content-Length: ${random.between(1, body.length - 1)}\r\n\r\n`), body]));
      }
      case 'negative-length':
        return simple(Buffer.concat([Buffer.from('Content-Length: -17\r\n\r\n'), status()]));
      case 'nan-length':
        return simple(Buffer.concat([Buffer.from(`Content-Length: ${random.pick(['abc', '1e3', '0x20', '', '１２'])}\r\n\r\n`), status()]));
      case 'lf-only': {
        const body = status();
        return simple(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\n\n`), body]));
      }
      case 'random-bytes':
        return simple(random.bytes(random.between(16, 4_096)));
      case 'oversized': {
        const chunk = Buffer.alloc(1 << 20, 'a');
        const writes = [Buffer.from('Content-Length: 99999999999\r\n\r\n{"jsonrpc":"2.0","id":1,"method":"fathom/status","params":{"root":"')];
        for (let sent = 0; sent < oversizedBytes; sent += chunk.length) writes.push(chunk);
        return { kind, writes, mustAnswer: [], mayAnswer: [] };
      }
      case 'unterminated': {
        const line = Buffer.from(`X-Junk-${random.int(1000)}: ${'j'.repeat(1_000)}\r\n`);
        return { kind, writes: [Buffer.from('Content-Length: 12\r\n'), ...Array.from({ length: 256 }, () => line)], mustAnswer: [], mayAnswer: [] };
      }
      case 'exit':
        return simple(frame(JSON.stringify({ jsonrpc: '2.0', method: 'exit', params: wild(random) })));
      case 'shutdown-exit': {
        const id = this.id();
        return {
          kind,
          writes: [
            frame(JSON.stringify({ jsonrpc: '2.0', id, method: 'shutdown', params: wild(random) })),
            frame(JSON.stringify({ jsonrpc: '2.0', method: 'exit' })),
          ],
          mustAnswer: [],
          mayAnswer: [id],
        };
      }
      case 'stop': {
        const id = this.id();
        return { kind, writes: [frame(JSON.stringify({ jsonrpc: '2.0', id, method: Methods.stop, params: wild(random) }))], mustAnswer: [], mayAnswer: [id] };
      }
    }
  }
}

/** What a run saw: answers by code, and the answers that break the protocol's promises. */
export class FuzzLedger {
  framesSent = 0;
  readonly byKind = new Map<string, number>();
  readonly byCode = new Map<string, number>();
  readonly internalErrors: string[] = [];
  readonly undocumentedCodes: string[] = [];
  readonly problems: string[] = [];
  /** Answers that came after their request was given up on (dropUnanswered). */
  lateAnswers = 0;
  private readonly must = new Map<string, { method: string; params: unknown }>();
  private readonly may = new Set<string>();
  /** Every request sent, by id: for naming it in findings. */
  private readonly requests = new Map<string, { method: string; params: unknown }>();
  private readonly dropped = new Set<string>();
  private readonly answered = new Set<string>();

  count(frameSent: FuzzFrame): void {
    if (frameSent.parts) {
      for (const part of frameSent.parts) this.count(part);
      return;
    }
    this.framesSent++;
    this.byKind.set(frameSent.kind, (this.byKind.get(frameSent.kind) ?? 0) + 1);
    for (const id of frameSent.mustAnswer) {
      const request = { method: frameSent.method ?? '(batch)', params: frameSent.params };
      this.must.set(JSON.stringify(id), request);
      this.requests.set(JSON.stringify(id), request);
    }
    for (const id of frameSent.mayAnswer) this.may.add(JSON.stringify(id));
  }

  /** Pending ids this connection still owes, for waiting. */
  unanswered(): string[] {
    return [...this.must.keys()].filter((id) => !this.answered.has(id));
  }

  /** Describes the requests still unanswered, and forgets them (their connection is gone). */
  dropUnanswered(): string[] {
    const left = this.unanswered().map((id) => `${this.must.get(id)!.method} (id ${id}) params ${JSON.stringify(this.must.get(id)!.params)?.slice(0, 160)}`);
    for (const id of this.unanswered()) {
      this.must.delete(id);
      this.dropped.add(id);
    }
    return left;
  }

  /** Adds another connection's counts and findings to this one's. */
  absorb(other: FuzzLedger): void {
    this.framesSent += other.framesSent;
    for (const [kind, count] of other.byKind) this.byKind.set(kind, (this.byKind.get(kind) ?? 0) + count);
    for (const [code, count] of other.byCode) this.byCode.set(code, (this.byCode.get(code) ?? 0) + count);
    this.internalErrors.push(...other.internalErrors);
    this.undocumentedCodes.push(...other.undocumentedCodes);
    this.problems.push(...other.problems);
    this.lateAnswers += other.lateAnswers;
  }

  /**
   * Checks one message the daemon sent. The harness's own requests (StrictClient ids 1 to
   * 999,999) are not fuzzed ones: fuzzed ids are negative, fractional, strings or above a million.
   */
  /** The requests given up on (dropUnanswered) that no late answer came for either. */
  neverAnswered(): string[] {
    return [...this.dropped]
      .filter((id) => !this.answered.has(id))
      .map((id) => `${this.requests.get(id)!.method} (id ${id}) params ${JSON.stringify(this.requests.get(id)!.params)?.slice(0, 160)}`);
  }

  observe(message: { id?: unknown; method?: string; error?: { code: number; message: string } }, label: string): void {
    if (message.method !== undefined) return;
    if (typeof message.id === 'number' && Number.isInteger(message.id) && message.id > 0 && message.id < 1_000_000) return;
    const code = message.error ? String(message.error.code) : 'result';
    this.byCode.set(code, (this.byCode.get(code) ?? 0) + 1);
    if (message.error && !documentedCodes.has(message.error.code))
      this.undocumentedCodes.push(`${label}: code ${message.error.code} (${message.error.message.slice(0, 120)})`);
    if (message.id === null || message.id === undefined) {
      if (!message.error) this.problems.push(`${label}: a result with a null id`);
      return;
    }
    const key = JSON.stringify(message.id);
    const request = this.requests.get(key);
    if (message.error?.code === ErrorCodes.InternalError)
      this.internalErrors.push(
        `${label}: ${request?.method ?? '?'} ${JSON.stringify(request?.params)?.slice(0, 200)} → ${message.error.message.slice(0, 200)}`,
      );
    if (this.answered.has(key)) this.problems.push(`${label}: a second answer to id ${key}`);
    else if (this.dropped.has(key)) this.lateAnswers++;
    else if (!this.must.has(key) && !this.may.has(key)) this.problems.push(`${label}: an answer to id ${key}, which was never sent (cross-talk)`);
    this.answered.add(key);
  }
}
