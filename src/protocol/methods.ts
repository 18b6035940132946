// The wire contract of Fathom's own methods: names and result shapes; each method's params are
// defined once, as a schema, in params.ts, whose types this file re-exports (a type-only import:
// what imports this file never loads zod, as the CLI's client path must not). Documented with
// examples in docs/protocol.md; keep both in step. Imports nothing of ours outside protocol/.
import type { CodeSearchMode, Confidence, ParamsIn, RequestMethod, ResultCursor, StructuralRule } from './params.js';

/** A request's params as a client sends them (its schema: params.ts' `requestParams`). */
export type MethodParams<M extends RequestMethod> = ParamsIn<M>;
export type { CodeSearchMode, ResultCursor, StructuralRule };

export const Methods = {
  status: 'fathom/status',
  index: 'fathom/index',
  files: 'fathom/files',
  merkle: 'fathom/merkle',
  grep: 'fathom/grep',
  codeSearch: 'fathom/codeSearch',
  exportIndex: 'fathom/exportIndex',
  teamPush: 'fathom/teamPush',
  teamStatus: 'fathom/teamStatus',
  teamJoin: 'fathom/teamJoin',
  modelUse: 'fathom/modelUse',
  modelPull: 'fathom/modelPull',
  debugLaunch: 'fathom/debugLaunch',
  debugState: 'fathom/debugState',
  debugEvaluate: 'fathom/debugEvaluate',
  debugContinue: 'fathom/debugContinue',
  debugStep: 'fathom/debugStep',
  debugSetBreakpoints: 'fathom/debugSetBreakpoints',
  debugTerminate: 'fathom/debugTerminate',
  chunks: 'fathom/chunks',
  symbols: 'fathom/symbols',
  outline: 'fathom/outline',
  definition: 'fathom/definition',
  references: 'fathom/references',
  callers: 'fathom/callers',
  callees: 'fathom/callees',
  impact: 'fathom/impact',
  structuralSearch: 'fathom/structuralSearch',
  structuralRewrite: 'fathom/structuralRewrite',
  applyRewrite: 'fathom/applyRewrite',
  discardRewrite: 'fathom/discardRewrite',
  editFile: 'fathom/editFile',
  writeFile: 'fathom/writeFile',
  newDiagnostics: 'fathom/newDiagnostics',
  trust: 'fathom/trust',
  stop: 'fathom/stop',
} as const;

export type ProgressToken = string | number;

/** Why a file under the root is not in the file set. */
export type SkipReason =
  | 'ignored' // excluded by .gitignore/.fathomignore/info/exclude/global excludes (an entry: a file or a whole folder)
  | 'secret' // .env*, private keys, credential files
  | 'binary' // a NUL byte in the first 8 KiB
  | 'tooLarge' // over the size limit
  | 'symlink' // a symbolic link to a file inside the root (links are not followed, as ripgrep does not: the target is indexed under its own path)
  | 'symlinkOutside' // a symbolic link whose target lies outside the root
  | 'symlinkDir' // a symbolic link to a folder
  | 'brokenSymlink'
  | 'nestedRepository' // a folder holding its own .git inside a git workspace
  | 'special' // a FIFO, socket or device
  | 'unreadable' // permission denied
  | 'pathTooLong'; // the system cannot name it (ENAMETOOLONG: a path over PATH_MAX, 4096 bytes on Linux, or a name over 255 bytes); a folder counts once, its contents unseen

