// fathom/codeSearch for a connection: reads and checks the params, gives the search module its
// engines (the regex index, the code graph and the chunk ranking of the workspace, each built on
// first use with $/progress on the client's token), converts the answer with to-wire.ts, and
// writes an answer over the inline cap to a result file.
import fs from 'node:fs';
import type { CancellationToken } from 'vscode-jsonrpc/node';
import { FathomError } from '../base/errors.js';
import { log } from '../base/logger.js';
import { toAbsolute } from '../base/paths.js';
import type { CodeGraph } from '../index/graph/code-graph.js';
import type { ChunkRanking } from '../index/ranking/chunk-ranking.js';
import { globFilter, pathsFilter } from '../base/path-glob.js';
import { type RegexIndex, languageFilter } from '../index/regex/regex-index.js';
import { Methods, type CodeSearchResult, type IndexBuilding, type ProgressToken } from '../protocol/methods.js';
import { type CodeSearchMode, codeSearch, codeSearchModes } from '../search/code-search.js';
import type { Workspace } from '../workspace/workspace.js';
import {
  type Params,
  optionalBoolean,
  optionalCount,
  optionalPathsWithin,
  optionalProgressToken,
  optionalString,
  optionalStringList,
  paramsObject,
  requiredNumber,
  requiredText,
} from './params.js';
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
  workspaceFor(params: Params): Workspace;
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

  async codeSearch(raw: unknown, token: CancellationToken): Promise<CodeSearchResult> {
    const started = performance.now();
    const params = paramsObject(Methods.codeSearch, raw);
    const query = requiredText(params, 'query');
    const mode = (optionalString(params, 'mode') ?? 'auto') as CodeSearchMode;
    if (!codeSearchModes.includes(mode))
      throw new FathomError('invalidParams', `params.mode must be one of ${codeSearchModes.join(', ')} (got "${mode}")`, { field: 'mode' });
    const globs = optionalStringList(params, 'glob');
    const languages = optionalStringList(params, 'languages');
    const maxResults = optionalCount(params, 'maxResults');
    if (maxResults !== undefined && (maxResults < 1 || maxResults > 10_000))
      throw new FathomError('invalidParams', `params.maxResults must be between 1 and 10000 (got ${maxResults})`, { field: 'maxResults' });
    const snippetLines = optionalCount(params, 'snippetLines');
    if (snippetLines !== undefined && (snippetLines < 1 || snippetLines > 50))
      throw new FathomError('invalidParams', `params.snippetLines must be between 1 and 50 (got ${snippetLines})`, { field: 'snippetLines' });
    const ignoreCase = optionalBoolean(params, 'ignoreCase');
    const hybridWeight = params.hybridWeight === undefined ? undefined : requiredNumber(params, 'hybridWeight');
    if (hybridWeight !== undefined && (hybridWeight < 0 || hybridWeight > 1))
      throw new FathomError('invalidParams', `params.hybridWeight must be between 0 and 1 (got ${hybridWeight})`, { field: 'hybridWeight' });
    const maxInlineBytes = optionalCount(params, 'maxInlineBytes') ?? defaultMaxInlineBytes;
    const waitMs = optionalCount(params, 'waitMs') ?? defaultIndexWaitMs;
    /** Indexes the answer used while they were still building. */
    const building: IndexBuilding[] = [];
    const note = (entry: IndexBuilding | undefined): void => {
      if (entry && !building.some((known) => known.index === entry.index)) building.push(entry);
    };
    const progressToken = optionalProgressToken(params, 'workDoneToken');
    const workspace = this.context.workspaceFor(params);
    const byGlob = globs && globs.length > 0 ? globFilter(globs) : () => true;
    const byLanguage = languages && languages.length > 0 ? languageFilter(languages) : () => true;
    // paths: folders or files inside the workspace; a hit must be in one of them AND pass the globs.
    const within = optionalPathsWithin(params, workspace.root);
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
  async exportIndex(raw: unknown, token: CancellationToken): Promise<ExportIndexResult> {
    const params = paramsObject(Methods.exportIndex, raw);
    const out = requiredText(params, 'out');
    if (!path.isAbsolute(out)) throw new FathomError('invalidParams', `params.out must be an absolute path (got ${out})`, { field: 'out' });
    if (!fs.existsSync(path.dirname(out)))
      throw new FathomError('invalidParams', `the folder of params.out does not exist: ${path.dirname(out)}`, { field: 'out' });
    const keyFile = optionalString(params, 'keyFile');
    if (keyFile !== undefined && !path.isAbsolute(keyFile))
      throw new FathomError('invalidParams', `params.keyFile must be an absolute path (got ${keyFile})`, { field: 'keyFile' });
    const mask = new PathMask(keyFile === undefined ? userMaskKey(this.context.configDir()) : readMaskKey(keyFile));
    const workspace = this.context.workspaceFor(params);
    // An export is of the whole ranking: it waits for the build.
    const { index: ranking } = await this.context.readyRanking(workspace, token, optionalProgressToken(params, 'workDoneToken'), Number.POSITIVE_INFINITY);
    const summary = await exportRanking(ranking, mask, out);
    return { root: workspace.root, ...summary, bytes: fs.statSync(out).size };
  }
}
