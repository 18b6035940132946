// An embedding model on disk, in transformers.js' layout: `config.json`, `tokenizer.json`,
// `tokenizer_config.json` and `onnx/model.onnx` (fp32) or `onnx/model_quantized.onnx` (q8), plus
// Fathom's optional `fathom.json` (what was measured about the model: its hybrid weight or fusion; the
// prefixes some models want before queries and documents). Texts are truncated to
// tokenizer_config.json's model_max_length. Checks the layout with errors that name
// what is missing, and names the model by a hash of its files and of the settings that change what
// is embedded (the embedding cache's key: another model, other weights or other prefixes never
// reuse vectors).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { FathomError } from '../../base/errors.js';

export interface ModelSettings {
  /** Weight of the semantic score in hybrid ranking (0 to 1), as measured on the retrieval evaluation. */
  hybridWeight?: number;
  /** Text put before a query / a chunk when embedding (e.g. "query: "). */
  queryPrefix?: string;
  documentPrefix?: string;
  /** A table of one vector per token (Fathom's own models): embedded without onnxruntime (static-embedder.ts), with the same vectors. */
  static?: boolean;
  /** How a static model pools a text's tokens: "sum" of every token's row (the default), or "distinct": each token once (its ONNX graph zeroes repeats, so both paths agree). */
  pooling?: 'sum' | 'distinct';
  /**
   * A learned hybrid fusion (src/search/fusion.ts; trained by bench/retrieval/fusion-train.ts):
   * one weight per named feature. Used instead of `hybridWeight` unless a request names a weight.
   */
  fusion?: { features: string[]; weights: number[] };
}

export interface ModelFolder {
  /** Absolute path of the folder. */
  dir: string;
  /** 16 hex digits of the SHA-256 of the model's files. */
  id: string;
  /** fp32 (onnx/model.onnx) or q8 (onnx/model_quantized.onnx). */
  dtype: 'fp32' | 'q8';
  settings: ModelSettings;
}

const required = ['config.json', 'tokenizer.json'];

/** Ids this process computed, by the files they were computed from (path, size, mtime, inode) and the settings. */
const knownIds = new Map<string, string>();

export function openModelFolder(dir: string): ModelFolder {
  const absolute = path.resolve(dir);
  if (!fs.existsSync(absolute) || !fs.statSync(absolute).isDirectory())
    throw new FathomError('invalidParams', `no model folder at ${absolute}`, { path: absolute });
  const missing = required.filter((name) => !fs.existsSync(path.join(absolute, name)));
  const fp32 = path.join(absolute, 'onnx', 'model.onnx');
  const q8 = path.join(absolute, 'onnx', 'model_quantized.onnx');
  const weights = fs.existsSync(fp32) ? fp32 : fs.existsSync(q8) ? q8 : undefined;
  if (!weights) missing.push('onnx/model.onnx (or onnx/model_quantized.onnx)');
  if (missing.length > 0)
    throw new FathomError('invalidParams', `${absolute} is not a model folder in transformers.js' layout: missing ${missing.join(', ')}`, { path: absolute });
  let settings: ModelSettings = {};
  const settingsFile = path.join(absolute, 'fathom.json');
  if (fs.existsSync(settingsFile)) {
    try {
      settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8')) as ModelSettings;
    } catch (error) {
      throw new FathomError('invalidParams', `${settingsFile}: ${(error as Error).message}`, { path: settingsFile });
    }
    if (settings.pooling !== undefined && settings.pooling !== 'sum' && settings.pooling !== 'distinct')
      throw new FathomError('invalidParams', `${settingsFile}: pooling must be "sum" or "distinct", not ${JSON.stringify(settings.pooling)}`, {
        path: settingsFile,
      });
  }
  // The name: the small files' bytes, the weights' size and modification time (hashing hundreds
  // of MB on the daemon's thread is not worth it: new weights get a new mtime), and the settings
  // that change what is embedded.
  const named = [...required, ...(fs.existsSync(path.join(absolute, 'tokenizer_config.json')) ? ['tokenizer_config.json'] : [])];
  const embedded = [settings.queryPrefix ?? '', settings.documentPrefix ?? '', ...(settings.pooling === 'distinct' ? ['distinct'] : [])];
  // Known already when no file it is named by changed (size, mtime, inode, as the file set judges
  // files): each workspace opens its model, and hashing a static model's 23 MB held the daemon's
  // thread 60-600 ms at every first open.
  const signature = JSON.stringify([
    weights,
    settings.static === true,
    embedded,
    ...[...named.map((file) => path.join(absolute, file)), weights!].map((file) => {
      const stat = fs.statSync(file);
      return [file, stat.size, stat.mtimeMs, stat.ino];
    }),
  ]);
  const known = knownIds.get(signature);
  if (known !== undefined) return { dir: absolute, id: known, dtype: weights === fp32 ? 'fp32' : 'q8', settings };
  const hash = createHash('sha256');
  for (const file of named) {
    hash.update(`${file}\0`);
    hash.update(fs.readFileSync(path.join(absolute, file)));
  }
  const stat = fs.statSync(weights!);
  // A static model's weights are read whole anyway (and are small): hash them; others by size and time.
  if (settings.static) hash.update(fs.readFileSync(weights!));
  else hash.update(`${path.relative(absolute, weights!)}\0${stat.size}\0${stat.mtimeMs}\0`);
  hash.update(JSON.stringify(embedded));
  const id = hash.digest('hex').slice(0, 16);
  knownIds.set(signature, id);
  return { dir: absolute, id, dtype: weights === fp32 ? 'fp32' : 'q8', settings };
}
