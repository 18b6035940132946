// Answers too long to send inline: written to a file an agent can read piece by piece (the
// response carries its path and a summary). Files are 0600 in a 0700 folder under the cache and
// are removed an hour after they were written (checked whenever another one is written).
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { writeFileAtomically } from '../base/atomic-file.js';
import { makeCacheFolder } from '../base/cache-folder.js';
import { log } from '../base/logger.js';

const keepMs = 60 * 60 * 1000;

export const defaultMaxInlineBytes = 256 * 1024;

/** Writes `value` as JSON to a new file under `folder`; answers its path. */
export function writeResultFile(folder: string, prefix: string, value: unknown): string {
  makeCacheFolder(folder);
  removeOld(folder);
  const file = path.join(folder, `${prefix}-${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.json`);
  writeFileAtomically(file, JSON.stringify(value), 0o600);
  return file;
}

function removeOld(folder: string): void {
  const now = Date.now();
  for (const name of fs.readdirSync(folder)) {
    if (!name.endsWith('.json')) continue;
    const file = path.join(folder, name);
    try {
      if (now - fs.statSync(file).mtimeMs > keepMs) fs.unlinkSync(file);
    } catch (error) {
      log.debug(`result files: ${file}: ${(error as Error).message}`);
    }
  }
}
