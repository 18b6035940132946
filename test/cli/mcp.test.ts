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
import { editorFixture } from '../helpers/editor-fixture.js';
import { tempDir } from '../helpers/fixture.js';
import { cliMain } from '../helpers/raw-client.js';

let root: string;
let client: Client;

/** A program for the graph's callers/callees, the staged rewrite and the debugger. */
const calc = `def square(x):
    return x * x


def main():
    total = 0
    for i in range(3):
        total += square(i)
    print(total)


main()
`;

before(async () => {
  root = editorFixture();
  fs.writeFileSync(path.join(root, 'notes.txt'), Array.from({ length: 200 }, (_, index) => `needle ${index}`).join('\n') + '\n');
  fs.writeFileSync(path.join(root, 'calc.py'), calc);
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) environment[name] = value;
  // The team tools are listed only with a team store configured (test/team/team-push.test.ts).
  delete environment.FATHOM_TEAM_URL;
  delete environment.FATHOM_TEAM_KEY;
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
  assert.deepEqual(tools.map((tool) => tool.name).sort(), [
    'apply_rewrite',
    'callees',
    'callers',
    'code_search',
    'debug_break',
    'debug_continue',
    'debug_eval',
    'debug_launch',
    'debug_state',
    'debug_step',
    'debug_terminate',
    'definition',
    'diagnostics',
    'discard_rewrite',
    'edit_file',
    'grep',
    'impact',
    'outline',
    'references',
    'status',
    'structural_rewrite',
    'structural_search',
    'symbols',
  ]);
  const grep = tools.find((tool) => tool.name === 'grep')!;
  assert.deepEqual((grep.inputSchema as { required?: string[] }).required, ['pattern']);
});

test('mcp: grep, code_search, structural_search, references, impact and status answer from the daemon', async () => {
  assert.equal(
    (await call('grep', { pattern: 'greet\\(' })).text,
    "2 matches in 2 files\nsrc/app.ts:2:24:export const message = greet('you');\nsrc/util.ts:1:17:export function greet(name: string): string {",
  );
  assert.match(
    (await call('code_search', { query: 'hello world' })).text,
    /^1 hits \(lexical: words: ranked by the chunk ranking\)\nsrc\/util\.ts:1-3\n {2}1 {2}export function greet/,
  );
  assert.match(
    (await call('code_search', { query: 'greet' })).text,
    /^3 hits \(symbol: an identifier[^)]*\)\nsrc\/util\.ts:1-3 function greet\n {2}1 {2}export function greet.*\nsrc\/app\.ts:2:24:export const message/s,
  );
  assert.match(
    (await call('structural_search', { pattern: 'greet($A)', language: 'typescript' })).text,
    /^1 matches\nsrc\/app\.ts:2:24:export const message = greet\('you'\);$/,
  );
  assert.match(
    (await call('references', { symbol: 'greet' })).text,
    /^2 references to 1 definitions\nsrc\/app\.ts:1:10: import \{ greet \} from '\.\/util'; \(import, exact\)\nsrc\/app\.ts:2:24: .* \(call, exact\)$/,
  );
  assert.match((await call('impact', { symbol: 'greet' })).text, /^1 dependents \(distance 1: 0 symbols in 1 files\)\n1 src\/app\.ts \(top level\) \(exact\)$/);
  const status = (await call('status', {})).text;
  assert.match(status, new RegExp(`^${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ready \\(git\\)\n  files    4 `));
  assert.match(status, /\n {4}graph {4}ready: 3 files, [^,]+, 0 behind/, 'each index with its state, size and lag');
});

test('mcp: definition, symbols, outline, callers and callees answer from the code graph; a target named badly is an error answer', async () => {
  const definition = /^1 definitions\nsrc\/util\.ts:1:17: function greet {2}/;
  assert.match((await call('definition', { symbol: 'greet' })).text, definition);
  assert.match(
    (await call('definition', { path: 'src/app.ts', line: 2, column: 24 })).text,
    definition,
    'the reference at app.ts:2:24 resolves to its definition',
  );
  assert.match((await call('symbols', { query: 'squ' })).text, /^1 symbols\ncalc\.py:1:5: function square {2}/);
  assert.match(
    (await call('outline', { path: 'calc.py' })).text,
    /^calc\.py \(python\): 2 top-level definitions\nfunction square {2}calc\.py:1\nfunction main {2}calc\.py:5$/,
  );
  assert.match((await call('callers', { symbol: 'square' })).text, /^1 callers of square\n1 {2}calc\.py:5:5: function main {2}\(\w[\w-]*, 1 site\)$/);
  assert.match(
    (await call('callees', { symbol: 'main' })).text,
    /^1 callees of main\n1 {2}calc\.py:1:5: function square .*\noutside the workspace: .*print ×1/s,
  );
  const bad = await call('callers', { line: 3 });
  assert.equal(bad.isError, true);
  assert.equal(bad.text, 'line needs path');
});