export interface WorkspaceStatus {
  root: string;
  /** absent: never opened; scanning: first build running; ready: serving; failed: see `error`. */
  state: 'absent' | 'scanning' | 'ready' | 'failed';
  git: boolean;
  files: number;
  bytes: number;
  skipped: Partial<Record<SkipReason, number>>;
  merkleRoot: string | null;
  /** fileSet, merkle, regex (the regex index), graph (the code graph), ranking (the chunk ranking), semantic ('off' until a model is configured), trees (the tree store). */
  indexes: Record<string, 'absent' | 'building' | 'ready' | 'failed' | 'off'>;
  /**
   * Each index of the workspace's engine (regex, graph, ranking, trees, semantic): its state, the
   * files it covers, its bytes in the cache folder, the files it lags by, and the last build (or
   * load from the cache) this daemon ran for it. Absent from the answer of `fathom/index` with
   * `wait: false`.
   */
  indexFacts?: Record<'regex' | 'graph' | 'ranking' | 'trees' | 'semantic', IndexFacts>;
  /**
   * What this daemon's syntax passes of the workspace's files cost (each file read and parsed once
   * for the graph, the ranking, the tree store and the semantic index): files read, parses, time in
   * the parser and on the workers (ms), and the products one index got from another's pass.
   */
  syntaxPass?: {
    files: number;
    parses: number;
    parseMs: number;
    workerMs: number;
    shared: { tags: number; terms: number; chunks: number; tree: number };
    /** Products made for an index and dropped before it took them (each costs that index a pass of its own). */
    dropped: { tags: number; terms: number; chunks: number; tree: number };
  };
  /** codeSearch's rankings: the chunk ranking's size and lag, and why semantic search is off. */
  search?: {
    ranking: { state: 'absent' | 'building' | 'ready'; files: number; chunks: number; terms: number; lagFiles: number };
    /** The regex index: files in its base, in its delta (changed since), searched fresh (changed since the delta), its bytes on disk (index and content store) and in memory. */
    regex: {
      state: 'absent' | 'building' | 'ready';
      files: number;
      deltaFiles: number;
      freshFiles: number;
      indexBytes: number;
      contentBytes: number;
      memoryBytes: number;
    };
    semantic:
      | { state: 'off'; reason: string }
      | {
          state: 'absent' | 'building' | 'ready';
          model: ModelInfo;
          files: number;
          chunks: number;
          /** What the index lags by: files changed since the last sync, and for how long. */
          pendingFiles: number;
          oldestPendingMs: number;
          /** `repaired`: vectors the embedding cache held that failed their check, embedded again in that sync. */
          lastSync: { at: string; files: number; embedded: number; cached: number; repaired: number; ms: number } | null;
          /** The store saved in the cache folder: none, loaded, or refused (why) and rebuilt from the embedding cache. */
          /** unopened: a saved store not read yet (status never loads it; files and chunks are then 0). */
          store: { loaded: 'none' | 'valid' | 'rebuilt' | 'unopened'; reason?: string };
          /** What a team store gave the index before its first build (fathom/teamJoin): the store, files and chunks, when. */
          seeded?: { from: string; files: number; chunks: number; at: string };
          /** Vectors searched exactly until the HNSW graph takes them (a join's, moved in in slices between requests); 0 when none. */
          staged: number;
        };
  };
  watcher: { state: 'watching' | 'degraded' | 'off'; folders: number; problem?: string };
  lag: { pendingChanges: number; oldestPendingMs: number; lastChangeAppliedAt: string | null };
  lastScan: { kind: 'build' | 'restart' | 'reconcile'; at: string; durationMs: number; hashed: number; reused: number; repaired: number } | null;
  cache: { path: string; loaded: 'none' | 'valid' | 'rebuilt' };
  /**
   * A one-file workspace (a file outside every folder workspace, answered on its own): its one file,
   * relative to `root` (its folder). Nothing else in that folder is part of it.
   */
  file?: string;
  error?: string;
  /** The language servers Fathom knows, for this workspace: running (with its project root and pid), available (would start on first use), or missing (and which part: the root marker or the binary). */
  languageServers?: LanguageServerState[];
}

export interface IndexFacts {
  state: 'off' | 'absent' | 'building' | 'ready' | 'failed';
  files: number;
  bytes: number;
  lagFiles: number;
  lastBuild: { at: string; ms: number } | null;
  /** Why it is off. */
  reason?: string;
}

export interface LanguageServerState {
  server: string;
  state: 'running' | 'starting' | 'available' | 'missing' | 'exited';
  projectRoot?: string;
  pid?: number;
  /** For missing: what is missing. */
  reason?: string;
  crashes?: number;
  lastCrash?: string;
}

export interface StatusResult {
  /** Live debug sessions of every client, and the debug adapters. */
  debug?: {
    sessions: Array<{ id: string; owner: string; program: string; phase: string; remainingSeconds: number }>;
    adapters: Array<{ adapter: string; state: 'available' | 'missing' | 'checking'; reason?: string }>;
  };
  daemon: { pid: number; version: string; uptimeSeconds: number; clients: number; buffers: number; socket: string | null };
  workspaces: WorkspaceStatus[];
}

export interface FilesResult {
  root: string;
  total: number;
  truncated: boolean;
  files: string[];
}

