// Worker thread for embed-pool.ts's static models: the same StaticEmbedder the daemon's thread
// runs for queries, here for the documents of a sync, so that embedding a large workspace uses
// every core instead of stalling the daemon. The model's table comes with the job: the daemon's
// copy, in shared memory (never a copy of its own); the tokenizer is read once a model. Answers
// the vectors of a batch of texts, concatenated, the buffer transferred.
import { parentPort } from 'node:worker_threads';
import type { ModelFolder } from './model-folder.js';
import { type EmbeddingTable, StaticEmbedder } from './static-embedder.js';

export interface StaticEmbedJob {
  id: number;
  model: ModelFolder;
  /** The model's table (a SharedArrayBuffer's view: shared, not copied). */
  table: EmbeddingTable;
  texts: string[];
  kind: 'query' | 'document';
}

export type StaticEmbedReply = ({ vectors: Float32Array; dimensions: number } | { error: string }) & { id: number; retire?: boolean };

const embedders = new Map<string, StaticEmbedder>();

parentPort!.on('message', (job: StaticEmbedJob) => {
  void (async () => {
    let reply: StaticEmbedReply;
    const transfer: ArrayBuffer[] = [];
    try {
      let embedder = embedders.get(job.model.id);
      if (!embedder) {
        embedder = new StaticEmbedder(job.model, job.table);
        embedders.set(job.model.id, embedder);
      }
      const vectors = await embedder.embed(job.texts, job.kind);
      const out = new Float32Array(vectors.length * embedder.dimensions);
      vectors.forEach((vector, index) => out.set(vector, index * embedder.dimensions));
      reply = { id: job.id, vectors: out, dimensions: embedder.dimensions };
      transfer.push(out.buffer as ArrayBuffer);
    } catch (error) {
      reply = { id: job.id, error: error instanceof Error ? error.message : String(error) };
    }
    parentPort!.postMessage(reply, transfer);
  })();
});
