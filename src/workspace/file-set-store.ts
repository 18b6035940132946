// Persists a workspace's file set (the Merkle tree's files with their stat, and the skipped paths
// with theirs) in the cache folder, so a restart rehashes only what changed.
//
// File: `fileset.bin` in the workspace's cache folder, in base/checked-file.ts's container (magic
// "FTHMFSET", version `fileSetFormatVersion`, SHA-256 of the payload; written atomically). Payload:
// msgpack of FileSetSnapshot, { root, savedAt, files: [path, size, mtimeMs, ino, sha256 hex][],
// skipped: [path, reason, size, mtimeMs, ino][], ignoredEntries }. Wrong magic, another version,
// a checksum mismatch or another root: the file set is scanned again (logged).
// Versions (one line per bump):
//   1  the first format
//   2  secrets also found by content (secret-content.ts): a file a version 1 cache lists may
//      hold a key, so a version 1 set is scanned again
import { Packr } from 'msgpackr';
import { decodeChecked, encodeChecked, readChecked, writeFileAtomic, type CheckedRead } from '../base/checked-file.js';
import type { SkipReason } from './skip-reason.js';
import { releaseUnpackSource } from '../base/unpack-source.js';

export const fileSetFormatVersion = 2;
const magic = 'FTHMFSET';
const packr = new Packr({ useRecords: false, mapsAsObjects: true });

/** [path, size, mtimeMs, ino, hash] */
export type StoredFile = [string, number, number, number, string];
/** [path, reason, size, mtimeMs, ino] */
export type StoredSkip = [string, SkipReason, number, number, number];

export interface FileSetSnapshot {
  root: string;
  savedAt: number;
  files: StoredFile[];
  skipped: StoredSkip[];
  ignoredEntries: number;
}

export type LoadResult = { status: 'valid'; snapshot: FileSetSnapshot } | { status: 'missing' } | { status: 'corrupt'; reason: string };

export function encodeFileSet(snapshot: FileSetSnapshot): Buffer {
  return encodeChecked(magic, fileSetFormatVersion, packr.pack(snapshot));
}

function unpack(read: CheckedRead): LoadResult {
  if (read.status !== 'valid') return read;
  try {
    const snapshot = packr.unpack(read.payload) as FileSetSnapshot;
    if (!Array.isArray(snapshot?.files) || !Array.isArray(snapshot.skipped)) return { status: 'corrupt', reason: 'payload has the wrong shape' };
    return { status: 'valid', snapshot };
  } catch (error) {
    return { status: 'corrupt', reason: `payload does not decode: ${(error as Error).message}` };
  } finally {
    releaseUnpackSource();
  }
}

export function decodeFileSet(bytes: Buffer): LoadResult {
  return unpack(decodeChecked(bytes, magic, fileSetFormatVersion));
}

export function loadFileSet(file: string): LoadResult {
  return unpack(readChecked(file, magic, fileSetFormatVersion));
}

export function saveFileSet(file: string, snapshot: FileSetSnapshot): void {
  writeFileAtomic(file, encodeFileSet(snapshot));
}
