// Why a path under the root is not in the file set. The engine's own vocabulary; the wire mirrors it
// (src/protocol/methods.ts) and src/daemon/to-wire.ts converts.

export type SkipReason =
  | 'ignored'
  | 'secret'
  | 'binary'
  | 'tooLarge'
  | 'symlink'
  | 'symlinkOutside'
  | 'symlinkDir'
  | 'brokenSymlink'
  | 'nestedRepository'
  | 'special'
  | 'unreadable'
  | 'pathTooLong';

export type SkipCounts = Partial<Record<SkipReason, number>>;
