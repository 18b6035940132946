// Worker thread for embed-pool.ts: loads a model folder with transformers.js (remote loading off:
// nothing is downloaded here) once per folder, and answers mean-pooled, L2-normalised embeddings of
// a batch of texts, truncated to the model's length (tokenizer_config.json's model_max_length). A worker holds one model at a time.
import { parentPort } from 'node:worker_threads';
import { env, pipeline, type FeatureExtractionPipeline } from '@huggingface/transformers';

export interface EmbedJob {
  id: number;
  dir: string;
  dtype: 'fp32' | 'q8';
  texts: string[];
}

export type EmbedReply = ({ vectors: Float32Array; dimensions: number } | { error: string }) & { id: number; retire?: boolean };

env.allowRemoteModels = false;
env.allowLocalModels = true;

let loaded: { dir: string; dtype: string; extractor: FeatureExtractionPipeline } | undefined;

async function extractorFor(job: EmbedJob): Promise<FeatureExtractionPipeline> {
  if (loaded && loaded.dir === job.dir && loaded.dtype === job.dtype) return loaded.extractor;
  if (loaded) await loaded.extractor.dispose();
  loaded = undefined;
  const extractor = (await pipeline('feature-extraction', job.dir, { dtype: job.dtype })) as FeatureExtractionPipeline;
  loaded = { dir: job.dir, dtype: job.dtype, extractor };
  return extractor;
}

parentPort!.on('message', (job: EmbedJob) => {
  void (async () => {
    let reply: EmbedReply;
    try {
      const extractor = await extractorFor(job);
      const output = await extractor(job.texts, { pooling: 'mean', normalize: true });
      const dimensions = output.dims[output.dims.length - 1]!;
      reply = { id: job.id, vectors: new Float32Array(output.data as Float32Array), dimensions };
    } catch (error) {
      reply = { id: job.id, error: error instanceof Error ? error.message : String(error) };
    }
    parentPort!.postMessage(reply);
  })();
});
