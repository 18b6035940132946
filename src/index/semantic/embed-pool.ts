// Embeds texts on worker threads, so a model's inference never stalls the daemon. An ONNX model
// runs on one worker (embed-worker.ts): onnxruntime already spreads one inference over every core.
// A static model (Fathom's own: a table of token vectors) embeds a sync's documents on one worker
// a core (static-embed-worker.ts) and a query on this thread (one text: no round trip, no worker
// to start). Workers start on first use (base/worker-pool.ts) and release the model when they
// stop: the static ones 5 s after the last batch (they start again in ~50 ms: the table is the
// daemon's, shared), the ONNX one after a minute idle (its session takes seconds to load).
import os from 'node:os';
import { batchPoolIdleMs, jobWorkerYoungGenerationMb, WorkerPool } from '../../base/worker-pool.js';
import type { EmbedJob, EmbedReply } from './embed-worker.js';
import type { StaticEmbedJob, StaticEmbedReply } from './static-embed-worker.js';
import type { WorkerEmbedding } from './embedded-chunks.js';
import type { ModelFolder } from './model-folder.js';
import { readEmbeddingDimensions, StaticEmbedder } from './static-embedder.js';

export class EmbedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbedError';
  }
}

/** What embeds: a model, by its id. */
export interface Embedder {
  readonly modelId: string;
  /** One unit vector per text. */
  embed(texts: string[], kind: 'query' | 'document'): Promise<Float32Array[]>;
  /** Readies what the first question would otherwise wait for (a static model's table: ~1 s on the kernel's first search), when there is such a thing. */
  warm?(): void;
  /** A static model as another thread embeds with it (the syntax pass's workers embed the chunks they cut); absent for an ONNX model, which runs on its own worker. */
  inWorkers?(): WorkerEmbedding;
}

export class EmbedPool {
  private readonly pool = new WorkerPool<EmbedJob, EmbedReply>(new URL('./embed-worker.js', import.meta.url), 1, 'embed');
  private readonly statics = new Map<string, StaticEmbedder>();
  /** Static models' vector sizes read from their table's shape (before any embedder is made). */
  private readonly staticShapes = new Map<string, number>();
  private readonly staticPool = new WorkerPool<StaticEmbedJob, StaticEmbedReply>(
    new URL('./static-embed-worker.js', import.meta.url),
    Math.max(1, Math.min(os.availableParallelism(), 4)),
    'static embed',
    { idleMs: batchPoolIdleMs, youngGenerationMb: jobWorkerYoungGenerationMb },
  );

  /** An embedder over one model folder (prefixes from its fathom.json; a static model embeds on this thread without onnxruntime). */
  embedder(model: ModelFolder): Embedder {
    if (model.settings.static) {
      // Its table is read at the first embedding, not when an index opens (status opens indexes).
      return {
        modelId: model.id,
        warm: () => void this.staticEmbedder(model),
        inWorkers: () => ({ model, table: this.staticEmbedder(model).embeddingTable }),
        embed: async (texts, kind) => {
          const local = this.staticEmbedder(model);
          if (kind === 'query' || texts.length < 4) return local.embed(texts, kind);
          const reply = await this.staticPool.run({ model, table: local.embeddingTable, texts, kind });
          if ('error' in reply) throw new EmbedError(`model ${model.dir}: ${reply.error}`);
          return texts.map((_, at) => reply.vectors.subarray(at * reply.dimensions, (at + 1) * reply.dimensions));
        },
      };
    }
    return {
      modelId: model.id,
      embed: async (texts, kind) => {
        if (texts.length === 0) return [];
        const prefix = (kind === 'query' ? model.settings.queryPrefix : model.settings.documentPrefix) ?? '';
        const reply = await this.pool.run({ dir: model.dir, dtype: model.dtype, texts: texts.map((text) => prefix + text) });
        if ('error' in reply) throw new EmbedError(`model ${model.dir}: ${reply.error}`);
        const out: Float32Array[] = [];
        for (let at = 0; at < texts.length; at++) {
          const vector = reply.vectors.slice(at * reply.dimensions, (at + 1) * reply.dimensions);
          // A text of no known token pools to zero, which normalising turns into NaN: zero it.
          if (vector.some((value) => !Number.isFinite(value))) vector.fill(0);
          out.push(vector);
        }
        return out;
      },
    };
  }

  /**
   * The vector size of a static model: its table's shape, read without converting the table
   * (`fathom status` of a workspace opens its semantic index, and must not pay for the table:
   * 0.45 s of the daemon's thread for fathom-code; the first search in words reads it).
   */
  staticDimensions(model: ModelFolder): number {
    if (!model.settings.static) throw new Error(`${model.dir} is not a static model: its dimensions come from a probe`);
    const loaded = this.statics.get(model.id);
    if (loaded) return loaded.dimensions;
    let dimensions = this.staticShapes.get(model.id);
    if (dimensions === undefined) {
      dimensions = readEmbeddingDimensions(model);
      this.staticShapes.set(model.id, dimensions);
    }
    return dimensions;
  }

  /** One per model (its table is read once). */
  private staticEmbedder(model: ModelFolder): StaticEmbedder {
    let embedder = this.statics.get(model.id);
    if (!embedder) {
      embedder = new StaticEmbedder(model);
      this.statics.set(model.id, embedder);
    }
    return embedder;
  }

  close(): void {
    this.pool.close();
    this.staticPool.close();
  }
}
