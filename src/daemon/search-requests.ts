// fathom/codeSearch and fathom/exportIndex for a connection: given the params as their schemas
// parsed them (protocol/params.ts), gives the search module its
// engines (the regex index, the code graph and the chunk ranking of the workspace, each built on
// first use with $/progress on the client's token), converts the answer with to-wire.ts, and
// writes an answer over the inline cap to a result file.
import fs from 'node:fs';
import type { CancellationToken } from 'vscode-jsonrpc/node';
import { FathomError } from '../base/errors.js';
import { log } from '../base/logger.js';
import { pathsWithin, toAbsolute } from '../base/paths.js';
import type { CodeGraph } from '../index/graph/code-graph.js';
import type { ChunkRanking } from '../index/ranking/chunk-ranking.js';
import { globFilter, pathsFilter } from '../base/path-glob.js';
import { type RegexIndex, languageFilter } from '../index/regex/regex-index.js';
import type { CodeSearchResult, IndexBuilding, ProgressToken } from '../protocol/methods.js';
import type { ParamsOf } from '../protocol/params.js';
import { type CodeSearchMode, codeSearch } from '../search/code-search.js';
import { type LearnedFusion, isLearnedFusion } from '../search/fusion.js';
import type { Workspace } from '../workspace/workspace.js';
import { defaultMaxInlineBytes, writeResultFile } from './result-files.js';
import { toWireCodeSearch } from './to-wire.js';
import path from 'node:path';
import { exportRanking } from '../index/export/ranking-export.js';
import { readMaskKey, userMaskKey } from '../index/export/mask-keys.js';
import { PathMask } from '../index/export/path-mask.js';
import type { ExportIndexResult } from '../protocol/methods.js';
import type { SemanticIndex } from '../index/semantic/semantic-index.js';
import type { ModelFolder } from '../index/semantic/model-folder.js';

/**
 * How long a question waits for an index that is still building before it is answered from what
 * the index holds (the answer says so, in `building`): a workspace's first build never makes a
 * question wait minutes unsaid, and a small one is built within it.
 */
export const defaultIndexWaitMs = 5_000;

/** What the requests need from the session. */
export interface SearchRequestContext {
  workspaceFor(params: { root: string }): Workspace;
  /** Each index built (with $/progress on the token) and settled. */
  readyLexical(workspace: Workspace, token: CancellationToken, progressToken: ProgressToken | undefined): Promise<RegexIndex>;
  /** The graph and the ranking: past `waitMs` of a build, as they are, with how far the build is. */
  readySymbols(
    workspace: Workspace,
    token: CancellationToken,
    progressToken: ProgressToken | undefined,
    waitMs: number,
  ): Promise<{ index: CodeGraph; building?: IndexBuilding }>;
  readyRanking(
    workspace: Workspace,
    token: CancellationToken,
    progressToken: ProgressToken | undefined,
    waitMs: number,
  ): Promise<{ index: ChunkRanking; building?: IndexBuilding }>;
  /** The workspace's model and semantic index, when a model is set. */
  semantic(workspace: Workspace): { index: SemanticIndex; model: ModelFolder } | undefined;
  /** Why a workspace has no semantic index. */
  semanticOffReason(workspace: Workspace): string;
  /** Builds the workspace's semantic index when it is not ready ($/progress on the token); past `waitMs`, how far the build is. */
  readySemantic(workspace: Workspace, progressToken: ProgressToken | undefined, token: CancellationToken, waitMs: number): Promise<IndexBuilding | undefined>;
  /** The user's settings folder (the mask key). */
  configDir(): string;
  /** Where answers over the inline cap are written. */
  resultsDir(): string;
}

export class SearchRequests {
  constructor(private readonly context: SearchRequestContext) {}

