// The chunker on small real-looking files, one per language (snapshots in test/snapshots/syntax,
// regenerated with FATHOM_UPDATE_SNAPSHOTS=1; a snapshot without its fixture fails), and a table
// of edge cases: broken code mid-edit, empty files, huge functions, minified lines, CRLF, bytes
// that are not UTF-8, a BOM, astral characters, long strings, files without a grammar, shebangs,
// a parse that runs out of time. Every result also passes the invariants of chunk-checks.ts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { FileChunks } from '../../../src/index/syntax/chunk.js';
import { chunkFile } from '../../../src/index/syntax/chunk-file.js';
import { GrammarSet, parseSource } from '../../../src/index/syntax/grammars.js';
import { SourceText } from '../../../src/index/syntax/source-text.js';
import { chunkProblems } from '../../helpers/chunk-checks.js';

const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const fixtures = path.join(repo, 'test/fixtures/syntax');
const snapshots = path.join(repo, 'test/snapshots/syntax');
const update = process.env.FATHOM_UPDATE_SNAPSHOTS === '1';
const grammars = new GrammarSet();

/** Chunks and checks the invariants against a fresh parse of the same bytes. */
async function chunked(relativePath: string, bytes: Uint8Array, budgetBytes: number, extra: { parseTimeoutMs?: number } = {}): Promise<FileChunks> {
  const file = await chunkFile(grammars, { path: relativePath, bytes }, { budgetBytes, ...extra });
  let tree;
  if (file.language && file.chunks[0]?.method === 'syntax') {
    const state = await grammars.load(file.language);
    if (state.state === 'loaded') tree = parseSource(grammars, state.grammar, new SourceText(bytes));
  }
  try {
    assert.deepEqual(chunkProblems(bytes, file, budgetBytes, tree), [], `${relativePath}: invariants`);
  } finally {
    tree?.delete();
  }
  return file;
}

function snapshotOf(file: FileChunks): unknown {
  return {
    language: file.language,
    parseErrors: file.parseErrors,
    problems: file.problems,
    chunks: file.chunks.map((chunk) => ({
      lines: `${chunk.start.line + 1}-${chunk.end.line + 1}`,
      bytes: [chunk.startByte, chunk.endByte],
      ...(chunk.method === 'lines' ? { method: 'lines' } : {}),
      ...(chunk.parseError ? { parseError: true } : {}),
      ...(chunk.oversized ? { oversized: true } : {}),
      scope: chunk.scope.join('.'),
      entities: chunk.entities.map((entity) => `${entity.kind} ${entity.name}`),
      header: chunk.header.split('\n'),
      firstLine: chunk.text.split('\n')[0],
    })),
  };
}

const fixtureFiles = fs
  .readdirSync(fixtures)
  .flatMap((language) => fs.readdirSync(path.join(fixtures, language)).map((name) => `${language}/${name}`))
  .sort();

test('syntax fixtures: one per shipped programming language', () => {
  const languages = new Set(fixtureFiles.map((file) => file.split('/')[0]));
  for (const id of [
    'typescript',
    'tsx',
    'javascript',
    'python',
    'go',
    'rust',
    'java',
    'c',
    'cpp',
    'c_sharp',
    'ruby',
    'php',
    'bash',
    'lua',
    'kotlin',
    'scala',
    'swift',
  ]) {
    assert.ok(languages.has(id), `a fixture for ${id}`);
  }
});

for (const fixture of fixtureFiles) {
  test(`chunks snapshot: ${fixture}`, async () => {
    const bytes = fs.readFileSync(path.join(fixtures, fixture));
    const file = await chunked(`fixtures/${fixture}`, bytes, 1000);
    assert.equal(file.language, fixture.split('/')[0], 'language detected from the extension');
    assert.equal(file.parseErrors, false, 'fixtures are valid code');
    assert.ok(file.chunks.length >= 2, 'more than one chunk at a 1,000-byte budget');
    const disabled = grammars.table.languages.get(fixture.split('/')[0]!)?.disabled;
    if (disabled) {
      assert.ok(
        file.chunks.every((chunk) => chunk.method === 'lines'),
        'a disabled grammar falls back to line windows',
      );
      assert.match(file.problems.join(' '), /disabled/);
    } else {
      assert.ok(
        file.chunks.every((chunk) => chunk.method === 'syntax'),
        'cut on the syntax tree',
      );
      assert.ok(
        file.chunks.some((chunk) => chunk.entities.length > 0 || chunk.scope.length > 0),
        'chunks.scm named some entities',
      );
    }
    const snapshotPath = path.join(snapshots, `${fixture.replace('/', '__')}.json`);
    const actual = `${JSON.stringify(snapshotOf(file), null, 1)}\n`;
    if (update || !fs.existsSync(snapshotPath)) {
      if (!update) assert.fail(`no snapshot ${path.relative(repo, snapshotPath)}: run with FATHOM_UPDATE_SNAPSHOTS=1 and review it`);
      fs.writeFileSync(snapshotPath, actual);
    }
    assert.equal(actual, fs.readFileSync(snapshotPath, 'utf8'), `snapshot ${path.relative(repo, snapshotPath)} (FATHOM_UPDATE_SNAPSHOTS=1 regenerates)`);
  });
}

