// Edits through Fathom answered with only the diagnostics they introduced, with real language
// servers (typescript-language-server and pyright, npm dependencies) on fixture projects: a new
// error, errors that only moved, a duplicated error, fix and re-break, an error caused in an
// importing file. Then the servers' lives: lazy start, idle reaping, a crash (killed: restarted and
// reported), a server that never answers (`timeout`, never clean), a missing binary or marker
// (`no-server` with the reason), and bad edits (the file untouched).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';
import { FathomError } from '../../src/base/errors.js';
import { DiagnosticsService, type EditAnswer } from '../../src/lsp/diagnostics-service.js';
import { LanguageServers } from '../../src/lsp/language-servers.js';
import type { LspDiagnostic } from '../../src/lsp/language-server.js';
import { DiagnosticLedger } from '../../src/lsp/ledger.js';
import { knownServers, ServerRegistry, serversFromConfig, type ServerSpec } from '../../src/lsp/registry.js';
import { tempDir } from '../helpers/fixture.js';

function project(files: Record<string, string>): string {
  const root = tempDir('fathom-lsp-');
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
  return root;
}

/** `file:line: message` of each new diagnostic, files relative to root. */
function summary(root: string, answer: EditAnswer): string[] {
  return answer.newDiagnostics.flatMap((entry) =>
    entry.diagnostics.map((diagnostic) => `${path.relative(root, entry.path)}:${diagnostic.range.start.line}: ${diagnostic.message.split('\n')[0]}`),
  );
}

/**
 * Writes a fake language server: Content-Length framing and `send(message)`, shutdown and exit
 * answered, and every other message given to `handle(message, params)`, which `body` defines.
 */
function fakeServer(root: string, name: string, body: string): string {
  const script = path.join(root, `${name}.mjs`);
  fs.writeFileSync(
    script,
    `let buffer = '';
const send = (message) => { const body = JSON.stringify(message); process.stdout.write('Content-Length: ' + Buffer.byteLength(body) + '\\r\\n\\r\\n' + body); };
${body}
process.stdin.on('data', (chunk) => {
  buffer += chunk.toString('utf8');
  for (;;) {
    const match = /Content-Length: (\\d+)\\r\\n\\r\\n/.exec(buffer);
    if (!match || buffer.length < match.index + match[0].length + Number(match[1])) return;
    const message = JSON.parse(buffer.slice(match.index + match[0].length, match.index + match[0].length + Number(match[1])));
    buffer = buffer.slice(match.index + match[0].length + Number(match[1]));
    if (message.method === 'shutdown') send({ jsonrpc: '2.0', id: message.id, result: null });
    else if (message.method === 'exit') process.exit(0);
    else handle(message, message.params ?? {});
  }
});
`,
  );
  return script;
}

interface Case {
  name: string;
  language: string;
  files: Record<string, string>;
  file: string;
  exported: string;
  introduce: (text: string) => string;
  newError: string;
  brokenLine: string;
  duplicateLine: string;
  duplicateError: string;
  changeExport: string;
  importerError: string;
}

