// The daemon over its real protocol: spawned as `fathom serve --stdio` and `--socket`, spoken to in
// raw JSON-RPC frames. Covers the LSP handshake, each fathom/ method, progress, cancellation,
// buffers, concurrent clients and every kind of bad input: each answered with the right error
// code, and the daemon still serving afterwards.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { ErrorCodes } from '../../src/protocol/errors.js';
import type {
  ApplyRewriteResult,
  CalleesResult,
  CallersResult,
  DefinitionResult,
  ImpactResult,
  ReferencesResult,
  ChunksResult,
  DiscardRewriteResult,
  EditFileResult,
  OutlineResult,
  SymbolsResult,
  FilesResult,
  GrepResult,
  MerkleResult,
  StatusResult,
  StructuralRewriteResult,
  StructuralSearchResult,
  WorkspaceStatus,
} from '../../src/protocol/methods.js';
import { gitInit, tempDir, writeFixture } from '../helpers/fixture.js';
import { RawClient, canConnect, connectRaw, socketPathIn, spawnCli, spawnSocketDaemon, spawnStdioDaemon, type Message } from '../helpers/raw-client.js';

const fixtureSpec = `
  //- .gitignore
  *.log
  //- src/a.ts
  export const a = 1;
  //- src/b.ts
  export const b = 2;
  //- docs/readme.md
  # readme
  //- debug.log
  noise
`;

function makeRepo(): string {
  const root = writeFixture(fixtureSpec);
  gitInit(root);
  return root;
}

