// Trains the learned hybrid fusion (src/search/fusion.ts) and checks it on the blind half. For every
// question of the retrieval evaluation, the two lists the hybrid route fuses (the chunk ranking's
// 50 chunks, the semantic index's 100 hits) are merged into candidates and described by
// `fusionFeatures`; a candidate that overlaps a target (as the evaluation scores chunks) is worth
// 2, one elsewhere in a target file 1, the rest 0. A linear model is trained pairwise (RankNet's
// logistic loss over every pair of a question's candidates worth differently, L2-regularised) on
// the first set only, the one every other setting was chosen on; the regularisation is chosen by
// 5-fold cross-validation inside it. Nothing is chosen on the blind half (set 2 and every C
// question): it is only scored, against the weighted fusion at the model's weight.
//
// Usage: FATHOM_EVAL_MODEL=models/fathom-code node dist/bench/retrieval/fusion-train.js [CORPUS…]
//   prints both fusions' scores by subset and the `fusion` setting to put in the model's fathom.json
//   FATHOM_FUSION_WRITE=1 writes it there (and keeps hybridWeight for requests that name a weight)
import fs from 'node:fs';
import path from 'node:path';
import { defaultParameters } from '../../src/index/ranking/chunk-ranking.js';
import { queryTerms } from '../../src/index/ranking/code-tokens.js';
import { type FusionCandidates, type LearnedFusion, featuresOf, fuse, fusionCandidates, fusionFeatures } from '../../src/search/fusion.js';
import { type Hit, type Question, blind, chunkLexical, languageOf, loadQuestions, overlaps, score } from './eval.js';

interface Example {
  question: Question;
  candidates: FusionCandidates;
  terms: string[];
  features: Float64Array[];
  labels: number[];
}

function labelOf(question: Question, hit: Hit): number {
  if (question.targets.some((target) => overlaps(hit, target))) return 2;
  return question.targets.some((target) => target.path === hit.path) ? 1 : 0;
}

/** What a variant of the fusion learns from: which features, and whether a chunk elsewhere in a target file counts (graded) or not (chunk). */
interface Variant {
  name: string;
  columns: number[];
  labels: 'graded' | 'chunk';
}

const everyColumn = fusionFeatures.map((_, index) => index);
const fileLevel = new Set(['fileLexical', 'fileSimilarity', 'fileChunks']);
const variants: Variant[] = [
  { name: 'every feature, graded', columns: everyColumn, labels: 'graded' },
  { name: 'every feature, chunk', columns: everyColumn, labels: 'chunk' },
  { name: 'chunk features, graded', columns: everyColumn.filter((index) => !fileLevel.has(fusionFeatures[index]!)), labels: 'graded' },
  { name: 'chunk features, chunk', columns: everyColumn.filter((index) => !fileLevel.has(fusionFeatures[index]!)), labels: 'chunk' },
];

/** Pairwise logistic loss's weights over the variant's columns (Adam, full batch), L2 penalty `lambda`. */
function train(examples: Example[], variant: Variant, lambda: number, iterations = 600): LearnedFusion {
  const columns = variant.columns;
  const width = columns.length;
  const weights = new Float64Array(width);
  const m = new Float64Array(width);
  const v = new Float64Array(width);
  const pairs: Array<[Float64Array, Float64Array]> = [];
  const pick = (row: Float64Array): Float64Array => Float64Array.from(columns, (column) => row[column]!);
  for (const example of examples) {
    const labels = variant.labels === 'graded' ? example.labels : example.labels.map((label) => (label === 2 ? 1 : 0));
    labels.forEach((better, i) => {
      labels.forEach((worse, j) => {
        if (better > worse) pairs.push([pick(example.features[i]!), pick(example.features[j]!)]);
      });
    });
  }
  // Pairs of a question with many candidates would weigh it more: average per pair, then per question is close enough here.
  for (let step = 1; step <= iterations; step++) {
    const gradient = new Float64Array(width);
    for (const [better, worse] of pairs) {
      let margin = 0;
      for (let k = 0; k < width; k++) margin += weights[k]! * (better[k]! - worse[k]!);
      const pull = -1 / (1 + Math.exp(margin));
      for (let k = 0; k < width; k++) gradient[k]! += (pull * (better[k]! - worse[k]!)) / pairs.length;
    }
    for (let k = 0; k < width; k++) {
      const g = gradient[k]! + 2 * lambda * weights[k]!;
      m[k] = 0.9 * m[k]! + 0.1 * g;
      v[k] = 0.999 * v[k]! + 0.001 * g * g;
      const mHat = m[k]! / (1 - 0.9 ** step);
      const vHat = v[k]! / (1 - 0.999 ** step);
      weights[k]! -= (0.05 * mHat) / (Math.sqrt(vHat) + 1e-8);
    }
  }
  return { features: columns.map((column) => fusionFeatures[column]!), weights: [...weights].map((weight) => Math.round(weight * 1e4) / 1e4) };
}