export interface MerkleChild {
  name: string;
  kind: 'dir' | 'file';
  hash: string;
}

export interface MerkleResult {
  root: string;
  rootHash: string;
  path: string;
  kind: 'dir' | 'file' | 'absent';
  hash: string | null;
  children?: MerkleChild[];
}

export interface GrepContextLine {
  /** 1-based. */
  line: number;
  text: string;
}

export interface GrepMatch {
  path: string;
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units. */
  column: number;
  text: string;
  /** With context: the lines before this match that no earlier match of the file showed. */
  before?: GrepContextLine[];
  /** With context: the lines after it, up to the next match. */
  after?: GrepContextLine[];
}

export interface GrepResult {
  root: string;
  matches: GrepMatch[];
  /** Matching lines in all (also those past `maxResults`). */
  total: number;
  /** Files with at least one match (all of them, also past `maxResults`). */
  files: number;
  /** `total` is over `maxResults` (a page: more may follow): `matches` holds the first ones in path order. */
  truncated: boolean;
  /** When truncated, for a page (`paged`, or `after` given): the cursor to pass back as `after` for the lines after these. */
  next?: ResultCursor;
  /** Files given up because the regex ran past the per-file time limit (2 s) there: the result is partial. */
  timedOut: string[];
  stats: { plan: string; candidates: number; searched: number; fromIndex: boolean; elapsedMs: number };
}

/**
 * fathom/grep, fathom/codeSearch and fathom/symbols asked of several workspaces (`roots`, or
 * `allWorkspaces: true`, in place of `root`): each root's own answer, or its error, in the order
 * given. Paths stay relative to their root; limits (maxResults, limit) apply per root.
 */
export interface AcrossRootsResult<T> {
  answers: Array<{ root: string; result: T; error?: undefined } | { root: string; error: { code: number; message: string }; result?: undefined }>;
}

export interface CodeSearchHit {
  /** Relative to the workspace root. */
  path: string;
  uri: string;
  /** 1-based, inclusive: the whole chunk, definition or matching line. */
  start: number;
  end: number;
  /** 1-based column (UTF-16) of a regex/literal match. */
  column?: number;
  /** Higher is better; comparable within one ranker only (0 for regex/literal lines, which keep ripgrep's order). */
  score: number;
  /** What found it: lexical (chunk ranking), semantic (the embedding model), symbol (a definition of the name), regex, literal. */
  rankers: Array<'lexical' | 'semantic' | 'symbol' | 'regex' | 'literal'>;
  /** lexical: the query terms the chunk holds (stemmed, as indexed). */
  matched?: string[];
  /** symbol: the definition. */
  symbol?: { name: string; kind: string; container: string[] };
  /** 1-based line to jump to: a ranked chunk's line holding the most query terms, a definition's first line, the matching line. */
  line: number;
  /** Lines of the hit read from the local file (around `line`, inside the hit). */
  snippet: string;
  /** 1-based line of the snippet's first line. */
  snippetStart: number;
}

export interface CodeSearchResult {
  root: string;
  query: string;
  /** What ran: lexical, semantic, hybrid, symbol, regex or literal. */
  route: 'lexical' | 'semantic' | 'hybrid' | 'symbol' | 'regex' | 'literal';
  /** Why (auto's reading of the query, or mode=…). */
  reason: string;
  /** Empty when the answer went to `resultFile`. */
  hits: CodeSearchHit[];
  total: number;
  truncated: boolean;
  /** Set when the answer was over maxInlineBytes: a JSON file (0600, removed after an hour) holding { hits }; `hits` here holds the first 10. */
  resultFile?: string;
  elapsedMs: number;
  /** Indexes still building when the answer was made (after `waitMs`): the hits cover only the files each held. */
  building?: IndexBuilding[];
}

/** An index still building when an answer was made: files done of the files it has to do. */
export interface IndexBuilding {
  index: 'ranking' | 'graph' | 'semantic';
  done: number;
  total: number;
  /** Set when it is being read from its saved copy (a restarted daemon), not built: `done` counts files read. */
  loading?: true;
}

export interface DebugVariable {
  name: string;
  value: string;
  type?: string;
  truncated?: boolean;
  expandable?: boolean;
}

