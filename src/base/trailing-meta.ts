// The 64-byte header of a Fathom file whose meta (msgpack, its tables) is written last, after the
// bulk it describes (the regex index's postings, the chunk ranking's term blocks):
//   0-7 magic (8 ASCII bytes), 8-11 format version (u32 LE), 12-15 zero, 16-23 the meta's offset
//   (f64 LE), 24-31 its length (f64 LE), 32-63 its SHA-256.
// The meta ends the file: a file cut short or grown loses the meta's place and is refused, as is a
// meta whose bytes fail the hash. The writer writes the header last (after the bulk and the meta),
// so a torn write never names a meta that is not there.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { readExactly, readExactlyAsync } from './positioned-io.js';

export const trailingMetaHeaderBytes = 64;

/** The header naming `meta`, written at `metaOffset`. */
export function trailingMetaHeader(magic: string, version: number, metaOffset: number, meta: Uint8Array): Buffer {
  const header = Buffer.alloc(trailingMetaHeaderBytes);
  header.write(magic, 0, 8, 'ascii');
  header.writeUInt32LE(version, 8);
  header.writeDoubleLE(metaOffset, 16);
  header.writeDoubleLE(meta.length, 24);
  createHash('sha256').update(meta).digest().copy(header, 32);
  return header;
}

export type TrailingMetaRead = { meta: Buffer; metaOffset: number; size: number } | { reason: string };

/** Where the header says the meta lies, once magic, version and place check; else why not. */
function placeOf(
  fd: number,
  magic: string,
  version: number,
  what: string,
): { header: Buffer; metaOffset: number; metaLength: number; size: number } | { reason: string } {
  const size = fs.fstatSync(fd).size;
  if (size < trailingMetaHeaderBytes) return { reason: 'shorter than its header' };
  const header = readExactly(fd, trailingMetaHeaderBytes, 0);
  if (header.toString('ascii', 0, 8) !== magic) return { reason: `not a Fathom ${what}` };
  const found = header.readUInt32LE(8);
  if (found !== version) return { reason: `format version ${found}, expected ${version}` };
  const metaOffset = header.readDoubleLE(16);
  const metaLength = header.readDoubleLE(24);
  if (
    !Number.isSafeInteger(metaOffset) ||
    !Number.isSafeInteger(metaLength) ||
    metaLength <= 0 ||
    metaOffset < trailingMetaHeaderBytes ||
    metaOffset + metaLength !== size
  )
    return { reason: 'the meta is not where the header says (truncated or extended?)' };
  return { header, metaOffset, metaLength, size };
}

/** The meta's bytes and where they start, once magic, version, place and hash check; else why not. */
export function readTrailingMeta(fd: number, magic: string, version: number, what: string): TrailingMetaRead {
  const place = placeOf(fd, magic, version, what);
  if ('reason' in place) return place;
  const { header, metaOffset, metaLength, size } = place;
  const meta = readExactly(fd, metaLength, metaOffset);
  if (!createHash('sha256').update(meta).digest().equals(header.subarray(32, 64))) return { reason: 'the meta fails its checksum' };
  return { meta, metaOffset, size };
}

/**
 * readTrailingMeta with the meta's read off this thread (libuv's pool: the page faults of a fresh
 * 25 MB buffer and the copy are most of a sync read's cost): a restarted daemon reads a large meta
 * while its thread checks the file set.
 */
export async function readTrailingMetaAsync(fd: number, magic: string, version: number, what: string): Promise<TrailingMetaRead> {
  const place = placeOf(fd, magic, version, what);
  if ('reason' in place) return place;
  const { header, metaOffset, metaLength, size } = place;
  const meta = Buffer.allocUnsafe(metaLength);
  try {
    await readExactlyAsync(fd, meta, metaOffset);
  } catch (error) {
    return { reason: (error as Error).message };
  }
  // Hashed here: once the pages are in, SHA-256 of 25 MB is ~20 ms, where WebCrypto's digest copies
  // the input on this thread first (~120 ms of it, measured).
  if (!createHash('sha256').update(meta).digest().equals(header.subarray(32, 64))) return { reason: 'the meta fails its checksum' };
  return { meta, metaOffset, size };
}
