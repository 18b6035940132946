// The retrieval evaluation: questions in words over codebases that are not the benchmark corpora
// (bench/retrieval/questions/*.json: Werkzeug and Jinja2 from Debian, zod's TypeScript sources
// from npm, Open vSwitch's C from Debian's openvswitch-source; prepared by bench/corpora.sh), each with verified target files and line ranges. Every
// ranking answers every question; scored are file Recall@1/@5/@10 and MRR@10 (files in the order
// of their first result) and chunk Recall@10 (a result among the first ten overlaps a target by at
// least half of the shorter of the two ranges), for all questions and for the meaning-only ones,
// and for the meaning-only ones of each set: set 1 (65 questions, 59 meaning-only) is what the
// chunk ranking's and the model's settings were chosen on; set 2 (75, ids "…-bNN") was written
// later, to the same rules, by reviewers who saw no ranking's answers; and by language (of the
// targets: Python, TypeScript, C). The C questions (Open vSwitch, `ovs`, 48) were written after
// every setting had been chosen, by reviewers who saw no ranking's answers: with set 2, the blind
// half ("blind" rows), on which nothing is chosen.
//
// Rankings:
//   rg-bm25   the baseline the issue measured: the question's words searched with ripgrep (any case,
//             substrings), files ranked by BM25 over the counts, the best 40-line window per file
//   lexical   Fathom's chunk ranking (BM25F over syntax chunks, src/index/ranking/chunk-ranking.ts)
//   semantic, hybrid@W   with FATHOM_EVAL_MODEL=DIR (a model folder in transformers.js' layout):
//             the semantic index alone, and codeSearch's hybrid fusion at each weight W; the best
//             weight on set 1's meaning-only MRR@10 is what goes into the model's fathom.json
//             ("hybridWeight"), and only if hybrid there is not below lexical
//
//   cli       with FATHOM_EVAL_CLI=1 (or =PATH of another build's dist/src/cli/main.js): what a new
//             user meets, as the issue measured it: `fathom index ROOT` on a fresh cache and
//             daemon, then `fathom search QUESTION ROOT --json --max 50` (the default route: auto)
//
// Usage: node dist/bench/retrieval/eval.js [CORPUS…]   (default: every corpus with questions)
//   FATHOM_EVAL_PARAMETERS='{"weights":[…],"b":[…],"k1":…}' tries other BM25F parameters;
//   FATHOM_EVAL_VERBOSE=1 prints each question's first results.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RankedChunk, type RankingParameters, ChunkRanking, defaultParameters } from '../../src/index/ranking/chunk-ranking.js';
import { ChunkTermsPool } from '../../src/index/ranking/chunk-terms-pool.js';
import { isStopWord, queryTerms } from '../../src/index/ranking/code-tokens.js';
import { codeSearch } from '../../src/search/code-search.js';
import { type LearnedFusion, isLearnedFusion } from '../../src/search/fusion.js';
import { EmbedPool } from '../../src/index/semantic/embed-pool.js';
import { EmbeddingCache } from '../../src/index/semantic/embedding-cache.js';
import { openModelFolder } from '../../src/index/semantic/model-folder.js';
import { SemanticIndex } from '../../src/index/semantic/semantic-index.js';
import type { VectorHit } from '../../src/index/semantic/vector-store.js';
import { ChunkPool } from '../../src/index/syntax/chunk-pool.js';
import { HashPool } from '../../src/workspace/hash-pool.js';
import { Workspace } from '../../src/workspace/workspace.js';

export interface Target {
  path: string;
  start: number;
  end: number;
}

export interface Question {
  id: string;
  corpus: string;
  kind: 'meaning' | 'identifier';
  question: string;
  targets: Target[];
}

/** One ranked answer: a file and a 1-based inclusive line range. */
export interface Hit {
  path: string;
  start: number;
  end: number;
}

export type Ranker = (question: Question) => Promise<Hit[]> | Hit[];

const questionsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../bench/retrieval/questions');

export function loadQuestions(corpora?: string[]): Question[] {
  const names =
    corpora && corpora.length > 0
      ? corpora
      : fs
          .readdirSync(questionsDir)
          .filter((name) => name.endsWith('.json'))
          .map((name) => name.slice(0, -5))
          .sort();
  return names.flatMap((name) => JSON.parse(fs.readFileSync(path.join(questionsDir, `${name}.json`), 'utf8')) as Question[]);
}