describe('stdio daemon', () => {
  const root = makeRepo();
  const daemon = spawnStdioDaemon();
  const client = daemon.client;

  after(() => daemon.child.kill());

  test('initialize answers capabilities and opens the root folder', async () => {
    const result = await client.result<{
      capabilities: { textDocumentSync: { change: number }; experimental: { fathom: { methods: string[] } } };
      serverInfo: { name: string };
    }>('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(root).href,
      capabilities: {},
    });
    client.notify('initialized', {});
    assert.equal(result.serverInfo.name, 'fathom');
    assert.equal(result.capabilities.textDocumentSync.change, 2);
    assert.ok(result.capabilities.experimental.fathom.methods.includes('fathom/files'));
    const status = await client.result<StatusResult>('fathom/status', {});
    assert.deepEqual(
      status.workspaces.map((workspace) => workspace.root),
      [root],
    );
  });

  test("fathom/index makes every index ready, with one $/progress across its phases, and answers each index's facts", async () => {
    const other = makeRepo();
    const response = await client.request('fathom/index', { root: other, workDoneToken: 'index-1' });
    const status = response.result as WorkspaceStatus;
    assert.equal(status.state, 'ready');
    // Nothing is left for a first query to build: each index is ready (semantic too: Fathom's model is the default).
    const facts = status.indexFacts!;
    assert.deepEqual(Object.keys(facts).sort(), ['graph', 'ranking', 'regex', 'semantic', 'trees']);
    for (const [name, fact] of Object.entries(facts)) {
      if (fact.state === 'off') continue;
      assert.equal(fact.state, 'ready', `${name}: ${JSON.stringify(fact)}`);
      assert.ok(fact.lastBuild !== null && fact.lastBuild.ms >= 0, `${name} has a build time: ${JSON.stringify(fact)}`);
    }
    assert.ok(facts.regex.files >= 4 && facts.regex.bytes > 0, JSON.stringify(facts.regex));
    assert.ok(facts.graph.bytes > 0 && facts.ranking.bytes > 0, 'the graph and the ranking are on disk when fathom/index answers');
    assert.equal(status.indexes.regex, 'ready');
    assert.equal(status.indexes.graph, 'ready');
    assert.equal(status.indexes.ranking, 'ready');
    assert.equal(status.files, 4);
    assert.deepEqual(status.skipped, { ignored: 1 });
    assert.match(status.merkleRoot ?? '', /^[0-9a-f]{64}$/);
    const progress = client.received.filter((message) => message.method === '$/progress' && (message.params as { token: string }).token === 'index-1');
    assert.equal((progress[0]?.params as { value: { kind: string } }).value.kind, 'begin');
    assert.equal((progress.at(-1)?.params as { value: { kind: string } }).value.kind, 'end');
    assert.equal(progress.filter((message) => (message.params as { value: { kind: string } }).value.kind === 'begin').length, 1, 'one bar, not one per phase');
  });

  test('fathom/files lists the file set, filtered by globs and limited', async () => {
    const all = await client.result<FilesResult>('fathom/files', { root });
    assert.deepEqual(all.files, ['.gitignore', 'docs/readme.md', 'src/a.ts', 'src/b.ts']);
    const globbed = await client.result<FilesResult>('fathom/files', { root, glob: ['src/**', '**/*.md'] });
    assert.deepEqual(globbed.files, ['docs/readme.md', 'src/a.ts', 'src/b.ts']);
    const limited = await client.result<FilesResult>('fathom/files', { root: pathToFileURL(root).href, limit: 1 });
    assert.deepEqual(limited, { root, total: 4, truncated: true, files: ['.gitignore'] });
  });

  test("fathom/merkle answers the root hash and a folder's children", async () => {
    const top = await client.result<MerkleResult>('fathom/merkle', { root });
    const status = await client.result<StatusResult>('fathom/status', { root });
    assert.equal(top.hash, status.workspaces[0]!.merkleRoot);
    assert.deepEqual(
      top.children?.map((child) => `${child.kind} ${child.name}`),
      ['file .gitignore', 'dir docs', 'dir src'],
    );
    const src = await client.result<MerkleResult>('fathom/merkle', { root, path: 'src' });
    assert.equal(src.hash, top.children!.find((child) => child.name === 'src')!.hash);
    const absolute = await client.result<MerkleResult>('fathom/merkle', { root, path: path.join(root, 'src/a.ts') });
    assert.equal(absolute.kind, 'file');
    const absent = await client.result<MerkleResult>('fathom/merkle', { root, path: 'debug.log' });
    assert.deepEqual([absent.kind, absent.hash], ['absent', null]);
  });

  test('a file written on disk is visible to the next request', async () => {
    fs.writeFileSync(path.join(root, 'src/new.ts'), 'export const n = 1;\n');
    for (let attempt = 0; attempt < 100; attempt++) {
      const files = await client.result<FilesResult>('fathom/files', { root, glob: 'src/*' });
      if (files.files.includes('src/new.ts')) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.fail('src/new.ts never appeared');
  });

  test("fathom/grep's lines reach the client as their text: escapes, control characters, non-ASCII, invalid UTF-8", async () => {
    const lines = [
      Buffer.from('\tconst oddity = "a \\"b\\" \\\\ c";'),
      Buffer.from('oddity \x01\x1b[0m\r'),
      Buffer.from('oddity ü — 🚀 \u2028'),
      Buffer.from([0x6f, 0x64, 0x64, 0x69, 0x74, 0x79, 0x20, 0xe2, 0x82, 0x22, 0xff]),
    ];
    fs.writeFileSync(path.join(root, 'src/odd.ts'), Buffer.concat(lines.flatMap((line) => [line, Buffer.from('\n')])));
    // A regex (not a plain literal), so that the lines come from the grep workers' batches.
    for (let attempt = 0; attempt < 100; attempt++) {
      const found = await client.result<GrepResult>('fathom/grep', { root, pattern: 'od+ity', glob: 'src/odd.ts' });
      if (found.matches.length === 0) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        continue;
      }
      assert.deepEqual(
        found.matches.map((match) => [match.path, match.line, match.text]),
        lines.map((line, index) => ['src/odd.ts', index + 1, line.toString('utf8')]),
      );
      fs.rmSync(path.join(root, 'src/odd.ts'));
      return;
    }
    assert.fail('src/odd.ts never matched');
  });

  test('fathom/grep answers matches, and an unsaved buffer is searched at once', async () => {
    const found = await client.result<GrepResult>('fathom/grep', { root, pattern: 'export const (a|b)' });
    assert.deepEqual(
      found.matches.map((match) => `${match.path}:${match.line}:${match.column}`),
      ['src/a.ts:1:1', 'src/b.ts:1:1'],
    );
    const uri = pathToFileURL(path.join(root, 'src/b.ts')).href;
    client.notify('textDocument/didOpen', {
      textDocument: { uri, languageId: 'typescript', version: 1, text: 'export const b = 2;\nconst typedJustNow = 1;\n' },
    });
    const fresh = await client.result<GrepResult>('fathom/grep', { root, pattern: 'typedJustNow', fixedStrings: true });
    assert.deepEqual(
      fresh.matches.map((match) => `${match.path}:${match.line}`),
      ['src/b.ts:2'],
    );
    client.notify('textDocument/didClose', { textDocument: { uri } });
    const closed = await client.result<GrepResult>('fathom/grep', { root, pattern: 'typedJustNow' });
    assert.deepEqual(closed.matches, []);
    const status = await client.result<StatusResult>('fathom/status', { root });
    assert.equal(status.workspaces[0]!.indexes.regex, 'ready');
    const regex = status.workspaces[0]!.search!.regex;
    assert.equal(regex.state, 'ready');
    assert.ok(regex.files >= 2 && regex.indexBytes > 0 && regex.contentBytes > 0 && regex.memoryBytes > 0, JSON.stringify(regex));
  });

  test('fathom/structuralSearch matches shapes, prefiltered by the regex index, and sees unsaved buffers', async () => {
    fs.writeFileSync(path.join(root, 'src/use.ts'), 'import { a } from "./a";\nif (a != null) a.dispose();\nconst s = "a.dispose()"; // a.dispose()\n');
    const search = (params: Record<string, unknown> = {}) =>
      client.result<StructuralSearchResult>('fathom/structuralSearch', { root, language: 'typescript', pattern: '$X.dispose()', ...params });
    let found = await search();
    for (let attempt = 0; attempt < 200 && found.matches.length === 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      found = await search();
    }
    assert.deepEqual(
      found.matches.map(
        (match) => `${match.path}:${match.range.start.line}:${match.range.start.column} ${match.text} X=${match.bindings.X!.text} | ${match.lineText}`,
      ),
      ['src/use.ts:2:16 a.dispose() X=a | if (a != null) a.dispose();'],
      'the string and the comment never match',
    );
    assert.equal(found.patternContext, 'statement');
    assert.deepEqual(found.variables, ['X']);
    assert.equal(found.stats.candidates, 1, 'only the file that contains "dispose" is a candidate');
    assert.equal(found.stats.fromIndex, true);
    const uri = pathToFileURL(path.join(root, 'src/b.ts')).href;
    client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'typescript', version: 1, text: 'export const b = 2;\nb.dispose();\n' } });
    found = await search({ rule: { inside: { kind: 'expression_statement', stopBy: 'neighbor' } } });
    assert.deepEqual(
      found.matches.map((match) => `${match.path}:${match.range.start.line}`),
      ['src/b.ts:2', 'src/use.ts:2'],
    );
    client.notify('textDocument/didClose', { textDocument: { uri } });
    found = await search({ paths: ['src/b.ts'] });
    assert.deepEqual(found.matches, []);
    const none = await search({ pattern: 'nothingLikeThis($A)' });
    assert.equal(none.stats.parsed, 0, 'a selective pattern parses nothing (the base index rules files out; a changed file lacks the literal)');
  });

  test('fathom/structuralRewrite stages a plan (nothing written); applyRewrite writes it; a drifted plan is refused', async () => {
    fs.writeFileSync(path.join(root, 'src/old.ts'), 'export function f() {\n  return legacyCall(1, 2);\n}\n');
    const stage = async (): Promise<StructuralRewriteResult> => {
      for (let attempt = 0; attempt < 200; attempt++) {
        const plan = await client.result<StructuralRewriteResult>('fathom/structuralRewrite', {
          root,
          language: 'typescript',
          pattern: 'legacyCall($A, $B)',
          rewrite: 'modernCall({ a: $A, b: $B })',
        });
        if (plan.count > 0) return plan;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.fail('src/old.ts never matched');
    };
    const plan = await stage();
    assert.match(plan.token!, /^[0-9a-f]{32}$/);
    assert.deepEqual(plan.files, [{ path: 'src/old.ts', count: 1 }]);
    assert.deepEqual(
      plan.changes.map((change) => [change.before, change.after, change.range.start.line]),
      [['legacyCall(1, 2)', 'modernCall({ a: 1, b: 2 })', 2]],
    );
    assert.equal(
      plan.diff,
      '--- a/src/old.ts\n+++ b/src/old.ts\n@@ -1,3 +1,3 @@\n export function f() {\n-  return legacyCall(1, 2);\n+  return modernCall({ a: 1, b: 2 });\n }\n',
    );
    assert.ok(Date.parse(plan.expiresAt!) > Date.now());
    assert.match(fs.readFileSync(path.join(root, 'src/old.ts'), 'utf8'), /legacyCall/, 'staging writes nothing');
    const applied = await client.result<ApplyRewriteResult>('fathom/applyRewrite', { token: plan.token });
    assert.deepEqual(applied, { root, written: ['src/old.ts'] });
    assert.match(fs.readFileSync(path.join(root, 'src/old.ts'), 'utf8'), /modernCall\(\{ a: 1, b: 2 \}\)/);
    const again = await client.request('fathom/applyRewrite', { token: plan.token });
    assert.equal(again.error?.code, ErrorCodes.InvalidParams);

    fs.writeFileSync(path.join(root, 'src/old.ts'), 'legacyCall(3, 4);\n');
    const second = await stage();
    fs.writeFileSync(path.join(root, 'src/old.ts'), 'legacyCall(3, 4); // edited\n');
    const refused = await client.request('fathom/applyRewrite', { token: second.token });
    assert.equal(refused.error?.code, ErrorCodes.Conflict);
    assert.match(refused.error!.message, /src\/old\.ts: changed since the rewrite was staged/);
    assert.equal(fs.readFileSync(path.join(root, 'src/old.ts'), 'utf8'), 'legacyCall(3, 4); // edited\n');
    const third = await stage();
    assert.deepEqual(await client.result<DiscardRewriteResult>('fathom/discardRewrite', { token: third.token }), { discarded: true });
    fs.rmSync(path.join(root, 'src/old.ts'));
  });

  test('fathom/editFile answers the diagnostics an edit introduced; status lists the language servers', async () => {
    fs.writeFileSync(path.join(root, 'tsconfig.json'), '{"compilerOptions":{"strict":true,"noEmit":true}}');
    fs.writeFileSync(path.join(root, 'src/typed.ts'), 'export const n: number = 1;\n');
    let status = await client.result<StatusResult>('fathom/status', { root });
    const before = status.workspaces[0]!.languageServers!;
    assert.equal(before.find((server) => server.server === 'typescript')!.state, 'available', 'marker and binary found; nothing started');
    assert.match(before.find((server) => server.server === 'gopls')!.reason ?? '', /no go\.mod \/ go\.work at the workspace root/);
    const uri = pathToFileURL(path.join(root, 'src/typed.ts')).href;
    const edited = await client.result<EditFileResult>('fathom/editFile', {
      path: uri,
      edits: [{ range: { start: { line: 0, character: 25 }, end: { line: 0, character: 26 } }, newText: '"one"' }],
      conversation: 'agent-1',
    });
    assert.equal(edited.status, 'ok', edited.reason);
    assert.equal(edited.applied, true);
    assert.equal(edited.version, 1);
    assert.deepEqual(
      edited.newDiagnostics.map((entry) => [entry.path, entry.diagnostics.map((diagnostic) => diagnostic.message)]),
      [['src/typed.ts', ["Type 'string' is not assignable to type 'number'."]]],
    );
    assert.equal(fs.readFileSync(path.join(root, 'src/typed.ts'), 'utf8'), 'export const n: number = "one";\n');
    const again = await client.result<EditFileResult>('fathom/newDiagnostics', { path: uri, conversation: 'agent-1' });
    assert.deepEqual(again.newDiagnostics, [], 'already reported on this ledger');
    const other = await client.result<EditFileResult>('fathom/newDiagnostics', { path: uri, conversation: 'agent-2' });
    assert.equal(other.newDiagnostics[0]?.diagnostics.length, 1, 'another conversation has not seen it');
    const stale = await client.request('fathom/editFile', { path: uri, newText: 'x', expectedVersion: 0 });
    assert.equal(stale.error?.code, ErrorCodes.InvalidParams);
    assert.match(stale.error!.message, /stale edit/);
    // Open in an editor with unsaved changes: refused, nothing written; once the buffer matches the disk, edited.
    client.notify('textDocument/didOpen', {
      textDocument: { uri, languageId: 'typescript', version: 1, text: 'export const n: number = "one";\n// typing\n' },
    });
    const refused = await client.request('fathom/editFile', { path: uri, newText: 'export const n: number = 2;\n' });
    assert.equal(refused.error?.code, ErrorCodes.Conflict);
    assert.match(refused.error!.message, /src\/typed\.ts has unsaved changes in an editor/);
    assert.deepEqual(refused.error!.data, { path: 'src/typed.ts', reason: 'unsaved' });
    assert.equal(fs.readFileSync(path.join(root, 'src/typed.ts'), 'utf8'), 'export const n: number = "one";\n');
    client.notify('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ text: 'export const n: number = "one";\n' }] });
    const clean = await client.result<EditFileResult>('fathom/editFile', { path: uri, newText: 'export const n: number = 2;\n', conversation: 'agent-1' });
    assert.equal(clean.applied, true);
    // The editor has not reloaded the file: its buffer shows the text Fathom wrote over, stale but not unsaved.
    const again2 = await client.result<EditFileResult>('fathom/editFile', { path: uri, newText: 'export const n: number = 3;\n', conversation: 'agent-1' });
    assert.equal(again2.applied, true);
    // Typing in it now is an unsaved change.
    client.notify('textDocument/didChange', { textDocument: { uri, version: 3 }, contentChanges: [{ text: 'export const n: number = "one";\n// typed\n' }] });
    const typed = await client.request('fathom/editFile', { path: uri, newText: 'export const n: number = 4;\n' });
    assert.equal(typed.error?.code, ErrorCodes.Conflict);
    assert.equal(fs.readFileSync(path.join(root, 'src/typed.ts'), 'utf8'), 'export const n: number = 3;\n');
    client.notify('textDocument/didClose', { textDocument: { uri } });
    // A byte-order mark on disk that the editor does not show is no change.
    fs.writeFileSync(path.join(root, 'src/typed.ts'), '\ufeffexport const n: number = 3;\n');
    client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'typescript', version: 1, text: 'export const n: number = 3;\n' } });
    const marked = await client.result<EditFileResult>('fathom/editFile', { path: uri, newText: 'export const n: number = 5;\n', conversation: 'agent-1' });
    assert.equal(marked.applied, true);
    client.notify('textDocument/didClose', { textDocument: { uri } });
    status = await client.result<StatusResult>('fathom/status', { root });
    const running = status.workspaces[0]!.languageServers!.find((server) => server.server === 'typescript')!;
    assert.equal(running.state, 'running');
    assert.ok(running.pid! > 0);
    fs.rmSync(path.join(root, 'src/typed.ts'));
    fs.rmSync(path.join(root, 'tsconfig.json'));
  });

  test('buffers: didOpen, didChange and didClose are held and released', async () => {
    const uri = pathToFileURL(path.join(root, 'src/a.ts')).href;
    client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'typescript', version: 1, text: 'let x = 1;\n' } });
    client.notify('textDocument/didChange', {
      textDocument: { uri, version: 2 },
      contentChanges: [{ range: { start: { line: 0, character: 4 }, end: { line: 0, character: 5 } }, text: 'y' }],
    });
    let status = await client.result<StatusResult>('fathom/status', {});
    assert.equal(status.daemon.buffers, 1);
    client.notify('textDocument/didClose', { textDocument: { uri } });
    // Bad notifications are logged and ignored; they never answer and never break the connection.
    client.notify('textDocument/didChange', { textDocument: { uri: 'untitled:1', version: 1 }, contentChanges: [] });
    client.notify('textDocument/didOpen', { textDocument: 42 });
    status = await client.result<StatusResult>('fathom/status', {});
    assert.equal(status.daemon.buffers, 0);
  });

  test('fathom/chunks answers the chunks of a file on disk, and of an open buffer at its version', async () => {
    fs.writeFileSync(path.join(root, 'src/service.ts'), 'import { a } from "./a";\n\nexport class Service {\n  run(): number {\n    return a + 1;\n  }\n}\n');
    const uri = pathToFileURL(path.join(root, 'src/service.ts')).href;
    let disk: ChunksResult | undefined;
    for (let attempt = 0; attempt < 200 && !disk; attempt++) {
      const response = await client.request('fathom/chunks', { path: uri });
      if (response.error) await new Promise((resolve) => setTimeout(resolve, 10));
      else disk = response.result as ChunksResult;
    }
    assert.ok(disk, 'src/service.ts became chunkable once the watcher saw it');
    assert.equal(disk.source, 'disk');
    assert.equal(disk.path, 'src/service.ts');
    assert.equal(disk.language, 'typescript');
    assert.equal(disk.chunks.length, 1);
    assert.deepEqual(disk.chunks[0]!.start, { line: 1, column: 1 });
    assert.deepEqual(disk.chunks[0]!.end, { line: 7, column: 2 });
    assert.match(disk.chunks[0]!.header, /^src\/service\.ts \(TypeScript\)$/m);
    client.notify('textDocument/didOpen', {
      textDocument: { uri, languageId: 'typescript', version: 3, text: 'export function fresh(): number {\n  return 2;\n}\n\nexport function other() {}\n' },
    });
    const buffer = await client.result<ChunksResult>('fathom/chunks', { root, path: 'src/service.ts', budgetBytes: 64, includeText: false });
    assert.equal(buffer.source, 'buffer');
    assert.equal(buffer.version, 3);
    assert.deepEqual(
      buffer.chunks.map((chunk) => chunk.scope.join('.')),
      ['fresh', 'other'],
    );
    assert.equal(buffer.chunks[0]!.text, undefined, 'includeText: false leaves the text out');
    client.notify('textDocument/didChange', {
      textDocument: { uri, version: 4 },
      contentChanges: [{ range: { start: { line: 0, character: 16 }, end: { line: 0, character: 21 } }, text: 'renamed' }],
    });
    const changed = await client.result<ChunksResult>('fathom/chunks', { root, path: 'src/service.ts', budgetBytes: 64 });
    assert.equal(changed.version, 4);
    assert.deepEqual(
      changed.chunks.map((chunk) => chunk.scope.join('.')),
      ['renamed', 'other'],
    );
    client.notify('textDocument/didClose', { textDocument: { uri } });
    const closed = await client.result<ChunksResult>('fathom/chunks', { root, path: 'src/service.ts' });
    assert.equal(closed.source, 'disk');
  });

  test('symbols: fathom/symbols and fathom/outline, and LSP workspace/symbol and documentSymbol', async () => {
    fs.writeFileSync(path.join(root, 'src/graph.ts'), 'export class GraphWalker {\n  walkNodes(): number {\n    return 1;\n  }\n}\n');
    const uri = pathToFileURL(path.join(root, 'src/graph.ts')).href;
    let outline: OutlineResult | undefined;
    for (let attempt = 0; attempt < 200 && !outline; attempt++) {
      const response = await client.request('fathom/outline', { path: uri });
      if (response.error) await new Promise((resolve) => setTimeout(resolve, 10));
      else outline = response.result as OutlineResult;
    }
    assert.ok(outline, 'the outline once the watcher saw the file');
    assert.deepEqual(
      outline.symbols.map((symbol) => [symbol.kind, symbol.name, symbol.children.map((child) => child.name)]),
      [['class', 'GraphWalker', ['walkNodes']]],
    );
    assert.deepEqual(outline.symbols[0]!.children[0]!.selectionRange, { start: { line: 2, column: 3 }, end: { line: 2, column: 12 } });
    const found = await client.result<SymbolsResult>('fathom/symbols', { root, query: 'walkN', workDoneToken: 'symbols-1' });
    assert.deepEqual(
      found.symbols.map((symbol) => `${symbol.path}:${symbol.container.join('.')}.${symbol.name}`),
      ['src/graph.ts:GraphWalker.walkNodes'],
    );
    const lsp = await client.result<
      Array<{ name: string; kind: number; location: { uri: string; range: { start: { line: number } } }; containerName?: string }>
    >('workspace/symbol', { query: 'GraphWalker' });
    const walker = lsp.find((symbol) => symbol.name === 'GraphWalker');
    assert.deepEqual(walker && [walker.kind, walker.location.uri, walker.location.range.start.line], [5, uri, 0]);
    const documentSymbols = await client.result<Array<{ name: string; kind: number; children: Array<{ name: string; kind: number }> }>>(
      'textDocument/documentSymbol',
      { textDocument: { uri } },
    );
    assert.deepEqual(
      documentSymbols.map((symbol) => [symbol.name, symbol.kind, symbol.children.map((child) => [child.name, child.kind])]),
      [['GraphWalker', 5, [['walkNodes', 6]]]],
    );
    client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'typescript', version: 1, text: 'export function typedNow() {}\n' } });
    const fromBuffer = await client.result<OutlineResult>('fathom/outline', { path: uri });
    assert.equal(fromBuffer.source, 'buffer');
    assert.deepEqual(
      fromBuffer.symbols.map((symbol) => symbol.name),
      ['typedNow'],
    );
    client.notify('textDocument/didClose', { textDocument: { uri } });
  });

  test('code graph: fathom/definition, references, callers, callees, impact, and LSP definition and references', async () => {
    fs.writeFileSync(
      path.join(root, 'src/lib.ts'),
      'export function area(r: number): number {\n  return square(r) * 3;\n}\nfunction square(x: number): number {\n  return x * x;\n}\n',
    );
    fs.writeFileSync(
      path.join(root, 'src/use.ts'),
      "import { area as size } from './lib';\nexport function report(): string {\n  return String(size(2));\n}\n",
    );
    const useUri = pathToFileURL(path.join(root, 'src/use.ts')).href;
    let definition: DefinitionResult | undefined;
    // Until the watcher has seen both files (before, use.ts is not in the file set: an error).
    for (let attempt = 0; attempt < 200; attempt++) {
      const response = await client.request('fathom/definition', { root, path: 'src/use.ts', position: { line: 3, column: 17 } });
      definition = response.result as DefinitionResult | undefined;
      if (definition && definition.definitions.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.deepEqual(
      definition!.definitions.map((symbol) => [symbol.path, symbol.name, symbol.selectionRange.start, symbol.confidence, symbol.via, symbol.signature]),
      [['src/lib.ts', 'area', { line: 1, column: 17 }, 'exact', 'import', 'export function area(r: number): number {']],
    );
    const references = await client.result<ReferencesResult>('fathom/references', { root, symbol: 'area', includeDeclaration: true });
    assert.deepEqual(
      references.references.map(
        (reference) =>
          `${reference.path}:${reference.range.start.line}:${reference.range.start.column} ${reference.kind} ${reference.container.join('.')} | ${reference.text}`,
      ),
      [
        'src/lib.ts:1:17 declaration  | export function area(r: number): number {',
        "src/use.ts:1:10 import  | import { area as size } from './lib';",
        "src/use.ts:1:18 import  | import { area as size } from './lib';",
        'src/use.ts:3:17 call report | return String(size(2));',
      ],
    );
    const callers = await client.result<CallersResult>('fathom/callers', { root, path: 'src/lib.ts', position: { line: 5, column: 10 }, depth: 2 });
    assert.deepEqual(
      callers.callers.map((entry) => `${entry.distance} ${entry.symbol?.name} ${entry.confidence} ${entry.sites.length}`),
      ['1 area exact 1', '2 report exact 1'],
    );
    const callees = await client.result<CalleesResult>('fathom/callees', { root, symbol: 'report' });
    assert.deepEqual([callees.callees.map((entry) => entry.symbol?.name), callees.unresolved], [['area'], [{ name: 'String', count: 1 }]]);
    const impact = await client.result<ImpactResult>('fathom/impact', {
      root,
      path: 'src/lib.ts',
      range: { start: { line: 4, column: 1 }, end: { line: 6, column: 2 } },
    });
    assert.deepEqual(
      [
        impact.symbols.map((symbol) => symbol.name),
        impact.impacted.map((entry) => `${entry.distance} ${entry.path} ${entry.symbol?.name ?? '(top level)'}`),
        impact.byDistance,
      ],
      [
        ['square'],
        ['1 src/lib.ts area', '2 src/use.ts (top level)', '2 src/use.ts report'],
        [
          { distance: 1, symbols: 1, files: 1 },
          { distance: 2, symbols: 1, files: 1 },
        ],
      ],
    );
    const lspDefinition = await client.result<Array<{ uri: string; range: { start: { line: number; character: number } } }>>('textDocument/definition', {
      textDocument: { uri: useUri },
      position: { line: 2, character: 16 },
    });
    assert.deepEqual(
      lspDefinition.map((location) => [location.uri, location.range.start]),
      [[pathToFileURL(path.join(root, 'src/lib.ts')).href, { line: 0, character: 16 }]],
    );
    const lspReferences = await client.result<Array<{ uri: string; range: { start: { line: number } } }>>('textDocument/references', {
      textDocument: { uri: useUri },
      position: { line: 2, character: 16 },
      context: { includeDeclaration: false },
    });
    assert.deepEqual(
      lspReferences.map((location) => [path.basename(location.uri), location.range.start.line]),
      [
        ['use.ts', 0],
        ['use.ts', 0],
        ['use.ts', 2],
      ],
    );
    const nothing = await client.result<DefinitionResult>('fathom/definition', { root, path: 'src/use.ts', position: { line: 2, column: 1 } });
    assert.deepEqual(nothing.definitions, []);
    // An unsaved buffer: positions are the buffer's, at the next question.
    client.notify('textDocument/didOpen', {
      textDocument: {
        uri: useUri,
        languageId: 'typescript',
        version: 1,
        text: "import { area as size } from './lib';\n\n\nexport function report(): string {\n  return String(size(2));\n}\n",
      },
    });
    const moved = await client.result<DefinitionResult>('fathom/definition', { root, path: 'src/use.ts', position: { line: 5, column: 17 } });
    assert.deepEqual(
      moved.definitions.map((symbol) => symbol.name),
      ['area'],
    );
    client.notify('textDocument/didClose', { textDocument: { uri: useUri } });
  });

  const notFolder = path.join(root, 'src/a.ts');
  // Oversized and pathological patterns: each compile site answers invalidParams naming the limit.
  const hugeGlob = 'a'.repeat(100_000);
  const hugeAlternation = Array.from({ length: 150_000 }, (_, index) => `w${index}`).join('|');
  const deepGroups = `${'('.repeat(5_000)}a${')'.repeat(5_000)}`;
  const globLimit = /glob too long or with too many wildcards: 100000 characters, 0 wildcards \(\*\); at most 1000 characters and 8 wildcards/;
  const badRequests: { name: string; method: string; params?: unknown; code: number; message?: RegExp }[] = [
    {
      name: 'files with a 100,000-character glob',
      method: 'fathom/files',
      params: { root, glob: hugeGlob },
      code: ErrorCodes.InvalidParams,
      message: globLimit,
    },
    {
      name: 'files with 1,001 globs',
      method: 'fathom/files',
      params: { root, glob: Array.from({ length: 1_001 }, (_, index) => `f${index}`) },
      code: ErrorCodes.InvalidParams,
      message: /too many globs: 1001; at most 1000/,
    },
    {
      name: 'grep with a 100,000-character glob',
      method: 'fathom/grep',
      params: { root, pattern: 'a', glob: hugeGlob },
      code: ErrorCodes.InvalidParams,
      message: globLimit,
    },
    {
      name: 'symbols with a 100,000-character glob',
      method: 'fathom/symbols',
      params: { root, query: 'a', glob: hugeGlob },
      code: ErrorCodes.InvalidParams,
      message: globLimit,
    },
    {
      name: 'code search with a 100,000-character glob',
      method: 'fathom/codeSearch',
      params: { root, query: 'a', glob: hugeGlob },
      code: ErrorCodes.InvalidParams,
      message: globLimit,
    },
    {
      name: 'structural search with a 100,000-character glob',
      method: 'fathom/structuralSearch',
      params: { root, language: 'ts', pattern: 'a', glob: hugeGlob },
      code: ErrorCodes.InvalidParams,
      message: globLimit,
    },
    {
      name: 'grep for a 1 MB alternation',
      method: 'fathom/grep',
      params: { root, pattern: hugeAlternation },
      code: ErrorCodes.InvalidParams,
      message: /regex too long: 1088889 characters; at most 100000/,
    },
    {
      name: 'an export with a key file that does not exist',
      method: 'fathom/exportIndex',
      params: { root, out: path.join(root, '..', 'export.bin'), keyFile: path.join(root, '..', 'missing.key') },
      code: ErrorCodes.InvalidParams,
      message: /ENOENT/,
    },
    {
      name: 'a write to a name longer than the system allows',
      method: 'fathom/writeFile',
      params: { root, path: path.join(root, 'a'.repeat(300)), text: 'x' },
      code: ErrorCodes.InvalidParams,
      message: /ENAMETOOLONG/,
    },
    {
      name: 'grep for groups nested 5,000 deep',
      method: 'fathom/grep',
      params: { root, pattern: deepGroups },
      code: ErrorCodes.InvalidParams,
      message: /regex nested too deeply: 5000 levels of groups and classes; at most 250/,
    },
    {
      name: 'a regex code search for a 1 MB alternation',
      method: 'fathom/codeSearch',
      params: { root, query: hugeAlternation, mode: 'regex' },
      code: ErrorCodes.InvalidParams,
      message: /regex too long: 1088889 characters; at most 100000/,
    },
    {
      name: 'a structural rule with a 1 MB regex',
      method: 'fathom/structuralSearch',
      params: { root, language: 'ts', rule: { pattern: '$A', regex: hugeAlternation } },
      code: ErrorCodes.InvalidParams,
      message: /rule\.regex: regex too long/,
    },
    {
      name: 'a structural constraint with a regex nested 5,000 deep',
      method: 'fathom/structuralSearch',
      params: { root, language: 'ts', pattern: '$A', constraints: { A: { regex: deepGroups } } },
      code: ErrorCodes.InvalidParams,
      message: /constraints\.A\.regex: regex nested too deeply/,
    },
    { name: 'unknown method', method: 'fathom/nope', params: {}, code: ErrorCodes.MethodNotFound, message: /unknown method: fathom\/nope/ },
    { name: 'missing params', method: 'fathom/index', code: ErrorCodes.InvalidParams, message: /params must be an object/ },
    { name: 'positional params', method: 'fathom/files', params: [root], code: ErrorCodes.InvalidParams, message: /not an array/ },
    {
      name: 'root of the wrong type',
      method: 'fathom/index',
      params: { root: 5 },
      code: ErrorCodes.InvalidParams,
      message: /params\.root must be a non-empty string \(got number\)/,
    },
    { name: 'glob of the wrong type', method: 'fathom/files', params: { root, glob: 5 }, code: ErrorCodes.InvalidParams, message: /params\.glob/ },
    { name: 'negative limit', method: 'fathom/files', params: { root, limit: -1 }, code: ErrorCodes.InvalidParams, message: /params\.limit/ },
    {
      name: 'wait of the wrong type',
      method: 'fathom/index',
      params: { root, wait: 'yes' },
      code: ErrorCodes.InvalidParams,
      message: /params\.wait must be a boolean/,
    },
    {
      name: 'a root that does not exist',
      method: 'fathom/index',
      params: { root: '/no/such/folder' },
      code: ErrorCodes.WorkspaceNotFound,
      message: /does not exist/,
    },
    { name: 'a root that is a file', method: 'fathom/files', params: { root: notFolder }, code: ErrorCodes.WorkspaceNotFound, message: /not a folder/ },
    { name: 'an inherited name as method (constructor)', method: 'constructor', params: { hello: 'world' }, code: ErrorCodes.MethodNotFound },
    { name: 'an inherited name as method (__proto__)', method: '__proto__', params: {}, code: ErrorCodes.MethodNotFound },
    { name: 'an inherited name as method (toString)', method: 'toString', code: ErrorCodes.MethodNotFound },
    {
      name: 'a file URI on another host',
      method: 'fathom/files',
      params: { root: 'file://otherhost/tmp' },
      code: ErrorCodes.InvalidParams,
      message: /not a local file URI/,
    },
    { name: 'an empty glob', method: 'fathom/files', params: { root, glob: [''] }, code: ErrorCodes.InvalidParams, message: /params\.glob/ },
    {
      name: 'an invalid regex',
      method: 'fathom/grep',
      params: { root, pattern: 'a(b' },
      code: ErrorCodes.InvalidParams,
      message: /invalid regex: .*Unterminated group/,
    },
    { name: 'a grep without a pattern', method: 'fathom/grep', params: { root }, code: ErrorCodes.InvalidParams, message: /params\.pattern/ },
    {
      name: 'grep with a negative context',
      method: 'fathom/grep',
      params: { root, pattern: 'a', context: -1 },
      code: ErrorCodes.InvalidParams,
      message: /params\.context/,
    },
    {
      name: 'grep with too much context',
      method: 'fathom/grep',
      params: { root, pattern: 'a', afterContext: 5000 },
      code: ErrorCodes.InvalidParams,
      message: /params\.afterContext must be at most 1000/,
    },
    {
      name: 'grep for an unknown language',
      method: 'fathom/grep',
      params: { root, pattern: 'a', languages: ['cobol'] },
      code: ErrorCodes.InvalidParams,
      message: /unknown language "cobol"/,
    },
    { name: 'symbols without a query', method: 'fathom/symbols', params: { root }, code: ErrorCodes.InvalidParams, message: /params\.query/ },
    {
      name: 'symbols with a huge limit',
      method: 'fathom/symbols',
      params: { root, query: 'a', limit: 100000 },
      code: ErrorCodes.InvalidParams,
      message: /params\.limit/,
    },
    {
      name: 'references without a target',
      method: 'fathom/references',
      params: { root },
      code: ErrorCodes.InvalidParams,
      message: /needs either symbol, or path/,
    },
    {
      name: 'definition without a position',
      method: 'fathom/definition',
      params: { root, path: 'src/a.ts' },
      code: ErrorCodes.InvalidParams,
      message: /needs position/,
    },
    {
      name: 'definition at a position of the wrong shape',
      method: 'fathom/definition',
      params: { root, path: 'src/a.ts', position: { line: 0, column: 1 } },
      code: ErrorCodes.InvalidParams,
      message: /params\.position\.line must be an integer ≥ 1/,
    },
    {
      name: 'callers with a huge depth',
      method: 'fathom/callers',
      params: { root, symbol: 'a', depth: 50 },
      code: ErrorCodes.InvalidParams,
      message: /params\.depth must be between 1 and 10/,
    },
    {
      name: 'impact with an unknown confidence',
      method: 'fathom/impact',
      params: { root, symbol: 'a', minConfidence: 'sure' },
      code: ErrorCodes.InvalidParams,
      message: /minConfidence must be exact, unique or name-only/,
    },
    {
      name: 'references of an ignored file',
      method: 'fathom/references',
      params: { root, path: 'debug.log', position: { line: 1, column: 1 } },
      code: ErrorCodes.InvalidParams,
      message: /not in the file set/,
    },
    {
      name: 'LSP definition without a position',
      method: 'textDocument/definition',
      params: { textDocument: { uri: pathToFileURL(path.join(root, 'src/a.ts')).href } },
      code: ErrorCodes.InvalidParams,
      message: /params\.position/,
    },
    {
      name: 'structural search without a language',
      method: 'fathom/structuralSearch',
      params: { root, pattern: 'a' },
      code: ErrorCodes.InvalidParams,
      message: /params\.language/,
    },
    {
      name: 'structural search in an unknown language',
      method: 'fathom/structuralSearch',
      params: { root, language: 'cobol', pattern: 'a' },
      code: ErrorCodes.InvalidParams,
      message: /unknown language "cobol"/,
    },
    {
      name: 'structural search without a pattern',
      method: 'fathom/structuralSearch',
      params: { root, language: 'ts' },
      code: ErrorCodes.InvalidParams,
      message: /give a pattern or a rule/,
    },
    {
      name: 'a structural pattern that does not parse',
      method: 'fathom/structuralSearch',
      params: { root, language: 'ts', pattern: 'foo($A' },
      code: ErrorCodes.InvalidParams,
      message: /pattern does not parse as TypeScript code/,
    },
    {
      name: 'a structural rule with an unknown key',
      method: 'fathom/structuralSearch',
      params: { root, language: 'ts', rule: { pattern: 'a', inside: { colour: 1 } } },
      code: ErrorCodes.InvalidParams,
      message: /rule\.inside: unknown key "colour"/,
    },
    {
      name: 'a structural pattern given twice',
      method: 'fathom/structuralSearch',
      params: { root, language: 'ts', pattern: 'a', rule: { pattern: 'b' } },
      code: ErrorCodes.InvalidParams,
      message: /give the pattern once/,
    },
    {
      name: 'a structural search with a huge maxResults',
      method: 'fathom/structuralSearch',
      params: { root, language: 'ts', pattern: 'a', maxResults: 1e9 },
      code: ErrorCodes.InvalidParams,
      message: /maxResults/,
    },
    {
      name: 'a structural search in a path outside',
      method: 'fathom/structuralSearch',
      params: { root, language: 'ts', pattern: 'a', paths: ['/etc'] },
      code: ErrorCodes.PathOutsideWorkspace,
    },
    {
      name: 'a rewrite without a template',
      method: 'fathom/structuralRewrite',
      params: { root, language: 'ts', pattern: 'a' },
      code: ErrorCodes.InvalidParams,
      message: /params\.rewrite/,
    },
    {
      name: 'a rewrite with an unbound metavariable',
      method: 'fathom/structuralRewrite',
      params: { root, language: 'ts', pattern: 'f($A)', rewrite: 'g($B)' },
      code: ErrorCodes.InvalidParams,
      message: /rewrite uses \$B/,
    },
    {
      name: 'apply with an unknown token',
      method: 'fathom/applyRewrite',
      params: { token: 'nope' },
      code: ErrorCodes.InvalidParams,
      message: /no staged rewrite/,
    },
    {
      name: 'editFile with neither edits nor newText',
      method: 'fathom/editFile',
      params: { root, path: 'src/a.ts' },
      code: ErrorCodes.InvalidParams,
      message: /give either edits or newText/,
    },
    {
      name: 'editFile with malformed edits',
      method: 'fathom/editFile',
      params: { root, path: 'src/a.ts', edits: [{ range: 1 }] },
      code: ErrorCodes.InvalidParams,
      message: /params\.edits\[0\]\.range must be an object \(got number\)/,
    },
    {
      name: 'editFile with an edit past the end',
      method: 'fathom/editFile',
      params: { root, path: 'src/a.ts', edits: [{ range: { start: { line: 9, character: 0 }, end: { line: 9, character: 0 } }, newText: 'x' }] },
      code: ErrorCodes.InvalidParams,
      message: /line 9 is past the end/,
    },
    {
      name: 'editFile outside the workspace',
      method: 'fathom/editFile',
      params: { root, path: '/etc/hostname', newText: 'x' },
      code: ErrorCodes.PathOutsideWorkspace,
    },
    {
      name: 'outline of an ignored file',
      method: 'fathom/outline',
      params: { root, path: 'debug.log' },
      code: ErrorCodes.InvalidParams,
      message: /not in the file set/,
    },
    {
      name: 'chunks of an ignored file',
      method: 'fathom/chunks',
      params: { root, path: 'debug.log' },
      code: ErrorCodes.InvalidParams,
      message: /not in the file set/,
    },
    {
      name: 'chunks of a file that does not exist',
      method: 'fathom/chunks',
      params: { root, path: 'src/missing.ts' },
      code: ErrorCodes.InvalidParams,
      message: /not in the file set/,
    },
    { name: 'chunks of a folder', method: 'fathom/chunks', params: { root, path: 'src' }, code: ErrorCodes.InvalidParams, message: /not in the file set/ },
    { name: 'chunks outside the workspace', method: 'fathom/chunks', params: { root, path: '/etc/passwd' }, code: ErrorCodes.PathOutsideWorkspace },
    {
      name: 'chunks of a path no workspace holds, which does not exist',
      method: 'fathom/chunks',
      params: { path: '/etc/no-such-file' },
      code: ErrorCodes.InvalidParams,
      message: /no-such-file: no such file/,
    },
    { name: 'chunks without a path', method: 'fathom/chunks', params: { root }, code: ErrorCodes.InvalidParams, message: /params\.path/ },
    {
      name: 'chunks with a tiny budget',
      method: 'fathom/chunks',
      params: { root, path: 'src/a.ts', budgetBytes: 3 },
      code: ErrorCodes.InvalidParams,
      message: /budgetBytes/,
    },
    { name: 'a path outside the workspace', method: 'fathom/merkle', params: { root, path: '../elsewhere' }, code: ErrorCodes.PathOutsideWorkspace },
    { name: 'an absolute path outside the workspace', method: 'fathom/merkle', params: { root, path: '/etc/passwd' }, code: ErrorCodes.PathOutsideWorkspace },
  ];
  for (const bad of badRequests) {
    test(`bad request: ${bad.name}`, async () => {
      const response = await client.request(bad.method, bad.params);
      assert.equal(response.error?.code, bad.code, JSON.stringify(response));
      if (bad.message) assert.match(response.error!.message, bad.message);
    });
  }

  test('a $/cancelRequest without params is ignored and the connection lives on', async () => {
    client.sendRaw(
      RawClient.frame('{"jsonrpc":"2.0","method":"$/cancelRequest"}') + RawClient.frame('{"jsonrpc":"2.0","method":"$/cancelRequest","params":null}'),
    );
    const status = await client.result<StatusResult>('fathom/status', {});
    assert.equal(status.daemon.pid, daemon.child.pid);
  });

  test('a name starting with two dots is inside the workspace', async () => {
    fs.mkdirSync(path.join(root, '..foo'));
    fs.writeFileSync(path.join(root, '..foo/b.txt'), 'inside');
    for (let attempt = 0; attempt < 100; attempt++) {
      const node = await client.result<MerkleResult>('fathom/merkle', { root, path: '..foo/b.txt' });
      if (node.kind === 'file') return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.fail('..foo/b.txt never appeared');
  });

  // Ids far above the ones the client numbers its own requests with: an answer must not be mistaken for another.
  const badMessages: { name: string; raw: string; code: number }[] = [
    { name: 'a body that is not JSON', raw: RawClient.frame('{"jsonrpc": "2.0", "id": 900099, "method": '), code: ErrorCodes.ParseError },
    { name: 'a message with no method', raw: RawClient.frame('{"jsonrpc": "2.0", "id": 900098}'), code: ErrorCodes.InvalidRequest },
    { name: 'a method that is not a string', raw: RawClient.frame('{"jsonrpc": "2.0", "id": 900097, "method": 42}'), code: ErrorCodes.InvalidRequest },
    { name: 'a JSON array (batch)', raw: RawClient.frame('[{"jsonrpc": "2.0", "id": 900096, "method": "fathom/status"}]'), code: ErrorCodes.InvalidRequest },
  ];
  for (const bad of badMessages) {
    test(`bad message: ${bad.name} gets ${bad.code} and the connection lives on`, async () => {
      const before = client.received.length;
      client.sendRaw(bad.raw);
      const answer = await client.waitFor((message) => client.received.indexOf(message) >= before && message.error?.code === bad.code);
      assert.ok(answer.error);
      const status = await client.result<StatusResult>('fathom/status', {});
      assert.equal(status.daemon.pid, daemon.child.pid);
    });
  }

  test('$/cancelRequest cancels a first build; the half-built workspace is dropped', async () => {
    const big = tempDir();
    for (let folder = 0; folder < 40; folder++) {
      fs.mkdirSync(path.join(big, `d${folder}`));
      for (let file = 0; file < 50; file++) fs.writeFileSync(path.join(big, `d${folder}`, `f${file}.txt`), `${folder}/${file}\n`.repeat(50));
    }
    const id = client.newId();
    // Request and cancellation in one write: the build cannot have finished in between.
    client.sendRaw(
      RawClient.frame(JSON.stringify({ jsonrpc: '2.0', id, method: 'fathom/index', params: { root: big } })) +
        RawClient.frame(JSON.stringify({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id } })),
    );
    const response = await client.waitFor((message: Message) => message.id === id);
    assert.equal(response.error?.code, ErrorCodes.RequestCancelled);
    const status = await client.result<StatusResult>('fathom/status', { root: big });
    assert.equal(status.workspaces[0]!.state, 'absent');
    // A later request builds it normally.
    const files = await client.result<FilesResult>('fathom/files', { root: big });
    assert.equal(files.total, 2000);
  });

  test('shutdown, then only exit: requests are refused, exit ends the process with 0', async () => {
    assert.equal((await client.request('shutdown')).result, null);
    const refused = await client.request('fathom/status', {});
    assert.equal(refused.error?.code, ErrorCodes.InvalidRequest);
    client.notify('exit');
    assert.equal(await daemon.exited, 0);
  });
});

