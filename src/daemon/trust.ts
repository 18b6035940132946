// Which workspaces the user trusts to run their own code (VS Code's workspace trust): only there
// may Fathom start a language server or TypeScript the repository ships (its node_modules/.bin,
// node_modules/typescript) or let a server run the project's build scripts. Elsewhere it uses
// only the servers Fathom ships or the user configured, and says so. Remembered in the user's
// settings folder as `trusted.json` ({ "version": 1, "folders": [real paths] }, 0600, written
// atomically); a folder trusts everything below it. FATHOM_TRUST_ALL=1 trusts every workspace.
// A damaged file trusts nothing.
// Versions (the file's `version`, one line per bump):
//   1  the first
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../base/checked-file.js';
import { FathomError } from '../base/errors.js';
import { log } from '../base/logger.js';

const fileName = 'trusted.json';

export class TrustStore {
  private cached: { mtimeMs: number; size: number; folders: string[] } | undefined;

  constructor(
    /** The user's settings folder (config.ts `configDir`); none: nothing is trusted unless FATHOM_TRUST_ALL. */
    private readonly configDir: string | undefined,
    private readonly trustAll = process.env.FATHOM_TRUST_ALL === '1',
  ) {}

  private get file(): string | undefined {
    return this.configDir === undefined ? undefined : path.join(this.configDir, fileName);
  }

  /** The trusted folders, read again when the file changed (another daemon or `--no-daemon` wrote it). */
  folders(): string[] {
    const file = this.file;
    if (!file) return [];
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (!stat) return [];
    if (this.cached && this.cached.mtimeMs === stat.mtimeMs && this.cached.size === stat.size) return this.cached.folders;
    let folders: string[] = [];
    try {
      const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as { folders?: unknown };
      if (Array.isArray(parsed.folders)) folders = parsed.folders.filter((folder): folder is string => typeof folder === 'string' && path.isAbsolute(folder));
    } catch (error) {
      // A damaged file trusts nothing (the safe side); `fathom trust` writes a good one again.
      log.warn(`${file}: not readable as JSON (${(error as Error).message}); trusting no workspace`);
    }
    this.cached = { mtimeMs: stat.mtimeMs, size: stat.size, folders };
    return folders;
  }

  isTrusted(root: string): boolean {
    if (this.trustAll) return true;
    return this.folders().some((folder) => root === folder || root.startsWith(folder.endsWith('/') ? folder : `${folder}/`));
  }

  /** Trusts (or stops trusting) a folder, a real path; answers the folders trusted after. */
  set(folder: string, trusted: boolean): string[] {
    const file = this.file;
    if (!file) throw new FathomError('invalidParams', 'no settings folder to remember trust in (set FATHOM_CONFIG_DIR or XDG_CONFIG_HOME)');
    const before = this.folders();
    const after = trusted ? [...new Set([...before, folder])].sort() : before.filter((entry) => entry !== folder);
    writeFileAtomic(file, Buffer.from(`${JSON.stringify({ version: 1, folders: after }, null, 2)}\n`));
    this.cached = undefined;
    return after;
  }

  get trustsAll(): boolean {
    return this.trustAll;
  }
}