export function overlaps(hit: Hit, target: Target): boolean {
  if (hit.path !== target.path) return false;
  const overlap = Math.min(hit.end, target.end) - Math.max(hit.start, target.start) + 1;
  return overlap > 0 && overlap >= 0.5 * Math.min(hit.end - hit.start + 1, target.end - target.start + 1);
}

interface Scores {
  questions: number;
  r1: number;
  r5: number;
  r10: number;
  mrr10: number;
  chunkR10: number;
}

export function score(questions: Question[], answers: Map<string, Hit[]>): Scores {
  const scores: Scores = { questions: questions.length, r1: 0, r5: 0, r10: 0, mrr10: 0, chunkR10: 0 };
  for (const question of questions) {
    const hits = answers.get(question.id) ?? [];
    const files = [...new Set(hits.map((hit) => hit.path))];
    const rank = files.findIndex((file) => question.targets.some((target) => target.path === file));
    if (rank === 0) scores.r1++;
    if (rank >= 0 && rank < 5) scores.r5++;
    if (rank >= 0 && rank < 10) {
      scores.r10++;
      scores.mrr10 += 1 / (rank + 1);
    }
    if (hits.slice(0, 10).some((hit) => question.targets.some((target) => overlaps(hit, target)))) scores.chunkR10++;
  }
  const n = Math.max(1, questions.length);
  return { questions: questions.length, r1: scores.r1 / n, r5: scores.r5 / n, r10: scores.r10 / n, mrr10: scores.mrr10 / n, chunkR10: scores.chunkR10 / n };
}

/** The issue's baseline: ripgrep for the question's words, BM25 over files, the best 40-line window of each. */
export function rgBm25(root: string): Ranker {
  const files = execFileSync('rg', ['--files'], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28 })
    .split('\n')
    .filter(Boolean);
  const lineCounts = new Map(files.map((file) => [file, fs.readFileSync(path.join(root, file), 'utf8').split('\n').length]));
  const average = [...lineCounts.values()].reduce((sum, count) => sum + count, 0) / Math.max(1, files.length);
  return (question) => {
    const words = [...new Set(question.question.toLowerCase().match(/[a-z0-9_]+/g) ?? [])].filter((word) => word.length >= 2 && !isStopWord(word));
    if (words.length === 0) return [];
    let output: string;
    try {
      output = execFileSync('rg', ['-i', '-o', '-n', '-H', '--no-heading', '-F', ...words.flatMap((word) => ['-e', word]), '.'], {
        cwd: root,
        encoding: 'utf8',
        maxBuffer: 1 << 28,
      });
    } catch (error) {
      output = (error as { stdout?: string }).stdout ?? ''; // rg exits 1 when nothing matched
    }
    // file → word → lines
    const found = new Map<string, Map<string, number[]>>();
    for (const line of output.split('\n')) {
      const match = /^(?:\.\/)?(.*?):(\d+):(.*)$/.exec(line);
      if (!match) continue;
      const [, file, lineNumber, text] = match;
      const word = text!.toLowerCase();
      let perWord = found.get(file!);
      if (!perWord) found.set(file!, (perWord = new Map()));
      const lines = perWord.get(word) ?? [];
      lines.push(Number(lineNumber));
      perWord.set(word, lines);
    }
    const documentFrequency = new Map<string, number>();
    for (const perWord of found.values()) for (const word of perWord.keys()) documentFrequency.set(word, (documentFrequency.get(word) ?? 0) + 1);
    const idf = (word: string): number => {
      const frequency = documentFrequency.get(word) ?? 0;
      return Math.log(1 + (files.length - frequency + 0.5) / (frequency + 0.5));
    };
    const ranked = [...found].map(([file, perWord]) => {
      const length = lineCounts.get(file) ?? average;
      let total = 0;
      for (const [word, lines] of perWord) total += (idf(word) * lines.length * 2.2) / (lines.length + 1.2 * (0.25 + (0.75 * length) / average));
      // The best 40-line window: the most idf of distinct words, then the most hits.
      const all = [...perWord].flatMap(([word, lines]) => lines.map((line) => ({ word, line })));
      let best = { start: 1, value: -1, hits: 0 };
      for (const { line: start } of all) {
        const inside = all.filter((hit) => hit.line >= start && hit.line < start + 40);
        const value = [...new Set(inside.map((hit) => hit.word))].reduce((sum, word) => sum + idf(word), 0);
        if (value > best.value || (value === best.value && inside.length > best.hits)) best = { start, value, hits: inside.length };
      }
      return { path: file, start: best.start, end: best.start + 39, score: total };
    });
    ranked.sort((a, b) => b.score - a.score || a.path.localeCompare(b.path));
    return ranked.slice(0, 50);
  };
}

