// What a daemon answers about a workspace, and what it should answer: the reliability harnesses
// (test/reliability/) ask a daemon that was killed, fed damaged caches or raced by edits the same
// questions as a fresh daemon on a fresh cache, and compare. Regex answers are checked against
// ripgrep over the same files. Also the corpus they run on: a copy of part of this repository
// (real TypeScript, and a sample of every grammar), made a git repository, with secrets planted.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type {
  CodeSearchResult,
  FilesResult,
  GrepResult,
  MerkleResult,
  StatusResult,
  StructuralSearchResult,
  SymbolsResult,
} from '../../src/protocol/methods.js';
import { gitInit } from './fixture.js';
import { SeededRandom } from './seeded-random.js';
import { scratchDir, type StrictClient, type WireMessage } from './strict-client.js';

export const repository = path.resolve(import.meta.dirname, '..', '..', '..');

export const ripgrepInstalled = spawnSync('rg', ['--version']).status === 0;
/** The oracle compares complete answers: a question waits out any build (a loaded machine takes longer than the default 5 s). */
const completeAnswerWaitMs = 600_000;

export interface Corpus {
  root: string;
  /** Secret text in files a name rule excludes (.env, a private key file). */
  secretsByName: string[];
  /** Secret text in ordinary file names: only the content says it is a secret. */
  secretsByContent: string[];
}

/** Folders of this repository copied into the corpus, and where they land. */
const corpusFolders: [from: string, to: string][] = [
  ['src/workspace', 'src/workspace'],
  ['src/base', 'src/base'],
  // A few languages besides TypeScript (each grammar a worker loads costs time): Python, Go, Rust, C, JavaScript.
  ['test/fixtures/syntax/python', 'samples/python'],
  ['test/fixtures/syntax/go', 'samples/go'],
  ['test/fixtures/syntax/c', 'samples/c'],
  ['test/fixtures/syntax/javascript', 'samples/javascript'],
  ['test/fixtures/search/repo', 'app'],
];