const cases: Case[] = [
  {
    name: 'typescript-language-server',
    language: 'typescript',
    files: {
      'tsconfig.json': '{"compilerOptions":{"strict":true,"noEmit":true}}',
      'src/math.ts': 'export function add(a: number, b: number): number {\n  return a + b;\n}\n',
      'src/use.ts': 'import { add } from "./math";\nexport const total: number = add(1, 2);\nexport const broken: string = 1;\n',
    },
    file: 'src/use.ts',
    exported: 'src/math.ts',
    introduce: (text: string) => `${text}export const worse: number = "text";\n`,
    newError: "src/use.ts:3: Type 'string' is not assignable to type 'number'.",
    brokenLine: 'export const broken: string = 1;\n',
    duplicateLine: 'export const broken2: string = 1;\n',
    duplicateError: "src/use.ts:3: Type 'number' is not assignable to type 'string'.",
    changeExport: 'export function add(a: number, b: number, c: number): number {\n  return a + b + c;\n}\n',
    importerError: 'src/use.ts:1: Expected 3 arguments, but got 2.',
  },
  {
    name: 'pyright',
    language: 'python',
    files: {
      'pyproject.toml': '[project]\nname = "fixture"\n',
      'pkg/__init__.py': '',
      'pkg/mathx.py': 'def add(a: int, b: int) -> int:\n    return a + b\n',
      'pkg/use.py': 'from pkg.mathx import add\n\ntotal: int = add(1, 2)\nbroken: str = 1\n',
    },
    file: 'pkg/use.py',
    exported: 'pkg/mathx.py',
    introduce: (text: string) => `${text}worse: int = "text"\n`,
    newError: 'pkg/use.py:4: Type "Literal[\'text\']" is not assignable to declared type "int"',
    brokenLine: 'broken: str = 1\n',
    duplicateLine: 'broken2: str = 1\n',
    duplicateError: 'pkg/use.py:4: Type "Literal[1]" is not assignable to declared type "str"',
    changeExport: 'def add(a: int, b: int, c: int) -> int:\n    return a + b + c\n',
    importerError: 'pkg/use.py:2: Argument missing for parameter "c"',
  },
];

for (const fixture of cases) {
  describe(`new diagnostics: ${fixture.name}`, () => {
    const servers = new LanguageServers({ idleMs: 0 });
    const service = new DiagnosticsService(new ServerRegistry(), servers, new DiagnosticLedger());
    after(() => servers.stopAll());
    const root = project(fixture.files);
    const file = path.join(root, fixture.file);
    const edit = (newText: string, ledgerKey = 'agent', dependents: string[] = []) =>
      service.edit({ workspaceRoot: root, absolutePath: file, language: fixture.language, newText, ledgerKey, dependents: async () => dependents });
    const original = fixture.files[fixture.file]!;

    test('an edit that introduces an error answers with exactly that error (the one already there is not new)', async () => {
      const answer = await edit(fixture.introduce(original));
      assert.equal(answer.status, 'ok', answer.reason);
      assert.equal(answer.applied, true);
      assert.deepEqual(summary(root, answer), [fixture.newError]);
    });

    test('inserting blank lines above existing errors answers with none', async () => {
      const answer = await edit(`\n\n${fixture.introduce(original)}`);
      assert.equal(answer.status, 'ok', answer.reason);
      assert.deepEqual(summary(root, answer), []);
    });

    test('fixing then re-breaking answers with the error again', async () => {
      const fixed = await edit(original);
      assert.deepEqual(summary(root, fixed), []);
      const again = await edit(fixture.introduce(original));
      assert.deepEqual(summary(root, again), [fixture.newError]);
    });

    test('duplicating a broken line answers with one new error', async () => {
      await edit(original);
      const answer = await edit(original.replace(fixture.brokenLine, fixture.brokenLine + fixture.duplicateLine));
      assert.equal(answer.status, 'ok', answer.reason);
      assert.deepEqual(summary(root, answer), [fixture.duplicateError]);
    });

    test('an edit to an exported function reports the new error in the importing file', async () => {
      await edit(original);
      const exported = path.join(root, fixture.exported);
      const answer = await service.edit({
        workspaceRoot: root,
        absolutePath: exported,
        language: fixture.language,
        newText: fixture.changeExport,
        ledgerKey: 'agent',
        dependents: async () => [file],
      });
      assert.equal(answer.status, 'ok', answer.reason);
      assert.deepEqual(summary(root, answer), [fixture.importerError]);
    });
  });
}

