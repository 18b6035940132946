// Benchmark of structural search (src/structural) against ast-grep on the same tree, in one run:
// the regex index build (the daemon's standing index, timed apart: no query pays it), then per
// pattern Fathom's search (literals → candidate files from the index → parse and match on 2
// workers) vs `ast-grep run --json=stream --threads 2` (which parses every file of the language),
// both over the same files: ast-grep ignores no ignore file and is told to skip exactly the files
// of the language that Fathom's file set leaves out (too large, secrets…), and its own count of
// scanned files is checked against Fathom's. Each pattern is first parsed by both tools (an ERROR
// in either drops it). Match sets are compared as (path, start byte, end byte); where they differ,
// each difference is put down to a parse error near it, a comment inside it or neither, with
// examples. Reported per pattern: wall time (median of the runs), CPU time (user + system: this
// process with its workers; ast-grep through GNU time), match counts, candidate and parsed files.
// The workers are started by an untimed 2-file search before each pattern (as in a daemon in use);
// a worker keeps the files it read lately decoded (TextCache) and the trees of files it parsed
// whole (TreeCache, 96 MiB by estimate; FATHOM_TREE_CACHE_MB=0: none), so a pattern's first run,
// reported apart, finds what earlier patterns left there and its later runs find their own files
// too, as an editor's or an agent's searches do (FATHOM_TREE_CACHE_MB=0 gives every run's cost
// without kept trees); a tree store on disk (tree-store.ts, a fresh folder, FATHOM_TREE_STORE_MB=2048
// as the daemon's default; 0: none) is built before the first pattern as `fathom index` builds it
// (tree-prebuild.ts: every file of the language parsed whole on the 2 workers, timed and reported
// apart, like the regex index: a standing index no query pays for; FATHOM_BENCH_PREBUILD=0 leaves
// it to the searches, which store every tree they parse whole), and the workers match on stored
// trees;
// the page cache is warm (the scan and the index build read the whole tree, every ast-grep run
// reads every file of the language). The machine's load average is printed: other work skews wall
// times more than CPU times. Prints a table and one `BENCH_JSON` line; ratios are
// ast-grep / fathom wall time (above 1: Fathom is faster).
//
// Usage: node dist/bench/structural-bench.js [linux|typescript|django|PATH]   (default typescript;
//   bench/corpora.sh) linux: C patterns, each tool once per pattern; django: Python patterns;
//   otherwise JavaScript and TypeScript patterns; median of 3 but on linux. FATHOM_BENCH_RUNS=n overrides the run count, FATHOM_BENCH_ONLY=a,b runs only the
//   patterns whose text contains one of them, FATHOM_BENCH_MAX_FILE_BYTES the file set's size limit
//   (default 4 MiB; the typescript package's lib/_tsc.js, 6 MB, needs 8 MiB), FATHOM_AST_GREP the
//   ast-grep binary (default node_modules/.bin/ast-grep).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { RegexIndex } from '../src/index/regex/regex-index.js';
import { GrammarSet, parseSource } from '../src/index/syntax/grammars.js';
import { ParseCache } from '../src/index/syntax/parse-cache.js';
import { SourceText } from '../src/index/syntax/source-text.js';
import { type CandidateSource, type StructuralResult, StructuralSearch } from '../src/structural/structural-search.js';
import { StructuralPool } from '../src/structural/structural-pool.js';
import { TreePrebuild } from '../src/structural/tree-prebuild.js';
import { HashPool } from '../src/workspace/hash-pool.js';
import { Workspace } from '../src/workspace/workspace.js';

type Language = 'c' | 'javascript' | 'typescript' | 'python';

interface Case {
  language: Language;
  kind: 'selective' | 'common';
  /** Fathom's pattern. */
  pattern: string;
  /**
   * ast-grep's, when it differs: in C a bare call `f(x)` parses at top level as a macro type inside
   * an ERROR, so ast-grep is given the statement `f(x);` and `--selector call_expression`.
   */
  astGrep?: { pattern: string; selector: string };
}

const call = (pattern: string): Case['astGrep'] => ({ pattern: `${pattern};`, selector: 'call_expression' });

