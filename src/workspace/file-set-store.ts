// Persists a workspace's file set (the Merkle tree's files with their stat, and the skipped paths
// with theirs) in the cache folder, so a restart rehashes only what changed.
//
// On-disk format (all integers little-endian):
//   bytes 0-7   magic "FTHMFSET"
//   bytes 8-11  format version (u32)
//   bytes 12-43 SHA-256 of the payload
//   bytes 44-   payload: msgpack of FileSetSnapshot
// Versions: 1 = first format.
// Writes go to a temporary file that is fsynced and renamed over the old one, then the folder is
// fsynced: a crash leaves the old file or the new one, never a torn one. A file with the wrong magic,
// an unknown version or a checksum mismatch is reported as corrupt and rebuilt by the caller.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Packr } from 'msgpackr';
import { isVanished } from '../base/errors.js';
import type { SkipReason } from './skip-reason.js';

export const fileSetFormatVersion = 1;
const magic = Buffer.from('FTHMFSET', 'ascii');
const headerBytes = 8 + 4 + 32;
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

export type LoadResult =
  | { status: 'valid'; snapshot: FileSetSnapshot }
  | { status: 'missing' }
  | { status: 'corrupt'; reason: string };

export function encodeFileSet(snapshot: FileSetSnapshot): Buffer {
  const payload = packr.pack(snapshot);
  const header = Buffer.alloc(headerBytes);
  magic.copy(header, 0);
  header.writeUInt32LE(fileSetFormatVersion, 8);
  createHash('sha256').update(payload).digest().copy(header, 12);
  return Buffer.concat([header, payload]);
}

export function decodeFileSet(bytes: Buffer): LoadResult {
  if (bytes.length < headerBytes || !bytes.subarray(0, 8).equals(magic)) return { status: 'corrupt', reason: 'not a Fathom file-set file' };
  const version = bytes.readUInt32LE(8);
  if (version !== fileSetFormatVersion) return { status: 'corrupt', reason: `format version ${version}, expected ${fileSetFormatVersion}` };
  const payload = bytes.subarray(headerBytes);
  if (!createHash('sha256').update(payload).digest().equals(bytes.subarray(12, headerBytes))) return { status: 'corrupt', reason: 'checksum mismatch' };
  try {
    const snapshot = packr.unpack(payload) as FileSetSnapshot;
    if (!Array.isArray(snapshot?.files) || !Array.isArray(snapshot.skipped)) return { status: 'corrupt', reason: 'payload has the wrong shape' };
    return { status: 'valid', snapshot };
  } catch (error) {
    return { status: 'corrupt', reason: `payload does not decode: ${(error as Error).message}` };
  }
}

export function loadFileSet(file: string): LoadResult {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    if (isVanished(error)) return { status: 'missing' };
    return { status: 'corrupt', reason: `unreadable: ${(error as Error).message}` };
  }
  return decodeFileSet(bytes);
}

/** Writes `bytes` to `file` atomically: temp file, fsync, rename, fsync of the folder. */
export function writeFileAtomic(file: string, bytes: Buffer): void {
  const folder = path.dirname(file);
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  const handle = fs.openSync(temporary, 'w', 0o600);
  try {
    fs.writeSync(handle, bytes);
    fs.fsyncSync(handle);
  } finally {
    fs.closeSync(handle);
  }
  fs.renameSync(temporary, file);
  const folderHandle = fs.openSync(folder, 'r');
  try {
    fs.fsyncSync(folderHandle);
  } finally {
    fs.closeSync(folderHandle);
  }
}

export function saveFileSet(file: string, snapshot: FileSetSnapshot): void {
  writeFileAtomic(file, encodeFileSet(snapshot));
}
