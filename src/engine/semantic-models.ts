// Which embedding model each workspace uses, and its semantic index. By default Fathom's own model
// (models/fathom-code in the package: trained by model/train.py, a static table embedded without
// onnxruntime); $FATHOM_DEFAULT_MODEL=off turns the default off for the whole daemon.
// `fathom/modelUse` points a workspace at another model folder (checked, and probed with one
// embedding so a broken model fails there, not in a later search), or turns semantic search off
// for it, or back to the default; the choice is remembered in the workspace's cache folder as
// model.json (with a check: a damaged one turns semantic search off and says why).
// `fathom/modelPull` downloads a model from the model hub into the cache where a network exists.
// One embedding cache per model is shared by every workspace.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { writeFileAtomically } from '../base/atomic-file.js';
import { FathomError } from '../base/errors.js';
import { log } from '../base/logger.js';
import { isRanked } from '../index/ranking/chunk-ranking.js';
import { EmbedPool } from '../index/semantic/embed-pool.js';
import { EmbeddingCache } from '../index/semantic/embedding-cache.js';
import { type ModelFolder, openModelFolder } from '../index/semantic/model-folder.js';
import { type ChunkSource, SemanticIndex } from '../index/semantic/semantic-index.js';
import type { Workspace } from '../workspace/workspace.js';

/** A workspace's model as status and `fathom/modelUse` report it (the wire's ModelInfo has these fields). */
export interface ModelInfo {
  /** The model folder (transformers.js layout). */
  dir: string;
  /** 16 hex digits of a hash of its files (the embedding cache's key). */
  id: string;
  dtype: 'fp32' | 'q8';
  dimensions: number;
  /** The hybrid weight measured for it (fathom.json); without one, auto ranks words lexically. */
  hybridWeight?: number;
}

/** Why semantic search is off when no model is set. */
export const noModelReason = 'no embedding model for this workspace (`fathom model use DIR` sets one)';

/** Fathom's own model, shipped in the package. */
export const defaultModelDir = fileURLToPath(new URL('../../../models/fathom-code', import.meta.url));

function defaultModelOn(): boolean {
  return process.env.FATHOM_DEFAULT_MODEL !== 'off';
}

interface Configured {
  model: ModelFolder;
  dimensions: number;
  index: SemanticIndex;
}

export class SemanticModels {
  private readonly embedPool = new EmbedPool();
  private readonly caches = new Map<string, EmbeddingCache>();
  private readonly configured = new Map<Workspace, Configured | null>();

  constructor(
    private readonly cacheRoot: string,
    /** Where a workspace's chunks come from (its engine's syntax pass). */
    private readonly chunksFor: (workspace: Workspace) => ChunkSource,
    private readonly syncIntervalMs: number,
  ) {}

  private settingsFile(workspace: Workspace): string {
    return path.join(workspace.cacheDir, 'model.json');
  }

  /** The workspace's semantic index, or undefined when it has no model (read from model.json on first ask). */
  indexFor(workspace: Workspace): Configured | undefined {
    if (!this.configured.has(workspace)) {
      let entry: Configured | null = null;
      try {
        const setting = readSetting(this.settingsFile(workspace));
        if (setting.status === 'damaged') throw new Error(setting.reason);
        const saved = setting.status === 'valid' ? setting.saved : undefined;
        if (saved?.dir !== undefined && saved.dimensions !== undefined) {
          const model = openModelFolder(saved.dir);
          if (saved.id !== undefined && model.id !== saved.id && !model.settings.static)
            throw new Error(`the model in ${saved.dir} changed since it was set (run \`fathom model use ${saved.dir}\` again)`);
          entry = this.open(workspace, model, model.settings.static ? this.embedPool.staticDimensions(model) : saved.dimensions);
        } else if (!saved?.off && defaultModelOn()) {
          const model = openModelFolder(defaultModelDir);
          entry = this.open(workspace, model, this.embedPool.staticDimensions(model));
        }
      } catch (error) {
        log.warn(`model of ${workspace.root}: ${(error as Error).message}; semantic search is off`);
      }
      this.configured.set(workspace, entry);
    }
    return this.configured.get(workspace) ?? undefined;
  }