test('socket: an existing folder keeps its mode; a folder made for the socket is private', async () => {
  const shared = tempDir('fathom-shared-');
  fs.chmodSync(shared, 0o755);
  const inShared = path.join(shared, 'fathom.sock');
  const made = socketPathIn();
  const first = await spawnSocketDaemon(inShared);
  const second = await spawnSocketDaemon(made);
  try {
    assert.equal(fs.statSync(shared).mode & 0o777, 0o755, 'the existing folder is left as it was');
    assert.equal(fs.statSync(path.dirname(made)).mode & 0o777, 0o700, 'the folder Fathom made is private');
    assert.equal(fs.statSync(inShared).mode & 0o777, 0o600, 'the socket is private');
  } finally {
    first.child.kill();
    second.child.kill();
  }
});

test('a daemon answers status while it loads its engines, as it does after (the same roots refused, the same absent root)', async () => {
  const root = makeRepo();
  const cache = tempDir('fathom-cache-');
  const socketPath = socketPathIn();
  // A saved file set for the root, as a daemon before this one left it.
  const first = await spawnSocketDaemon(socketPath, { FATHOM_CACHE_DIR: cache });
  const opener = await connectRaw(socketPath);
  await opener.client.result('fathom/index', { root });
  await opener.client.result('fathom/stop');
  await first.exited;
  const daemon = await spawnSocketDaemon(socketPath, { FATHOM_CACHE_DIR: cache });
  try {
    const { client } = await connectRaw(socketPath);
    const asks = [{}, { root }, { root: 'relative/path' }, { root: path.join(root, 'missing') }, { root: cache }, { root: 42 }];
    const shape = (message: Message): unknown =>
      message.error
        ? { code: message.error.code, message: message.error.message }
        : { workspaces: (message.result as StatusResult).workspaces.map((workspace) => ({ state: workspace.state, cache: workspace.cache })) };
    // At once after the daemon listens (its engines load meanwhile), then once a request needed them.
    const early = await Promise.all(asks.map(async (params) => shape(await client.request('fathom/status', params))));
    await client.result('fathom/stop');
    await daemon.exited;
    const again = await spawnSocketDaemon(socketPath, { FATHOM_CACHE_DIR: cache });
    try {
      const late = await connectRaw(socketPath);
      // Any other request waits for the engines (this one opens nothing: its params are refused).
      await late.client.request('fathom/trust', {});
      const loaded = await Promise.all(asks.map(async (params) => shape(await late.client.request('fathom/status', params))));
      assert.deepEqual(early, loaded);
    } finally {
      again.child.kill();
    }
    assert.deepEqual(early[0], { workspaces: [] });
    assert.deepEqual(early[1], {
      workspaces: [
        { state: 'absent', cache: { path: path.join(cache, 'workspaces', fs.readdirSync(path.join(cache, 'workspaces'))[0]!, 'fileset.bin'), loaded: 'none' } },
      ],
    });
    assert.deepEqual(
      early.slice(2).map((answer) => (answer as { code: number }).code),
      [ErrorCodes.InvalidParams, ErrorCodes.WorkspaceNotFound, ErrorCodes.InvalidParams, ErrorCodes.InvalidParams],
    );
  } finally {
    daemon.child.kill();
  }
});