describe('language server lives', () => {
  const tsFiles = { 'tsconfig.json': '{"compilerOptions":{"strict":true,"noEmit":true}}', 'a.ts': 'export const a: number = 1;\n' };

  test('nothing starts before the first edit; one process after; reaped when idle', async () => {
    const servers = new LanguageServers({ idleMs: 60_000 });
    const service = new DiagnosticsService(new ServerRegistry(), servers, new DiagnosticLedger());
    const root = project(tsFiles);
    assert.deepEqual(servers.status(), []);
    const answer = await service.edit({
      workspaceRoot: root,
      absolutePath: path.join(root, 'a.ts'),
      language: 'typescript',
      newText: 'export const a: number = 2;\n',
      ledgerKey: 'k',
    });
    assert.equal(answer.status, 'ok');
    const [status] = servers.status();
    assert.equal(status!.state, 'running');
    assert.ok(status!.pid! > 0);
    const pid = status!.pid!;
    assert.equal(await servers.reap(Date.now() + 61_000), 1);
    assert.deepEqual(servers.status(), []);
    assert.throws(() => process.kill(pid, 0), 'the process is gone');
    await servers.stopAll();
  });

  test('typescript-language-server is asked through tsserver, and answers as its own publishes say', async () => {
    const servers = new LanguageServers({ idleMs: 0 });
    const service = new DiagnosticsService(new ServerRegistry(), servers, new DiagnosticLedger());
    const root = project({ ...tsFiles, 'b.ts': 'export const b: number = 1;\n' });
    const file = path.join(root, 'b.ts');
    const broken =
      '// @ts-expect-error unused on purpose\nexport const b: number = 1;\nexport const c: string = 2;\nexport const d = (;\nfunction unused(x: number) {}\n';
    const answer = await service.edit({ workspaceRoot: root, absolutePath: file, language: 'typescript', newText: broken, ledgerKey: 'k', includeHints: true });
    assert.equal(answer.status, 'ok', answer.reason);
    const server = servers.running('typescript', root)!;
    assert.equal(server.diagnosticsMode, 'tsserver');
    // Its own publish for the same text, whenever it comes: the same diagnostics (so both ways give
    // the ledger the same keys), syntax, semantic and suggestion passes alike.
    const uri = pathToFileURL(file).href;
    const asked = await server.diagnostics(uri, server.sync(uri, 'typescript', broken));
    const key = (diagnostic: LspDiagnostic): string =>
      JSON.stringify([diagnostic.range, diagnostic.severity, diagnostic.code, diagnostic.source, diagnostic.message]);
    const published = await new Promise<LspDiagnostic[]>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const settle = (): void => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          stop();
          resolve(server.publishedFor(uri)?.diagnostics ?? []);
        }, 1_500);
      };
      const stop = server.watch(settle);
      settle();
    });
    assert.deepEqual(asked.diagnostics.map(key).sort(), published.map(key).sort());
    assert.deepEqual([...new Set(asked.diagnostics.map((diagnostic) => diagnostic.severity))].sort(), [1, 4], 'errors and hints');
    await servers.stopAll();
  });

  function pushServer(behaviour: string): { root: string; push: ServerSpec } {
    const root = project({ 'push.marker': '', 'a.ts': 'ok\n' });
    // Publishes (with versions) one error per line holding BAD; answers the tsserver request as `behaviour` says.
    const script = fakeServer(
      root,
      'push-server',
      `const behaviour = process.argv[2];
const publish = (uri, version, text) => send({ jsonrpc: '2.0', method: 'textDocument/publishDiagnostics', params: { uri, version, diagnostics: text.split('\\n').flatMap((line, index) => (line.includes('BAD') ? [{ range: { start: { line: index, character: 0 }, end: { line: index, character: line.length } }, severity: 1, source: 'push', message: 'bad line' }] : [])) } });
const handle = (message, params) => {
  if (message.method === 'initialize') send({ jsonrpc: '2.0', id: message.id, result: { capabilities: { textDocumentSync: 1 } } });
  else if (message.method === 'workspace/executeCommand') {
    if (behaviour === 'unknown-method') send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'unknown command' } });
    else if (behaviour === 'null') send({ jsonrpc: '2.0', id: message.id, result: null });
    else if (behaviour === 'no-server') send({ jsonrpc: '2.0', id: message.id, result: { type: 'noServer' } });
    else send({ jsonrpc: '2.0', id: message.id, result: { type: 'response', success: false, message: 'No Project.' } });
  } else if (message.method === 'textDocument/didOpen') publish(params.textDocument.uri, params.textDocument.version, params.textDocument.text);
  else if (message.method === 'textDocument/didChange') publish(params.textDocument.uri, params.textDocument.version, params.contentChanges[0].text);
};`,
    );
    return {
      root,
      push: {
        id: 'push',
        name: 'push-server',
        languages: { typescript: 'typescript' },
        rootMarkers: ['push.marker'],
        binary: process.execPath,
        args: [script, behaviour],
        diagnosticsRequest: 'tsserver',
      },
    };
  }

  // A push server (versioned publishes: one error per line holding BAD) whose answer to the tsserver
  // request is the given behaviour.
  const tsserverAnswers: [string, string, string][] = [
    ['unknown-method', 'an unknown method: waited for by its publishes from then on', 'push'],
    ['null', 'no answer (as typescript-language-server answers an unknown command): its publishes from then on', 'push'],
    ['no-project', 'tsserver failing on one file: its publishes for this answer only', 'tsserver'],
  ];
  for (const [behaviour, name, mode] of tsserverAnswers) {
    test(`asked through tsserver, ${name}`, async () => {
      const { root, push } = pushServer(behaviour);
      const servers = new LanguageServers({ idleMs: 0, timings: { settleMs: 50, diagnosticsTimeoutMs: 5_000, initializeTimeoutMs: 5_000 } });
      const service = new DiagnosticsService(new ServerRegistry([push]), servers, new DiagnosticLedger());
      const edit = (newText: string) =>
        service.edit({ workspaceRoot: root, absolutePath: path.join(root, 'a.ts'), language: 'typescript', newText, ledgerKey: 'k' });
      const first = await edit('ok\nBAD\n');
      assert.equal(first.status, 'ok', first.reason);
      assert.deepEqual(summary(root, first), ['a.ts:1: bad line']);
      assert.equal(servers.running('push', root)!.diagnosticsMode, mode);
      const second = await edit('BAD\nok\nBAD\n');
      assert.equal(second.status, 'ok', second.reason);
      assert.deepEqual(summary(root, second), ['a.ts:2: bad line'], 'the second instance is new');
      await servers.stopAll();
    });
  }

  test('asked through tsserver, a tsserver gone under a live server: crashed, restarted and reported', async () => {
    const { root, push } = pushServer('no-server');
    const servers = new LanguageServers({ idleMs: 0, backoffMs: 10, timings: { settleMs: 50, diagnosticsTimeoutMs: 5_000, initializeTimeoutMs: 5_000 } });
    const service = new DiagnosticsService(new ServerRegistry([push]), servers, new DiagnosticLedger());
    const answer = await service.edit({
      workspaceRoot: root,
      absolutePath: path.join(root, 'a.ts'),
      language: 'typescript',
      newText: 'ok\nBAD\n',
      ledgerKey: 'k',
    });
    assert.equal(answer.status, 'server-crashed');
    assert.equal(answer.applied, true);
    const next = await service.edit({ workspaceRoot: root, absolutePath: path.join(root, 'a.ts'), language: 'typescript', newText: 'ok\n', ledgerKey: 'k' });
    assert.match(next.crash ?? '', /push-server killed by SIGKILL/);
    await servers.stopAll();
  });

  test('a crashed server is restarted on the next edit, and the crash is reported once', async () => {
    const servers = new LanguageServers({ idleMs: 0, backoffMs: 10 });
    const service = new DiagnosticsService(new ServerRegistry(), servers, new DiagnosticLedger());
    const root = project(tsFiles);
    const file = path.join(root, 'a.ts');
    await service.edit({ workspaceRoot: root, absolutePath: file, language: 'typescript', newText: 'export const a: number = 2;\n', ledgerKey: 'k' });
    const server = servers.running('typescript', root)!;
    const exited = new Promise((resolve) => server.onExit(resolve));
    server.kill();
    await exited;
    assert.equal(servers.status()[0]!.state, 'exited');
    const answer = await service.edit({
      workspaceRoot: root,
      absolutePath: file,
      language: 'typescript',
      newText: 'export const a: number = "x";\n',
      ledgerKey: 'k',
    });
    assert.match(answer.crash ?? '', /typescript-language-server killed by SIGKILL/);
    assert.equal(answer.status, 'ok');
    assert.equal(answer.newDiagnostics[0]?.diagnostics[0]?.message, "Type 'string' is not assignable to type 'number'.");
    assert.equal(servers.status()[0]!.crashes, 1);
    const next = await service.edit({
      workspaceRoot: root,
      absolutePath: file,
      language: 'typescript',
      newText: 'export const a: number = 3;\n',
      ledgerKey: 'k',
    });
    assert.equal(next.crash, undefined, 'reported once');
    await servers.stopAll();
  });

  test('a server that never publishes answers timeout, never a clean list', async () => {
    const root = project({ 'silent.marker': '', 'a.ts': 'export const a = 1;\n' });
    // Answers initialize and shutdown, then says nothing: a hung checker.
    const script = fakeServer(
      root,
      'silent-server',
      `const handle = (message) => {
  if (message.method === 'initialize') send({ jsonrpc: '2.0', id: message.id, result: { capabilities: { textDocumentSync: 1 } } });
};`,
    );
    const silent: ServerSpec = {
      id: 'silent',
      name: 'silent-server',
      languages: { typescript: 'typescript' },
      rootMarkers: ['silent.marker'],
      binary: process.execPath,
      args: [script],
    };
    const servers = new LanguageServers({ idleMs: 0, timings: { settleMs: 50, diagnosticsTimeoutMs: 800, initializeTimeoutMs: 5_000 } });
    const service = new DiagnosticsService(new ServerRegistry([silent]), servers, new DiagnosticLedger());
    const answer = await service.edit({
      workspaceRoot: root,
      absolutePath: path.join(root, 'a.ts'),
      language: 'typescript',
      newText: 'export const a = 2;\n',
      ledgerKey: 'k',
    });
    assert.equal(answer.applied, true);
    assert.equal(answer.status, 'timeout');
    assert.match(answer.reason!, /gave no diagnostics for .*a\.ts in time/);
    await servers.stopAll();
  });

  test('a pull-only server (textDocument/diagnostic, as TypeScript 7 `tsc --lsp`) is asked, not waited for', async () => {
    const root = project({ 'pull.marker': '', 'a.ts': 'ok\n' });
    // Offers diagnosticProvider and never publishes; answers a pull with one error per line holding BAD.
    const script = fakeServer(
      root,
      'pull-server',
      `const texts = new Map();
const handle = (message, params) => {
  if (message.method === 'initialize') send({ jsonrpc: '2.0', id: message.id, result: { capabilities: { textDocumentSync: 1, diagnosticProvider: { interFileDependencies: false, workspaceDiagnostics: false } } } });
  else if (message.method === 'textDocument/didOpen') texts.set(params.textDocument.uri, params.textDocument.text);
  else if (message.method === 'textDocument/didChange') texts.set(params.textDocument.uri, params.contentChanges[0].text);
  else if (message.method === 'textDocument/diagnostic') {
    const lines = (texts.get(params.textDocument.uri) ?? '').split('\\n');
    const items = lines.flatMap((line, index) => (line.includes('BAD') ? [{ range: { start: { line: index, character: 0 }, end: { line: index, character: line.length } }, severity: 1, source: 'pull', message: 'bad line' }] : []));
    send({ jsonrpc: '2.0', id: message.id, result: { kind: 'full', items } });
  }
};`,
    );
    const pull: ServerSpec = {
      id: 'pull',
      name: 'pull-server',
      languages: { typescript: 'typescript' },
      rootMarkers: ['pull.marker'],
      binary: process.execPath,
      args: [script],
    };
    const servers = new LanguageServers({ idleMs: 0, timings: { settleMs: 5_000, diagnosticsTimeoutMs: 5_000, initializeTimeoutMs: 5_000 } });
    const service = new DiagnosticsService(new ServerRegistry([pull]), servers, new DiagnosticLedger());
    const edit = (newText: string) =>
      service.edit({ workspaceRoot: root, absolutePath: path.join(root, 'a.ts'), language: 'typescript', newText, ledgerKey: 'k' });
    const started = performance.now();
    const first = await edit('ok\nBAD\n');
    assert.ok(performance.now() - started < 4_000, 'answered by the pull, not by waiting out the settle window');
    assert.equal(first.status, 'ok');
    assert.deepEqual(summary(root, first), ['a.ts:1: bad line']);
    const moved = await edit('ok\n\n\nBAD\n');
    assert.deepEqual(summary(root, moved), [], 'moved, not new');
    const twice = await edit('BAD\nok\n\n\nBAD\n');
    assert.deepEqual(summary(root, twice), ['a.ts:4: bad line'], 'a second instance is new (the later one)');
    await servers.stopAll();
  });

  test('no marker or no binary: no-server, with what is missing', async () => {
    const servers = new LanguageServers({ idleMs: 0 });
    const root = project({ 'a.ts': 'export const a = 1;\n', 'b.go': 'package b\n', 'go.mod': 'module b\n' });
    const noGopls = knownServers.map((spec) => (spec.id === 'gopls' ? { ...spec, binary: 'fathom-no-such-gopls' } : spec));
    const service = new DiagnosticsService(new ServerRegistry(noGopls), servers, new DiagnosticLedger());
    const noMarker = await service.edit({
      workspaceRoot: root,
      absolutePath: path.join(root, 'a.ts'),
      language: 'typescript',
      newText: 'export const a = 2;\n',
      ledgerKey: 'k',
    });
    assert.equal(noMarker.status, 'no-server');
    assert.equal(noMarker.applied, true);
    assert.match(noMarker.reason!, /no tsconfig\.json \/ jsconfig\.json \/ package\.json between the file and the workspace root/);
    const noBinary = await service.edit({
      workspaceRoot: root,
      absolutePath: path.join(root, 'b.go'),
      language: 'go',
      newText: 'package b\n\n',
      ledgerKey: 'k',
    });
    assert.equal(noBinary.status, 'no-server');
    assert.match(noBinary.reason!, /fathom-no-such-gopls not found/);
    assert.deepEqual(servers.status(), [], 'nothing started');
  });
});

