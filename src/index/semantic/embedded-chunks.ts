// A file's chunks embedded where they were cut: the syntax pass's worker, for a static model. What
// the semantic index keeps of a chunk (its place, and the SHA-256 of its text: the embedding
// cache's key) and one vector a chunk come back, instead of the chunks' text, which would cross to
// the daemon's thread and on to an embedding worker (on the kernel, 1.4 GB of text each way). The
// vectors are those the embedding workers make of the same text: the same StaticEmbedder, over
// the daemon's table in shared memory.
import { createHash } from 'node:crypto';
import { type Chunk, contextualizedText, type FileChunks } from '../syntax/chunk.js';
import { lastLineOf } from '../syntax/source-text.js';
import type { ModelFolder } from './model-folder.js';
import { type EmbeddingTable, StaticEmbedder } from './static-embedder.js';

/** A static model as another thread embeds with it: its folder and the daemon's table (shared, not copied). */
export interface WorkerEmbedding {
  model: ModelFolder;
  table: EmbeddingTable;
}

/** What the semantic index keeps of a chunk. */
export interface ChunkPlace {
  /** 0-based first and last line (inclusive). */
  startLine: number;
  endLine: number;
  startByte: number;
  endByte: number;
  /** SHA-256 of the chunk's text, hex: the embedding cache's key. */
  textHash: string;
}

export interface EmbeddedChunks {
  /** The model that made the vectors (a product held for an index whose model changed since is not its). */
  modelId: string;
  language: string | undefined;
  chunks: ChunkPlace[];
  /** One vector a chunk, one after another. */
  vectors: Float32Array;
  dimensions: number;
}

/** The embedding cache's key of a chunk: its text's SHA-256. */
export function chunkTextHash(chunk: Chunk): string {
  return createHash('sha256').update(chunk.text).digest('hex');
}

/** A chunk's place (its last line: `lastLineOf`). */
export function placeOf(chunk: Chunk, textHash: string): ChunkPlace {
  return {
    startLine: chunk.start.line,
    endLine: lastLineOf(chunk.start, chunk.end),
    startByte: chunk.startByte,
    endByte: chunk.endByte,
    textHash,
  };
}

/** This thread's embedder of each model (its tokenizer read once). */
const embedders = new Map<string, StaticEmbedder>();

/** Each chunk's place and the vector of its header and text, as the semantic index would embed it. */
export async function embedChunks(file: FileChunks, embedding: WorkerEmbedding): Promise<EmbeddedChunks> {
  let embedder = embedders.get(embedding.model.id);
  if (!embedder) {
    embedder = new StaticEmbedder(embedding.model, embedding.table);
    embedders.set(embedding.model.id, embedder);
  }
  const dimensions = embedder.dimensions;
  const vectors = new Float32Array(file.chunks.length * dimensions);
  const embedded = await embedder.embed(file.chunks.map(contextualizedText), 'document');
  embedded.forEach((vector, at) => vectors.set(vector, at * dimensions));
  return {
    modelId: embedding.model.id,
    language: file.language,
    chunks: file.chunks.map((chunk) => placeOf(chunk, chunkTextHash(chunk))),
    vectors,
    dimensions,
  };
}