export const hybridWeights = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7];

/** Fathom's chunk ranking over a workspace of the corpus (and, with a model, semantic and hybrid rankers through codeSearch). */
export async function chunkLexical(
  root: string,
  parameters: RankingParameters,
  modelDir?: string,
): Promise<{
  ranker: Ranker;
  semantic: Record<string, Ranker>;
  /** With a model: the two lists the hybrid route fuses for a question (the fusion's trainer reads them). */
  lists?: (question: Question) => Promise<{ lexical: RankedChunk[]; near: VectorHit[] }>;
  close: () => Promise<void>;
  buildMs: number;
  embedMs: number;
  counts: ReturnType<ChunkRanking['counts']>;
}> {
  const hashPool = new HashPool();
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-retrieval-'));
  const workspace = new Workspace({ root, cacheDir, maxFileBytes: 4 * 1024 * 1024, reconcileIntervalMs: 0, pool: hashPool });
  await workspace.whenReady();
  const pool = new ChunkTermsPool(2);
  const ranking = new ChunkRanking(workspace, pool);
  const started = performance.now();
  await ranking.ensureBuilt();
  const buildMs = performance.now() - started;
  const semantic: Record<string, Ranker> = {};
  let embedMs = 0;
  let closeSemantic = async (): Promise<void> => undefined;
  let lists: ((question: Question) => Promise<{ lexical: RankedChunk[]; near: VectorHit[] }>) | undefined;
  if (modelDir) {
    const model = openModelFolder(modelDir);
    const embedPool = new EmbedPool();
    const chunkPool = new ChunkPool(2);
    const embedder = embedPool.embedder(model);
    const [probe] = await embedder.embed(['probe'], 'document');
    const cache = EmbeddingCache.open(path.join(os.tmpdir(), 'fathom-retrieval-embeddings'), model.id, probe!.length);
    const index = new SemanticIndex(workspace, chunkPool, embedder, cache, { folder: cacheDir, syncIntervalMs: 0 });
    const embedStarted = performance.now();
    await index.ensureBuilt();
    embedMs = performance.now() - embedStarted;
    const engines = {
      ranking: async () => ranking,
      grep: async () => {
        throw new Error('not used');
      },
      symbols: async () => ({ matches: [] }),
      readText: () => undefined,
      semantic: async () => ({ search: (text: string, k: number, accepts?: (file: string) => boolean) => index.search(text, k, accepts) }),
      semanticReady: () => ({}),
    };
    const through =
      (mode: 'semantic' | 'hybrid', weight?: number, fusion?: LearnedFusion): Ranker =>
      async (question) =>
        (
          await codeSearch(
            { query: question.question, mode, accepts: () => true, maxResults: 50, ...(weight === undefined ? {} : { hybridWeight: weight }) },
            fusion ? { ...engines, semantic: async () => ({ ...(await engines.semantic()), fusion }) } : engines,
            { isCancellationRequested: false } as never,
          )
        ).hits.map((hit) => ({ path: hit.path, start: hit.startLine + 1, end: hit.endLine + 1 }));
    semantic.semantic = through('semantic');
    // As the hybrid route asks them (code-search.ts: 50 lexical chunks, 100 semantic hits).
    lists = async (question) => ({
      lexical: ranking.search({ terms: queryTerms(question.question), accepts: () => true, limit: 50 }),
      near: await index.search(question.question, 100, () => true),
    });
    for (const weight of hybridWeights) semantic[`hybrid@${weight}`] = through('hybrid', weight);
    // The model's learned fusion, when its fathom.json has one (bench/retrieval/fusion-train.ts).
    if (isLearnedFusion(model.settings.fusion)) semantic.learned = through('hybrid', undefined, model.settings.fusion);
    closeSemantic = async () => {
      await index.dispose();
      cache.close();
      embedPool.close();
      chunkPool.close();
    };
  }
  return {
    ranker: (question) =>
      ranking
        .search({ terms: queryTerms(question.question), limit: 50, parameters })
        .map((chunk) => ({ path: chunk.path, start: chunk.startLine + 1, end: chunk.endLine + 1 })),
    semantic,
    ...(lists ? { lists } : {}),
    close: async () => {
      await closeSemantic();
      await ranking.dispose();
      pool.close();
      await workspace.close();
      hashPool.close();
    },
    buildMs,
    embedMs,
    counts: ranking.counts(),
  };
}

