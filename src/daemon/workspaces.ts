// The daemon's open workspaces: folder workspaces keyed by resolved root, and one-file workspaces
// (a file asked about on its own, outside every folder workspace) keyed by the file. Resolves what a
// client names (an absolute path or a file:// URI) to a root that exists and can be read, and opens
// each workspace once. Fathom's own cache and settings folders are never a root and never part of
// any file set.
import fs from 'node:fs';
import path from 'node:path';
import { makeCacheFolder } from '../base/cache-folder.js';
import { FathomError, errorMessage } from '../base/errors.js';
import { defaultConfigDir, workspaceCacheDir } from '../base/places.js';
import { SyntaxPassPool } from '../engine/syntax-pass.js';
import { SemanticModels } from '../engine/semantic-models.js';
import { WorkspaceEngine } from '../engine/workspace-engine.js';
import { DebugSessions } from '../debug/debug-sessions.js';
import type { FileChunks } from '../index/syntax/chunk.js';
import { ChunkFileError, ChunkPool } from '../index/syntax/chunk-pool.js';
import { chunkFile, type ChunkInput } from '../index/syntax/chunk-file.js';
import { GrammarSet } from '../index/syntax/grammars.js';
import { ParseCache } from '../index/syntax/parse-cache.js';
import { type FileTags, tagFile } from '../index/syntax/tags.js';
import { StructuralPool } from '../structural/structural-pool.js';
import { StructuralSearch } from '../structural/structural-search.js';
import { RewritePlans } from '../structural/rewrite-plans.js';
import { DiagnosticsService } from '../lsp/diagnostics-service.js';
import { LanguageServers } from '../lsp/language-servers.js';
import { DiagnosticLedger } from '../lsp/ledger.js';
import { TrustStore } from './trust.js';
import { ownFoldersOf, refuseOwnFolder, resolveRootParam, type OwnFolder } from './root-param.js';
import { findProjectRoot, knownServers, resolveBinary, ServerRegistry, serversFromConfig, type ServerSpec } from '../lsp/registry.js';
import { log } from '../base/logger.js';
import type { LanguageServerState, WorkspaceStatus } from '../protocol/methods.js';
import { HashPool } from '../workspace/hash-pool.js';
import type { BufferOverlay } from '../workspace/overlay.js';
import { Workspace } from '../workspace/workspace.js';
import type { DaemonConfig } from './config.js';

/** One-file workspaces kept open at most (each watches its folder). */
const maxFileWorkspaces = 32;

/** Buffers longer than this (code units) are chunked in a worker rather than through the parse cache. */
const maxMainThreadParse = 2_000_000;

export interface ChunksAnswer {
  chunks: FileChunks;
  source: 'disk' | 'buffer';
  version?: number;
}

export class WorkspaceManager {
  /** Folder workspaces by root. */
  private readonly workspaces = new Map<string, Workspace>();
  /** One-file workspaces by their file's absolute path, least recently used first. */
  private readonly fileWorkspaces = new Map<string, Workspace>();
  /** Each open workspace's engine: its indexes and their lifecycle (src/engine). */
  private readonly engines = new Map<Workspace, WorkspaceEngine>();
  private readonly pool = new HashPool();
  /** Chunking of files on disk: worker threads, so a large file never stalls the daemon. */
  private readonly chunkPool = new ChunkPool();
  /** Each workspace's embedding model and semantic index (none until a model is set). */
  readonly models: SemanticModels;
  /** Debug sessions of every client (one live per owner, each with a time to live). */
  readonly debug = new DebugSessions((Number(process.env.FATHOM_DEBUG_TTL_SECONDS) || 300) * 1000);
  /** Grammars and trees of open buffers, on this thread: a keystroke re-parses incrementally. */
  private readonly grammars = new GrammarSet();
  private readonly parseCache = new ParseCache(this.grammars);
  private readonly structuralPool: StructuralPool;
  /** Each file's one syntax pass for every index that needs its syntax (the engines share its workers). */
  private readonly syntaxPool: SyntaxPassPool;
  /** Structural search: shares the grammars and the buffers' trees with chunks and outline. */
  readonly structural: StructuralSearch;
  /** Staged structural rewrites of every workspace, by token (a token is the capability to apply). */
  readonly rewritePlans = new RewritePlans();
  /** Language servers: none runs until an edit or a diagnostics request needs one. */
  readonly serverRegistry: ServerRegistry;
  /** Which workspaces may run code they ship (language servers, TypeScript, build scripts). */
  readonly trust: TrustStore;
  readonly languageServers: LanguageServers;
  readonly ledger = new DiagnosticLedger();
  readonly diagnostics: DiagnosticsService;

