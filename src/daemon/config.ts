// The daemon's settings: defaults from the environment (FATHOM_* variables), which `fathom serve`
// flags override, and each workspace's cache folder. Where things live (the socket, the cache and
// settings folders) is base/places.ts, shared with the CLI's client path.
import path from 'node:path';
import { defaultCacheRoot, defaultConfigDir } from '../base/places.js';

/**
 * A daemon lives for days: `fathom serve` lets its heap grow to twice what the last full
 * collection kept (V8's factor for memory-constrained devices) instead of up to four times (its
 * default on a machine with several GiB). On Django under hostile clients for 20 s the daemon
 * peaked at 574 MB with it against 633-730 MB without, the build as fast (bench/RESULTS.md, "A
 * daemon's memory after a build").
 */
export const daemonHeapGrowingPercent = 100;

export interface DaemonConfig {
  /** Where the file-set caches live (one folder per workspace below it). */
  cacheRoot: string;
  /** Files larger than this are skipped as tooLarge. */
  maxFileBytes: number;
  /** Period of the reconciliation stat walk, in milliseconds (0: never). */
  reconcileIntervalMs: number;
  /** A language server unused this long is stopped (0: never). */
  serverIdleMs?: number;
  /** Extra or changed language servers (JSON, see README): $FATHOM_SERVERS or $XDG_CONFIG_HOME/fathom/servers.json. */
  serversFile?: string;
  /** How often a workspace's semantic index syncs the changes it gathered (ms; 0: only on demand). */
  semanticSyncMs?: number;
  /** The user's settings folder ($FATHOM_CONFIG_DIR or $XDG_CONFIG_HOME/fathom): the mask key lives here. */
  configDir?: string;
  /** Syntax trees each structural worker keeps between searches, in estimated MiB (0: none). */
  treeCacheMb?: number;
  /** Flat syntax trees kept on disk (`<cacheRoot>/trees`), in MiB (0: none). */
  treeStoreMb?: number;
  /**
   * A client's message (one frame's body) larger than this is refused unread (docs/protocol.md,
   * "Errors"): $FATHOM_MAX_FRAME_BYTES or `fathom serve --max-frame-bytes`.
   */
  maxFrameBytes?: number;
}

/**
 * 64 MiB: the largest legitimate messages carry a whole buffer's text (didOpen, a full didChange,
 * writeFile, editFile) as JSON, up to twice its size for text full of quotes and backslashes;
 * editors sync buffers of tens of MB at most (VS Code stops syncing at 50 MB), so a 30 MB file
 * written as JSON still fits, and three clients at the limit cost a few hundred MB at worst.
 */
export const defaultMaxFrameBytes = 64 * 1024 * 1024;

function positiveNumber(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const number = Number(value);
  return Number.isFinite(number) && number >= 0 ? number : undefined;
}

export function defaultConfig(): DaemonConfig {
  return {
    configDir: defaultConfigDir(),
    cacheRoot: defaultCacheRoot(),
    maxFileBytes: positiveNumber(process.env.FATHOM_MAX_FILE_BYTES) ?? 1024 * 1024,
    reconcileIntervalMs: (positiveNumber(process.env.FATHOM_RECONCILE_SECONDS) ?? 300) * 1000,
    semanticSyncMs: (positiveNumber(process.env.FATHOM_SEMANTIC_SYNC_SECONDS) ?? 2) * 1000,
    serverIdleMs: (positiveNumber(process.env.FATHOM_SERVER_IDLE_SECONDS) ?? 600) * 1000,
    serversFile: process.env.FATHOM_SERVERS ? path.resolve(process.env.FATHOM_SERVERS) : path.join(defaultConfigDir(), 'servers.json'),
    treeCacheMb: positiveNumber(process.env.FATHOM_TREE_CACHE_MB) ?? 96,
    treeStoreMb: positiveNumber(process.env.FATHOM_TREE_STORE_MB) ?? 2048,
    // 0 or nonsense: the default (there is no unlimited).
    maxFrameBytes: positiveNumber(process.env.FATHOM_MAX_FRAME_BYTES) || defaultMaxFrameBytes,
  };
}