test('stdio: exit without shutdown ends the process with 1', async () => {
  const daemon = spawnStdioDaemon();
  await daemon.client.result('initialize', { processId: null, rootUri: null, capabilities: {} });
  daemon.client.notify('exit');
  assert.equal(await daemon.exited, 1);
});

test('stdio: a broken frame is answered, then the daemon exits by itself (its stream cannot be read again)', async () => {
  const daemon = spawnStdioDaemon();
  daemon.client.sendRaw('Content-Type: nothing\r\n\r\n{}');
  const answer = await daemon.client.waitFor((message) => message.error?.code === ErrorCodes.ParseError);
  assert.match(answer.error!.message, /Content-Length/);
  // stdin stays open: the daemon must not wait for it.
  assert.equal(await daemon.exited, 0);
});

test('stdio: requests read before a broken frame are answered before the daemon exits', async () => {
  const daemon = spawnStdioDaemon();
  // One write: the daemon reads all of it at once, the break with the requests still queued.
  const requests = [1, 2, 3].map((id) => RawClient.frame(JSON.stringify({ jsonrpc: '2.0', id, method: 'fathom/status', params: {} })));
  requests.push(RawClient.frame(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'fathom/grep' })));
  daemon.client.sendRaw(`${requests.join('')}garbage without a length\r\n\r\n`);
  assert.equal(await daemon.exited, 0);
  const answers = daemon.client.received.filter((message) => typeof message.id === 'number' && !('method' in message));
  assert.deepEqual(answers.map((message) => message.id).sort(), [1, 2, 3, 4]);
  assert.ok(
    answers.filter((message) => message.id !== 4).every((message) => message.result !== undefined),
    'the statuses answered',
  );
  assert.equal(answers.find((message) => message.id === 4)!.error?.code, ErrorCodes.InvalidParams);
  assert.ok(
    daemon.client.received.some((message) => message.id === null && message.error?.code === ErrorCodes.ParseError),
    'the break answered',
  );
});

