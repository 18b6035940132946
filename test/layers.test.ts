// Layers point one way (../shared/STYLE.md): base imports nothing of ours; protocol imports
// nothing of ours; engines (workspace, and later index/, structural/, lsp/) import neither the
// protocol nor the daemon nor the CLI. This test reads every import and fails on a wrong-way edge.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const src = fileURLToPath(new URL('../../src/', import.meta.url));

/** For each layer (first folder under src/), the layers it may import. */
const allowed: Record<string, string[]> = {
  base: [],
  protocol: [],
  workspace: ['base'],
  index: ['base', 'workspace', 'index'],
  structural: ['base', 'workspace', 'index'],
  lsp: ['base', 'workspace'],
  search: ['base', 'workspace', 'index'],
  debug: ['base', 'lsp'],
  daemon: ['base', 'protocol', 'workspace', 'index', 'structural', 'lsp', 'search', 'debug'],
  cli: ['base', 'protocol', 'daemon'],
};

function sourceFiles(folder: string): string[] {
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

test('layers: no import points the wrong way', () => {
  const problems: string[] = [];
  const files = sourceFiles(src);
  assert.ok(files.length > 10, 'found the sources');
  for (const file of files) {
    const layer = path.relative(src, file).split(path.sep)[0]!;
    assert.ok(layer in allowed, `src/${layer} is not a known layer: add it to this test`);
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(/^(?:import|export)[^'"]*from\s+'(\.[^']+)'/gm)) {
      const target = path.relative(src, path.resolve(path.dirname(file), match[1]!)).split(path.sep)[0]!;
      if (target !== layer && !allowed[layer]!.includes(target)) problems.push(`${path.relative(src, file)} imports ${match[1]} (${layer} → ${target})`);
    }
  }
  assert.deepEqual(problems, []);
});
