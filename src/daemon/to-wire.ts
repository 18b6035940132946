// The one place that converts between engine values and wire values: engine errors to JSON-RPC
// ResponseErrors, engine status to the protocol's WorkspaceStatus.
import { ResponseError } from 'vscode-jsonrpc/node';
import { FathomError, errorMessage, type FathomErrorKind } from '../base/errors.js';
import { log } from '../base/logger.js';
import { ErrorCodes, type ErrorCode } from '../protocol/errors.js';
import type { GrepResult as LexicalGrepResult } from '../index/lexical/lexical-index.js';
import type { ChunksResult, GrepResult, MerkleResult, WireChunk, WorkspaceStatus } from '../protocol/methods.js';
import type { Chunk } from '../index/syntax/chunk.js';
import type { ChunksAnswer } from './workspaces.js';
import type { MerkleView, WorkspaceStatusInfo } from '../workspace/workspace.js';

const codes: Record<FathomErrorKind, ErrorCode> = {
  invalidParams: ErrorCodes.InvalidParams,
  workspaceNotFound: ErrorCodes.WorkspaceNotFound,
  pathOutsideWorkspace: ErrorCodes.PathOutsideWorkspace,
  cancelled: ErrorCodes.RequestCancelled,
  io: ErrorCodes.IoError,
  shuttingDown: ErrorCodes.ShuttingDown,
  internal: ErrorCodes.InternalError,
};

export function toResponseError(method: string, error: unknown): ResponseError<unknown> {
  if (error instanceof ResponseError) return error;
  if (error instanceof FathomError) return new ResponseError(codes[error.kind], error.message, error.data);
  log.error(`${method} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return new ResponseError(ErrorCodes.InternalError, `${method} failed: ${errorMessage(error)}`);
}

export function toWireStatus(status: WorkspaceStatusInfo, indexes: Record<string, string> = {}): WorkspaceStatus {
  return {
    root: status.root,
    state: status.state,
    git: status.git,
    files: status.files,
    bytes: status.bytes,
    skipped: status.skipped,
    merkleRoot: status.merkleRoot,
    indexes: {
      fileSet: status.state === 'ready' ? 'ready' : status.state === 'failed' ? 'failed' : 'building',
      merkle: status.merkleRoot ? 'ready' : 'absent',
      ...(indexes as Record<string, 'absent' | 'building' | 'ready' | 'failed'>),
    },
    watcher: status.watcher,
    lag: status.lag,
    lastScan: status.lastScan,
    cache: status.cache,
    ...(status.error ? { error: status.error } : {}),
  };
}

export function absentStatus(root: string): WorkspaceStatus {
  return {
    root,
    state: 'absent',
    git: false,
    files: 0,
    bytes: 0,
    skipped: {},
    merkleRoot: null,
    indexes: { fileSet: 'absent', merkle: 'absent', lexical: 'absent' },
    watcher: { state: 'off', folders: 0 },
    lag: { pendingChanges: 0, oldestPendingMs: 0, lastChangeAppliedAt: null },
    lastScan: null,
    cache: { path: '', loaded: 'none' },
  };
}

export function toWireGrep(root: string, result: LexicalGrepResult): GrepResult {
  return { root, matches: result.matches, files: result.files, truncated: result.truncated, timedOut: result.timedOut, stats: result.stats };
}

export function toWireMerkle(root: string, rootHash: string, view: MerkleView): MerkleResult {
  return { root, rootHash, ...view };
}

function toWireChunk(chunk: Chunk, includeText: boolean): WireChunk {
  return {
    startByte: chunk.startByte,
    endByte: chunk.endByte,
    start: { line: chunk.start.line + 1, column: chunk.start.character + 1 },
    end: { line: chunk.end.line + 1, column: chunk.end.character + 1 },
    method: chunk.method,
    parseError: chunk.parseError,
    oversized: chunk.oversized,
    scope: chunk.scope,
    entities: chunk.entities,
    header: chunk.header,
    ...(includeText ? { text: chunk.text } : {}),
  };
}

export function toWireChunks(root: string, answer: ChunksAnswer, options: { includeText: boolean }): ChunksResult {
  const file = answer.chunks;
  return {
    root,
    path: file.path,
    source: answer.source,
    ...(answer.version === undefined ? {} : { version: answer.version }),
    language: file.language ?? null,
    languageName: file.languageName ?? null,
    byteLength: file.byteLength,
    parseErrors: file.parseErrors,
    problems: file.problems,
    chunks: file.chunks.map((chunk) => toWireChunk(chunk, options.includeText)),
  };
}