  async codeSearch(params: ParamsOf<'fathom/codeSearch'> & { root: string }, token: CancellationToken): Promise<CodeSearchResult> {
    const started = performance.now();
    const { query, languages, maxResults, snippetLines, ignoreCase, hybridWeight } = params;
    // The wire's modes are the search's (a mode the search lacks would not compile here).
    const mode: CodeSearchMode = params.mode ?? 'auto';
    const globs = params.glob;
    const maxInlineBytes = params.maxInlineBytes ?? defaultMaxInlineBytes;
    const waitMs = params.waitMs ?? defaultIndexWaitMs;
    /** Indexes the answer used while they were still building. */
    const building: IndexBuilding[] = [];
    const note = (entry: IndexBuilding | undefined): void => {
      if (entry && !building.some((known) => known.index === entry.index)) building.push(entry);
    };
    const progressToken = params.workDoneToken;
    const workspace = this.context.workspaceFor(params);
    const byGlob = globs && globs.length > 0 ? globFilter(globs) : () => true;
    const byLanguage = languages && languages.length > 0 ? languageFilter(languages) : () => true;
    // paths: folders or files inside the workspace; a hit must be in one of them AND pass the globs.
    const within = pathsWithin(workspace.root, params.paths ?? []);
    const inPaths = pathsFilter(within);
    const answer = await codeSearch(
      {
        query,
        mode,
        accepts: (file) => byGlob(file) && byLanguage(file) && inPaths(file),
        // The regex index narrows by the globs and paths too; `accepts` checks all.
        ...(globs ? { globs } : {}),
        ...(within.length > 0 ? { paths: within } : {}),
        ...(languages ? { languages } : {}),
        ...(maxResults === undefined ? {} : { maxResults }),
        ...(snippetLines === undefined ? {} : { snippetLines }),
        ...(ignoreCase === undefined ? {} : { ignoreCase }),
        ...(hybridWeight === undefined ? {} : { hybridWeight }),
      },
      {
        ranking: async () => {
          const ready = await this.context.readyRanking(workspace, token, progressToken, waitMs);
          note(ready.building);
          return ready.index;
        },
        grep: async (request, signal) => (await this.context.readyLexical(workspace, token, progressToken)).search(request, signal),
        symbols: async (request) => {
          const ready = await this.context.readySymbols(workspace, token, progressToken, waitMs);
          note(ready.building);
          return ready.index.search(request);
        },
        readText: (file) => {
          try {
            return fs.readFileSync(toAbsolute(workspace.root, file), 'utf8');
          } catch {
            return undefined;
          }
        },
        semantic: async (signal) => {
          const configured = this.context.semantic(workspace);
          if (!configured) return { unavailable: this.context.semanticOffReason(workspace) };
          // A store loaded from disk answers at once; its first sync catches up meanwhile (said as building).
          if (configured.index.state !== 'ready')
            note(await this.context.readySemantic(workspace, progressToken, token, configured.index.loadedStore ? 0 : waitMs));
          void signal;
          return {
            search: (text, k, accepts) => configured.index.search(text, k, accepts),
            ...(configured.model.settings.hybridWeight === undefined ? {} : { hybridWeight: configured.model.settings.hybridWeight }),
            ...(learnedFusionOf(configured.model) ?? {}),
          };
        },
        semanticReady: () => {
          // auto uses hybrid only once the index is built or loaded from disk: the first auto
          // question does not wait for a whole workspace to be embedded (it starts that, and ranks
          // lexically meanwhile).
          const configured = this.context.semantic(workspace);
          if (!configured) return undefined;
          const weight = configured.model.settings.hybridWeight;
          if (weight !== undefined && configured.index.state === 'absent' && workspace.state === 'ready')
            void configured.index.ensureBuilt().catch((error: unknown) => log.warn(`semantic index of ${workspace.root}: ${(error as Error).message}`));
          return weight !== undefined && (configured.index.state === 'ready' || configured.index.loadedStore) ? { hybridWeight: weight } : {};
        },
      },
      token,
    );
    const result = { ...toWireCodeSearch(workspace.root, query, answer, performance.now() - started), ...(building.length > 0 ? { building } : {}) };
    if (maxInlineBytes > 0 && Buffer.byteLength(JSON.stringify(result)) > maxInlineBytes) {
      const resultFile = writeResultFile(this.context.resultsDir(), 'code-search', { root: result.root, query, route: result.route, hits: result.hits });
      return { ...result, hits: result.hits.slice(0, 10), resultFile };
    }
    return result;
  }

  /** fathom/exportIndex: the workspace's chunk ranking, paths masked and terms hashed, for a shared store. */
  async exportIndex(params: ParamsOf<'fathom/exportIndex'>, token: CancellationToken): Promise<ExportIndexResult> {
    const { out, keyFile } = params;
    if (!path.isAbsolute(out)) throw new FathomError('invalidParams', `params.out must be an absolute path (got ${out})`, { field: 'out' });
    if (!fs.existsSync(path.dirname(out)))
      throw new FathomError('invalidParams', `the folder of params.out does not exist: ${path.dirname(out)}`, { field: 'out' });
    if (keyFile !== undefined && !path.isAbsolute(keyFile))
      throw new FathomError('invalidParams', `params.keyFile must be an absolute path (got ${keyFile})`, { field: 'keyFile' });
    const mask = new PathMask(keyFile === undefined ? userMaskKey(this.context.configDir()) : readMaskKey(keyFile));
    const workspace = this.context.workspaceFor(params);
    // An export is of the whole ranking: it waits for the build.
    const { index: ranking } = await this.context.readyRanking(workspace, token, params.workDoneToken, Number.POSITIVE_INFINITY);
    const summary = await exportRanking(ranking, mask, out);
    return { root: workspace.root, ...summary, bytes: fs.statSync(out).size };
  }
}

const fusionWarned = new Set<string>();

/** The model's learned fusion (fathom.json `fusion`) when this build can apply it; otherwise its hybrid weight ranks, said once in the log. */
function learnedFusionOf(model: ModelFolder): { fusion: LearnedFusion } | undefined {
  const fusion = model.settings.fusion;
  if (fusion === undefined) return undefined;
  if (isLearnedFusion(fusion)) return { fusion };
  if (!fusionWarned.has(model.dir)) {
    fusionWarned.add(model.dir);
    log.warn(
      `${model.dir}/fathom.json: its fusion names a feature this build does not compute, or lacks a weight per feature; the hybrid weight ranks instead`,
    );
  }
  return undefined;
}
