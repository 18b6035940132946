// Opens engine-level workspaces on fixture folders with a private cache folder, and compares a live
// workspace with a fresh scan of the same disk.
import assert from 'node:assert/strict';
import path from 'node:path';
import { HashPool } from '../../src/workspace/hash-pool.js';
import { Workspace, type WorkspaceOptions } from '../../src/workspace/workspace.js';
import { sleep, tempDir } from './fixture.js';

export const pool = new HashPool(2);

export function openWorkspace(root: string, options: Partial<WorkspaceOptions> = {}): Workspace {
  return new Workspace({
    root,
    cacheDir: options.cacheDir ?? path.join(tempDir('fathom-cache-'), 'ws'),
    maxFileBytes: options.maxFileBytes ?? 1024 * 1024,
    reconcileIntervalMs: options.reconcileIntervalMs ?? 0,
    pool,
    saveDelayMs: options.saveDelayMs ?? 50,
  });
}

export async function readyWorkspace(root: string, options: Partial<WorkspaceOptions> = {}): Promise<Workspace> {
  const workspace = openWorkspace(root, options);
  await workspace.whenReady();
  return workspace;
}

/** Every file with its hash, from the Merkle tree. */
export function fileHashes(workspace: Workspace): Map<string, string> {
  const result = new Map<string, string>();
  for (const file of workspace.files()) result.set(file, workspace.merkleAt(file).hash!);
  return result;
}

/** Waits until the watcher has been quiet for `quietMs` and every reported change is applied. */
export async function quiesce(workspace: Workspace, quietMs = 150): Promise<void> {
  let last = workspace.status().lag.lastChangeAppliedAt;
  let quietSince = Date.now();
  for (;;) {
    await sleep(25);
    await workspace.settle();
    const now = workspace.status().lag.lastChangeAppliedAt;
    if (now !== last) {
      last = now;
      quietSince = Date.now();
    } else if (Date.now() - quietSince >= quietMs) return;
  }
}

/** Asserts that a live workspace holds exactly what a fresh scan of the disk finds. */
export async function assertMatchesFreshScan(workspace: Workspace, message?: string): Promise<void> {
  const fresh = await readyWorkspace(workspace.root);
  try {
    assert.deepEqual(fileHashes(workspace), fileHashes(fresh), message);
    assert.equal(workspace.rootHash(), fresh.rootHash(), message);
    // Ignored entries are counted by full scans only; every other skip reason must agree.
    const { ignored: _liveIgnored, ...live } = workspace.status().skipped;
    const { ignored: _freshIgnored, ...expected } = fresh.status().skipped;
    assert.deepEqual(live, expected, message);
  } finally {
    await fresh.close();
  }
}