test('chunks snapshots: none without its fixture', () => {
  const expected = new Set(fixtureFiles.map((fixture) => `${fixture.replace('/', '__')}.json`));
  const stale = fs.readdirSync(snapshots).filter((name) => !expected.has(name));
  assert.deepEqual(stale, [], 'snapshots whose fixture is gone');
});

test('chunks: scope chains through namespace, class and method', async () => {
  const file = await chunked('sample.ts', fs.readFileSync(path.join(fixtures, 'typescript/sample.ts')), 1000);
  const scopes = file.chunks.map((chunk) => chunk.scope.join('.'));
  assert.ok(scopes.includes('Accounts.UserService.updateUser'), `a piece of updateUser: ${scopes.join(' | ')}`);
  const piece = file.chunks.find((chunk) => chunk.text.includes('crypto.randomUUID()'))!;
  assert.equal(piece.scope.join('.'), 'Accounts.UserService.updateUser');
  assert.match(piece.header, /^in: namespace Accounts …$/m);
  assert.match(piece.header, /^in: class UserService extends EventEmitter …$/m);
  assert.match(piece.header, /^uses: .*import \* as crypto from 'node:crypto'/m, 'the crypto import is used there');
  assert.doesNotMatch(piece.header, /^uses: .*database/m, 'the Database import is not used there');
  const python = await chunked('sample.py', fs.readFileSync(path.join(fixtures, 'python/sample.py')), 1000);
  const load = python.chunks.find((chunk) => chunk.scope.join('.') === 'InvoiceProcessor.load');
  assert.ok(load, `a chunk for InvoiceProcessor.load: ${python.chunks.map((chunk) => chunk.scope.join('.')).join(' | ')}`);
  assert.match(load.header, /^in: class InvoiceProcessor: …$/m);
});

interface EdgeCase {
  name: string;
  path: string;
  bytes: () => Uint8Array;
  budget?: number;
  parseTimeoutMs?: number;
  check: (file: FileChunks, bytes: Uint8Array) => void;
}

const longFunction = (): string => {
  const lines = ['function reconcileEverything(input) {'];
  for (let index = 0; index < 400; index++) lines.push(`  const value${index} = input.items[${index}] ?? computeDefault(${index}, 'label ${index}');`);
  lines.push('  return value0;', '}', '');
  return lines.join('\n');
};