  /** Why a workspace has no semantic index. */
  offReason(workspace: Workspace): string {
    const setting = readSetting(this.settingsFile(workspace));
    if (setting.status === 'damaged') return `${setting.reason} (\`fathom model use DIR|default\` or \`fathom model off\` sets the model again)`;
    const saved = setting.status === 'valid' ? setting.saved : undefined;
    if (saved?.off) return "turned off for this workspace (`fathom model use default` turns Fathom's model back on)";
    if (!defaultModelOn()) return 'FATHOM_DEFAULT_MODEL=off and no model set for this workspace (`fathom model use DIR`)';
    return `the model could not be opened (see the daemon log); ${noModelReason}`;
  }

  private open(workspace: Workspace, model: ModelFolder, dimensions: number): Configured {
    let cache = this.caches.get(model.id);
    if (!cache) {
      cache = EmbeddingCache.open(path.join(this.cacheRoot, 'embeddings'), model.id, dimensions);
      this.caches.set(model.id, cache);
    }
    const index = new SemanticIndex(workspace, this.chunksFor(workspace), this.embedPool.embedder(model), cache, {
      folder: workspace.cacheDir,
      syncIntervalMs: this.syncIntervalMs,
      accepts: isRanked,
    });
    return { model, dimensions, index };
  }

  /**
   * Sets a workspace's model (a folder or a pulled id; the model is probed with one embedding
   * first), `default` (Fathom's own), or null (semantic search off for it).
   */
  async use(workspace: Workspace, dir: string | null): Promise<ModelInfo | null> {
    fs.mkdirSync(path.dirname(this.settingsFile(workspace)), { recursive: true, mode: 0o700 });
    if (dir === null || dir === 'default') {
      // The setting first, then the swap (synchronous: a request meanwhile sees old or new, never a mix).
      if (dir === null) writeFileAtomically(this.settingsFile(workspace), encodeSetting({ off: true }), 0o600);
      else fs.rmSync(this.settingsFile(workspace), { force: true });
      const previous = this.configured.get(workspace) ?? undefined;
      this.configured.delete(workspace);
      // Replaced: the index opened next on the same folder owns what is saved there.
      await previous?.index.dispose({ save: false });
      return this.modelInfo(workspace);
    }
    const model = openModelFolder(this.resolve(dir));
    let dimensions: number;
    try {
      const [probe] = await this.embedPool.embedder(model).embed(['a probe: does this model embed text?'], 'document');
      dimensions = probe!.length;
    } catch (error) {
      throw new FathomError('invalidParams', `the model in ${model.dir} does not run: ${(error as Error).message}`, { path: model.dir });
    }
    writeFileAtomically(this.settingsFile(workspace), encodeSetting({ dir: model.dir, dimensions, id: model.id }), 0o600);
    // Swap synchronously after the probe: whatever index a request opened meanwhile is the one disposed.
    const previous = this.configured.get(workspace) ?? undefined;
    this.configured.set(workspace, this.open(workspace, model, dimensions));
    await previous?.index.dispose({ save: false });
    return info(model, dimensions);
  }

  /** A model folder, or the id of a pulled model (`fathom model pull`). */
  private resolve(dir: string): string {
    if (fs.existsSync(dir)) return dir;
    const pulled = this.pulledFolder(dir);
    if (fs.existsSync(pulled)) return pulled;
    return dir; // openModelFolder says it is missing
  }

  private pulledFolder(id: string): string {
    return path.join(this.cacheRoot, 'models', ...id.split('/').filter((part) => part !== '' && part !== '.' && part !== '..'));
  }

