// Golden tests of the CLI's --json output, for agents that parse it: every client command runs
// against one fixture repo (with an in-process daemon) and must exit with its documented code
// and print JSON of the documented shape. A shape is the JSON with every value replaced by its
// type (arrays by their first element's shape), kept in test/snapshots/cli-json/; a change of
// shape must be deliberate: FATHOM_UPDATE_SNAPSHOTS=1 rewrites them for review.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { gitInit, tempDir, writeFixture } from '../helpers/fixture.js';
import { cliMain } from '../helpers/raw-client.js';

const snapshots = path.resolve(import.meta.dirname, '../../../test/snapshots/cli-json');

function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shape(value[0])];
  if (value === null) return 'null';
  if (typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value as object)
        .sort()
        .map((key) => [key, shape((value as Record<string, unknown>)[key])]),
    );
  return typeof value;
}

const root = writeFixture(`
  //- src/util.ts
  export function greet(name: string): string {
  return 'Hello ' + name;
  }
  //- src/app.ts
  import { greet } from './util';
  export function main(): string {
  return greet('you');
  }
`);
gitInit(root);
const env = { ...process.env, FATHOM_CACHE_DIR: tempDir('fathom-cache-'), FATHOM_LOG: 'warn' };
const app = path.join(root, 'src/app.ts');

/** `lines`: the output is JSON Lines (one object per line); its shape is that of the list. */
const cases: Array<{ name: string; args: string[]; code: number; input?: string; lines?: boolean }> = [
  { name: 'index', args: ['index', root], code: 0 },
  { name: 'status', args: ['status', root], code: 0 },
  { name: 'files', args: ['files', root], code: 0 },
  { name: 'merkle', args: ['merkle', root], code: 0 },
  { name: 'grep', args: ['grep', 'greet', root], code: 0, lines: true },
  { name: 'grep-nothing', args: ['grep', 'nowhere_to_be_found', root], code: 1, lines: true },
  { name: 'search', args: ['search', 'say hello to a name', root], code: 0, lines: true },
  { name: 'search-identifier', args: ['search', 'greet', root], code: 0, lines: true },
  { name: 'search-nothing', args: ['search', 'zeppelin', root], code: 1, lines: true },
  { name: 'chunks', args: ['chunks', app], code: 0 },
  { name: 'symbols', args: ['symbols', 'greet', root], code: 0 },
  { name: 'outline', args: ['outline', app], code: 0 },
  { name: 'sg', args: ['sg', 'greet($A)', root, '--lang', 'ts'], code: 0 },
  { name: 'def', args: ['def', `${app}:3:8`], code: 0 },
  { name: 'refs', args: ['refs', 'greet', root], code: 0 },
  { name: 'callers', args: ['callers', 'greet', root], code: 0 },
  { name: 'callees', args: ['callees', 'main', root], code: 0 },
  { name: 'impact', args: ['impact', 'greet', root], code: 0 },
  { name: 'edit', args: ['edit', app], input: "import { greet } from './util';\nexport function main(): string {\n  return greet('me');\n}\n", code: 3 },
  { name: 'diagnostics', args: ['diagnostics', app], code: 3 },
];

for (const { name, args, code, input, lines } of cases) {
  test(`cli --json: ${name} exits ${code} with the documented shape`, () => {
    const run = spawnSync(process.execPath, [cliMain, ...args, '--json', '--no-daemon'], {
      env,
      encoding: 'utf8',
      cwd: root,
      timeout: 60_000,
      ...(input === undefined ? {} : { input }),
    });
    assert.equal(run.status, code, run.stderr);
    const actual = shape(
      lines
        ? run.stdout
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as unknown)
        : JSON.parse(run.stdout),
    );
    const file = path.join(snapshots, `${name}.json`);
    if (process.env.FATHOM_UPDATE_SNAPSHOTS) {
      fs.mkdirSync(snapshots, { recursive: true });
      fs.writeFileSync(file, `${JSON.stringify(actual, null, 2)}\n`);
    }
    assert.deepEqual(actual, JSON.parse(fs.readFileSync(file, 'utf8')), `the --json shape of ${name} changed`);
  });
}