const cases: EdgeCase[] = [
  { name: 'empty file', path: 'empty.ts', bytes: () => new Uint8Array(0), check: (file) => assert.deepEqual(file.chunks, []) },
  { name: 'whitespace only', path: 'blank.py', bytes: () => Buffer.from('\n\n   \n\t\n'), check: (file) => assert.deepEqual(file.chunks, []) },
  {
    name: 'unclosed brace mid-edit',
    path: 'editing.ts',
    budget: 80,
    bytes: () =>
      Buffer.from(
        'import { a } from "./a";\n\nexport class Editor {\n  open(path: string) {\n    return a(path);\n  }\n\n  save(path: string) {\n    const text = \n    if (text.length > 0 {\n\nfunction after() {\n  return 42;\n}\n',
      ),
    check: (file) => {
      assert.equal(file.parseErrors, true);
      assert.ok(file.chunks.length >= 2, 'still cut on the tree');
      assert.ok(
        file.chunks.some((chunk) => chunk.parseError),
        'a chunk touching the error is flagged',
      );
      assert.equal(file.chunks[0]!.method, 'syntax');
    },
  },
  {
    name: 'a syntax error stays local',
    path: 'local.py',
    budget: 32,
    bytes: () => Buffer.from('def good():\n    return 1\n\n\ndef broken(:\n    return 2\n\n\ndef also_good():\n    return 3\n'),
    check: (file) => {
      assert.equal(file.parseErrors, true);
      const flagged = file.chunks.filter((chunk) => chunk.parseError).map((chunk) => chunk.text.split('\n')[0]);
      assert.deepEqual(flagged, ['def broken(:']);
    },
  },
  {
    name: 'huge single function splits at statements',
    path: 'huge.js',
    budget: 1500,
    bytes: () => Buffer.from(longFunction()),
    check: (file) => {
      assert.ok(file.chunks.length > 10, `${file.chunks.length} chunks`);
      for (const chunk of file.chunks) assert.deepEqual(chunk.scope, ['reconcileEverything']);
      assert.ok(file.chunks[0]!.text.startsWith('function reconcileEverything(input) {'), 'the head stays with the first statements');
      assert.ok(file.chunks.at(-1)!.text.endsWith('}'), 'the closing brace stays with the last statements');
      for (const chunk of file.chunks.slice(1)) assert.match(chunk.text, /^(const|return)/, 'pieces start at a statement');
    },
  },
  {
    name: 'minified one-line file',
    path: 'bundle.min.js',
    budget: 1500,
    bytes: () => Buffer.from(Array.from({ length: 600 }, (_, index) => `var a${index}=function(b){return b*${index}+c(${index})};`).join('') + '\n'),
    check: (file) => {
      assert.ok(file.chunks.length > 10);
      for (const chunk of file.chunks) {
        assert.equal(chunk.start.line, 0);
        assert.match(chunk.text, /^var a\d+=function/, 'cut between statements');
      }
    },
  },
  {
    name: 'CRLF line ends',
    path: 'windows.py',
    budget: 60,
    bytes: () =>
      Buffer.from(
        'import os\r\n\r\ndef first():\r\n    return os.getcwd()\r\n\r\n\r\ndef second(value):\r\n    """Doubles."""\r\n    return value * 2\r\n\r\n\r\nclass Third:\r\n    def method(self):\r\n        return second(1)\r\n',
      ),
    check: (file, bytes) => {
      assert.ok(file.chunks.length >= 2);
      const second = file.chunks.find((chunk) => chunk.text.startsWith('def second'))!;
      assert.ok(second, 'second() starts a chunk');
      assert.equal(Buffer.from(bytes).subarray(second.startByte, second.endByte).toString(), second.text);
      assert.match(second.text, /\r\n/);
      assert.equal(second.start.character, 0);
    },
  },
  {
    name: 'bytes that are not UTF-8',
    path: 'latin1.c',
    budget: 100,
    bytes: () =>
      Buffer.concat([
        Buffer.from('/* caf'),
        Buffer.from([0xe9]),
        Buffer.from(' au lait */\nint first(void) { return 1; }\n\nint second(void) {\n  return 2; /* '),
        Buffer.from([0xff, 0xfe]),
        Buffer.from(' */\n}\n\nint third(void) { return 3; }\n'),
      ]),
    check: (file, bytes) => {
      const third = file.chunks.find((chunk) => chunk.text.includes('third'))!;
      assert.equal(Buffer.from(bytes).subarray(third.startByte, third.endByte).toString('latin1'), third.text, 'offsets after the bad bytes are exact');
      const second = file.chunks.find((chunk) => chunk.text.includes('second'))!;
      assert.ok(second.text.includes('\ufffd\ufffd'), 'each bad byte reads as one U+FFFD');
    },
  },
  {
    name: 'a byte-order mark',
    path: 'bom.ts',
    budget: 60,
    bytes: () =>
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('export const first = 1;\n\nexport function second(): number {\n  return 2;\n}\n')]),
    check: (file) => {
      assert.equal(file.parseErrors, false, 'the BOM does not confuse the parser');
      assert.equal(file.chunks[0]!.startByte, 3);
      assert.ok(file.chunks[0]!.text.startsWith('export const first'));
    },
  },
  {
    name: 'astral characters count as two UTF-16 units',
    path: 'emoji.js',
    budget: 60,
    bytes: () => Buffer.from('const smile = "😀😀";\nconst other = "🎉";\n\nfunction after() {\n  return smile + other;\n}\n'),
    check: (file, bytes) => {
      const after = file.chunks.find((chunk) => chunk.text.startsWith('function after'))!;
      assert.ok(after);
      assert.equal(Buffer.from(bytes).subarray(after.startByte, after.endByte).toString(), after.text);
      assert.deepEqual(after.start, { line: 3, character: 0 });
    },
  },
  {
    name: 'a string longer than the budget is one oversized chunk',
    path: 'strings.js',
    budget: 200,
    bytes: () => Buffer.from(`const small = 1;\n\nconst big = "${'x'.repeat(1000)}";\n\nconst after = 2;\n`),
    check: (file) => {
      const oversized = file.chunks.filter((chunk) => chunk.oversized);
      assert.equal(oversized.length, 1);
      assert.equal(oversized[0]!.text, `"${'x'.repeat(1000)}"`, 'only the string itself, not a piece of it');
    },
  },
  {
    name: 'no grammar: line windows that prefer blank lines',
    path: 'notes.txt',
    budget: 120,
    bytes: () =>
      Buffer.from(
        'First paragraph line one.\nFirst paragraph line two.\nFirst paragraph line three.\n\nSecond paragraph line one.\nSecond paragraph line two.\n\nThird.\n',
      ),
    check: (file) => {
      assert.equal(file.language, undefined);
      assert.ok(file.chunks.every((chunk) => chunk.method === 'lines'));
      assert.ok(file.chunks[0]!.text.endsWith('line three.'), `first window ends at the blank line: ${JSON.stringify(file.chunks[0]!.text)}`);
    },
  },
  {
    name: 'a long line without a grammar is cut at whitespace',
    path: 'data.txt',
    budget: 100,
    bytes: () => Buffer.from(`${Array.from({ length: 100 }, (_, index) => `word${index}`).join(' ')}\n`),
    check: (file) => {
      assert.ok(file.chunks.length >= 5);
      for (const chunk of file.chunks) assert.match(chunk.text, /^word\d+/);
    },
  },
  {
    name: 'shebang picks the language',
    path: 'bin/tool',
    budget: 1500,
    bytes: () => Buffer.from('#!/usr/bin/env python3\nimport sys\n\ndef main():\n    print(sys.argv)\n'),
    check: (file) => {
      assert.equal(file.language, 'python');
      assert.equal(file.chunks[0]!.method, 'syntax');
    },
  },
  {
    name: 'a parse past its time limit falls back to line windows',
    path: 'slow.ts',
    budget: 100,
    parseTimeoutMs: 0,
    bytes: () => Buffer.from(longFunction()),
    check: (file) => {
      assert.ok(file.chunks.every((chunk) => chunk.method === 'lines'));
      assert.match(file.problems.join(' '), /longer than 0 ms/);
    },
  },
  {
    name: 'a grammar that fails on a file: line windows, and the next file parses',
    path: 'deploy.sh',
    budget: 80,
    bytes: () =>
      Buffer.from('#!/bin/bash\ncase "$1" in\n  start) run_server ;;\n  stop) stop_server ;;\nesac\n\nif [ "$2" == "now" ]; then\n  echo done\nfi\n'),
    check: (file) => {
      assert.equal(file.language, 'bash');
      assert.ok(file.chunks.every((chunk) => chunk.method === 'lines'));
      assert.match(file.problems.join(' '), /the Bash grammar failed on this file/);
    },
  },
  {
    name: 'after a grammar failure the parser works again',
    path: 'after.sh',
    budget: 1500,
    bytes: () => Buffer.from('greet() {\n  echo "hello $1"\n}\n\ngreet world\n'),
    check: (file) => {
      assert.equal(file.chunks[0]!.method, 'syntax');
      assert.deepEqual(file.problems, []);
    },
  },
  {
    name: 'doc comments move with the function they describe',
    path: 'docs.ts',
    budget: 160,
    bytes: () =>
      Buffer.from(
        'export function first(): number {\n  return 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12;\n}\n\n/** Second explains itself. */\nexport function second(): number {\n  return 2;\n}\n',
      ),
    check: (file) => {
      const second = file.chunks.find((chunk) => chunk.text.includes('function second'))!;
      assert.ok(second.text.startsWith('/** Second explains itself. */'), JSON.stringify(second.text));
    },
  },
];

for (const edge of cases) {
  test(`chunks edge case: ${edge.name}`, async () => {
    const bytes = edge.bytes();
    const file = await chunked(edge.path, bytes, edge.budget ?? 1500, edge.parseTimeoutMs === undefined ? {} : { parseTimeoutMs: edge.parseTimeoutMs });
    edge.check(file, bytes);
  });
}
