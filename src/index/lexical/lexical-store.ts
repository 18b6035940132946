// Persists a workspace's regex index: the postings and, for every file it covers, the SHA-256 of
// the content that was indexed, so a restart keeps the index and searches fresh only the files
// whose hash differs now (the Merkle tree says which).
//
// File: base/checked-file.ts's container, magic "FTHMLEX1", payload msgpack of
// { root, files, hashes (32 bytes per file, concatenated), keys, offsets, counts (u32 little-endian
// arrays as bytes), postings }. Versions: 1 = first format.
import { Packr } from 'msgpackr';
import { bytesOf, typedCopy } from '../../base/typed-bytes.js';
import { encodeChecked, readChecked, writeFileAtomic } from '../../base/checked-file.js';
import { Postings } from './postings.js';

export const lexicalFormatVersion = 1;
const magic = 'FTHMLEX1';
const packr = new Packr({ useRecords: false, mapsAsObjects: true });

export interface LexicalSnapshot {
  root: string;
  files: string[];
  /** Hex SHA-256 of each file's indexed content. */
  hashes: string[];
  postings: Postings;
}

interface Stored {
  root: string;
  files: string[];
  hashes: Uint8Array;
  keys: Uint8Array;
  offsets: Uint8Array;
  counts: Uint8Array;
  postings: Uint8Array;
}

export function saveLexical(file: string, snapshot: LexicalSnapshot): void {
  const hashes = Buffer.alloc(snapshot.hashes.length * 32);
  snapshot.hashes.forEach((hash, index) => hashes.write(hash, index * 32, 32, 'hex'));
  const { keys, offsets, counts, bytes } = snapshot.postings;
  const stored: Stored = { root: snapshot.root, files: snapshot.files, hashes, keys: bytesOf(keys), offsets: bytesOf(offsets), counts: bytesOf(counts), postings: bytes };
  writeFileAtomic(file, encodeChecked(magic, lexicalFormatVersion, packr.pack(stored)));
}

export type LexicalLoad = { status: 'valid'; snapshot: LexicalSnapshot } | { status: 'missing' } | { status: 'corrupt'; reason: string };

export function loadLexical(file: string): LexicalLoad {
  const read = readChecked(file, magic, lexicalFormatVersion);
  if (read.status !== 'valid') return read;
  try {
    const stored = packr.unpack(read.payload) as Stored;
    const keys = typedCopy(stored.keys, Uint32Array);
    const offsets = typedCopy(stored.offsets, Uint32Array);
    const counts = typedCopy(stored.counts, Uint32Array);
    if (offsets.length !== keys.length + 1 || counts.length !== keys.length || stored.hashes.length !== stored.files.length * 32) {
      return { status: 'corrupt', reason: 'payload has the wrong shape' };
    }
    const hashes = stored.files.map((_, index) => Buffer.from(stored.hashes.subarray(index * 32, index * 32 + 32)).toString('hex'));
    const postings = new Postings(keys, offsets, counts, new Uint8Array(stored.postings));
    return { status: 'valid', snapshot: { root: stored.root, files: stored.files, hashes, postings } };
  } catch (error) {
    return { status: 'corrupt', reason: `payload does not decode: ${(error as Error).message}` };
  }
}
