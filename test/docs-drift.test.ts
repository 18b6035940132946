// What the docs say that can drift from the code (issue 35), checked against the code: every
// format version and magic in ARCHITECTURE.md's "On-disk formats" table equals its owner's constant
// (imported where exported, read from the source text where not), and every magic in src/ is in
// the table; docs/protocol.md's headings document exactly the methods of src/protocol/methods.ts;
// every file under src/ opens with its module comment. Imports and layers are test/layers.test.ts';
// that the protocol fuzzer covers every documented method is test/reliability/protocol-fuzz.test.ts'.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { graphFormatVersion } from '../src/index/graph/graph-store.js';
import { rankingFileVersion } from '../src/index/ranking/chunk-ranking-file.js';
import { rankingFormatVersion } from '../src/index/ranking/chunk-ranking-store.js';
import { regexFormatVersion } from '../src/index/regex/regex-store.js';
import { Methods } from '../src/protocol/methods.js';
import { schemaVersion } from '../src/team/migrations.js';
import { fileSetFormatVersion } from '../src/workspace/file-set-store.js';

const repository = fileURLToPath(new URL('../../', import.meta.url));
const read = (relative: string): string => fs.readFileSync(path.join(repository, relative), 'utf8');

/** The version constants a module exports, by `path name` as the formats table names them. */
const exported: Record<string, number> = {
  'src/workspace/file-set-store.ts fileSetFormatVersion': fileSetFormatVersion,
  'src/index/regex/regex-store.ts regexFormatVersion': regexFormatVersion,
  'src/index/graph/graph-store.ts graphFormatVersion': graphFormatVersion,
  'src/index/ranking/chunk-ranking-file.ts rankingFileVersion': rankingFileVersion,
  'src/index/ranking/chunk-ranking-store.ts rankingFormatVersion': rankingFormatVersion,
  'src/team/migrations.ts schemaVersion': schemaVersion,
};

interface FormatRow {
  file: string;
  owners: string[];
  constants: string[];
  magics: string[];
  version: number | undefined;
}

const codeSpans = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

/** The rows of the table under a `## heading` of a Markdown text. */
function tableRows(text: string, heading: string): string[][] {
  const start = text.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `the document has a "${heading}" section`);
  const end = text.indexOf('\n## ', start + heading.length + 2);
  const rows = text
    .slice(start, end < 0 ? undefined : end)
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  return rows.slice(2); // the header and its separator
}

function formatRows(): FormatRow[] {
  return tableRows(read('ARCHITECTURE.md'), '## On-disk formats').map(([file, owner, magic, version]) => {
    const spans = codeSpans(owner ?? '');
    return {
      file: file!,
      owners: spans.filter((span) => span.startsWith('src/')),
      constants: spans.filter((span) => !span.startsWith('src/')),
      magics: codeSpans(magic ?? ''),
      version: /^\d+$/.test(version ?? '') ? Number(version) : undefined,
    };
  });
}

/** A source text without its comments, for reading a constant's value. */
function codeOf(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

/** The values a module's code gives `name`: `const name = N` or `name: N` in an object literal. */
function valuesInSource(owner: string, name: string): number[] {
  const pattern = new RegExp(`(?:\\bconst\\s+${name}\\s*=\\s*|[{,]\\s*${name}:\\s*)(\\d+)\\b`, 'g');
  return [...new Set([...codeOf(read(owner)).matchAll(pattern)].map((match) => Number(match[1])))];
}

test('docs drift: each format version in ARCHITECTURE.md equals the constant beside its description', () => {
  const rows = formatRows();
  const versioned = rows.filter((row) => row.version !== undefined);
  assert.ok(versioned.length >= 8, `read the formats table (${versioned.length} versioned rows)`);
  const problems: string[] = [];
  for (const row of rows) {
    for (const owner of row.owners) if (!fs.existsSync(path.join(repository, owner))) problems.push(`${row.file}: ${owner} does not exist`);
    if (row.version === undefined) continue;
    if (row.owners.length !== 1 || row.constants.length !== 1) {
      problems.push(`${row.file}: a versioned row names one owner module and one constant (found ${JSON.stringify([...row.owners, ...row.constants])})`);
      continue;
    }
    const [owner, name] = [row.owners[0]!, row.constants[0]!];
    const key = `${owner} ${name}`;
    const values = key in exported ? [exported[key]!] : valuesInSource(owner, name);
    if (values.length !== 1) problems.push(`${row.file}: ${owner} gives ${name} ${values.length === 0 ? 'no value' : `several values (${values.join(', ')})`}`);
    else if (values[0] !== row.version) problems.push(`${row.file}: ARCHITECTURE.md says version ${row.version}, ${owner} ${name} is ${values[0]}`);
  }
  assert.deepEqual(problems, []);
});

test("docs drift: each magic in ARCHITECTURE.md is its owner's, and every magic in src/ is in the table", () => {
  const rows = formatRows();
  const problems: string[] = [];
  for (const row of rows) {
    for (const magic of row.magics) {
      if (!row.owners.some((owner) => read(owner).includes(magic))) problems.push(`${row.file}: ${magic} is not in ${row.owners.join(', ') || 'any owner'}`);
    }
  }
  const documented = new Set(rows.flatMap((row) => row.magics));
  for (const file of sourceFiles('src')) {
    for (const match of codeOf(read(file)).matchAll(/'(FTHM[A-Z0-9]{4})'/g)) {
      if (!documented.has(match[1]!)) problems.push(`${file} uses the magic ${match[1]}, which ARCHITECTURE.md's formats table lacks`);
    }
  }
  assert.deepEqual(problems, []);
});

/** Fathom's methods docs/protocol.md's `###` headings name (a bare name takes the prefix of the one before it, as in protocol-fuzz.ts). */
function documentedFathomMethods(): string[] {
  const methods = new Set<string>();
  for (const heading of read('docs/protocol.md')
    .split('\n')
    .filter((line) => line.startsWith('### '))) {
    let prefix = '';
    for (const name of codeSpans(heading)) {
      if (name.includes('/')) prefix = name.slice(0, name.lastIndexOf('/') + 1);
      const method = name.includes('/') ? name : prefix + name;
      if (method.startsWith('fathom/')) methods.add(method);
    }
  }
  return [...methods].sort();
}

test('docs drift: docs/protocol.md documents exactly the methods of src/protocol/methods.ts', () => {
  const documented = documentedFathomMethods();
  const declared = [...new Set<string>(Object.values(Methods))].sort();
  assert.ok(documented.length > 10, 'read the protocol headings');
  assert.deepEqual(
    { undocumented: declared.filter((method) => !documented.includes(method)), notDeclared: documented.filter((method) => !declared.includes(method)) },
    { undocumented: [], notDeclared: [] },
  );
});

function sourceFiles(relative: string): string[] {
  return fs.readdirSync(path.join(repository, relative), { withFileTypes: true }).flatMap((entry) => {
    const child = `${relative}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(child);
    return entry.name.endsWith('.ts') ? [child] : [];
  });
}

test('docs drift: every file under src/ opens with its module comment', () => {
  const files = sourceFiles('src');
  assert.ok(files.length > 50, 'found the sources');
  assert.deepEqual(
    files.filter((file) => !/^\/\/ \S/.test(read(file))),
    [],
    'open the file with a `//` comment: what it owns and who calls it',
  );
});