describe('bad edits leave the file untouched', () => {
  const servers = new LanguageServers({ idleMs: 0 });
  const service = new DiagnosticsService(new ServerRegistry([]), servers, new DiagnosticLedger());
  const root = project({ 'a.ts': 'line one\nline two\n', 'latin1.ts': '' });
  fs.writeFileSync(path.join(root, 'latin1.ts'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
  const request = (edits: unknown, extra: object = {}) => ({
    workspaceRoot: root,
    absolutePath: path.join(root, 'a.ts'),
    language: 'typescript',
    edits: edits as never,
    ledgerKey: 'k',
    ...extra,
  });
  const rows: Array<{ name: string; run: () => Promise<unknown>; error: RegExp }> = [
    {
      name: 'a line past the end',
      run: () => service.edit(request([{ range: { start: { line: 5, character: 0 }, end: { line: 5, character: 0 } }, newText: 'x' }])),
      error: /edits\[0\]: line 5 is past the end \(the file has 3 lines\)/,
    },
    {
      name: 'a character past the line',
      run: () => service.edit(request([{ range: { start: { line: 0, character: 40 }, end: { line: 0, character: 41 } }, newText: 'x' }])),
      error: /edits\[0\]: character 40 is past the end of line 0 \(8 characters\)/,
    },
    {
      name: 'overlapping edits',
      run: () =>
        service.edit(
          request([
            { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 4 } }, newText: 'a' },
            { range: { start: { line: 0, character: 2 }, end: { line: 0, character: 6 } }, newText: 'b' },
          ]),
        ),
      error: /edits\[0\] and edits\[1\] overlap/,
    },
    {
      name: 'a stale expectedVersion',
      run: () => service.edit(request([], { expectedVersion: 7 })),
      error: /stale edit: expectedVersion 7, but Fathom's version of .* is 0; nothing was written/,
    },
    {
      name: 'a file that is not UTF-8',
      run: () => service.edit({ ...request(undefined), absolutePath: path.join(root, 'latin1.ts'), newText: 'x' }),
      error: /is not UTF-8 text; not editing it/,
    },
    {
      name: 'a file that does not exist',
      run: () => service.edit({ ...request(undefined), absolutePath: path.join(root, 'missing.ts'), newText: 'x' }),
      error: /does not exist/,
    },
  ];
  for (const row of rows) {
    test(row.name, async () => {
      await assert.rejects(row.run(), (error: unknown) => error instanceof FathomError && row.error.test(error.message));
      assert.equal(fs.readFileSync(path.join(root, 'a.ts'), 'utf8'), 'line one\nline two\n');
      assert.deepEqual([...fs.readFileSync(path.join(root, 'latin1.ts'))], [0x63, 0x61, 0x66, 0xe9, 0x0a]);
      assert.ok(!fs.existsSync(path.join(root, 'missing.ts')));
    });
  }

  test('edits apply in UTF-16 positions, and the version counts up', async () => {
    const first = await service.edit(request([{ range: { start: { line: 1, character: 5 }, end: { line: 1, character: 8 } }, newText: '2' }]));
    assert.equal(first.version, 1);
    assert.equal(fs.readFileSync(path.join(root, 'a.ts'), 'utf8'), 'line one\nline 2\n');
    const second = await service.edit(
      request([{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: '// ✓ ' }], { expectedVersion: 1 }),
    );
    assert.equal(second.version, 2);
    assert.equal(second.status, 'no-server');
    fs.writeFileSync(path.join(root, 'a.ts'), 'line one\nline two\n');
  });
});

