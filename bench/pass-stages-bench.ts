// What each stage of one syntax pass (src/engine/syntax-pass-worker.ts) costs, in one thread, on
// real files: the bare parse, then each product made from that one tree (the flat tree, the
// graph's tags, both chunk budgets cut at once, the ranking's terms, the semantic index's
// embedding with the shipped static model and its SHA-256 keys), each as a ratio to the parse.
// Issue 31's "syntax CPU <= 1.3x one bare parse" is measured here; where the pass's workers spend
// their time on a cold index (status's `workerMs` against `parseMs`) is read from these rows.
//
// Usage: node dist/bench/pass-stages-bench.js [FOLDER...] [--rounds N] [--model DIR]
//   FOLDER: files to pass (default: the kernel's mm, kernel/sched, fs/ext4 and lib from
//   bench/corpora.sh). Files over 1 MB are left out (the pass's workers retire after them).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chunkTerms } from '../src/index/ranking/chunk-fields.js';
import { chunkTextHash, embedChunks } from '../src/index/semantic/embedded-chunks.js';
import { openModelFolder } from '../src/index/semantic/model-folder.js';
import { readEmbeddingTable, staticModelFile } from '../src/index/semantic/static-embedder.js';
import { chunkFileAt } from '../src/index/syntax/chunk-file.js';
import { contextualizedText } from '../src/index/syntax/chunk.js';
import { FlatTree } from '../src/index/syntax/flat-tree.js';
import { defaultParseTimeoutMs, GrammarSet, parseSource, wasmBinding } from '../src/index/syntax/grammars.js';
import { SourceText } from '../src/index/syntax/source-text.js';
import { extractTags } from '../src/index/syntax/tags.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string', default: '2' }, model: { type: 'string', default: path.resolve('models/fathom-code') } },
});
const kernel = '/tmp/fathom-bench/linux';
const folders = positionals.length > 0 ? positionals : ['mm', 'kernel/sched', 'fs/ext4', 'lib'].map((folder) => path.join(kernel, folder));

function* walk(folder: string): Generator<string> {
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else if (entry.isFile() && fs.statSync(full).size <= 1_000_000) yield full;
  }
}

const files = folders.flatMap((folder) => [...walk(folder)]);
const grammars = new GrammarSet();
const model = openModelFolder(values.model);
const embedding = { model, table: readEmbeddingTable(staticModelFile(model)) };
const stages = ['read', 'parse', 'flatTree', 'tags', 'chunks', 'terms', 'embed', 'embedText', 'hash'] as const;
type Stage = (typeof stages)[number];

async function round(): Promise<{ ms: Record<Stage, number>; bytes: number; parsed: number; chunks: number }> {
  const ms = Object.fromEntries(stages.map((stage) => [stage, 0])) as Record<Stage, number>;
  let bytes = 0;
  let parsed = 0;
  let chunks = 0;
  const time = async <T>(stage: Stage, work: () => T | Promise<T>): Promise<T> => {
    const started = performance.now();
    const result = await work();
    ms[stage] += performance.now() - started;
    return result;
  };
  for (const file of files) {
    const relative = path.relative(kernel, file);
    const data = await time('read', () => fs.readFileSync(file));
    bytes += data.length;
    const spec = grammars.table.detect(relative, data.subarray(0, 256));
    const loaded = spec && spec.disabled === undefined ? await grammars.load(spec.id) : undefined;
    const grammar = loaded?.state === 'loaded' ? loaded.grammar : undefined;
    const source = new SourceText(data);
    const tree = grammar ? await time('parse', () => parseSource(grammars, grammar, source, { timeoutMs: defaultParseTimeoutMs })) : undefined;
    try {
      if (tree) {
        parsed += 1;
        await time('flatTree', () => FlatTree.of(tree, source.text, wasmBinding()).bytes);
        const query = grammars.tagsQuery(grammar!, { definitionsOnly: false });
        if (query) await time('tags', () => extractTags(tree.rootNode, query, relative, spec!.id));
      }
      const input = { path: relative, bytes: data, source, ...(tree ? { tree } : {}) };
      const [forTerms, forVectors] = await time('chunks', () => chunkFileAt(grammars, input, [4000, 1500]));
      await time('terms', () => chunkTerms(relative, forTerms!.language, forTerms!.chunks));
      chunks += forVectors!.chunks.length;
      await time('embed', () => embedChunks(forVectors!, embedding));
      // Of that: the texts alone, and their keys alone (embedChunks makes both).
      await time('embedText', () => forVectors!.chunks.map(contextualizedText));
      await time('hash', () => forVectors!.chunks.map(chunkTextHash));
    } finally {
      tree?.delete();
    }
  }
  return { ms, bytes, parsed, chunks };
}

const rounds = Number(values.rounds);
const results: Awaited<ReturnType<typeof round>>[] = [];
for (let at = 0; at < rounds; at++) results.push(await round());
const last = results[results.length - 1]!;
const median = (stage: Stage): number => results.map((result) => result.ms[stage]).sort((a, b) => a - b)[Math.floor(results.length / 2)]!;
const parse = median('parse');
console.log(
  `${files.length} files (${(last.bytes / 2 ** 20).toFixed(1)} MiB, ${last.parsed} parsed), ${last.chunks} chunks to embed; ${rounds} rounds, medians:`,
);
for (const stage of stages) console.log(`  ${stage.padEnd(10)} ${median(stage).toFixed(0).padStart(7)} ms  ${(median(stage) / parse).toFixed(2)}x the parse`);
const products = median('flatTree') + median('tags') + median('chunks') + median('terms') + median('embed');
console.log(`  all products ${(products / parse).toFixed(2)}x the parse; parse + products ${((parse + products) / parse).toFixed(2)}x`);
console.log(
  `BENCH_JSON ${JSON.stringify({ files: files.length, bytes: last.bytes, chunks: last.chunks, ms: Object.fromEntries(stages.map((stage) => [stage, Math.round(median(stage))])) })}`,
);