function hitsOf(example: Example, fusion: Parameters<typeof fuse>[2]): Hit[] {
  return fuse(example.candidates, example.terms, fusion)
    .slice(0, 50)
    .map(({ candidate }) => ({ path: candidate.path, start: candidate.startLine + 1, end: candidate.endLine + 1 }));
}

function answersOf(examples: Example[], fusion: Parameters<typeof fuse>[2]): Map<string, Hit[]> {
  return new Map(examples.map((example) => [example.question.id, hitsOf(example, fusion)]));
}

/** What a fusion is chosen by (on the questions it is trained on, cross-validated): file MRR@10 and chunk R@10 alike. */
function objective(scores: ReturnType<typeof score>): number {
  return (scores.mrr10 + scores.chunkR10) / 2;
}

async function main(): Promise<void> {
  const modelDir = process.env.FATHOM_EVAL_MODEL;
  if (!modelDir) throw new Error('set FATHOM_EVAL_MODEL to a model folder (models/fathom-code)');
  const settingsFile = path.join(modelDir, 'fathom.json');
  const settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8')) as { hybridWeight?: number; fusion?: LearnedFusion };
  const weight = settings.hybridWeight ?? 0.3;
  const benchDir = process.env.FATHOM_BENCH_DIR ?? '/tmp/fathom-bench';
  const questions = loadQuestions(process.argv.slice(2));
  const minedDir = process.env.FATHOM_FUSION_MINED;
  const mined: Question[] = minedDir
    ? fs
        .readdirSync(path.join(minedDir, 'questions'))
        .filter((name) => name.endsWith('.json'))
        .sort()
        .flatMap((name) => JSON.parse(fs.readFileSync(path.join(minedDir, 'questions', name), 'utf8')) as Question[])
    : [];
  const examples: Example[] = [];
  const corpora = [
    ...[...new Set(questions.map((question) => question.corpus))].map((corpus) => ({ corpus, root: path.join(benchDir, corpus), asked: questions })),
    ...[...new Set(mined.map((question) => question.corpus))].map((corpus) => ({ corpus, root: path.join(minedDir!, corpus), asked: mined })),
  ];
  for (const { corpus, root, asked } of corpora) {
    const engines = await chunkLexical(fs.realpathSync(root), defaultParameters, modelDir);
    for (const question of asked.filter((entry) => entry.corpus === corpus)) {
      const { lexical, near } = await engines.lists!(question);
      const candidates = fusionCandidates(lexical, near);
      const terms = queryTerms(question.question);
      examples.push({
        question,
        candidates,
        terms,
        features: featuresOf(candidates, terms),
        labels: candidates.list.map((candidate) => labelOf(question, { path: candidate.path, start: candidate.startLine + 1, end: candidate.endLine + 1 })),
      });
    }
    await engines.close();
    console.log(`${corpus}: ${examples.filter((example) => example.question.corpus === corpus).length} questions`);
  }
  const minedIds = new Set(mined.map((question) => question.id));
  const evaluated = examples.filter((example) => !minedIds.has(example.question.id));
  // Trained on the mined questions when there are any, else on the evaluation's first set.
  const chosenOn = minedDir ? examples.filter((example) => minedIds.has(example.question.id)) : evaluated.filter((example) => !blind(example.question));
  const trainedOn = minedDir ? 'the mined questions' : 'set 1';
  // The variant and its penalty, by 5-fold cross-validation on the questions trained on; kept only
  // if it beats the weighted fusion there.
  const lambdas = [0, 0.001, 0.01, 0.1];
  const folds = 5;
  const weighted = { weight };
  const asked = chosenOn.map((example) => example.question);
  const baseline = score(asked, answersOf(chosenOn, weighted));
  console.log(
    `${trainedOn}: weighted@${weight}: MRR@10 ${baseline.mrr10.toFixed(3)}, chunk R@10 ${(100 * baseline.chunkR10).toFixed(1)}, objective ${objective(baseline).toFixed(3)}`,
  );
  let best: { variant: Variant; lambda: number; value: number } | undefined;
  for (const variant of variants) {
    for (const lambda of lambdas) {
      const answers = new Map<string, Hit[]>();
      for (let fold = 0; fold < folds; fold++) {
        const fusion = train(
          chosenOn.filter((_, index) => index % folds !== fold),
          variant,
          lambda,
        );
        for (const example of chosenOn.filter((_, index) => index % folds === fold)) answers.set(example.question.id, hitsOf(example, { learned: fusion }));
      }
      const scores = score(asked, answers);
      console.log(
        `${variant.name}, lambda ${lambda}: cross-validated MRR@10 ${scores.mrr10.toFixed(3)}, chunk R@10 ${(100 * scores.chunkR10).toFixed(1)}, objective ${objective(scores).toFixed(3)}`,
      );
      if (!best || objective(scores) > best.value) best = { variant, lambda, value: objective(scores) };
    }
  }
  const fusion = train(chosenOn, best!.variant, best!.lambda);
  console.log(
    `chosen: ${best!.variant.name}, lambda ${best!.lambda} (objective ${best!.value.toFixed(3)} against the weighted fusion's ${objective(baseline).toFixed(3)}${best!.value > objective(baseline) ? '' : ': no better, not to be shipped'})`,
  );
  const subsets: Record<string, (question: Question) => boolean> = { 'all, blind': blind, 'set 1': (question) => !blind(question), all: () => true };
  if (minedDir) {
    const minedExamples = examples.filter((example) => minedIds.has(example.question.id));
    for (const [name, how] of [
      [`weighted@${weight}`, weighted],
      ['learned', { learned: fusion }],
    ] as const) {
      const scores = score(
        minedExamples.map((example) => example.question),
        answersOf(minedExamples, how),
      );
      console.log(
        `mined questions (trained on), ${name}: file R@1 ${(100 * scores.r1).toFixed(1)}, MRR@10 ${scores.mrr10.toFixed(3)}, chunk R@10 ${(100 * scores.chunkR10).toFixed(1)}`,
      );
    }
  }
  for (const language of [...new Set(questions.map(languageOf))].sort()) {
    subsets[`${language}, blind`] = (question) => languageOf(question) === language && blind(question);
    subsets[`${language}, meaning-only`] = (question) => languageOf(question) === language && question.kind === 'meaning';
  }
  const rows = ['| fusion (subset) | questions | file R@1 | R@5 | R@10 | MRR@10 | chunk R@10 |', '|---|---|---|---|---|---|---|'];
  const percent = (value: number): string => (100 * value).toFixed(1);
  for (const [subset, keep] of Object.entries(subsets)) {
    const chosen = evaluated.filter((example) => keep(example.question));
    for (const [name, how] of [
      [`weighted@${weight}`, weighted],
      ['learned', { learned: fusion }],
    ] as const) {
      const scores = score(
        chosen.map((example) => example.question),
        answersOf(chosen, how),
      );
      rows.push(
        `| ${name} (${subset}) | ${scores.questions} | ${percent(scores.r1)} | ${percent(scores.r5)} | ${percent(scores.r10)} | ${scores.mrr10.toFixed(3)} | ${percent(scores.chunkR10)} |`,
      );
    }
  }
  console.log(rows.join('\n'));
  console.log(`fusion: ${JSON.stringify(fusion)}`);
  if (process.env.FATHOM_FUSION_WRITE === '1' && best!.value > objective(baseline)) {
    fs.writeFileSync(settingsFile, `${JSON.stringify({ ...settings, fusion }, null, 1)}\n`);
    console.log(`written to ${settingsFile}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
