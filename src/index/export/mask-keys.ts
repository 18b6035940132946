// The keys paths are masked with: the user's own secret (32 random bytes, created on first use in
// the config folder, 0600 in a 0700 folder) or a team key read from a file the team shares (at
// least 16 bytes; refused when others than its owner may read it, since whoever holds the key can
// unmask by guessing paths).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { FathomError } from '../../base/errors.js';

/** The user's key: read, or created (atomically: a concurrent creator's key wins and is read back). */
export function userMaskKey(configDir: string): Buffer {
  const file = path.join(configDir, 'mask.key');
  try {
    return readMaskKey(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  fs.mkdirSync(configDir, { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  try {
    fs.linkSync(temporary, file); // fails when another process made one meanwhile
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    fs.rmSync(temporary, { force: true });
  }
  return readMaskKey(file);
}

/** A key file: hex (64+ digits, as Fathom writes them) or raw bytes; must not be readable by others. */
export function readMaskKey(file: string): Buffer {
  const stat = fs.statSync(file);
  if ((stat.mode & 0o077) !== 0)
    throw new FathomError('invalidParams', `mask key ${file} may be read by others (mode ${(stat.mode & 0o777).toString(8)}); chmod 600 it`, { path: file });
  const bytes = fs.readFileSync(file);
  const text = bytes.toString('utf8').trim();
  const key = /^[0-9a-fA-F]{32,}$/.test(text) && text.length % 2 === 0 ? Buffer.from(text, 'hex') : bytes;
  if (key.length < 16) throw new FathomError('invalidParams', `mask key ${file} is too short (${key.length} bytes; at least 16)`, { path: file });
  return key;
}