const linuxCases: Case[] = [
  { language: 'c', kind: 'selective', pattern: 'kmem_cache_create_usercopy($$$)', astGrep: call('kmem_cache_create_usercopy($$$)') },
  { language: 'c', kind: 'selective', pattern: 'of_property_read_u32($N, $P, $V)', astGrep: call('of_property_read_u32($N, $P, $V)') },
  { language: 'c', kind: 'selective', pattern: 'devm_kzalloc($D, sizeof(*$P), GFP_KERNEL)', astGrep: call('devm_kzalloc($D, sizeof(*$P), GFP_KERNEL)') },
  { language: 'c', kind: 'selective', pattern: 'copy_from_user($D, $S, sizeof($T))', astGrep: call('copy_from_user($D, $S, sizeof($T))') },
  { language: 'c', kind: 'selective', pattern: 'if (IS_ERR($P)) return PTR_ERR($P);' },
  { language: 'c', kind: 'selective', pattern: 'static const struct file_operations $NAME = { $$$ };' },
  { language: 'c', kind: 'common', pattern: 'if ($A) return $B;' },
  { language: 'c', kind: 'common', pattern: '$A->$B = $C;' },
  { language: 'c', kind: 'common', pattern: 'for ($I = 0; $I < $N; $I++) $BODY' },
  { language: 'c', kind: 'common', pattern: 'return -$E;' },
];

const typescriptCases: Case[] = [
  { language: 'javascript', kind: 'selective', pattern: 'require($M)' },
  { language: 'javascript', kind: 'selective', pattern: 'Debug.assert($$$)' },
  { language: 'javascript', kind: 'selective', pattern: 'new Map()' },
  { language: 'javascript', kind: 'common', pattern: 'if ($A) return $B;' },
  { language: 'javascript', kind: 'common', pattern: 'function $F($$$P) { $$$ }' },
  { language: 'typescript', kind: 'selective', pattern: 'enum $E { $$$ }' },
  // ast-grep reads a bare `Record<$K, $V>` as comparisons (and finds nothing): it is given the type in context.
  { language: 'typescript', kind: 'selective', pattern: 'Record<$K, $V>', astGrep: { pattern: 'type T = Record<$K, $V>;', selector: 'generic_type' } },
  // Common here, though it was first listed as selective: 1,303 matches in 38 of the 102 files,
  // nearly half of the bytes to parse (lib.dom.d.ts is mostly interfaces that extend another).
  { language: 'typescript', kind: 'common', pattern: 'interface $I extends $B { $$$ }' },
  { language: 'typescript', kind: 'common', pattern: 'interface $I { $$$ }' },
  { language: 'typescript', kind: 'common', pattern: 'function $F($$$P): $R;' },
  { language: 'typescript', kind: 'common', pattern: 'type $T = $U;' },
];

const djangoCases: Case[] = [
  { language: 'python', kind: 'selective', pattern: 'cursor.execute($$$)' },
  { language: 'python', kind: 'selective', pattern: 'raise ImproperlyConfigured($$$)' },
  { language: 'python', kind: 'selective', pattern: 'warnings.warn($$$)' },
  { language: 'python', kind: 'common', pattern: 'self.$A = $B' },
  { language: 'python', kind: 'common', pattern: 'isinstance($X, $T)' },
  { language: 'python', kind: 'common', pattern: 'def $F($$$A): $$$B' },
  { language: 'python', kind: 'common', pattern: 'return $A' },
];

