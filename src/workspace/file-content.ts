// Inspects one regular file: stats it, and unless its (size, mtime, inode) match what is already
// known, reads it and decides what it is: text (with its SHA-256), binary (a NUL byte in the first
// 8 KiB, as git and ripgrep judge), a secret (a text holding a private key or a token:
// secret-content.ts; its hash is never taken), too large, no longer a regular file, gone,
// unreadable, or past what the system can name (ENAMETOOLONG). Files are read into the secret
// prefilter's memory, so it scans them where they lie.
// Shared by the hash workers (most files) and the main thread (single files the watcher reports), so
// both judge a file the same way. Opens with O_NOFOLLOW | O_NONBLOCK: a file swapped for a symbolic
// link or a FIFO after it was listed is reported, never followed or waited on.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { isVanished } from '../base/errors.js';
import { findSecret, secretScanArea, type SecretRule } from './secret-content.js';

export const binarySniffBytes = 8192;

/** (size, mtimeMs, ino) */
export type StatTuple = [number, number, number];

export interface FileCheck {
  path: string;
  /** What is known about this path: when the stat still matches, the file is not read. */
  known?: StatTuple;
  /** Read an unknown file (false: answer with its stat, so the caller can look it up by inode). */
  read: boolean;
}

export type FileOutcome =
  | { kind: 'same' }
  | { kind: 'stat'; stat: StatTuple }
  | { kind: 'text'; stat: StatTuple; hash: string }
  | { kind: 'binary'; stat: StatTuple }
  | { kind: 'secret'; stat: StatTuple; rule: SecretRule }
  | { kind: 'tooLarge'; stat: StatTuple }
  | { kind: 'notFile' }
  | { kind: 'vanished' }
  | { kind: 'pathTooLong' }
  | { kind: 'unreadable' };

const openFlags = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

function tuple(stat: fs.Stats): StatTuple {
  return [stat.size, stat.mtimeMs, stat.ino];
}

function failure(error: unknown): FileOutcome {
  const code = (error as NodeJS.ErrnoException).code;
  if (isVanished(error)) return { kind: 'vanished' };
  // ELOOP: it became a symbolic link; EISDIR: a folder. Either way the caller looks again.
  if (code === 'ELOOP' || code === 'EISDIR' || code === 'ENXIO') return { kind: 'notFile' };
  // ENAMETOOLONG: the path is longer than the system can name (PATH_MAX); it never becomes readable.
  if (code === 'ENAMETOOLONG') return { kind: 'pathTooLong' };
  // EACCES and anything else (EIO): unreadable; it is tried again at the next look.
  return { kind: 'unreadable' };
}

export function inspectFile(check: FileCheck, maxFileBytes: number, attempt = 0): FileOutcome {
  let handle: number | undefined;
  try {
    const stat = fs.lstatSync(check.path, { throwIfNoEntry: false });
    if (!stat) return { kind: 'vanished' };
    if (!stat.isFile()) return { kind: 'notFile' };
    const known = check.known;
    if (known && known[0] === stat.size && known[1] === stat.mtimeMs && known[2] === stat.ino) return { kind: 'same' };
    if (!known && !check.read) return { kind: 'stat', stat: tuple(stat) };
    if (stat.size > maxFileBytes) return { kind: 'tooLarge', stat: tuple(stat) };
    handle = fs.openSync(check.path, openFlags);
    const opened = fs.fstatSync(handle);
    if (!opened.isFile()) return { kind: 'notFile' };
    const key = tuple(opened);
    if (opened.size > maxFileBytes) return { kind: 'tooLarge', stat: key };
    // One byte more than the size shows whether the file grew since the fstat. The area is
    // reused by the next file: nothing here keeps it.
    const content = secretScanArea(opened.size + 1);
    let length = fs.readSync(handle, content, 0, Math.min(binarySniffBytes, content.length), 0);
    if (content.subarray(0, Math.min(length, binarySniffBytes)).indexOf(0) !== -1) return { kind: 'binary', stat: key };
    for (let read = length; read > 0 && length < content.length; length += read) {
      read = fs.readSync(handle, content, length, content.length - length, length);
    }
    if (length > opened.size) {
      // It grew while being read: look again, a couple of times; a file that never stops growing
      // is hashed as far as it was stat'ed, with an mtime that makes the next look read it again.
      if (attempt < 2) return inspectFile({ path: check.path, read: true }, maxFileBytes, attempt + 1);
      length = opened.size;
      key[1] = 0;
    }
    const text = content.subarray(0, length);
    if (text.subarray(0, binarySniffBytes).indexOf(0) !== -1) return { kind: 'binary', stat: key };
    const rule = findSecret(text);
    if (rule !== undefined) return { kind: 'secret', stat: key, rule };
    return { kind: 'text', stat: key, hash: createHash('sha256').update(text).digest('hex') };
  } catch (error) {
    return failure(error);
  } finally {
    if (handle !== undefined) fs.closeSync(handle);
  }
}

/** One byte a file: whether its lstat still matches what is known (anything else is looked at again, whole). */
export function statSame(paths: string, known: Float64Array): Uint8Array {
  const list = paths.split('\0');
  const same = new Uint8Array(list.length);
  list.forEach((file, index) => {
    let stat: fs.Stats | undefined;
    try {
      stat = fs.lstatSync(file, { throwIfNoEntry: false });
    } catch {
      return;
    }
    if (stat !== undefined && stat.isFile() && stat.size === known[3 * index] && stat.mtimeMs === known[3 * index + 1] && stat.ino === known[3 * index + 2])
      same[index] = 1;
  });
  return same;
}
