// Hybrid fusion: how the chunk ranking's candidates and the semantic index's are merged into one
// list. Owns the candidate (a chunk either ranker found; a lexical chunk takes the best similarity
// of the semantic chunks inside it), the features each candidate is described by, and the two
// ways of scoring them:
//   weighted  (1-w)·lexical score / best + w·similarity scaled to [0, 1] over the semantic hits
//   learned   a linear model over every feature (its weights trained by
//             bench/retrieval/fusion-train.ts on the evaluation's first question set, shipped in
//             the model folder's fathom.json as `fusion`); pairwise, so only the order matters
// Pure: no engine is called here.
import { isTestPath } from '../index/ranking/chunk-ranking.js';
import { termsOf } from '../index/ranking/code-tokens.js';
import type { RankedChunk } from '../index/ranking/chunk-ranking.js';
import type { VectorHit } from '../index/semantic/vector-store.js';

export interface FusionCandidate {
  path: string;
  /** 0-based, inclusive. */
  startLine: number;
  endLine: number;
  /** The lexical score over the best one's (0: the chunk ranking did not find it). */
  lexical: number;
  /** 0-based place in the chunk ranking's list (-1: not in it). */
  lexicalRank: number;
  /** The best cosine similarity of the semantic hits inside it (undefined: none). */
  similarity: number | undefined;
  /** 0-based place of that hit in the semantic list (-1: none). */
  semanticRank: number;
  matched: string[];
}

/** A question's candidates, and the range of the semantic hits' similarities (what `similarity` is scaled over). */
export interface FusionCandidates {
  list: FusionCandidate[];
  low: number;
  high: number;
}

/** The chunk ranking's list and the semantic index's, merged: one candidate per lexical chunk, then the semantic hits no lexical chunk holds. */
export function fusionCandidates(lexical: readonly RankedChunk[], near: readonly VectorHit[]): FusionCandidates {
  const similarities = near.map((hit) => hit.similarity);
  const low = Math.min(...similarities, 1);
  const high = Math.max(...similarities, low);
  const best = lexical[0]?.score ?? 1;
  const candidates: FusionCandidate[] = lexical.map((chunk, rank) => ({
    path: chunk.path,
    startLine: chunk.startLine,
    endLine: chunk.endLine,
    lexical: chunk.score / best,
    lexicalRank: rank,
    similarity: undefined,
    semanticRank: -1,
    matched: chunk.matched,
  }));
  near.forEach((hit, rank) => {
    const home = candidates.find((candidate) => candidate.path === hit.path && candidate.startLine <= hit.endLine && hit.startLine <= candidate.endLine);
    if (home) {
      if (home.similarity === undefined || hit.similarity > home.similarity) {
        home.similarity = hit.similarity;
        home.semanticRank = rank;
      }
    } else
      candidates.push({
        path: hit.path,
        startLine: hit.startLine,
        endLine: hit.endLine,
        lexical: 0,
        lexicalRank: -1,
        similarity: hit.similarity,
        semanticRank: rank,
        matched: [],
      });
  });
  return { list: candidates, low, high };
}

/** The features a learned fusion weighs, in this order (a model's `fusion.features` must name them). */
export const fusionFeatures = [
  'lexical',
  'lexicalRank',
  'similarity',
  'semanticRank',
  'both',
  'matched',
  'pathTerms',
  'test',
  'lines',
  'fileLexical',
  'fileSimilarity',
  'fileChunks',
] as const;
export type FusionFeature = (typeof fusionFeatures)[number];

/** A linear model over `fusionFeatures`: score = Σ weight·feature (the model folder's fathom.json `fusion`). */
export interface LearnedFusion {
  features: readonly string[];
  weights: readonly number[];
}

/** Whether a parsed `fusion` setting is one this build can apply (every feature known, one weight each). */
export function isLearnedFusion(value: unknown): value is LearnedFusion {
  if (typeof value !== 'object' || value === null) return false;
  const { features, weights } = value as { features?: unknown; weights?: unknown };
  return (
    Array.isArray(features) &&
    Array.isArray(weights) &&
    features.length === weights.length &&
    features.every((name) => (fusionFeatures as readonly string[]).includes(name as string)) &&
    weights.every((weight) => typeof weight === 'number' && Number.isFinite(weight))
  );
}

/** Each candidate's features (fusionFeatures' order); `terms`: the question's query terms. */
export function featuresOf({ list: candidates, low, high }: FusionCandidates, terms: readonly string[]): Float64Array[] {
  const scaled = (similarity: number | undefined): number => (similarity === undefined || high <= low ? 0 : (similarity - low) / (high - low));
  const byFile = new Map<string, { lexical: number; similarity: number; chunks: number }>();
  for (const candidate of candidates) {
    const file = byFile.get(candidate.path) ?? { lexical: 0, similarity: 0, chunks: 0 };
    file.lexical = Math.max(file.lexical, candidate.lexical);
    file.similarity = Math.max(file.similarity, scaled(candidate.similarity));
    file.chunks += 1;
    byFile.set(candidate.path, file);
  }
  const wanted = new Set(terms);
  const pathTerms = new Map<string, number>();
  return candidates.map((candidate) => {
    let inPath = pathTerms.get(candidate.path);
    if (inPath === undefined) {
      const found = new Set(termsOf(candidate.path).filter((term) => wanted.has(term)));
      pathTerms.set(candidate.path, (inPath = wanted.size === 0 ? 0 : found.size / wanted.size));
    }
    const file = byFile.get(candidate.path)!;
    const row = new Float64Array(fusionFeatures.length);
    row[0] = candidate.lexical;
    row[1] = candidate.lexicalRank < 0 ? 0 : 1 / (1 + candidate.lexicalRank);
    row[2] = scaled(candidate.similarity);
    row[3] = candidate.semanticRank < 0 ? 0 : 1 / (1 + candidate.semanticRank);
    row[4] = candidate.lexicalRank >= 0 && candidate.semanticRank >= 0 ? 1 : 0;
    row[5] = wanted.size === 0 ? 0 : candidate.matched.length / wanted.size;
    row[6] = inPath;
    row[7] = isTestPath(candidate.path) ? 1 : 0;
    row[8] = Math.log2(2 + candidate.endLine - candidate.startLine) / 10;
    row[9] = file.lexical;
    row[10] = file.similarity;
    row[11] = Math.min(file.chunks, 10) / 10;
    return row;
  });
}

export type Fusion = { weight: number } | { learned: LearnedFusion };

/** The candidates scored and sorted, best first (a stable order: ties keep the candidates' order). */
export function fuse(candidates: FusionCandidates, terms: readonly string[], fusion: Fusion): Array<{ candidate: FusionCandidate; score: number }> {
  let scores: number[];
  if ('weight' in fusion) {
    // Two features only: the others (path terms, per-file bests) are not worth computing here.
    const { weight } = fusion;
    const { low, high } = candidates;
    scores = candidates.list.map(
      (candidate) =>
        (1 - weight) * candidate.lexical + weight * (candidate.similarity === undefined || high <= low ? 0 : (candidate.similarity - low) / (high - low)),
    );
  } else {
    const { features: names, weights } = fusion.learned;
    const columns = names.map((name) => (fusionFeatures as readonly string[]).indexOf(name));
    scores = featuresOf(candidates, terms).map((row) => columns.reduce((sum, column, index) => sum + weights[index]! * row[column]!, 0));
  }
  return candidates.list.map((candidate, index) => ({ candidate, score: scores[index]! })).sort((a, b) => b.score - a.score);
}