  constructor(
    private readonly config: DaemonConfig,
    private readonly overlay: BufferOverlay,
  ) {
    // A cache root that is not a folder (a file put there) is set aside and made anew.
    try {
      makeCacheFolder(config.cacheRoot);
    } catch (error) {
      log.error(`cannot make the cache folder ${config.cacheRoot}: ${errorMessage(error)}`);
    }
    const treeStoreMb = config.treeStoreMb ?? 2048;
    this.structuralPool = new StructuralPool({
      treeCacheBytes: (config.treeCacheMb ?? 96) * 2 ** 20,
      ...(treeStoreMb > 0 ? { treeStore: { folder: path.join(config.cacheRoot, 'trees'), maxBytes: treeStoreMb * 2 ** 20 } } : {}),
    });
    this.structural = new StructuralSearch(this.grammars, this.parseCache, this.structuralPool);
    const treeStoreFolder = this.structuralPool.treeStoreFolder;
    this.syntaxPool = new SyntaxPassPool(treeStoreFolder === undefined ? {} : { treeStoreFolder, onStored: (bytes) => this.structuralPool.noteStored(bytes) });
    let servers: ServerSpec[] = [...knownServers];
    try {
      servers = serversFromConfig(config.serversFile);
    } catch (error) {
      log.error(`language servers: ${(error as Error).message}; using the built-in table`);
    }
    this.serverRegistry = new ServerRegistry(servers);
    this.trust = new TrustStore(config.configDir);
    this.models = new SemanticModels(config.cacheRoot, (workspace) => this.engine(workspace).syntax, config.semanticSyncMs ?? 2_000);
    this.languageServers = new LanguageServers({ idleMs: config.serverIdleMs });
    this.diagnostics = new DiagnosticsService(this.serverRegistry, this.languageServers, this.ledger);
    overlay.onChange((path) => {
      if (!overlay.get(path)) this.parseCache.forget(path);
    });
  }

  /**
   * The chunks of a file in a workspace's file set: of its open buffer when there is one (parsed
   * through the parse cache), else of the file on disk (in a worker).
   */
  async chunksOf(workspace: Workspace, relativePath: string, options: { budgetBytes?: number }): Promise<ChunksAnswer> {
    this.requireInFileSet(workspace, relativePath);
    const absolute = `${workspace.root}/${relativePath}`;
    const buffer = this.overlay.get(absolute);
    if (buffer && buffer.text.length > maxMainThreadParse) {
      return {
        chunks: await this.chunkPool.chunk({ path: relativePath, bytes: Buffer.from(buffer.text, 'utf8'), options }),
        source: 'buffer',
        version: buffer.version,
      };
    }
    if (buffer) {
      const parsed = await this.bufferTree(absolute, relativePath, buffer.text);
      const chunks = await chunkFile(this.grammars, { path: relativePath, ...parsed }, options);
      return { chunks, source: 'buffer', version: buffer.version };
    }
    try {
      return { chunks: await this.chunkPool.chunk({ path: relativePath, absolutePath: absolute, options }), source: 'disk' };
    } catch (error) {
      throw this.readError(relativePath, error);
    }
  }

  /** A workspace's engine (its indexes), made on first ask. */
  engine(workspace: Workspace): WorkspaceEngine {
    let engine = this.engines.get(workspace);
    if (!engine) {
      engine = new WorkspaceEngine(workspace, { overlay: this.overlay, syntaxPool: this.syntaxPool, languages: this.grammars.table, models: this.models });
      this.engines.set(workspace, engine);
    }
    return engine;
  }

