// Typed errors that engines throw or report. Owns the error kinds; the daemon maps each kind to a
// JSON-RPC error code in one place (src/daemon/to-wire.ts). Imports nothing of ours.

export type FathomErrorKind =
  | 'invalidParams' // a request's parameters are missing or of the wrong type
  | 'workspaceNotFound' // a root that does not exist, is not a folder, or cannot be read
  | 'pathOutsideWorkspace' // a path that resolves outside the workspace root
  | 'cancelled' // the caller cancelled the work
  | 'io' // a file-system error the engine could not work around
  | 'shuttingDown' // the daemon is stopping and takes no new work
  | 'conflict' // the files changed under a staged change (a rewrite plan): nothing was written
  | 'teamStore' // the team store is unreachable, too slow, speaks another schema version, or refused the request
  | 'internal'; // a bug: anything else

export class FathomError extends Error {
  readonly kind: FathomErrorKind;
  readonly data: unknown;

  constructor(kind: FathomErrorKind, message: string, data?: unknown) {
    super(message);
    this.name = 'FathomError';
    this.kind = kind;
    this.data = data;
  }
}

/** True for errors from the file system that mean "this path is gone" rather than a failure. */
export function isVanished(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** True for errors that mean "the system cannot name this path": over PATH_MAX, or a name over NAME_MAX (ENAMETOOLONG). */
export function isNameTooLong(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENAMETOOLONG';
}

/** True for errors that mean "this path exists but we may not read it". */
export function isPermissionDenied(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EACCES' || code === 'EPERM';
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
