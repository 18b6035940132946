// JSON-RPC error codes Fathom answers with. The standard and LSP codes keep their meaning; Fathom's
// own codes live in -32010..-32019, clear of the JSON-RPC reserved values LSP already uses.

export const ErrorCodes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  RequestCancelled: -32800,
  WorkspaceNotFound: -32010,
  PathOutsideWorkspace: -32011,
  IoError: -32012,
  ShuttingDown: -32013,
  /** A staged rewrite no longer matches the files (edited, formatted, rewritten since): nothing was written. */
  Conflict: -32014,
  /** The team store is unreachable, too slow, speaks another schema version, or refused the request: nothing local changed. */
  TeamStore: -32015,
} as const;

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];