  /**
   * Downloads a model from the model hub (transformers.js' layout, the quantized weights) into
   * `<cache>/models/<id>`; the host is $FATHOM_MODEL_HUB when set. Offline: a clear error.
   */
  async pull(id: string): Promise<string> {
    if (!/^[\w.-]+\/[\w.-]+$/.test(id) || id.split('/').some((part) => /^\.+$/.test(part)))
      throw new FathomError('invalidParams', `a model id looks like owner/name (got "${id}")`, { field: 'id' });
    const transformers = await import('@huggingface/transformers');
    const { env } = transformers;
    const saved = { allowRemoteModels: env.allowRemoteModels, cacheDir: env.cacheDir, remoteHost: env.remoteHost };
    env.allowRemoteModels = true;
    env.cacheDir = path.join(this.cacheRoot, 'models');
    if (process.env.FATHOM_MODEL_HUB) env.remoteHost = process.env.FATHOM_MODEL_HUB;
    try {
      await transformers.AutoTokenizer.from_pretrained(id);
      await transformers.AutoConfig.from_pretrained(id);
      const model = await transformers.AutoModel.from_pretrained(id, { dtype: 'q8' });
      await model.dispose();
    } catch (error) {
      throw new FathomError('io', `could not download ${id}: ${(error as Error).message} (is there a network to the model hub?)`, { id });
    } finally {
      Object.assign(env, saved);
    }
    return this.pulledFolder(id);
  }

  modelInfo(workspace: Workspace): ModelInfo | null {
    const entry = this.indexFor(workspace);
    return entry ? info(entry.model, entry.dimensions) : null;
  }

  async forget(workspace: Workspace): Promise<void> {
    const entry = this.configured.get(workspace);
    this.configured.delete(workspace);
    await entry?.index.dispose();
  }

  close(): void {
    this.embedPool.close();
    for (const cache of this.caches.values()) cache.close();
    this.caches.clear();
  }
}

/** model.json: the setting and `check`, the SHA-256 (hex) of the setting's JSON without it. */
interface SavedSetting {
  dir?: string;
  dimensions?: number;
  id?: string;
  off?: boolean;
}

function encodeSetting(setting: SavedSetting): string {
  return JSON.stringify({ ...setting, check: createHash('sha256').update(JSON.stringify(setting)).digest('hex') });
}

/**
 * Reads model.json. A file that does not parse, fails its check or holds fields of the wrong kind
 * is damaged: named, never half-read (a changed `dimensions` would start the model's shared
 * embedding cache over; a changed `off` would turn on a model the user turned off). One written
 * before the check existed (exactly the old fields) is taken as it is.
 */
function readSetting(file: string): { status: 'missing' } | { status: 'valid'; saved: SavedSetting } | { status: 'damaged'; reason: string } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'missing' };
    return { status: 'damaged', reason: `${file} is unreadable: ${(error as Error).message}` };
  }
  const damaged = (why: string) => ({ status: 'damaged' as const, reason: `${file} is damaged (${why})` });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return damaged('not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return damaged('not an object');
  const { check, ...setting } = parsed as SavedSetting & { check?: unknown };
  const keys = Object.keys(setting).sort().join(',');
  if (check === undefined) {
    if (keys !== 'dimensions,dir,id' && keys !== 'dimensions,dir' && keys !== 'off') return damaged('no check');
  } else if (check !== createHash('sha256').update(JSON.stringify(setting)).digest('hex')) return damaged('check mismatch');
  const kinds =
    (setting.dir === undefined || typeof setting.dir === 'string') &&
    (setting.dimensions === undefined || (Number.isSafeInteger(setting.dimensions) && setting.dimensions > 0)) &&
    (setting.id === undefined || typeof setting.id === 'string') &&
    (setting.off === undefined || setting.off === true);
  if (!kinds || (setting.off === undefined) === (setting.dir === undefined)) return damaged('fields of the wrong kind');
  return { status: 'valid', saved: setting };
}

function info(model: ModelFolder, dimensions: number): ModelInfo {
  return {
    dir: model.dir,
    id: model.id,
    dtype: model.dtype,
    dimensions,
    ...(model.settings.hybridWeight === undefined ? {} : { hybridWeight: model.settings.hybridWeight }),
  };
}