/** A fresh copy of the corpus in its own folder (a git repository without commits). */
export function reliabilityCorpus(prefix = 'fathom-rel-corpus-'): Corpus {
  const root = path.join(scratchDir(prefix), 'repo');
  fs.mkdirSync(root);
  for (const [from, to] of corpusFolders) fs.cpSync(path.join(repository, from), path.join(root, to), { recursive: true });
  fs.writeFileSync(path.join(root, '.gitignore'), '*.log\nbuild/\n');
  fs.writeFileSync(path.join(root, 'debug.log'), 'export function ignoredByGit() {}\n');
  fs.mkdirSync(path.join(root, 'build'));
  fs.writeFileSync(path.join(root, 'build', 'out.js'), 'export function ignoredBuildOutput() {}\n');
  const random = new SeededRandom(7);
  const base64 = (length: number): string =>
    Array.from({ length }, () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'[random.int(64)]).join('');
  const envToken = `sk_live_${base64(40).replace(/[+/]/g, 'x')}`;
  const keyLine = base64(70);
  fs.writeFileSync(path.join(root, '.env'), `STRIPE_KEY=${envToken}\n`);
  fs.mkdirSync(path.join(root, 'deploy'));
  fs.writeFileSync(path.join(root, 'deploy', 'id_ed25519'), `-----BEGIN OPENSSH PRIVATE KEY-----\n${keyLine}\n-----END OPENSSH PRIVATE KEY-----\n`);
  const contentKeyLine = base64(70);
  const awsSecret = base64(40);
  fs.mkdirSync(path.join(root, 'notes'));
  fs.writeFileSync(
    path.join(root, 'notes', 'handover.txt'),
    `The deploy key, until we move it to the vault:\n\n-----BEGIN OPENSSH PRIVATE KEY-----\n${contentKeyLine}\n${base64(70)}\n-----END OPENSSH PRIVATE KEY-----\n`,
  );
  fs.writeFileSync(
    path.join(root, 'app', 'settings.ini'),
    `[aws]\naws_access_key_id = AKIA${base64(16)
      .toUpperCase()
      .replace(/[^A-Z0-9]/g, 'Q')}\naws_secret_access_key = ${awsSecret}\n`,
  );
  gitInit(root);
  return { root, secretsByName: [envToken, keyLine], secretsByContent: [contentKeyLine, awsSecret] };
}

/** The questions every harness asks. Regexes mean the same to ripgrep and Fathom. */
export interface Probe {
  grep: string[];
  symbols: string[];
  structural: { language: string; pattern: string }[];
  lexical: string[];
  semantic: string[];
}

export const standardProbe: Probe = {
  grep: ['export function \\w+', 'import .* from', '\\bconst\\s+\\w+\\s*=\\s*\\d+', 'TODO|FIXME|XXX', 'class \\w+ (extends|implements)', 'def \\w+\\(self'],
  symbols: ['parse', 'Workspace', 'rR', 'walk'],
  structural: [
    { language: 'typescript', pattern: 'new Map($$$)' },
    { language: 'typescript', pattern: '$X.push($Y)' },
    { language: 'typescript', pattern: 'throw new $E($$$)' },
    { language: 'python', pattern: 'return $X' },
  ],
  lexical: ['read the file set back from its cache', 'wait longer between tries after each failure'],
  semantic: ['where are expired sessions dropped', 'parse a frame header'],
};

/** Answers as comparable strings: each list in the order the question defines (sorted where order is not part of the answer). */
export interface Answers {
  files: string[];
  merkleRoot: string;
  status: string;
  grep: Record<string, string[]>;
  symbols: Record<string, string[]>;
  structural: Record<string, string[]>;
  lexical: Record<string, string[]>;
  semantic: Record<string, string[]>;
}

const failed = (response: WireMessage): string[] => [`error ${response.error!.code}: ${response.error!.message}`];

/** Asks `client` every question of `probe` about `root` (in parallel) and answers them as strings. */
export async function collectAnswers(
  client: StrictClient,
  root: string,
  probe: Probe,
  options: { timeoutMs?: number; semantic?: boolean } = {},
): Promise<Answers> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const ask = (method: string, params: unknown): Promise<WireMessage> => client.request(method, params, timeoutMs);
  const keyed = async (questions: readonly string[], answer: (question: string) => Promise<string[]>): Promise<Record<string, string[]>> => {
    const entries = await Promise.all(questions.map(async (question) => [question, await answer(question)] as const));
    return Object.fromEntries(entries);
  };
  const files = ask('fathom/files', { root });
  const [filesAnswer, merkle, status, grep, symbols, structural, lexical, semantic] = await Promise.all([
    files.then((response) => (response.error ? failed(response) : (response.result as FilesResult).files)),
    files
      .then(() => ask('fathom/merkle', { root }))
      .then((response) => (response.error ? failed(response)[0]! : ((response.result as MerkleResult).rootHash ?? 'null'))),
    files
      .then(() => ask('fathom/status', { root }))
      .then((response) => {
        if (response.error) return failed(response)[0]!;
        const workspace = (response.result as StatusResult).workspaces[0]!;
        return `${workspace.state} files ${workspace.files} bytes ${workspace.bytes} skipped ${JSON.stringify(workspace.skipped)}`;
      }),
    keyed(probe.grep, async (pattern) => {
      const response = await ask('fathom/grep', { root, pattern, maxResults: 100_000 });
      if (response.error) return failed(response);
      const result = response.result as GrepResult;
      return [
        ...result.matches.map((match) => `${match.path}:${match.line}`).sort(),
        ...(result.timedOut.length > 0 ? [`timed out: ${result.timedOut.join(', ')}`] : []),
      ];
    }),
    keyed(probe.symbols, async (query) => {
      const response = await ask('fathom/symbols', { root, query, limit: 60, waitMs: completeAnswerWaitMs });
      if (response.error) return failed(response);
      return (response.result as SymbolsResult).symbols.map(
        (symbol) => `${symbol.kind} ${[...symbol.container, symbol.name].join('.')} ${symbol.path}:${symbol.range.start.line}:${symbol.range.start.column}`,
      );
    }),
    keyed(
      probe.structural.map((question) => `${question.language}: ${question.pattern}`),
      async (key) => {
        const question = probe.structural.find((candidate) => `${candidate.language}: ${candidate.pattern}` === key)!;
        const response = await ask('fathom/structuralSearch', { root, language: question.language, pattern: question.pattern, maxResults: 100_000 });
        if (response.error) return failed(response);
        const result = response.result as StructuralSearchResult;
        return [
          ...result.matches.map((match) => `${match.path}:${match.range.start.line}:${match.range.start.column}`).sort(),
          ...result.errors.map((error) => `search error: ${JSON.stringify(error)}`),
        ];
      },
    ),
    keyed(probe.lexical, async (query) => {
      const response = await ask('fathom/codeSearch', { root, query, mode: 'lexical', maxResults: 10, waitMs: completeAnswerWaitMs });
      if (response.error) return failed(response);
      return (response.result as CodeSearchResult).hits.map((hit) => `${hit.path}:${hit.start}-${hit.end}`);
    }),
    options.semantic === false
      ? Promise.resolve({})
      : keyed(probe.semantic, async (query) => {
          const response = await ask('fathom/codeSearch', { root, query, mode: 'semantic', maxResults: 10, waitMs: completeAnswerWaitMs });
          if (response.error) return failed(response);
          return (response.result as CodeSearchResult).hits.map((hit) => hit.path);
        }),
  ]);
  return { files: filesAnswer, merkleRoot: merkle, status, grep, symbols, structural, lexical, semantic };
}