  /** The cache root every workspace's cache folder is in. */
  get cacheRoot(): string {
    return this.config.cacheRoot;
  }

  /** Fathom's cache and settings folders (real paths): never part of any file set. */
  private get ownFolders(): OwnFolder[] {
    this.ownFoldersValue ??= ownFoldersOf(this.config.cacheRoot, this.configDir);
    return this.ownFoldersValue;
  }

  /** The user's settings folder. */
  get configDir(): string {
    return this.config.configDir ?? defaultConfigDir();
  }

  /** Where answers too long to send inline are written (result-files.ts). */
  get resultsDir(): string {
    return `${this.config.cacheRoot}/results`;
  }

  /** The search part of a workspace's status: the chunk ranking's size and lag, the regex index's sizes, and why semantic search is off. */
  searchStatus(workspace: Workspace): NonNullable<WorkspaceStatus['search']> {
    const engine = this.engines.get(workspace);
    const states = engine?.states();
    const ranking = states?.ranking === 'ready' ? engine!.ranking : undefined;
    const counts = ranking?.counts();
    const semantic = this.models.indexFor(workspace);
    const model = this.models.modelInfo(workspace);
    const regexFacts = states?.regex === 'ready' ? engine!.regex.facts() : undefined;
    const rankingState = states?.ranking === 'building' || states?.ranking === 'ready' ? states.ranking : 'absent';
    const regexState = states?.regex === 'building' || states?.regex === 'ready' ? states.regex : 'absent';
    return {
      ranking: {
        state: rankingState,
        files: counts?.files ?? 0,
        chunks: counts?.chunks ?? 0,
        terms: counts?.terms ?? 0,
        lagFiles: ranking ? ranking.lag() : 0,
      },
      regex: {
        state: regexState,
        files: regexFacts?.files ?? 0,
        deltaFiles: regexFacts?.deltaFiles ?? 0,
        freshFiles: regexFacts?.fresh ?? 0,
        indexBytes: regexFacts?.indexBytes ?? 0,
        contentBytes: regexFacts?.contentBytes ?? 0,
        memoryBytes: regexFacts?.memoryBytes ?? 0,
      },
      semantic: semantic && model ? { ...semantic.index.status(), model } : { state: 'off', reason: this.models.offReason(workspace) },
    };
  }

  /** A file's language id by name and extension (undefined: no grammar knows it). */
  languageOf(relativePath: string): string | undefined {
    return this.grammars.table.detect(relativePath)?.id;
  }

  /** The known language servers for a workspace: running ones, else whether one could start. */
  languageServerStates(workspace: Workspace): LanguageServerState[] {
    const running = this.languageServers.status().filter((entry) => entry.projectRoot === workspace.root || entry.projectRoot.startsWith(`${workspace.root}/`));
    return this.serverRegistry.servers.map((spec: ServerSpec): LanguageServerState => {
      const live = running.find((entry) => entry.server === spec.id);
      if (live) {
        return {
          server: spec.id,
          state: live.state,
          projectRoot: live.projectRoot,
          ...(live.pid ? { pid: live.pid } : {}),
          crashes: live.crashes,
          ...(live.lastCrash ? { lastCrash: live.lastCrash } : {}),
        };
      }
      const projectRoot = findProjectRoot(`${workspace.root}/.`, workspace.root, spec.rootMarkers);
      if (!projectRoot) return { server: spec.id, state: 'missing', reason: `no ${spec.rootMarkers.join(' / ')} at the workspace root` };
      if (!resolveBinary(spec.binary, projectRoot, { trusted: this.trust.isTrusted(workspace.root) }))
        return { server: spec.id, state: 'missing', reason: `${spec.binary} not found` };
      return { server: spec.id, state: 'available', projectRoot };
    });
  }