export interface DebugFrame {
  id: number;
  name: string;
  path?: string;
  /** 1-based. */
  line: number;
  column: number;
  /** The top frame's, and those asked for with localsOf. */
  locals?: DebugVariable[];
}

export interface DebugStateResult {
  session: string;
  program: string;
  /** starting, running (past the wait), stopped, ended. */
  phase: 'starting' | 'running' | 'stopped' | 'ended';
  stop?: { reason: string; threadId: number; description?: string };
  frames: DebugFrame[];
  exitCode?: number;
  /** The debuggee's output, the last 64 lines. */
  output: string[];
  breakpoints: Array<{ path: string; line: number; verified: boolean; message?: string }>;
  /** Until the session's time to live ends it. */
  remainingSeconds: number;
}

export interface DebugEvaluateResult {
  session: string;
  value: string;
  type?: string;
  truncated?: boolean;
}

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

export interface TrustResult {
  /** The folder, as a real path. */
  path: string;
  /** Whether it is trusted now (it or a folder above it is in the list, or FATHOM_TRUST_ALL=1). */
  trusted: boolean;
  /** Every trusted folder. */
  folders: string[];
  /** FATHOM_TRUST_ALL=1: every workspace is trusted. */
  trustsAll: boolean;
}

export interface ModelUseResult {
  root: string;
  model: ModelInfo | null;
}

export interface ModelPullResult {
  id: string;
  /** Where it was put (give it to fathom/modelUse). */
  dir: string;
}

export interface TeamPushResult {
  root: string;
  /** user@host:port/db. */
  store: string;
  teamKeyId: string;
  modelId: string;
  /** Files of the semantic index pushed. */
  files: number;
  /** The store held a complete push of this tree: nothing was checked file by file, nothing sent. */
  upToDate: boolean;
  /** What the store lacked and was sent. */
  uploaded: { vectors: number; files: number; paths: number };
  /** Files whose vectors the embedding cache could not give (the next sync embeds them again; the next push sends them). */
  skippedFiles: number;
  snapshot: { id: number; created: boolean; merkleRoot: string; simhash: string };
  bytesSent: number;
  ms: number;
}

export interface TeamSnapshot {
  id: number;
  merkleRoot: string;
  simhash: string;
  /** Hamming distance of its simhash to the workspace's. */
  distance: number;
  fileCount: number;
  chunkCount: number;
  createdAt: string;
  /** Its Merkle root is the workspace's. */
  sameTree: boolean;
}

export interface TeamStatusResult {
  root: string;
  store: string;
  schemaVersion: number;
  teamKeyId: string;
  modelId: string;
  local: { files: number; merkleRoot: string; simhash: string };
  /** Of the workspace's distinct file contents, how many the store holds records of, and their chunks. */
  held: { files: number; distinctFiles: number; chunks: number };
  /** The team's snapshots of the model nearest to the workspace's tree, nearest first (at most 5). */
  nearest: TeamSnapshot[];
  /** What this daemon's semantic index of the workspace took from a team store (fathom/teamJoin), or null. */
  seeded: { from: string; files: number; chunks: number; at: string } | null;
}

export interface TeamJoinResult {
  root: string;
  store: string;
  teamKeyId: string;
  modelId: string;
  /** The team's snapshot nearest to the workspace's tree (records are by content: any clone's serve). */
  nearest: TeamSnapshot | null;
  /** Distinct file contents the workspace holds, and how many of them the store gave (records and every vector). */
  distinctFiles: number;
  fetchedFiles: number;
  /** Paths and chunks the semantic index took (0 when it already held an index: a join only fills an empty one). */
  seeded: { files: number; chunks: number };
  /** Whether the semantic index held something already (then nothing was taken). */
  alreadyIndexed: boolean;
  /** Bytes of vectors received. */
  vectorBytes: number;
  /** The join's own time: asking the store and seeding the index (not the file set's first build). */
  ms: number;
}

export interface ExportIndexResult {
  root: string;
  file: string;
  /** Names the key (6 bytes of an HMAC of it): a store made with another key is refused. */
  keyId: string;
  files: number;
  chunks: number;
  terms: number;
  bytes: number;
}

/** 1-based line; 1-based column in UTF-16 code units (as in grep results). */
export interface WirePosition {
  line: number;
  column: number;
}

