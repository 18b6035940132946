// Reads one file and decides what it is: text (with its SHA-256), binary (a NUL byte in the first
// 8 KiB, as git and ripgrep judge), too large, gone or unreadable. Shared by the hash workers and by
// the incremental updates on the main thread, so both judge a file the same way.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { isVanished } from '../base/errors.js';

export const binarySniffBytes = 8192;

export type ContentVerdict =
  | { kind: 'text'; hash: string; size: number }
  | { kind: 'binary'; size: number }
  | { kind: 'tooLarge'; size: number }
  | { kind: 'vanished' }
  | { kind: 'unreadable' };

export function judgeContent(content: Buffer, maxFileBytes: number): ContentVerdict {
  if (content.length > maxFileBytes) return { kind: 'tooLarge', size: content.length };
  const sniff = content.length > binarySniffBytes ? content.subarray(0, binarySniffBytes) : content;
  if (sniff.indexOf(0) !== -1) return { kind: 'binary', size: content.length };
  return { kind: 'text', hash: createHash('sha256').update(content).digest('hex'), size: content.length };
}

/**
 * Reads the first 8 KiB, and the rest only if they hold no NUL: a binary file costs one small read.
 * Used by the hash workers.
 */
export function readAndJudgeSync(absolutePath: string, maxFileBytes: number): ContentVerdict {
  let handle: number | undefined;
  try {
    handle = fs.openSync(absolutePath, 'r');
    const size = fs.fstatSync(handle).size;
    if (size > maxFileBytes) return { kind: 'tooLarge', size };
    // One byte more than the size shows whether the file grew since the stat.
    const content = Buffer.allocUnsafe(size + 1);
    let length = fs.readSync(handle, content, 0, Math.min(binarySniffBytes, content.length), 0);
    if (content.subarray(0, length).indexOf(0) !== -1) return { kind: 'binary', size };
    for (let read = length; read > 0 && length < content.length; length += read) {
      read = fs.readSync(handle, content, length, content.length - length, length);
    }
    if (length > size) return judgeContent(fs.readFileSync(absolutePath), maxFileBytes);
    return judgeContent(content.subarray(0, length), maxFileBytes);
  } catch (error) {
    return failureVerdict(error);
  } finally {
    if (handle !== undefined) fs.closeSync(handle);
  }
}

export async function readAndJudge(absolutePath: string, maxFileBytes: number): Promise<ContentVerdict> {
  try {
    return judgeContent(await fs.promises.readFile(absolutePath), maxFileBytes);
  } catch (error) {
    return failureVerdict(error);
  }
}

function failureVerdict(error: unknown): ContentVerdict {
  // EISDIR: the path became a folder under us; as a file it is gone, and the watcher reports the folder.
  if (isVanished(error) || (error as NodeJS.ErrnoException).code === 'EISDIR') return { kind: 'vanished' };
  return { kind: 'unreadable' };
}