  /** Definitions and references of one file in the file set: its open buffer (parse cache) or the disk (a worker). */
  async tagsOf(workspace: Workspace, relativePath: string): Promise<{ tags: FileTags; source: 'disk' | 'buffer' }> {
    this.requireInFileSet(workspace, relativePath);
    const absolute = `${workspace.root}/${relativePath}`;
    const buffer = this.overlay.get(absolute);
    if (buffer && buffer.text.length <= maxMainThreadParse) {
      const parsed = await this.bufferTree(absolute, relativePath, buffer.text);
      return { tags: await tagFile(this.grammars, { path: relativePath, ...parsed }), source: 'buffer' };
    }
    try {
      return buffer
        ? { tags: await this.chunkPool.tags({ path: relativePath, bytes: Buffer.from(buffer.text, 'utf8') }), source: 'buffer' }
        : { tags: await this.chunkPool.tags({ path: relativePath, absolutePath: absolute }), source: 'disk' };
    } catch (error) {
      throw this.readError(relativePath, error);
    }
  }

  /**
   * A buffer's bytes and, when its language has a grammar, its tree from the parse cache (parsed
   * incrementally after each change). The tree is valid until the cache is next called: the
   * caller hands it straight to the chunker or the tagger (only microtasks run in between, so no
   * other request can touch the cache).
   */
  private async bufferTree(absolute: string, relativePath: string, text: string): Promise<{ bytes: Buffer; tree?: ChunkInput['tree']; language?: string }> {
    const bytes = Buffer.from(text, 'utf8');
    const spec = this.grammars.table.detect(relativePath, bytes.subarray(0, 256));
    const cached = spec ? await this.parseCache.tree(absolute, spec.id, bytes) : undefined;
    return cached && spec ? { bytes, tree: cached.tree, language: spec.id } : { bytes };
  }

  /** Refuses a path the file set does not hold (InvalidParams, saying why it may be missing). */
  requireInFileSet(workspace: Workspace, relativePath: string): void {
    if (workspace.hashOf(relativePath) === undefined) {
      throw new FathomError(
        'invalidParams',
        `${relativePath} is not in the file set of ${workspace.root} (missing, a folder, ignored, a secret, binary or over the size limit)`,
        { path: relativePath },
      );
    }
  }

  private readError(relativePath: string, error: unknown): unknown {
    if (error instanceof ChunkFileError && (error.code === 'ENOENT' || error.code === 'ENOTDIR'))
      return new FathomError('invalidParams', `${relativePath} vanished before it could be read`, { path: relativePath });
    if (error instanceof ChunkFileError && error.code !== undefined) return new FathomError('io', `${relativePath}: ${error.message}`, { path: relativePath });
    return error;
  }

  /** Drops a workspace's engine; answers when every index wrote what it had not written. */
  private forget(workspace: Workspace): Promise<void> {
    const engine = this.engines.get(workspace);
    this.engines.delete(workspace);
    return engine ? engine.dispose() : this.models.forget(workspace);
  }

  /**
   * Resolves a client's root (an absolute path or a file:// URI) to an absolute real path. Throws
   * invalidParams for an empty or relative one (it would name the daemon's own working folder) or
   * one at or inside Fathom's cache or settings folder (never indexed); workspaceNotFound when it
   * does not exist, is not a folder, or cannot be read. `field` names the param in messages.
   */
  resolveRoot(value: string, field = 'root'): string {
    return resolveRootParam(value, field, this.ownFolders);
  }

  private ownFoldersValue: OwnFolder[] | undefined;

  /** An open folder workspace by its resolved root (one-file workspaces are not found here). */
  get(root: string): Workspace | undefined {
    return this.workspaces.get(root);
  }

  /** The roots of the open folder workspaces, sorted. */
  folderRoots(): string[] {
    return [...this.workspaces.keys()].sort();
  }

  /** Every open workspace: folder workspaces, then one-file workspaces. */
  all(): Workspace[] {
    return [...this.workspaces.values(), ...this.fileWorkspaces.values()];
  }

