// `fathom mcp` as an agent uses it: the MCP SDK's own client spawns it on stdio (with an
// in-process daemon) over a fixture repo, lists the tools and calls each one; a large result
// comes back as a file path, and a failing call is an error answer that leaves the server up.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createPatch } from 'diff';
import { editorFixture } from './helpers/editor-fixture.js';
import { tempDir } from './helpers/fixture.js';
import { cliMain } from './helpers/raw-client.js';

let root: string;
let client: Client;

before(async () => {
  root = editorFixture();
  fs.writeFileSync(path.join(root, 'notes.txt'), Array.from({ length: 200 }, (_, index) => `needle ${index}`).join('\n') + '\n');
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) environment[name] = value;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliMain, 'mcp', root, '--no-daemon'],
    env: { ...environment, FATHOM_CACHE_DIR: tempDir('fathom-cache-'), FATHOM_LOG: 'warn' },
    stderr: 'ignore',
  });
  client = new Client({ name: 'fathom-test', version: '0' });
  await client.connect(transport);
});

after(async () => {
  await client?.close();
});

async function call(name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const result = (await client.callTool({ name, arguments: args })) as { content: Array<{ type: string; text: string }>; isError?: boolean };
  return { text: result.content.map((item) => item.text).join('\n'), isError: result.isError === true };
}

test('mcp: the tools are listed with their schemas', async () => {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name).sort(), ['code_search', 'edit_file', 'grep', 'impact', 'references', 'status', 'structural_search']);
  const grep = tools.find((tool) => tool.name === 'grep')!;
  assert.deepEqual((grep.inputSchema as { required?: string[] }).required, ['pattern']);
});

test('mcp: grep, code_search, structural_search, references, impact and status answer from the daemon', async () => {
  assert.equal((await call('grep', { pattern: 'greet\\(' })).text, '2 matches in 2 files\nsrc/app.ts:2:24:export const message = greet(\'you\');\nsrc/util.ts:1:17:export function greet(name: string): string {');
  assert.match((await call('code_search', { query: 'hello world' })).text, /^1 hits \(lexical: words: ranked by the chunk ranking\)\nsrc\/util\.ts:1-3\n  1  export function greet/);
  assert.match((await call('code_search', { query: 'greet' })).text, /^3 hits \(symbol: an identifier[^)]*\)\nsrc\/util\.ts:1-3 function greet\n  1  export function greet.*\nsrc\/app\.ts:2:24:export const message/s);
  assert.match((await call('structural_search', { pattern: 'greet($A)', language: 'typescript' })).text, /^1 matches\nsrc\/app\.ts:2:24:export const message = greet\('you'\);$/);
  assert.match((await call('references', { symbol: 'greet' })).text, /^2 references to 1 definitions\nsrc\/app\.ts:1:10: import \{ greet \} from '\.\/util'; \(import, exact\)\nsrc\/app\.ts:2:24: .* \(call, exact\)$/);
  assert.match((await call('impact', { symbol: 'greet' })).text, /^1 dependents \(distance 1: 0 symbols in 1 files\)\n1 src\/app\.ts \(top level\) \(exact\)$/);
  assert.match((await call('status', {})).text, new RegExp(`^${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ready, 3 files`));
});

test('mcp: a large result is a summary plus the path of a JSON file with all of it', async () => {
  const { text } = await call('grep', { pattern: 'needle' });
  assert.match(text, /^200 matches in 1 files\n/);
  assert.match(text, /… 140 more/);
  const file = /The whole result \(JSON, as in docs\/protocol\.md\): (\S+)$/.exec(text)?.[1];
  assert.ok(file && fs.existsSync(file), text);
  assert.equal(JSON.parse(fs.readFileSync(file!, 'utf8')).matches.length, 200);
});

test('mcp: edit_file writes new text or a patch, then the edit is searchable; bad input is an error answer', async () => {
  const written = await call('edit_file', { path: 'src/app.ts', new_text: "import { greet } from './util';\nexport const message = greet('agent');\n" });
  assert.match(written.text, /^src\/app\.ts written \(version \d+\); diagnostics unknown/);
  const before = fs.readFileSync(path.join(root, 'src/util.ts'), 'utf8');
  const patch = createPatch('src/util.ts', before, before.replace('Hello World', 'Hello Agent'));
  const patched = await call('edit_file', { path: 'src/util.ts', patch });
  assert.equal(patched.isError, false, patched.text);
  assert.match(fs.readFileSync(path.join(root, 'src/util.ts'), 'utf8'), /Hello Agent/);
  assert.match((await call('grep', { pattern: "greet\\('agent'\\)" })).text, /^1 matches/);
  const bad = await call('structural_search', { pattern: 'greet(', language: 'typescript' });
  assert.equal(bad.isError, true);
  assert.match(bad.text, /pattern does not parse as TypeScript code/);
  const unapplied = await call('edit_file', { path: 'src/util.ts', patch: createPatch('src/util.ts', 'nothing like it\n', 'x\n') });
  assert.equal(unapplied.isError, true);
  assert.match((await call('status', {})).text, /ready/, 'the server is still up');
});