/** ast-grep's name for each language and the extensions it searches for it. */
const astGrepLanguages: Record<Language, { name: string; extensions: string[] }> = {
  c: { name: 'c', extensions: ['.c', '.h'] },
  javascript: { name: 'js', extensions: ['.js', '.mjs', '.cjs', '.jsx'] },
  typescript: { name: 'ts', extensions: ['.ts', '.mts', '.cts'] },
  python: { name: 'python', extensions: ['.py', '.py3', '.pyi', '.bzl'] },
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** A workspace-relative path as an anchored, literal ast-grep (gitignore-style) glob. */
function literalGlob(relative: string): string {
  return `/${relative.replace(/[\\*?[\]{}]/g, '\\$&')}`;
}

const astGrepBin = process.env.FATHOM_AST_GREP ?? fileURLToPath(new URL('../../node_modules/.bin/ast-grep', import.meta.url));
const timeBin = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

function astGrepArgs(testCase: Case): string[] {
  const language = astGrepLanguages[testCase.language].name;
  return ['run', '-p', testCase.astGrep?.pattern ?? testCase.pattern, '-l', language, ...(testCase.astGrep ? ['--selector', testCase.astGrep.selector] : [])];
}

/**
 * Whether ast-grep parses the pattern without an ERROR node (its --debug-query on an empty file).
 * Python's `$` cannot start an identifier: ast-grep swaps it for its expando before parsing, which
 * only the `pattern` view shows (the `ast` view parses the raw text).
 */
function astGrepParses(testCase: Case, probeDir: string): { ok: boolean; detail: string } {
  const probe = path.join(probeDir, `probe${astGrepLanguages[testCase.language].extensions[0]}`);
  fs.writeFileSync(probe, '');
  const view = testCase.language === 'python' ? 'pattern' : 'ast';
  const result = spawnSync(astGrepBin, [...astGrepArgs(testCase), `--debug-query=${view}`, probe], { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  const output = `${result.stdout}${result.stderr}`;
  const ok = (result.status === 0 || result.status === 1) && !/\bERROR\b/.test(output) && output.includes(view === 'ast' ? 'Debug AST' : 'Debug Pattern');
  return { ok, detail: output.trim().split('\n').slice(0, 12).join('\n') };
}

interface AstGrepRun {
  ms: number;
  keys: Set<string>;
  /** ast-grep's own count of files it parsed (--inspect summary). */
  scanned: number | undefined;
  maxRssMb: number | undefined;
  /** User + system CPU time (GNU time), undefined without /usr/bin/time. */
  cpuMs: number | undefined;
}

/** One timed ast-grep run over the tree; its JSON stream goes to a file, read after the clock stops. */
async function runAstGrep(root: string, testCase: Case, excludes: string[], scratch: string): Promise<AstGrepRun> {
  const args = [
    ...astGrepArgs(testCase),
    '--json=stream',
    '--threads',
    '2',
    '--inspect',
    'summary',
    ...['hidden', 'dot', 'exclude', 'global', 'parent', 'vcs'].flatMap((type) => ['--no-ignore', type]),
    '--globs',
    '!.git',
    ...excludes.flatMap((file) => ['--globs', `!${literalGlob(file)}`]),
    '.',
  ];
  const outFile = path.join(scratch, 'ast-grep.jsonl');
  const out = fs.openSync(outFile, 'w');
  const started = performance.now();
  const result = timeBin
    ? spawnSync(timeBin, ['-f', 'fathom-bench-rusage %M %U %S', astGrepBin, ...args], { cwd: root, stdio: ['ignore', out, 'pipe'], maxBuffer: 1 << 28 })
    : spawnSync(astGrepBin, args, { cwd: root, stdio: ['ignore', out, 'pipe'], maxBuffer: 1 << 28 });
  const ms = performance.now() - started;
  fs.closeSync(out);
  const stderr = result.stderr?.toString('utf8') ?? '';
  // 1 = no match, not an error.
  if (result.error || (result.status !== 0 && result.status !== 1))
    throw new Error(`ast-grep failed (${result.error?.message ?? `status ${result.status}`}): ${stderr.slice(-2_000)}`);
  const keys = new Set<string>();
  const lines = readline.createInterface({ input: fs.createReadStream(outFile), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line === '') continue;
    const match = JSON.parse(line) as { file: string; range: { byteOffset: { start: number; end: number } } };
    keys.add(`${match.file.replace(/^\.\//, '')}\0${match.range.byteOffset.start}\0${match.range.byteOffset.end}`);
  }
  fs.rmSync(outFile);
  const scanned = /scannedFileCount=(\d+)/.exec(stderr)?.[1];
  const usage = /fathom-bench-rusage (\d+) ([\d.]+) ([\d.]+)/.exec(stderr);
  return {
    ms,
    keys,
    scanned: scanned === undefined ? undefined : Number(scanned),
    maxRssMb: usage ? Number(usage[1]) / 1024 : undefined,
    cpuMs: usage ? (Number(usage[2]) + Number(usage[3])) * 1000 : undefined,
  };
}

/** `path:line: text` of a match (its first line, shortened), for the difference examples. */
function describeKey(root: string, key: string): string {
  const [file, start, end] = key.split('\0') as [string, string, string];
  try {
    const bytes = fs.readFileSync(path.join(root, file));
    const line = bytes.subarray(0, Number(start)).toString('latin1').split('\n').length;
    const text = bytes.subarray(Number(start), Number(end)).toString('utf8');
    const first = text.split('\n')[0]!;
    return `${file}:${line}: ${first.length > 100 ? `${first.slice(0, 100)}…` : first}${text.includes('\n') ? ` (+${text.split('\n').length - 1} lines)` : ''}`;
  } catch {
    return `${file} [${start}, ${end})`;
  }
}

type Cause = 'parse error' | 'comment' | 'other';

/**
 * Why a match is found by one tool only, as far as can be told cheaply: an ERROR node of either
 * tool's parse (or a MISSING node of Fathom's) overlaps it (the grammars differ: tree-sitter-wasms
 * 0.1.13 vs ast-grep's bundled ones, and so does error recovery in macro-heavy code), or it holds
 * a comment (Fathom skips comments anywhere inside a match; ast-grep does not, e.g. between
 * `if (…)` and its statement), or neither (e.g. a macro body that one grammar parses as code and
 * the other keeps as text). ERROR nodes: Fathom's from a parse on this thread, ast-grep's from
 * `ast-grep run -k ERROR` on the same files.
 */
async function classify(root: string, grammars: GrammarSet, language: Language, keys: string[]): Promise<Map<string, Cause>> {
  const byFile = new Map<string, [number, number, string][]>();
  for (const key of keys) {
    const [file, start, end] = key.split('\0') as [string, string, string];
    let list = byFile.get(file);
    if (!list) byFile.set(file, (list = []));
    list.push([Number(start), Number(end), key]);
  }
  const errors = new Map<string, [number, number][]>();
  const addError = (file: string, start: number, end: number): void => {
    let list = errors.get(file);
    if (!list) errors.set(file, (list = []));
    list.push([start, end]);
  };
  const state = await grammars.load(language);
  const files = [...byFile.keys()];
  for (const file of files) {
    if (state.state !== 'loaded') break;
    const tree = parseSource(grammars, state.grammar, new SourceText(fs.readFileSync(path.join(root, file))));
    if (!tree) continue;
    try {
      const cursor = tree.walk();
      for (let done = false; !done;) {
        if (cursor.nodeType === 'ERROR' || cursor.currentNode.isMissing) addError(file, cursor.startIndex, cursor.endIndex);
        if (cursor.currentNode.hasError && cursor.gotoFirstChild()) continue;
        while (!cursor.gotoNextSibling())
          if (!cursor.gotoParent()) {
            done = true;
            break;
          }
      }
      cursor.delete();
    } finally {
      tree.delete();
    }
  }
  for (let index = 0; index < files.length; index += 200) {
    const batch = files.slice(index, index + 200);
    const result = spawnSync(astGrepBin, ['run', '-k', 'ERROR', '-l', astGrepLanguages[language].name, '--json=stream', ...batch], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 1 << 30,
    });
    for (const line of (result.stdout?.toString('utf8') ?? '').split('\n')) {
      if (line === '') continue;
      const match = JSON.parse(line) as { file: string; range: { byteOffset: { start: number; end: number } } };
      addError(match.file.replace(/^\.\//, ''), match.range.byteOffset.start, match.range.byteOffset.end);
    }
  }
  const causes = new Map<string, Cause>();
  for (const [file, matches] of byFile) {
    const fileErrors = errors.get(file) ?? [];
    const bytes = fs.readFileSync(path.join(root, file));
    for (const [start, end, key] of matches) {
      if (fileErrors.some(([errorStart, errorEnd]) => errorStart < end && start < errorEnd)) causes.set(key, 'parse error');
      else if (/\/\*|\/\//.test(bytes.subarray(start, end).toString('utf8'))) causes.set(key, 'comment');
      else causes.set(key, 'other');
    }
  }
  return causes;
}

interface Row {
  language: Language;
  kind: string;
  pattern: string;
  astGrepPattern: string;
  /** Wall time, median of the runs, and each run. */
  oursMs: number;
  astGrepMs: number;
  oursRunsMs: number[];
  astGrepRunsMs: number[];
  ratio: number;
  /** CPU time (user + system), median of the runs. */
  oursCpuMs: number;
  astGrepCpuMs: number | undefined;
  /** 1-minute load average before the pattern's runs (other work on the machine skews wall times). */
  loadBefore: number;
  ours: number;
  astGrep: number;
  same: boolean;
  onlyOurs: number;
  onlyAstGrep: number;
  candidates: number;
  parsed: number;
  /** Files matched on a tree a worker kept from an earlier run (last run). */
  reused: number;
  fromIndex: boolean;
  plan: string;
  truncated: boolean;
  errors: number;
  languageFiles: number;
  astGrepScanned: number | undefined;
  astGrepMaxRssMb: number | undefined;
  /** Differences by likely cause (see classify). */
  causes: { onlyOurs?: Record<string, number>; onlyAstGrep?: Record<string, number> };
}

async function main(): Promise<void> {
  const benchDir = process.env.FATHOM_BENCH_DIR ?? '/tmp/fathom-bench';
  const name = process.argv[2] ?? 'typescript';
  const root = fs.realpathSync(['linux', 'typescript', 'django'].includes(name) ? path.join(benchDir, name) : name);
  const runs = Number(process.env.FATHOM_BENCH_RUNS ?? (name === 'linux' ? 1 : 3));
  const maxFileBytes = Number(process.env.FATHOM_BENCH_MAX_FILE_BYTES ?? 4 * 1024 * 1024);
  const only = process.env.FATHOM_BENCH_ONLY;
  const cases = (name === 'linux' ? linuxCases : name === 'django' ? djangoCases : typescriptCases).filter(
    (candidate) => !only || only.split(',').some((part) => candidate.pattern.includes(part)),
  );
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-structural-bench-'));

  const hashPool = new HashPool();
  let started = performance.now();
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-structural-bench-'));
  const workspace = new Workspace({ root, cacheDir, maxFileBytes, reconcileIntervalMs: 0, pool: hashPool });
  await workspace.whenReady();
  const workspaceMs = performance.now() - started;
  const status = workspace.status();
  const index = new RegexIndex(workspace, { get: () => undefined, openPaths: () => [] });
  started = performance.now();
  await index.ensureBuilt();
  const indexBuildMs = performance.now() - started;

  const grammars = new GrammarSet();
  const grammarTable = grammars.table;
  const treeStoreMb = Number(process.env.FATHOM_TREE_STORE_MB ?? 2048);
  const treeStoreFolder = path.join(cacheDir, 'trees');
  const structuralPool = new StructuralPool({
    size: 2,
    treeCacheBytes: Number(process.env.FATHOM_TREE_CACHE_MB ?? 96) * 2 ** 20,
    ...(treeStoreMb > 0 ? { treeStore: { folder: treeStoreFolder, maxBytes: treeStoreMb * 2 ** 20 } } : {}),
  });
  const search = new StructuralSearch(grammars, new ParseCache(grammars), structuralPool);
  const source: CandidateSource = { root, candidateFiles: (query, accepts, signal) => index.candidateFiles(query, accepts, signal) };

  // Per language: Fathom's files of it, and the files on disk ast-grep would search that are not among them.
  const fileSet = new Set(workspace.files());
  const onDisk: string[] = [];
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const relative = path.relative(root, path.join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name));
    if (!relative.startsWith('.git/') && !relative.includes('/.git/')) onDisk.push(relative);
  }
  const languages = [...new Set(cases.map((testCase) => testCase.language))];
  const files = new Map<Language, { ours: string[]; excludes: string[] }>();
  for (const language of languages) {
    const ours = workspace.files().filter((file) => grammars.table.detect(file)?.id === language);
    const extensions = astGrepLanguages[language].extensions;
    const excludes = onDisk.filter((file) => extensions.includes(path.extname(file)) && !(fileSet.has(file) && grammars.table.detect(file)?.id === language));
    files.set(language, { ours, excludes });
  }

  console.log(
    `\n## ${name}: ${status.files} files, ${Math.round(status.bytes / 2 ** 20)} MiB (file set limit ${(maxFileBytes / 2 ** 20).toFixed(0)} MiB); ${os.availableParallelism()} CPUs, Node ${process.version}`,
  );
  console.log(
    `file set ready ${Math.round(workspaceMs)} ms; regex index build ${Math.round(indexBuildMs)} ms (standing index, not part of any query; ${Math.round(index.facts().indexBytes / 2 ** 20)} MiB)`,
  );
  for (const [language, set] of files) {
    const bytes = set.ours.reduce((sum, file) => sum + fs.statSync(path.join(root, file)).size, 0);
    console.log(
      `${language}: ${set.ours.length} files, ${Math.round(bytes / 2 ** 20)} MiB in Fathom's file set; ${set.excludes.length} more on disk excluded from ast-grep${set.excludes.length > 0 ? ` (e.g. ${set.excludes.slice(0, 3).join(', ')})` : ''}`,
    );
  }
  if (treeStoreMb > 0 && process.env.FATHOM_BENCH_PREBUILD !== '0') {
    const languageSet = new Set(cases.map((testCase) => testCase.language));
    const prebuild = new TreePrebuild(structuralPool, grammarTable, root, () =>
      workspace.files().filter((file) => languageSet.has(grammarTable.detect(file)?.id as Language)),
    );
    const prebuildStarted = performance.now();
    const cpu = process.cpuUsage();
    await prebuild.ensureBuilt();
    const used = process.cpuUsage(cpu);
    const built = prebuild.result!;
    console.log(
      `tree store built ${Math.round(performance.now() - prebuildStarted)} ms (CPU ${((used.user + used.system) / 1e6).toFixed(1)} s; standing index, not part of any query): ${built.parsed} of ${built.files} files parsed, ${(built.storedBytes / 2 ** 20).toFixed(1)} MiB stored, ${built.failed} failed`,
    );
  }
  console.log(
    `load average at start ${os
      .loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')} (other work on the machine skews wall times; CPU times are reported too)`,
  );
  const agVersion = spawnSync(astGrepBin, ['--version'], { encoding: 'utf8' }).stdout.trim();
  console.log(`${agVersion}; runs per pattern and tool: ${runs}${runs > 1 ? ' (median)' : ''}`);

  const rows: Row[] = [];
  const differences: string[] = [];
  for (const testCase of cases) {
    const label = `${testCase.language} ${JSON.stringify(testCase.pattern)}`;
    // Both tools must parse the pattern cleanly.
    try {
      await search.compile({ language: testCase.language, rule: { pattern: testCase.pattern } });
    } catch (error) {
      console.log(`skipped ${label}: Fathom: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    const parses = astGrepParses(testCase, scratch);
    if (!parses.ok) {
      console.log(`skipped ${label}: ast-grep does not parse it cleanly:\n${parses.detail}`);
      continue;
    }
    const set = files.get(testCase.language)!;
    // Untimed: both workers started and holding the grammar (`$X` has no literal: both files are jobs).
    const warm = new Set(set.ours.slice(0, 2));
    await search.search(source, { language: testCase.language, rule: { pattern: '$X' }, accepts: (file) => warm.has(file), maxResults: 1 });

    const ourTimes: number[] = [];
    // CPU time of this process (main thread and workers): less sensitive than wall time to other load.
    const ourCpu: number[] = [];
    const loadBefore = os.loadavg()[0]!;
    let result: StructuralResult | undefined;
    for (let run = 0; run < runs; run++) {
      // eslint-disable-next-line no-useless-assignment -- one result held at a time: the last is dropped before the next search
      result = undefined;
      const t = performance.now();
      const cpu = process.cpuUsage();
      result = await search.search(source, { language: testCase.language, rule: { pattern: testCase.pattern }, maxResults: 1_000_000 });
      ourTimes.push(performance.now() - t);
      const used = process.cpuUsage(cpu);
      ourCpu.push((used.user + used.system) / 1000);
    }
    const ours = new Set(result!.matches.map((match) => `${match.path}\0${match.startByte}\0${match.endByte}`));
    const theirTimes: number[] = [];
    const theirCpu: number[] = [];
    let theirs: AstGrepRun | undefined;
    for (let run = 0; run < runs; run++) {
      theirs = undefined; // one result held at a time
      theirs = await runAstGrep(root, testCase, set.excludes, scratch);
      theirTimes.push(theirs.ms);
      if (theirs.cpuMs !== undefined) theirCpu.push(theirs.cpuMs);
    }
    const onlyOurs = [...ours].filter((key) => !theirs!.keys.has(key));
    const onlyTheirs = [...theirs!.keys].filter((key) => !ours.has(key));
    const row: Row = {
      language: testCase.language,
      kind: testCase.kind,
      pattern: testCase.pattern,
      astGrepPattern: testCase.astGrep ? `${testCase.astGrep.pattern} --selector ${testCase.astGrep.selector}` : testCase.pattern,
      oursMs: median(ourTimes),
      astGrepMs: median(theirTimes),
      oursRunsMs: ourTimes.map(Math.round),
      astGrepRunsMs: theirTimes.map(Math.round),
      ratio: median(theirTimes) / median(ourTimes),
      oursCpuMs: median(ourCpu),
      astGrepCpuMs: theirCpu.length > 0 ? median(theirCpu) : undefined,
      loadBefore,
      ours: result!.matches.length,
      astGrep: theirs!.keys.size,
      same: onlyOurs.length === 0 && onlyTheirs.length === 0,
      onlyOurs: onlyOurs.length,
      onlyAstGrep: onlyTheirs.length,
      candidates: result!.stats.candidates,
      parsed: result!.stats.parsed,
      reused: result!.stats.reused,
      fromIndex: result!.stats.fromIndex,
      plan: result!.stats.plan,
      truncated: result!.truncated,
      errors: result!.errors.length,
      languageFiles: set.ours.length,
      astGrepScanned: theirs!.scanned,
      astGrepMaxRssMb: theirs!.maxRssMb,
      causes: {},
    };
    rows.push(row);
    console.log(
      `${label}: fathom ${row.oursRunsMs.join(', ')} ms, ast-grep ${row.astGrepRunsMs.join(', ')} ms, ${row.ours} / ${row.astGrep} matches${row.same ? '' : ' DIFFER'}`,
    );
    if (row.astGrepScanned !== undefined && row.astGrepScanned !== set.ours.length)
      console.log(`  note: ast-grep scanned ${row.astGrepScanned} files, Fathom's set holds ${set.ours.length} ${testCase.language} files`);
    if (result!.errors.length > 0)
      console.log(
        `  note: Fathom could not search ${result!.errors.length} files, e.g. ${result!.errors
          .slice(0, 3)
          .map((error) => `${error.path}: ${error.message}`)
          .join('; ')}`,
      );
    if (!row.same) {
      // At most 2,000 per side are classified (each file parsed by both tools once more, untimed).
      const causes = await classify(root, grammars, testCase.language, [...onlyOurs.slice(0, 2_000), ...onlyTheirs.slice(0, 2_000)]);
      const lines = [`### ${label}: ${onlyOurs.length} only in Fathom, ${onlyTheirs.length} only in ast-grep`];
      for (const [side, keys] of [
        ['fathom only', onlyOurs],
        ['ast-grep only', onlyTheirs],
      ] as const) {
        if (keys.length === 0) continue;
        const counted = keys.slice(0, 2_000);
        const byCause = new Map<Cause, string[]>();
        for (const key of counted) {
          const cause = causes.get(key) ?? 'other';
          byCause.set(cause, [...(byCause.get(cause) ?? []), key]);
        }
        const summary = [...byCause]
          .map(
            ([cause, list]) =>
              `${list.length} ${cause === 'parse error' ? "overlap an ERROR node of either parse (or a MISSING one of Fathom's)" : cause === 'comment' ? 'hold a comment' : 'other (e.g. a macro body parsed as code by one grammar, kept as text by the other)'}`,
          )
          .join(', ');
        lines.push(`  ${side}: ${summary}${counted.length < keys.length ? ` (of the first ${counted.length})` : ''}`);
        row.causes[side === 'fathom only' ? 'onlyOurs' : 'onlyAstGrep'] = Object.fromEntries([...byCause].map(([cause, list]) => [cause, list.length]));
        for (const [cause, list] of byCause) for (const key of list.slice(0, 2)) lines.push(`    ${cause.padEnd(11)} ${describeKey(root, key)}`);
      }
      differences.push(lines.join('\n'));
    }
  }

  console.log(
    `\n| pattern | lang | kind | fathom ms | ast-grep ms | ratio (ast-grep / fathom) | first run: fathom ms, ratio | CPU s fathom / ast-grep | fathom matches | ast-grep matches | candidates / parsed / reused (of files) | same |`,
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) {
    const pattern = row.astGrepPattern === row.pattern ? `\`${row.pattern}\`` : `\`${row.pattern}\` (ast-grep: \`${row.astGrepPattern}\`)`;
    console.log(
      `| ${pattern.replace(/\|/g, '\\|')} | ${row.language} | ${row.kind} | ${row.oursMs.toFixed(0)} | ${row.astGrepMs.toFixed(0)} | ${row.ratio.toFixed(2)} | ${row.oursRunsMs[0]}, ${(row.astGrepMs / Math.max(1, row.oursRunsMs[0]!)).toFixed(2)} | ${(row.oursCpuMs / 1000).toFixed(2)} / ${row.astGrepCpuMs === undefined ? '-' : (row.astGrepCpuMs / 1000).toFixed(2)} | ${row.ours}${row.truncated ? '+' : ''} | ${row.astGrep} | ${row.candidates} / ${row.parsed} / ${row.reused} (${row.languageFiles}) | ${row.same ? 'yes' : `no (+${row.onlyOurs} / +${row.onlyAstGrep})`} |`,
    );
  }
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  if (treeStoreMb > 0) {
    await structuralPool.settled();
    let storeBytes = 0;
    let storeFiles = 0;
    for (const name of fs.existsSync(treeStoreFolder) ? fs.readdirSync(treeStoreFolder, { recursive: true }) : []) {
      if (!String(name).endsWith('.tree')) continue;
      storeFiles += 1;
      storeBytes += fs.statSync(path.join(treeStoreFolder, String(name))).size;
    }
    console.log(`
tree store: ${storeFiles} trees, ${(storeBytes / 2 ** 20).toFixed(1)} MiB (${(storeBytes / status.bytes).toFixed(2)}× the file set's bytes; budget ${treeStoreMb} MiB)`);
  }
  console.log(
    `\nload average at end ${os
      .loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}; before each pattern: ${rows.map((row) => row.loadBefore.toFixed(1)).join(', ')}`,
  );
  const agRss = rows.map((row) => row.astGrepMaxRssMb).filter((value): value is number => value !== undefined);
  console.log(
    `\npeak RSS of this process (workers included) ${peakRssMb.toFixed(0)} MB${agRss.length > 0 ? `; ast-grep peak RSS max ${Math.max(...agRss).toFixed(0)} MB` : ''}`,
  );
  if (differences.length > 0) console.log(`\n${differences.join('\n')}`);

  index.dispose();
  await workspace.close();
  structuralPool.close();
  hashPool.close();
  for (const folder of [scratch, cacheDir]) fs.rmSync(folder, { recursive: true, force: true });
  console.log(
    `\nBENCH_JSON ${JSON.stringify({ corpus: name, files: status.files, bytes: status.bytes, maxFileBytes, runs, workspaceMs: Math.round(workspaceMs), indexBuildMs: Math.round(indexBuildMs), astGrep: agVersion, patterns: rows, peakRssMb: Math.round(peakRssMb) })}`,
  );
}

await main();