describe('server configuration', () => {
  test('a user file changes a known server and adds one; a malformed one says why', () => {
    const folder = tempDir('fathom-servers-');
    const file = path.join(folder, 'servers.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        servers: [
          { id: 'gopls', binary: '/opt/go/bin/gopls' },
          { id: 'zls', languages: { zig: 'zig' }, rootMarkers: ['build.zig'], binary: 'zls', args: [] },
        ],
      }),
    );
    const servers = serversFromConfig(file);
    assert.equal(servers.find((spec) => spec.id === 'gopls')!.binary, '/opt/go/bin/gopls');
    assert.deepEqual(servers.find((spec) => spec.id === 'gopls')!.rootMarkers, ['go.mod', 'go.work'], 'unnamed fields kept');
    assert.equal(servers.find((spec) => spec.id === 'zls')!.name, 'zls');
    assert.equal(servers.length, knownServers.length + 1);
    assert.deepEqual(serversFromConfig(path.join(folder, 'absent.json')).length, knownServers.length);
    fs.writeFileSync(file, JSON.stringify({ servers: [{ id: 'new', binary: 'x' }] }));
    assert.throws(() => serversFromConfig(file), /servers\[0\] \(new\) needs args, languages, rootMarkers/);
    fs.writeFileSync(file, '{ nope');
    assert.throws(() => serversFromConfig(file), /not JSON/);
  });
});