export interface WireChunk {
  /** [startByte, endByte) into the file's bytes. */
  startByte: number;
  endByte: number;
  start: WirePosition;
  /** Exclusive. */
  end: WirePosition;
  method: 'syntax' | 'lines';
  parseError: boolean;
  oversized: boolean;
  /** Enclosing entities, outermost first, then the chunk's own entity when it holds exactly one. */
  scope: string[];
  entities: Array<{ kind: string; name: string; signature: string }>;
  /** The context header (what gets embedded with the text). */
  header: string;
  text?: string;
}

export interface ChunksResult {
  root: string;
  /** Relative to root, '/'-separated. */
  path: string;
  /** Where the text came from: the file on disk, or an open editor buffer (with its version). */
  source: 'disk' | 'buffer';
  version?: number;
  language: string | null;
  languageName: string | null;
  byteLength: number;
  parseErrors: boolean;
  /** Why line windows were used despite a language, and other trouble. */
  problems: string[];
  chunks: WireChunk[];
}

/** A range with 1-based lines and 1-based UTF-16 columns, end exclusive (as in grep and chunks). */
export interface WireRange {
  start: WirePosition;
  end: WirePosition;
}

export interface WireSymbol {
  name: string;
  kind: string;
  path: string;
  /** The whole definition. */
  range: WireRange;
  /** The name. */
  selectionRange: WireRange;
  /** Enclosing definitions, outermost first. */
  container: string[];
  signature: string;
}

export interface SymbolsResult {
  root: string;
  /** Best first; `score` (symbol-search.ts's tiers: higher is better) depends on the name and query only, so answers of several roots merge by it. */
  symbols: Array<WireSymbol & { score: number }>;
  truncated: boolean;
  /** The code graph was still building when the answer was made (after `waitMs`): the symbols of the files it held. */
  building?: IndexBuilding[];
}

export interface OutlineSymbol {
  name: string;
  kind: string;
  range: WireRange;
  selectionRange: WireRange;
  signature: string;
  children: OutlineSymbol[];
}

export interface OutlineResult {
  root: string;
  path: string;
  source: 'disk' | 'buffer';
  language: string | null;
  symbols: OutlineSymbol[];
}

/** How sure an edge of the code graph is: `exact` (by scope, package or import), `unique` (the only definition of that name in the workspace), `name-only` (one of several). */
export type WireConfidence = Confidence;

/** A definition found through the graph, with how sure the edge to it is. */
export interface GraphSymbol extends WireSymbol {
  confidence: WireConfidence;
  /** Which resolution step found it: scope, member, package, import, workspace. */
  via: string;
}

export interface DefinitionResult {
  root: string;
  definitions: GraphSymbol[];
}

export interface WireReference {
  path: string;
  /** The name. */
  range: WireRange;
  /** call, type, import, implementation, class (instantiation), declaration, … */
  kind: string;
  confidence: WireConfidence;
  via: string;
  /** The definitions it lies in, outermost first ([]: top-level code). */
  container: string[];
  /** Its line, whitespace collapsed. */
  text: string;
}

export interface ReferencesResult {
  root: string;
  symbols: GraphSymbol[];
  references: WireReference[];
  truncated: boolean;
  /** When truncated, for a page (`paged`, or `offset` given): the `offset` of the references after these. */
  next?: number;
}

/** A symbol reached from the one asked about. */
export interface RelatedSymbol {
  /** The definition; null for top-level code of `path`. */
  symbol: WireSymbol | null;
  path: string;
  distance: number;
  /** The weakest edge on the way. */
  confidence: WireConfidence;
  /** Where the edges are (call sites, references), with their own confidence. */
  sites: Array<{ path: string; range: WireRange; kind: string; confidence: WireConfidence }>;
  /** The symbol it was reached from. */
  from: { name: string; path: string; line: number } | null;
}

export interface CallersResult {
  root: string;
  symbols: GraphSymbol[];
  callers: RelatedSymbol[];
  truncated: boolean;
}

export interface CalleesResult {
  root: string;
  symbols: GraphSymbol[];
  callees: RelatedSymbol[];
  /** Calls that resolve to nothing in the workspace (library and built-in functions), by name. */
  unresolved: Array<{ name: string; count: number }>;
  truncated: boolean;
}

export interface ImpactResult {
  root: string;
  symbols: GraphSymbol[];
  /** Everything that depends on them, nearest first. */
  impacted: RelatedSymbol[];
  /** Files holding impacted symbols or references, nearest first. */
  files: Array<{ path: string; distance: number; symbols: number; references: number }>;
  byDistance: Array<{ distance: number; symbols: number; files: number }>;
  truncated: boolean;
}

