// Typed errors to the wire, in one place: a FathomError's kind picks its JSON-RPC code, a file
// system error is the params' fault (a missing path) or the machine's (permissions, a full disk),
// anything else is a bug, logged with its stack and answered as an internal error. Light on
// purpose: the daemon answers with it before its engines are loaded (loading.ts).
import { ResponseError } from 'vscode-jsonrpc/node';
import { FathomError, errorMessage, type FathomErrorKind } from '../base/errors.js';
import { log } from '../base/logger.js';
import { ErrorCodes, type ErrorCode } from '../protocol/errors.js';

const codes: Record<FathomErrorKind, ErrorCode> = {
  invalidParams: ErrorCodes.InvalidParams,
  workspaceNotFound: ErrorCodes.WorkspaceNotFound,
  pathOutsideWorkspace: ErrorCodes.PathOutsideWorkspace,
  cancelled: ErrorCodes.RequestCancelled,
  io: ErrorCodes.IoError,
  shuttingDown: ErrorCodes.ShuttingDown,
  conflict: ErrorCodes.Conflict,
  teamStore: ErrorCodes.TeamStore,
  internal: ErrorCodes.InternalError,
};

/** File-system errors a request's paths cause (a missing or unnameable file): the params' fault, not a bug. */
const pathErrors = new Set(['ENOENT', 'ENOTDIR', 'ENAMETOOLONG', 'EISDIR', 'ELOOP']);
/** File-system errors of the machine (permissions, a full or read-only disk): I/O, not a bug. */
const ioErrors = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'EEXIST', 'EBUSY', 'EMFILE', 'ENFILE', 'EIO', 'EXDEV']);

export function toResponseError(method: string, error: unknown): ResponseError<unknown> {
  if (error instanceof ResponseError) return error;
  if (error instanceof FathomError) return new ResponseError(codes[error.kind], error.message, error.data);
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string' && pathErrors.has(code))
    return new ResponseError(codes.invalidParams, `${method}: ${errorMessage(error)}`, {
      code,
      ...((error as NodeJS.ErrnoException).path ? { path: (error as NodeJS.ErrnoException).path } : {}),
    });
  if (typeof code === 'string' && ioErrors.has(code)) return new ResponseError(codes.io, `${method}: ${errorMessage(error)}`, { code });
  log.error(`${method} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return new ResponseError(ErrorCodes.InternalError, `${method} failed: ${errorMessage(error)}`);
}
