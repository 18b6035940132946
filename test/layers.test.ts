// Layers point one way (../shared/STYLE.md): base imports nothing of ours; protocol imports
// nothing of ours; engines (workspace, index/, structural/, lsp/, and engine/, which owns a
// workspace's indexes, and team/, the team store) import neither the protocol nor the daemon nor the CLI; inside index/, the
// folders import each other only as ARCHITECTURE.md's code map says (syntax is the foundation);
// the CLI's client path (what src/cli/main.ts and the client commands it loads import statically, and what that imports) reaches
// only base, protocol and cli and no package (the CLI's own JSON-RPC client, not vscode-jsonrpc):
// the daemon, its engines and MCP are imported dynamically by the commands that run them (test/cli/cli-thin.test.ts checks the same at
// run time). This test reads every import and fails on a wrong-way edge.
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
  engine: ['base', 'workspace', 'index', 'structural', 'search'],
  team: ['base', 'index'],
  daemon: ['base', 'protocol', 'workspace', 'index', 'structural', 'lsp', 'search', 'debug', 'engine', 'team'],
  cli: ['base', 'protocol', 'daemon', 'team'],
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
    for (const specifier of [...staticImports(text), ...dynamicImports(text)].filter((name) => name.startsWith('.'))) {
      const target = path.relative(src, path.resolve(path.dirname(file), specifier)).split(path.sep)[0]!;
      if (target !== layer && !allowed[layer]!.includes(target)) problems.push(`${path.relative(src, file)} imports ${specifier} (${layer} → ${target})`);
    }
  }
  assert.deepEqual(problems, []);
});

/** What a file imports when it loads: every `import … from` and `export … from` but `import type` (erased). */
function staticImports(text: string): string[] {
  return [...text.matchAll(/^(import|export)(\s+type\b)?[^'"]*from\s+'([^']+)'/gm)]
    .filter((match) => match[1] === 'export' || match[2] === undefined)
    .map((match) => match[3]!);
}

/** What a file loads with a require() of its own (createRequire): a package the client path loads on first use. */
function requires(text: string): string[] {
  return [...text.matchAll(/\brequire\(\s*'([^']+)'\s*\)/g)].map((match) => match[1]!);
}

/** What a file imports when it runs a path that needs it: `import('…')`. */
function dynamicImports(text: string): string[] {
  return [...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)].map((match) => match[1]!);
}

/**
 * The client path: where it starts (main.ts, and every command module it loads but serve's, which
 * runs the daemon), the layers it may reach, and the packages it may load.
 */
const clientPath = {
  entries: [
    'cli/main.ts',
    ...fs
      .readdirSync(path.join(src, 'cli/commands'))
      .filter((file) => file.endsWith('.ts') && file !== 'serve.ts')
      .map((file) => `cli/commands/${file}`),
  ],
  layers: ['base', 'protocol', 'cli'],
  packages: [] as string[],
};

/** What a path of static imports from `entries` reaches outside `allowed`: each as its chain of imports. */
function pathProblems(entries: readonly string[], allowed: { layers: readonly string[]; packages: readonly string[] }, seen = new Set<string>()): string[] {
  const problems: string[] = [];
  const visit = (file: string, via: string[]): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const here = path.relative(src, file);
    const chain = [...via, here].join(' → ');
    if (!allowed.layers.includes(here.split(path.sep)[0]!)) return void problems.push(`${chain}: ${here.split(path.sep)[0]} is not on this path`);
    const text = fs.readFileSync(file, 'utf8');
    for (const specifier of [...staticImports(text), ...requires(text)]) {
      if (specifier.startsWith('.')) visit(path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts'), [...via, here]);
      else if (!specifier.startsWith('node:')) {
        const name = specifier
          .split('/')
          .slice(0, specifier.startsWith('@') ? 2 : 1)
          .join('/');
        if (!allowed.packages.includes(name)) problems.push(`${chain} imports the package ${specifier}`);
      }
    }
  };
  for (const entry of entries) visit(path.join(src, entry), []);
  return problems;
}

test('layers: the CLI client path loads no daemon, engine or MCP code', () => {
  const seen = new Set<string>();
  const problems = pathProblems(clientPath.entries, clientPath, seen);
  assert.ok(clientPath.entries.length > 20 && seen.size > 30, 'followed the client path');
  assert.deepEqual(problems, []);
});

test('layers: what a daemon loads before it listens (its entry, serve, the front door and its quick status) is no package and no engine', () => {
  // cli/commands/serve.ts imports these when it runs, before the daemon's server.ts (vscode-jsonrpc, zod).
  const entries = ['cli/serve-main.ts', 'daemon/config.ts', 'daemon/front-door.ts', 'daemon/loading.ts', 'daemon/root-param.ts'];
  const seen = new Set<string>();
  const problems = pathProblems(entries, { layers: ['base', 'protocol', 'cli', 'daemon', 'debug'], packages: [] }, seen);
  assert.ok(seen.size > 10, 'followed the path');
  assert.deepEqual(problems, []);
  assert.ok(![...seen].some((file) => file.endsWith(`daemon${path.sep}server.ts`)), 'server.ts loads after the door listens');
});

/** Inside src/index/, which folders each may import (ARCHITECTURE.md's code map): syntax is the foundation. */
const indexAllowed: Record<string, string[]> = {
  syntax: [],
  graph: ['syntax'],
  regex: ['syntax'],
  ranking: ['syntax'],
  semantic: ['syntax', 'ranking'],
  export: ['ranking'],
};

test('layers: index/* folders import each other only as the code map says', () => {
  const problems: string[] = [];
  const indexRoot = path.join(src, 'index');
  for (const file of sourceFiles(indexRoot)) {
    const folder = path.relative(indexRoot, file).split(path.sep)[0]!;
    assert.ok(folder in indexAllowed, `src/index/${folder} is not known: add it to this test and to ARCHITECTURE.md`);
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(/^(?:import|export)[^'"]*from\s+'(\.[^']+)'/gm)) {
      const target = path.relative(indexRoot, path.resolve(path.dirname(file), match[1]!)).split(path.sep);
      if (target[0] === '..' || target.length < 2) continue;
      if (target[0] !== folder && !indexAllowed[folder]!.includes(target[0]!))
        problems.push(`${path.relative(src, file)} imports ${match[1]} (index/${folder} → index/${target[0]})`);
    }
  }
  assert.deepEqual(problems, []);
});