/** ripgrep's matching lines (`path:line`, sorted) for `pattern` over exactly `files`. */
export function ripgrep(root: string, files: readonly string[], pattern: string): string[] {
  const result = spawnSync('rg', ['--null', '-n', '--no-heading', '--with-filename', '--no-config', '--color', 'never', '-e', pattern, '--', ...files], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 256 << 20,
  });
  if (result.status !== 0 && result.status !== 1) throw new Error(`rg ${pattern}: ${result.stderr}`);
  return result.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [file, rest] = line.split('\0');
      return `${file}:${rest!.slice(0, rest!.indexOf(':'))}`;
    })
    .sort();
}

/** `reference` with its grep answers replaced by ripgrep's over its file list: the oracle. */
export function withRipgrep(root: string, reference: Answers, patterns: readonly string[]): Answers {
  return { ...reference, grep: Object.fromEntries(patterns.map((pattern) => [pattern, ripgrep(root, reference.files, pattern)])) };
}

function listDifference(name: string, actual: readonly string[], expected: readonly string[]): string | undefined {
  if (actual.length === expected.length && actual.every((item, index) => item === expected[index])) return undefined;
  const expectedSet = new Set(expected);
  const actualSet = new Set(actual);
  const missing = expected.filter((item) => !actualSet.has(item));
  const extra = actual.filter((item) => !expectedSet.has(item));
  if (missing.length === 0 && extra.length === 0) {
    // From the first place they differ: the first items of a ranked answer are often the same.
    let first = 0;
    while (first < actual.length && actual[first] === expected[first]) first++;
    const from = (items: readonly string[]): string => JSON.stringify(items.slice(first, first + 6));
    return `${name}: same items in another order from #${first} (got ${from(actual)} of ${actual.length}, expected ${from(expected)} of ${expected.length})`;
  }
  return `${name}: ${actual.length} items, expected ${expected.length}; missing ${JSON.stringify(missing.slice(0, 5))}${missing.length > 5 ? ` and ${missing.length - 5} more` : ''}; extra ${JSON.stringify(extra.slice(0, 5))}${extra.length > 5 ? ` and ${extra.length - 5} more` : ''}`;
}

/** Every way `actual` differs from `expected`, one line each (empty: the same answers). */
export function answerDifferences(actual: Answers, expected: Answers): string[] {
  const differences: string[] = [];
  const add = (difference: string | undefined): void => {
    if (difference) differences.push(difference);
  };
  add(listDifference('files', actual.files, expected.files));
  if (actual.merkleRoot !== expected.merkleRoot) differences.push(`merkle root ${actual.merkleRoot}, a fresh scan says ${expected.merkleRoot}`);
  if (actual.status !== expected.status) differences.push(`status "${actual.status}", expected "${expected.status}"`);
  for (const kind of ['grep', 'symbols', 'structural', 'lexical', 'semantic'] as const) {
    for (const [question, answer] of Object.entries(expected[kind]))
      add(listDifference(`${kind} ${JSON.stringify(question)}`, actual[kind][question] ?? ['(not asked)'], answer));
  }
  return differences;
}

/** Every cache file below `folder`, relative to it, sorted. */
export function cacheFiles(folder: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) out.push(path.relative(folder, full));
    }
  };
  if (fs.existsSync(folder)) walk(folder);
  return out.sort();
}

/** The cache files (relative to `folder`) whose bytes hold any of `texts`, with which. */
export function filesHolding(folder: string, texts: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of cacheFiles(folder)) {
    const bytes = fs.readFileSync(path.join(folder, file));
    for (const text of texts) if (bytes.includes(text)) found.push(`${file} holds ${text.slice(0, 12)}…`);
  }
  return found;
}