/** The value of a `$/progress` notification (LSP WorkDoneProgress). */
export type ProgressValue =
  | { kind: 'begin'; title: string; cancellable: boolean; message?: string; percentage?: number }
  | { kind: 'report'; message?: string; percentage?: number }
  | { kind: 'end'; message?: string };

export interface StructuralBinding {
  text: string;
  /** Absent for a `$$$X` that took no nodes. */
  range?: WireRange;
  startByte?: number;
  endByte?: number;
  /** For `$$$X`: how many nodes it took. */
  count?: number;
}

export interface StructuralMatch {
  path: string;
  range: WireRange;
  /** [startByte, endByte) into the file's bytes. */
  startByte: number;
  endByte: number;
  text: string;
  /** The first line of the match, whole (for a quickfix list). */
  lineText: string;
  bindings: Record<string, StructuralBinding>;
}

export interface StructuralSearchResult {
  root: string;
  language: string;
  /** Which wrapper of the context ladder parsed the pattern: statement, expression, member, top level or type. */
  patternContext: string | null;
  /** The pattern's bound metavariables, in order. */
  variables: string[];
  matches: StructuralMatch[];
  files: number;
  /** More matches than `maxResults`, or files left unsearched after the cut. */
  truncated: boolean;
  /** When truncated, for a page (`paged`, or `after` given): the cursor to pass back as `after` for the matches after these. */
  next?: ResultCursor;
  /** Files that could not be searched (unreadable, parse timed out), with why. */
  errors: { path: string; message: string }[];
  /**
   * plan: the literals a file must contain (the regex-index prefilter); candidates: files of the
   * language that passed it; parsed: files actually parsed; reused: files matched on a syntax tree
   * a worker kept from an earlier search (not parsed again).
   */
  stats: { plan: string; fromIndex: boolean; candidates: number; parsed: number; reused: number; elapsedMs: number };
}

export interface StructuralChange {
  path: string;
  range: WireRange;
  startByte: number;
  endByte: number;
  before: string;
  after: string;
}

export interface StructuralRewriteResult {
  root: string;
  /** Pass to fathom/applyRewrite; null when nothing would change (nothing is staged). */
  token: string | null;
  /** When the plan expires (ISO 8601); null with no token. */
  expiresAt: string | null;
  language: string;
  /** Matches that change. */
  count: number;
  files: { path: string; count: number }[];
  changes: StructuralChange[];
  /** A unified diff of every file (`a/` and `b/` prefixes, workspace-relative paths). */
  diff: string;
  /** Files with matches that the plan leaves out, and why (unsaved editor changes, changed while staging, unreadable). */
  skipped: { path: string; reason: string }[];
  /** Matches nested in another rewritten match: only the outermost is rewritten. */
  overlapping: number;
  errors: { path: string; message: string }[];
  stats: { candidates: number; parsed: number; elapsedMs: number };
}

export interface ApplyRewriteResult {
  root: string;
  /** The files written, workspace-relative. */
  written: string[];
}

export interface DiscardRewriteResult {
  /** False when no plan had that token (applied, discarded or expired). */
  discarded: boolean;
}

/** An LSP Diagnostic (0-based line and UTF-16 character, as LSP has them), as the server gave it. */
export interface LspDiagnostic {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  /** 1 error, 2 warning, 3 information, 4 hint. */
  severity?: number;
  code?: number | string;
  source?: string;
  message: string;
}

export interface EditFileResult {
  root: string;
  path: string;
  applied: boolean;
  version: number;
  /** ok: newDiagnostics is what the edit introduced; timeout: the server gave no diagnostics in time (NOT a clean result); no-server / server-crashed: see reason. */
  status: 'ok' | 'timeout' | 'no-server' | 'server-crashed';
  reason?: string;
  server?: string;
  /** A crash of the server since the last answer (it was restarted). */
  crash?: string;
  /** The workspace is not trusted: what of the repository's own code was not run for this answer (see fathom/trust). */
  notice?: string;
  /** Per file (workspace-relative; the edited file and files that depend on it), the diagnostics not reported before on this ledger. */
  newDiagnostics: { path: string; diagnostics: LspDiagnostic[] }[];
}
