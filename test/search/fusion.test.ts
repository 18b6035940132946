// Hybrid fusion (src/search/fusion.ts): how the chunk ranking's list and the semantic index's merge
// into candidates, the weighted fusion's scores, a learned fusion's order, and which `fusion`
// settings a build accepts. Pure functions, on small hand-made lists.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RankedChunk } from '../../src/index/ranking/chunk-ranking.js';
import type { VectorHit } from '../../src/index/semantic/vector-store.js';
import { featuresOf, fuse, fusionCandidates, fusionFeatures, isLearnedFusion } from '../../src/search/fusion.js';

function chunk(path: string, startLine: number, endLine: number, score: number, matched: string[] = []): RankedChunk {
  return { path, startLine, endLine, startByte: 0, endByte: 0, score, matched };
}

function hit(path: string, startLine: number, endLine: number, similarity: number): VectorHit {
  return { path, startLine, endLine, similarity } as VectorHit;
}

const lexical = [chunk('src/retry.go', 0, 20, 8, ['retri', 'wait']), chunk('src/retry_test.go', 0, 10, 4, ['retri']), chunk('src/log.go', 5, 9, 2, ['wait'])];
const near = [hit('src/sleep.go', 0, 4, 0.9), hit('src/retry.go', 3, 8, 0.7), hit('src/retry.go', 10, 12, 0.8), hit('src/log.go', 30, 40, 0.5)];

describe('candidates', () => {
  const candidates = fusionCandidates(lexical, near);

  test('one per lexical chunk, then each semantic hit no lexical chunk holds, in the lists’ orders', () => {
    assert.deepEqual(
      candidates.list.map((candidate) => `${candidate.path}:${candidate.startLine}`),
      ['src/retry.go:0', 'src/retry_test.go:0', 'src/log.go:5', 'src/sleep.go:0', 'src/log.go:30'],
    );
  });

  test('a lexical chunk takes the best similarity of the hits inside it, and that hit’s place', () => {
    const retry = candidates.list[0]!;
    assert.equal(retry.similarity, 0.8);
    assert.equal(retry.semanticRank, 2);
    assert.equal(retry.lexical, 1);
    assert.equal(candidates.list[1]!.similarity, undefined);
    assert.equal(candidates.list[3]!.lexicalRank, -1);
  });

  test('similarities are scaled over every semantic hit, as the weighted fusion always did', () => {
    assert.deepEqual([candidates.low, candidates.high], [0.5, 0.9]);
  });
});

describe('weighted fusion', () => {
  const cases: Array<{ weight: number; first: string[] }> = [
    { weight: 0, first: ['src/retry.go:0', 'src/retry_test.go:0', 'src/log.go:5'] },
    { weight: 0.4, first: ['src/retry.go:0', 'src/sleep.go:0', 'src/retry_test.go:0'] },
    { weight: 1, first: ['src/sleep.go:0', 'src/retry.go:0', 'src/retry_test.go:0'] },
  ];
  for (const { weight, first } of cases) {
    test(`at weight ${weight}: (1-w)·lexical/best + w·scaled similarity`, () => {
      const scored = fuse(fusionCandidates(lexical, near), ['retri', 'wait'], { weight });
      assert.deepEqual(
        scored.slice(0, 3).map(({ candidate }) => `${candidate.path}:${candidate.startLine}`),
        first,
      );
      for (const { candidate, score } of scored) {
        const similarity = candidate.similarity === undefined ? 0 : (candidate.similarity - 0.5) / 0.4;
        assert.ok(Math.abs(score - ((1 - weight) * candidate.lexical + weight * similarity)) < 1e-12);
      }
    });
  }
});

describe('learned fusion', () => {
  test('features: in fusionFeatures’ order, each in [0, 1]', () => {
    const rows = featuresOf(fusionCandidates(lexical, near), ['retri', 'wait']);
    assert.equal(rows.length, 5);
    for (const row of rows) {
      assert.equal(row.length, fusionFeatures.length);
      for (const value of row) assert.ok(value >= 0 && value <= 1, String(value));
    }
    const test = fusionFeatures.indexOf('test');
    assert.deepEqual(
      rows.map((row) => row[test]),
      [0, 1, 0, 0, 0],
    );
    const pathTerms = fusionFeatures.indexOf('pathTerms');
    assert.equal(rows[0]![pathTerms], 0.5, 'retry.go names one of the two terms');
  });

  test('a model’s weights order the candidates, whatever order it names its features in', () => {
    const learned = { features: ['test', 'similarity', 'lexical'], weights: [-5, 2, 1] };
    const scored = fuse(fusionCandidates(lexical, near), ['retri', 'wait'], { learned });
    assert.deepEqual(
      scored.map(({ candidate }) => `${candidate.path}:${candidate.startLine}`),
      ['src/retry.go:0', 'src/sleep.go:0', 'src/log.go:5', 'src/log.go:30', 'src/retry_test.go:0'],
    );
  });

  const settings: Array<{ name: string; value: unknown; valid: boolean }> = [
    { name: 'every feature', value: { features: [...fusionFeatures], weights: fusionFeatures.map(() => 1) }, valid: true },
    { name: 'a subset', value: { features: ['lexical'], weights: [1] }, valid: true },
    { name: 'a feature this build lacks', value: { features: ['lexical', 'pageRank'], weights: [1, 2] }, valid: false },
    { name: 'a weight short', value: { features: ['lexical', 'similarity'], weights: [1] }, valid: false },
    { name: 'a weight not a number', value: { features: ['lexical'], weights: ['1'] }, valid: false },
    { name: 'an infinite weight', value: { features: ['lexical'], weights: [Infinity] }, valid: false },
    { name: 'not an object', value: 0.4, valid: false },
  ];
  for (const { name, value, valid } of settings) {
    test(`a fathom.json fusion with ${name} is ${valid ? 'applied' : 'refused'}`, () => {
      assert.equal(isLearnedFusion(value), valid);
    });
  }
});
