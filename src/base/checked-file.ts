// The container every Fathom cache file uses, and the one way they are written. Layout (integers
// little-endian): bytes 0-7 an 8-byte ASCII magic naming the kind of file; 8-11 the format version
// (u32); 12-43 the SHA-256 of the payload; 44- the payload. Writes go to a temporary file that is
// fsynced and renamed over the old one, then the folder is fsynced: a crash leaves the old file or
// the new one, never a torn one. Reading checks magic, version and checksum, so a damaged, foreign
// or old file is reported, never trusted.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isVanished } from './errors.js';

const headerBytes = 8 + 4 + 32;

export type CheckedRead = { status: 'valid'; payload: Buffer } | { status: 'missing' } | { status: 'corrupt'; reason: string };

export function encodeChecked(magic: string, version: number, payload: Uint8Array): Buffer {
  const header = Buffer.alloc(headerBytes);
  header.write(magic, 0, 8, 'ascii');
  header.writeUInt32LE(version, 8);
  createHash('sha256').update(payload).digest().copy(header, 12);
  return Buffer.concat([header, payload]);
}

export function decodeChecked(bytes: Buffer, magic: string, version: number): CheckedRead {
  if (bytes.length < headerBytes || bytes.toString('ascii', 0, 8) !== magic) return { status: 'corrupt', reason: `not a Fathom ${magic} file` };
  const found = bytes.readUInt32LE(8);
  if (found !== version) return { status: 'corrupt', reason: `format version ${found}, expected ${version}` };
  const payload = bytes.subarray(headerBytes);
  if (!createHash('sha256').update(payload).digest().equals(bytes.subarray(12, headerBytes))) return { status: 'corrupt', reason: 'checksum mismatch' };
  return { status: 'valid', payload };
}

export function readChecked(file: string, magic: string, version: number): CheckedRead {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    if (isVanished(error)) return { status: 'missing' };
    return { status: 'corrupt', reason: `unreadable: ${(error as Error).message}` };
  }
  return decodeChecked(bytes, magic, version);
}

/** Writes `bytes` to `file` atomically: temp file, fsync, rename, fsync of the folder. */
export function writeFileAtomic(file: string, bytes: Uint8Array): void {
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
