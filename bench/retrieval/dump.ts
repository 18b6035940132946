// Writes the retrieval evaluation as data a model trainer can score itself against
// (model/train.py --eval FILE): for every corpus, each chunk the semantic index would embed (its
// path, lines and the exact text embedded: header, separator, code), and for every question the
// chunk ranking's 50 best chunks with their scores, so that semantic-only and hybrid can be scored
// as eval.ts scores them (codeSearch's fusion, file Recall@1 and MRR@10) without Node in the loop.
// A sweep picks by the held-out pairs first; these scores only confirm, and the closing note says
// when a choice was made on them.
//
// Usage: node dist/bench/retrieval/dump.js OUT.json [CORPUS…]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ChunkRanking, defaultParameters } from '../../src/index/ranking/chunk-ranking.js';
import { ChunkTermsPool } from '../../src/index/ranking/chunk-terms-pool.js';
import { queryTerms } from '../../src/index/ranking/code-tokens.js';
import { ChunkPool } from '../../src/index/syntax/chunk-pool.js';
import { contextualizedText } from '../../src/index/syntax/chunk.js';
import { HashPool } from '../../src/workspace/hash-pool.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { loadQuestions } from './eval.js';

/** The semantic index's chunk budget (semantic-index.ts); FATHOM_DUMP_BUDGET tries another. */
const budgetBytes = Number(process.env.FATHOM_DUMP_BUDGET ?? 1500);

async function main(): Promise<void> {
  const [out, ...corpora] = process.argv.slice(2);
  if (!out) throw new Error('usage: dump.js OUT.json [CORPUS…]');
  const benchDir = process.env.FATHOM_BENCH_DIR ?? '/tmp/fathom-bench';
  const questions = loadQuestions(corpora);
  const result: Record<string, unknown> = { questions, corpora: {} };
  for (const corpus of [...new Set(questions.map((question) => question.corpus))]) {
    const root = fs.realpathSync(path.join(benchDir, corpus));
    const hashPool = new HashPool();
    const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-dump-'));
    const workspace = new Workspace({ root, cacheDir, maxFileBytes: 4 * 1024 * 1024, reconcileIntervalMs: 0, pool: hashPool });
    await workspace.whenReady();
    const termsPool = new ChunkTermsPool(2);
    const ranking = new ChunkRanking(workspace, termsPool);
    await ranking.ensureBuilt();
    const chunkPool = new ChunkPool(2);
    const chunks: Array<{ path: string; start: number; end: number; text: string }> = [];
    for (const file of workspace.files().sort()) {
      try {
        const chunked = await chunkPool.chunk({ path: file, absolutePath: path.join(root, file), options: { budgetBytes } });
        for (const chunk of chunked.chunks) {
          const endLine = chunk.end.character === 0 && chunk.end.line > chunk.start.line ? chunk.end.line - 1 : chunk.end.line;
          chunks.push({ path: file, start: chunk.start.line, end: endLine, text: contextualizedText(chunk) });
        }
      } catch (error) {
        console.error(`${file}: ${(error as Error).message}`);
      }
    }
    const lexical: Record<string, Array<{ path: string; start: number; end: number; score: number }>> = {};
    for (const question of questions.filter((entry) => entry.corpus === corpus)) {
      lexical[question.id] = ranking
        .search({ terms: queryTerms(question.question), limit: 50, parameters: defaultParameters })
        .map((chunk) => ({ path: chunk.path, start: chunk.startLine, end: chunk.endLine, score: chunk.score }));
    }
    (result.corpora as Record<string, unknown>)[corpus] = { chunks, lexical };
    console.log(`${corpus}: ${chunks.length} chunks`);
    await ranking.dispose();
    termsPool.close();
    chunkPool.close();
    await workspace.close();
    hashPool.close();
    fs.rmSync(cacheDir, { recursive: true, force: true });
  }
  fs.writeFileSync(out, JSON.stringify(result));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