test('mcp: a structural rewrite is staged with its diff, then applied or discarded; a plan applies once', async () => {
  const staged = await call('structural_rewrite', { pattern: 'square($X)', rewrite: 'square(abs($X))', language: 'python' });
  const plan = /^plan (\S+): 1 changes in 1 files/.exec(staged.text)?.[1];
  assert.ok(plan, staged.text);
  assert.match(staged.text, /\n- {8}total \+= square\(i\)\n\+ {8}total \+= square\(abs\(i\)\)/);
  assert.equal(fs.readFileSync(path.join(root, 'calc.py'), 'utf8'), calc, 'staging writes nothing');
  assert.equal((await call('discard_rewrite', { plan })).text, 'discarded');
  assert.equal((await call('apply_rewrite', { plan })).isError, true, 'a discarded plan is gone');
  const again = /^plan (\S+):/.exec((await call('structural_rewrite', { pattern: 'square($X)', rewrite: 'square(abs($X))', language: 'python' })).text)?.[1];
  assert.equal((await call('apply_rewrite', { plan: again })).text, '1 files written: calc.py');
  assert.match(fs.readFileSync(path.join(root, 'calc.py'), 'utf8'), /total \+= square\(abs\(i\)\)/);
  const twice = await call('apply_rewrite', { plan: again });
  assert.equal(twice.isError, true);
  fs.writeFileSync(path.join(root, 'calc.py'), calc);
});

test('mcp: diagnostics answers what this conversation has not been told of, or says why it is unknown', async () => {
  const answer = await call('diagnostics', { path: 'src/util.ts' });
  assert.equal(answer.isError, false, answer.text);
  assert.match(answer.text, /^src\/util\.ts: (\d+ new diagnostics|diagnostics unknown: \S+)/);
});

test('mcp: the debugger: launch to a breakpoint, state, eval, continue, clear the breakpoint, run to the end, terminate', { timeout: 90_000 }, async () => {
  const launched = await call('debug_launch', { program: 'calc.py', breakpoints: [{ path: 'calc.py', line: 2 }], conversation: 'mcp-test' });
  assert.equal(launched.isError, false, launched.text);
  assert.match(launched.text, /^\S+ stopped \(breakpoint/);
  assert.match(launched.text, /#\d+ square at \S*calc\.py:2\n {6}x = 0/);
  assert.match(launched.text, /breakpoints \S*calc\.py:2\b/);
  assert.match((await call('debug_eval', { expression: 'x + 40', conversation: 'mcp-test' })).text, /^40\b/);
  assert.match((await call('debug_continue', { conversation: 'mcp-test' })).text, /square at \S*calc\.py:2\n {6}x = 1/);
  assert.match((await call('debug_state', { conversation: 'mcp-test' })).text, /stopped/);
  assert.match((await call('debug_step', { kind: 'out', conversation: 'mcp-test' })).text, /#\d+ main at \S*calc\.py:8/);
  const cleared = await call('debug_break', { path: 'calc.py', lines: [], conversation: 'mcp-test' });
  assert.equal(cleared.isError, false, cleared.text);
  assert.doesNotMatch(cleared.text, /breakpoints/);
  const ended = await call('debug_continue', { conversation: 'mcp-test' });
  assert.match(ended.text, /ended/);
  assert.match(ended.text, /output:\n {4}5$/m);
  assert.match((await call('debug_terminate', { conversation: 'mcp-test' })).text, /terminated$/);
  const none = await call('debug_state', { conversation: 'mcp-test' });
  assert.equal(none.isError, true, 'no live session after terminate');
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

test('mcp: grep, code_search and symbols across roots: each line starts with its root; root and roots together are an error answer', async () => {
  const other = editorFixture();
  const grep = await call('grep', { pattern: 'greet\\(', roots: [root, other] });
  assert.equal(grep.isError, false, grep.text);
  const lines = grep.text.split('\n');
  assert.deepEqual(lines.slice(0, 2), [`${root}: 2 matches in 2 files`, `${other}: 2 matches in 2 files`]);
  assert.deepEqual(
    lines.slice(2).map((line) => line.split(':')[0]),
    [`${root}/src/app.ts`, `${root}/src/util.ts`, `${other}/src/app.ts`, `${other}/src/util.ts`],
  );
  const symbols = await call('symbols', { query: 'greet', roots: 'all' });
  assert.ok(symbols.text.includes(`${other}/src/util.ts:1:17`), symbols.text);
  assert.ok(symbols.text.includes(`${root}/src/util.ts:1:17`), symbols.text);
  const search = await call('code_search', { query: 'hello world', roots: [other] });
  assert.match(search.text, new RegExp(`^${other.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: 1 hits`));
  const both = await call('grep', { pattern: 'x', root, roots: [other] });
  assert.equal(both.isError, true);
  assert.match(both.text, /give root or roots, not both/);
});