  /** The workspace for a resolved root, opening it (and starting its build) if needed. */
  open(root: string): Workspace {
    let workspace = this.workspaces.get(root);
    if (!workspace || workspace.state === 'failed') {
      if (workspace) {
        void this.forget(workspace);
        void workspace.close();
      }
      workspace = this.newWorkspace(root, undefined);
      this.workspaces.set(root, workspace);
    }
    return workspace;
  }

  /**
   * A one-file workspace for a file no open workspace holds (a file outside any repository, asked
   * about on its own): its folder is the root, the file its whole file set, and nothing else in the
   * folder is listed or read. The file need not exist yet (a write creates it). The most recently
   * used 32 are kept; opening another closes the oldest.
   */
  openFile(absolute: string): Workspace {
    refuseOwnFolder(absolute, 'path', this.ownFolders);
    let workspace = this.fileWorkspaces.get(absolute);
    if (workspace && workspace.state !== 'failed') {
      // Most recently used last.
      this.fileWorkspaces.delete(absolute);
      this.fileWorkspaces.set(absolute, workspace);
      return workspace;
    }
    if (workspace) {
      this.fileWorkspaces.delete(absolute);
      void this.forget(workspace);
      void workspace.close();
    }
    workspace = this.newWorkspace(path.dirname(absolute), path.basename(absolute));
    this.fileWorkspaces.set(absolute, workspace);
    for (const [file, oldest] of this.fileWorkspaces) {
      if (this.fileWorkspaces.size <= maxFileWorkspaces) break;
      this.fileWorkspaces.delete(file);
      void this.forget(oldest).then(() => oldest.close());
    }
    return workspace;
  }

  private newWorkspace(root: string, onlyFile: string | undefined): Workspace {
    const cacheDir = workspaceCacheDir(this.config.cacheRoot, root, onlyFile);
    try {
      // Anything in the way that is not a folder (the cache root, `workspaces`, this one's) is set aside.
      makeCacheFolder(cacheDir, this.config.cacheRoot);
      fs.writeFileSync(`${cacheDir}/root`, `${onlyFile === undefined ? root : path.join(root, onlyFile)}\n`);
    } catch (error) {
      throw new FathomError('io', `cannot make the cache folder ${cacheDir}: ${errorMessage(error)}`, { cacheDir });
    }
    return new Workspace({
      root,
      cacheDir,
      maxFileBytes: this.config.maxFileBytes,
      reconcileIntervalMs: this.config.reconcileIntervalMs,
      pool: this.pool,
      excludedFolders: this.ownFolders.map(({ folder }) => folder),
      ...(onlyFile === undefined ? {} : { onlyFile }),
    });
  }

  /** Closes and forgets a workspace (its first build was cancelled by everyone waiting for it). */
  async discard(workspace: Workspace): Promise<void> {
    if (this.workspaces.get(workspace.root) === workspace) this.workspaces.delete(workspace.root);
    for (const [file, held] of this.fileWorkspaces) if (held === workspace) this.fileWorkspaces.delete(file);
    await this.forget(workspace);
    await workspace.close();
  }

  /**
   * The open workspace that holds an absolute path: the folder workspace with the deepest root
   * containing it, else the one-file workspace of exactly that file.
   */
  containing(absolutePath: string): Workspace | undefined {
    let best: Workspace | undefined;
    for (const workspace of this.workspaces.values()) {
      const root = workspace.root;
      if ((absolutePath === root || absolutePath.startsWith(`${root}/`)) && (!best || root.length > best.root.length)) best = workspace;
    }
    return best ?? this.fileWorkspaces.get(absolutePath);
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.all().map((workspace) => this.forget(workspace)));
    await Promise.all(this.all().map((workspace) => workspace.close()));
    this.workspaces.clear();
    this.fileWorkspaces.clear();
    this.pool.close();
    this.chunkPool.close();
    this.syntaxPool.close();
    this.models.close();
    await this.debug.closeAll();
    this.structuralPool.close();
    this.parseCache.clear();
    await this.languageServers.stopAll();
  }
}
