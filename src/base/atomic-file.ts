// Writing a file atomically: the bytes go to a temporary file next to it (same folder, so the
// rename stays on one file system), which then replaces it; the file's mode is kept. A reader sees
// the old content or the new, never a part; a crash leaves at most a stray temporary file.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export function writeFileAtomically(file: string, bytes: Uint8Array | string, mode?: number): void {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.fathom-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  const keep = mode ?? fs.statSync(file, { throwIfNoEntry: false })?.mode ?? 0o644;
  try {
    // 'wx': a name planted in the folder beforehand (a symlink) is never followed.
    fs.writeFileSync(temp, bytes, { mode: keep & 0o7777, flag: 'wx' });
    fs.chmodSync(temp, keep & 0o7777);
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}
