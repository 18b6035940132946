// The wire contract of Fathom's own methods: names, parameter and result shapes. Documented with
// examples in docs/protocol.md; keep both in step. Imports nothing of ours.

export const Methods = {
  status: 'fathom/status',
  index: 'fathom/index',
  files: 'fathom/files',
  merkle: 'fathom/merkle',
  grep: 'fathom/grep',
  chunks: 'fathom/chunks',
  symbols: 'fathom/symbols',
  outline: 'fathom/outline',
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
  | 'unreadable'; // permission denied

export interface StatusParams {
  /** A workspace root (path or file:// URI). Absent: every open workspace. */
  root?: string;
}

export interface WorkspaceStatus {
  root: string;
  /** absent: never opened; scanning: first build running; ready: serving; failed: see `error`. */
  state: 'absent' | 'scanning' | 'ready' | 'failed';
  git: boolean;
  files: number;
  bytes: number;
  skipped: Partial<Record<SkipReason, number>>;
  merkleRoot: string | null;
  indexes: Record<string, 'absent' | 'building' | 'ready' | 'failed'>;
  watcher: { state: 'watching' | 'degraded' | 'off'; folders: number; problem?: string };
  lag: { pendingChanges: number; oldestPendingMs: number; lastChangeAppliedAt: string | null };
  lastScan: { kind: 'build' | 'restart' | 'reconcile'; at: string; durationMs: number; hashed: number; reused: number; repaired: number } | null;
  cache: { path: string; loaded: 'none' | 'valid' | 'rebuilt' };
  error?: string;
}

export interface StatusResult {
  daemon: { pid: number; version: string; uptimeSeconds: number; clients: number; buffers: number; socket: string | null };
  workspaces: WorkspaceStatus[];
}

export interface IndexParams {
  root: string;
  /** Wait until the workspace is ready (default true); false answers at once with the current status. */
  wait?: boolean;
  /** LSP work-done token: when given, `$/progress` begin/report/end notifications carry it. */
  workDoneToken?: ProgressToken;
}

export interface FilesParams {
  root: string;
  /** picomatch glob(s) over workspace-relative paths; a file matching any is listed. */
  glob?: string | string[];
  /** At most this many paths (default: all). */
  limit?: number;
  workDoneToken?: ProgressToken;
}

export interface FilesResult {
  root: string;
  total: number;
  truncated: boolean;
  files: string[];
}

export interface MerkleParams {
  root: string;
  /** A workspace-relative path (default: the root). */
  path?: string;
  workDoneToken?: ProgressToken;
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

export interface GrepParams {
  root: string;
  /** A JavaScript (u-mode) regular expression, or a literal with fixedStrings. */
  pattern: string;
  /** rg -F */
  fixedStrings?: boolean;
  /** rg -i */
  ignoreCase?: boolean;
  /** rg -w */
  wordRegexp?: boolean;
  /** rg -U: a match may span lines. */
  multiline?: boolean;
  /** rg -g: globs over workspace-relative paths; one without a slash matches the name in any folder. */
  glob?: string | string[];
  /** At most this many matching lines (default 10,000). */
  maxResults?: number;
  /** Only files of these languages: ids of grammars/manifest.json ("python", "cpp"), names ("C++") or extensions ("py"). */
  languages?: string[];
  /** Context lines around each match: `context` sets both sides (rg -C), `beforeContext` (-B) and `afterContext` (-A) override it. At most 1,000. */
  context?: number;
  beforeContext?: number;
  afterContext?: number;
  workDoneToken?: ProgressToken;
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
  /** Files with at least one match. */
  files: number;
  truncated: boolean;
  /** Files given up because the regex ran past the per-file time limit (2 s) there: the result is partial. */
  timedOut: string[];
  stats: { plan: string; candidates: number; searched: number; fromIndex: boolean; elapsedMs: number };
}

export interface ChunksParams {
  /** A file: absolute path, file:// URI, or a path relative to `root`. */
  path: string;
  /** The workspace; defaults to the open workspace that contains `path`. */
  root?: string;
  /** Most bytes per chunk (default 1,500; 64 to 1,000,000). */
  budgetBytes?: number;
  /** Include each chunk's source text (default true). */
  includeText?: boolean;
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

export interface SymbolsParams {
  root: string;
  /** Fuzzy name: exact, prefix, word initials (`gU` for getUser), substring, subsequence; empty lists all. */
  query: string;
  /** Only these kinds (function, method, class, interface, type, module, constant, macro, …). */
  kinds?: string[];
  /** rg -g globs over workspace-relative paths. */
  glob?: string | string[];
  /** At most this many (default 100, at most 10,000). */
  limit?: number;
  workDoneToken?: ProgressToken;
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
  symbols: WireSymbol[];
  truncated: boolean;
}

export interface OutlineParams {
  /** A file: absolute path, file:// URI, or relative to `root`. */
  path: string;
  root?: string;
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

/** The value of a `$/progress` notification (LSP WorkDoneProgress). */
export type ProgressValue =
  | { kind: 'begin'; title: string; cancellable: boolean; message?: string; percentage?: number }
  | { kind: 'report'; message?: string; percentage?: number }
  | { kind: 'end'; message?: string };
