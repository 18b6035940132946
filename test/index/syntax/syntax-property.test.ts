// Property test over real code installed on the machine: every .d.ts file of the `typescript`
// package and every .py file of the Python standard library. For each file: the chunks cover it
// (only whitespace left out), never overlap, never cut a token, stay within the budget unless a
// single unsplittable node, and carry byte-exact text and positions (chunk-checks.ts).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { chunkFile } from '../../../src/index/syntax/chunk-file.js';
import { GrammarSet, parseSource } from '../../../src/index/syntax/grammars.js';
import { SourceText } from '../../../src/index/syntax/source-text.js';
import { chunkProblems } from '../../helpers/chunk-checks.js';

const grammars = new GrammarSet();
const budget = 1500;

function filesUnder(folder: string, extension: string, skip: RegExp = /$^/): string[] {
  const out: string[] = [];
  const walk = (current: string): void => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (skip.test(entry.name)) continue;
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && entry.name.endsWith(extension)) out.push(full);
    }
  };
  walk(folder);
  return out.sort();
}

/** The Python standard library: Debian's /usr/lib/python3.x when installed, else that of the python3 on PATH. */
function pythonStdlib(): string {
  const debian = fs.existsSync('/usr/lib')
    ? fs
        .readdirSync('/usr/lib')
        .filter((name) => /^python3\.\d+$/.test(name))
        .sort()
        .pop()
    : undefined;
  if (debian && fs.existsSync(`/usr/lib/${debian}/os.py`)) return `/usr/lib/${debian}`;
  const folder = execFileSync('python3', ['-c', 'import sysconfig; print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim();
  assert.ok(fs.existsSync(folder), `python3's stdlib at ${folder}`);
  return folder;
}

async function checkCorpus(
  files: string[],
  language: string,
): Promise<{ files: number; bytes: number; chunks: number; oversized: number; parseErrors: number }> {
  const state = await grammars.load(language);
  assert.equal(state.state, 'loaded');
  if (state.state !== 'loaded') throw new Error('unreachable');
  const totals = { files: 0, bytes: 0, chunks: 0, oversized: 0, parseErrors: 0 };
  const problems: string[] = [];
  for (const file of files) {
    const bytes = fs.readFileSync(file);
    const tree = parseSource(grammars, state.grammar, new SourceText(bytes));
    assert.ok(tree, `${file} parsed`);
    try {
      const result = await chunkFile(grammars, { path: file, bytes, tree, language }, { budgetBytes: budget });
      problems.push(...chunkProblems(bytes, result, budget, tree));
      totals.files += 1;
      totals.bytes += bytes.length;
      totals.chunks += result.chunks.length;
      totals.oversized += result.chunks.filter((chunk) => chunk.oversized).length;
      if (result.parseErrors) totals.parseErrors += 1;
    } finally {
      tree.delete();
    }
  }
  assert.deepEqual(problems.slice(0, 20), [], `${problems.length} problems`);
  return totals;
}

test('property: every .d.ts file of the typescript package', async () => {
  const lib = path.join(path.dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'lib');
  const files = filesUnder(lib, '.d.ts');
  assert.ok(files.length > 50, `${files.length} files`);
  const totals = await checkCorpus(files, 'typescript');
  process.stderr.write(`typescript lib: ${JSON.stringify(totals)}\n`);
  assert.ok(totals.chunks > totals.files);
});

test('property: every .py file of the Python standard library', async () => {
  const files = filesUnder(pythonStdlib(), '.py', /^(site-packages|dist-packages|__pycache__)$/);
  assert.ok(files.length > 300, `${files.length} files`);
  const totals = await checkCorpus(files, 'python');
  process.stderr.write(`python stdlib: ${JSON.stringify(totals)}\n`);
  assert.ok(totals.chunks > totals.files);
});