/** `fathom search --json` of a build's CLI (its own daemon and cache, the corpus indexed by `fathom index` first). */
function cliDefault(root: string, main: string): { ranker: Ranker; indexMs: number; close: () => void } {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-retrieval-cli-'));
  const env = { ...process.env, FATHOM_SOCKET: path.join(folder, 'fathom.sock'), FATHOM_CACHE_DIR: path.join(folder, 'cache'), FATHOM_LOG: 'warn' };
  const run = (args: string[]): string => {
    const result = spawnSync(process.execPath, [main, ...args], { env, encoding: 'utf8', maxBuffer: 1 << 28 });
    if (result.status !== 0) throw new Error(`fathom ${args.slice(0, 2).join(' ')}: exit ${result.status}: ${result.stderr.slice(-400)}`);
    return result.stdout;
  };
  const started = performance.now();
  run(['index', root]);
  const indexMs = performance.now() - started;
  return {
    // --json prints one hit a line (and a summary line without a path when a cap is reached).
    ranker: (question) =>
      run(['search', question.question, root, '--json', '--max', '50'])
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as { path?: string; start: number; end: number })
        .filter((hit): hit is { path: string; start: number; end: number } => typeof hit.path === 'string')
        .map((hit) => ({ path: path.isAbsolute(hit.path) ? path.relative(root, hit.path) : hit.path, start: hit.start, end: hit.end })),
    indexMs,
    close: () => {
      spawnSync(process.execPath, [main, 'stop'], { env });
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** Whether a question is of the second set, written blind to every ranking (ids "…-bNN"). */
export function secondSet(question: Question): boolean {
  return /-b\d+$/.test(question.id);
}

/** Whether a question was written blind to every ranking: set 2, and every C question (ovs, written after all settings were chosen). */
export function blind(question: Question): boolean {
  return secondSet(question) || languageOf(question) === 'C';
}

/** The language a question is about: its first target's (every metric is also reported by language). */
export function languageOf(question: Question): string {
  const extension = path.extname(question.targets[0]?.path ?? '').toLowerCase();
  return { '.py': 'Python', '.ts': 'TypeScript', '.tsx': 'TypeScript', '.js': 'JavaScript', '.c': 'C', '.h': 'C' }[extension] ?? 'other';
}

function percent(value: number): string {
  return `${(100 * value).toFixed(1)}`;
}

async function main(): Promise<void> {
  const benchDir = process.env.FATHOM_BENCH_DIR ?? '/tmp/fathom-bench';
  const questions = loadQuestions(process.argv.slice(2));
  const corpora = [...new Set(questions.map((question) => question.corpus))];
  const parameters: RankingParameters = process.env.FATHOM_EVAL_PARAMETERS
    ? { ...defaultParameters, ...(JSON.parse(process.env.FATHOM_EVAL_PARAMETERS) as Partial<RankingParameters>) }
    : defaultParameters;
  const modelDir = process.env.FATHOM_EVAL_MODEL;
  const answers: Record<string, Map<string, Hit[]>> = {};
  const timings: Record<string, number[]> = {};
  for (const corpus of corpora) {
    const root = fs.realpathSync(path.join(benchDir, corpus));
    const lexical = await chunkLexical(root, parameters, modelDir);
    console.log(
      `${corpus}: ${lexical.counts.files} files, ${lexical.counts.chunks} chunks, ${lexical.counts.terms} terms, built in ${Math.round(lexical.buildMs)} ms${modelDir ? `, embedded in ${Math.round(lexical.embedMs)} ms` : ''}`,
    );
    const cliMain =
      process.env.FATHOM_EVAL_CLI === '1' ? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/cli/main.js') : process.env.FATHOM_EVAL_CLI;
    const cli = cliMain ? cliDefault(root, cliMain) : undefined;
    if (cli) console.log(`${corpus}: \`fathom index\` in ${Math.round(cli.indexMs)} ms (${cliMain})`);
    const rankers: Record<string, Ranker> = { 'rg-bm25': rgBm25(root), lexical: lexical.ranker, ...lexical.semantic, ...(cli ? { cli: cli.ranker } : {}) };
    for (const question of questions.filter((entry) => entry.corpus === corpus)) {
      for (const [name, ranker] of Object.entries(rankers)) {
        answers[name] ??= new Map();
        timings[name] ??= [];
        const started = performance.now();
        const hits = await ranker(question);
        timings[name]!.push(performance.now() - started);
        answers[name]!.set(question.id, hits);
        if (process.env.FATHOM_EVAL_VERBOSE) {
          const mark = (hit: Hit): string =>
            question.targets.some((target) => overlaps(hit, target)) ? '✔' : question.targets.some((target) => target.path === hit.path) ? '~' : ' ';
          console.log(
            `${question.id} ${name.padEnd(8)} ${hits
              .slice(0, 3)
              .map((hit) => `${mark(hit)}${hit.path}:${hit.start}-${hit.end}`)
              .join('  ')}`,
          );
        }
      }
    }
    await lexical.close();
    cli?.close();
  }
  const rows: string[] = ['| ranking | questions | file R@1 | R@5 | R@10 | MRR@10 | chunk R@10 | ms/query (p50) |', '|---|---|---|---|---|---|---|---|'];
  const json: Record<string, unknown> = {};
  // The second set (ids "…-bNN") was written after every setting here had been chosen, by
  // reviewers who never saw a ranking: the held-out check on the first set's choices.
  const subsets: Record<string, (question: Question) => boolean> = {
    meaning: (question) => question.kind === 'meaning',
    'meaning, set 1': (question) => question.kind === 'meaning' && !secondSet(question),
    'meaning, set 2': (question) => question.kind === 'meaning' && secondSet(question),
    all: () => true,
    'all, blind': blind,
  };
  for (const language of [...new Set(questions.map(languageOf))].sort()) {
    subsets[`all, ${language}`] = (question) => languageOf(question) === language;
    subsets[`meaning, ${language}`] = (question) => question.kind === 'meaning' && languageOf(question) === language;
    subsets[`all, ${language}, blind`] = (question) => languageOf(question) === language && blind(question);
  }
  for (const [subset, keep] of Object.entries(subsets)) {
    const chosen = questions.filter(keep);
    if (chosen.length === 0) continue;
    for (const name of Object.keys(answers)) {
      const scores = score(chosen, answers[name]!);
      const sorted = timings[name]!.slice().sort((a, b) => a - b);
      const p50 = sorted[Math.floor(sorted.length / 2)] ?? 0;
      rows.push(
        `| ${name} (${subset}) | ${scores.questions} | ${percent(scores.r1)} | ${percent(scores.r5)} | ${percent(scores.r10)} | ${scores.mrr10.toFixed(3)} | ${percent(scores.chunkR10)} | ${p50.toFixed(1)} |`,
      );
      json[`${name}/${subset}`] = { ...scores, p50Ms: p50 };
    }
  }
  console.log(rows.join('\n'));
  if (modelDir) {
    // Chosen on set 1 (where the other settings were chosen), checked on set 2.
    const chosenOn = questions.filter(subsets['meaning, set 1']!);
    const checkedOn = questions.filter(subsets['meaning, set 2']!);
    const lexicalMrr = score(chosenOn, answers.lexical!).mrr10;
    const best = hybridWeights.map((weight) => ({ weight, mrr: score(chosenOn, answers[`hybrid@${weight}`]!).mrr10 })).sort((a, b) => b.mrr - a.mrr)[0]!;
    const check =
      checkedOn.length > 0
        ? ` (set 2: ${score(checkedOn, answers[`hybrid@${best.weight}`]!).mrr10.toFixed(3)} vs lexical ${score(checkedOn, answers.lexical!).mrr10.toFixed(3)})`
        : '';
    console.log(
      best.mrr >= lexicalMrr
        ? `best hybrid weight on set 1's meaning-only MRR@10: ${best.weight} (${best.mrr.toFixed(3)} vs lexical ${lexicalMrr.toFixed(3)})${check}: put {"hybridWeight": ${best.weight}} in ${modelDir}/fathom.json`
        : `every hybrid weight ranks below lexical on set 1's meaning-only MRR@10 (best ${best.weight}: ${best.mrr.toFixed(3)} vs ${lexicalMrr.toFixed(3)}): leave hybridWeight out, auto stays lexical`,
    );
  }
  console.log(`BENCH_JSON ${JSON.stringify({ bench: 'retrieval', corpora, parameters, results: json })}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === fs.realpathSync(process.argv[1])) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