test('stdio: closing stdin ends the process', async () => {
  const daemon = spawnStdioDaemon();
  await daemon.client.result('fathom/status', {});
  daemon.child.stdin.end();
  assert.equal(await daemon.exited, 0);
});

describe('socket daemon', () => {
  const root = makeRepo();
  const socketPath = socketPathIn();
  let daemon: Awaited<ReturnType<typeof spawnSocketDaemon>>;

  before(async () => {
    daemon = await spawnSocketDaemon(socketPath);
  });
  after(() => daemon.child.kill('SIGKILL'));

  test('the socket folder is private (0700) and the socket 0600', () => {
    assert.equal(fs.statSync(path.dirname(socketPath)).mode & 0o777, 0o700);
    assert.equal(fs.statSync(socketPath).mode & 0o777, 0o600);
  });

  test('one client leaving keeps a buffer another client still has open', async () => {
    const [first, second] = await Promise.all([connectRaw(socketPath), connectRaw(socketPath)]);
    const textDocument = { uri: pathToFileURL(path.join(root, 'src/a.ts')).href, languageId: 'typescript', version: 1, text: 'x' };
    first.client.notify('textDocument/didOpen', { textDocument });
    second.client.notify('textDocument/didOpen', { textDocument });
    assert.equal((await second.client.result<StatusResult>('fathom/status', {})).daemon.buffers, 1);
    const closed = new Promise((resolve) => first.socket.once('close', resolve));
    first.client.notify('exit');
    await closed;
    assert.equal((await second.client.result<StatusResult>('fathom/status', {})).daemon.buffers, 1);
    second.client.notify('textDocument/didClose', { textDocument: { uri: textDocument.uri } });
    assert.equal((await second.client.result<StatusResult>('fathom/status', {})).daemon.buffers, 0);
    second.socket.destroy();
  });

  test("concurrent clients are served; one client's exit or broken frame ends only its connection", async () => {
    const clients = await Promise.all([0, 1, 2, 3].map(() => connectRaw(socketPath)));
    const answers = await Promise.all(
      clients.flatMap(({ client }) => [client.result<FilesResult>('fathom/files', { root }), client.result<StatusResult>('fathom/status', {})]),
    );
    assert.equal(answers.length, 8);
    for (let index = 0; index < 8; index += 2) assert.equal((answers[index] as FilesResult).total, 4);
    const [quitter, breaker, survivor, watcher] = clients;
    const quitterClosed = new Promise((resolve) => quitter!.socket.once('close', resolve));
    const breakerClosed = new Promise((resolve) => breaker!.socket.once('close', resolve));
    quitter!.client.notify('exit');
    breaker!.client.sendRaw('garbage without headers\r\n\r\n');
    await breaker!.client.waitFor((message) => message.error?.code === ErrorCodes.ParseError);
    await Promise.all([quitterClosed, breakerClosed]);
    const status = await survivor!.client.result<StatusResult>('fathom/status', {});
    assert.equal(status.daemon.pid, daemon.child.pid);
    assert.equal(status.daemon.clients, 2);
    // A thousand requests in flight from two clients at once.
    const many = await Promise.all(
      Array.from({ length: 1000 }, (_, index) => (index % 2 ? survivor! : watcher!).client.result<FilesResult>('fathom/files', { root, limit: 1 })),
    );
    assert.ok(many.every((result) => result.total === 4));
  });

  test('a second daemon on the same socket leaves the live one alone', async () => {
    const second = spawnCli(['serve', '--socket', socketPath]);
    assert.equal(await second.exited, 0);
    assert.match(second.stderr(), /already serving/);
    assert.ok(await canConnect(socketPath));
  });

  test('a daemon whose socket file is replaced by another stops by itself', async () => {
    const otherPath = socketPathIn();
    const first = await spawnSocketDaemon(otherPath);
    fs.rmSync(otherPath);
    const second = await spawnSocketDaemon(otherPath);
    assert.equal(await first.exited, 0);
    assert.match(first.stderr(), /removed or replaced/);
    assert.ok(await canConnect(otherPath));
    second.child.kill();
    await second.exited;
  });

  test('a stale socket file from a killed daemon is replaced', async () => {
    daemon.child.kill('SIGKILL');
    await daemon.exited;
    assert.ok(fs.existsSync(socketPath), 'the killed daemon left its socket file');
    assert.equal(await canConnect(socketPath), false);
    daemon = await spawnSocketDaemon(socketPath);
    const { client, socket } = await connectRaw(socketPath);
    const files = await client.result<FilesResult>('fathom/files', { root });
    assert.equal(files.total, 4);
    // fathom/stop ends the daemon and removes its socket.
    assert.equal((await client.request('fathom/stop')).result, null);
    assert.equal(await daemon.exited, 0);
    assert.equal(fs.existsSync(socketPath), false);
    socket.destroy();
  });
});
