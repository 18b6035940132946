// The regex index of one workspace on disk: two files in the workspace's cache folder.
//
// - `regex-content-<generation>.bin`: the indexed bytes of every file, concatenated in file-id
//   order (the content store). Verification reads candidate pieces from it with positioned reads
//   instead of opening thousands of files. No header: it is valid when its size is the one the
//   index records and each 4 KiB block its CRC-32 (content-check.ts, checked as it is first read);
//   it is never rewritten (a rebuild writes a new generation).
// - `regex-index.bin`: a 64-byte header (base/trailing-meta.ts: magic "FTHMRIX1", format version,
//   the meta's offset, length and SHA-256); from 64 the postings region (postings.ts); then the meta, msgpack of { root, generation, contentBytes,
//   files, hashes (32 bytes each), fileOffsets (f64, files + 1), fileFirstPiece (u32, files + 1),
//   pieceStarts (f64, pieces + 1), pieceLines (u32), keys, counts, offsets (f64), lengths, crcs,
//   blockBytes, blockCrcs (u32, one per block of the content store) }.
//
// The base generation lives in the cache folder, the delta in `delta/` below it (the same pair).
// On load, a file whose hash in the file set differs from the base's is answered by the delta when
// the delta's hash matches, else read fresh (regex-index.ts). The `lexical.bin` of earlier
// versions is removed by the first build.
//
// Format versions (`regexFormatVersion`, one line per bump; an index of another version is rebuilt):
//   1  the first
//   2  adds blockBytes and blockCrcs (the content store's block checksums)
//   3  the content store holds only bytes the file set vetted, so never a file's that holds a
//      secret (secret-content.ts; an older store may hold one)
//
// Writes: content first (fsynced), postings and meta into a temporary index file, header last,
// fsync, rename, fsync of the folder; then older generations' content files are removed. A crash
// leaves the previous pair (or none), never a torn one. Loads check magic, version, the meta's
// checksum and the content file's size; each posting list carries its own CRC-32 (postings.ts).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Packr } from 'msgpackr';
import { isVanished } from '../../base/errors.js';
import { BufferedWriter, readExactly, readExactlyInto, syncFolder, writeAll } from '../../base/positioned-io.js';
import {
  type TrailingMetaRead,
  readTrailingMeta,
  readTrailingMetaAsync,
  trailingMetaHeader,
  trailingMetaHeaderBytes as headerBytes,
} from '../../base/trailing-meta.js';
import { bytesOf, typedCopy } from '../../base/typed-bytes.js';
import { BlockChecksums, contentBlockBytes, newContentCheck, type ContentCheck } from './content-check.js';
import { Postings, PostingsWriter, type PostingsTable } from './postings.js';

export const regexFormatVersion = 3;
const magic = 'FTHMRIX1';
const indexName = 'regex-index.bin';
/** A file saved without a hash (its 32 bytes zero), as hex. */
const noHash = '0'.repeat(64);
const contentPattern = /^regex-content-([0-9a-f]{16})\.bin$/;
const packr = new Packr({ useRecords: false, mapsAsObjects: true });

/** Everything about a built index except its posting lists. */
export interface RegexLayout {
  root: string;
  files: string[];
  /** Hex SHA-256 of each file's indexed content ('' when it could not be read). */
  hashes: string[];
  /** Where each file's bytes start in the content store; one more entry: the store's size. */
  fileOffsets: Float64Array;
  /** Each file's first piece; one more entry: the number of pieces. */
  fileFirstPiece: Uint32Array;
  /** Where each piece starts in the content store; one more entry: the store's size. */
  pieceStarts: Float64Array;
  /** The 1-based line each piece starts on. */
  pieceLines: Uint32Array;
}

interface StoredMeta {
  root: string;
  generation: string;
  contentBytes: number;
  files: string[];
  hashes: Uint8Array;
  fileOffsets: Uint8Array;
  fileFirstPiece: Uint8Array;
  pieceStarts: Uint8Array;
  pieceLines: Uint8Array;
  keys: Uint8Array;
  counts: Uint8Array;
  offsets: Uint8Array;
  lengths: Uint8Array;
  crcs: Uint8Array;
  blockBytes: number;
  blockCrcs: Uint8Array;
}

/** Writes a new generation of the index while a build runs; `commit` makes it the current one. */
export class RegexIndexWriter {
  readonly postings: PostingsWriter;
  /** The content store, written through an 8 MB buffer. */
  private readonly content: BufferedWriter;
  private readonly blocks = new BlockChecksums();
  private closed = false;
  private contentClosed = false;

  private constructor(
    private readonly folder: string,
    private readonly generation: string,
    private readonly contentFd: number,
    private readonly indexTemporary: string,
  ) {
    this.postings = new PostingsWriter(path.join(folder, `regex-segment-${generation}-`));
    this.content = new BufferedWriter(contentFd, 0, 8 << 20);
  }

  static open(folder: string): RegexIndexWriter {
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    const generation = randomBytes(8).toString('hex');
    const contentFd = fs.openSync(path.join(folder, `regex-content-${generation}.bin`), 'w', 0o600);
    return new RegexIndexWriter(folder, generation, contentFd, path.join(folder, `${indexName}.${generation}.tmp`));
  }

  /** Appends a file's bytes to the content store; returns where they start. */
  appendContent(bytes: Uint8Array): number {
    const start = this.content.end;
    this.content.bytes(bytes);
    this.blocks.add(bytes);
    return start;
  }

  get contentSize(): number {
    return this.content.end;
  }

  /** Finishes both files and makes them current; returns the loaded index. */
  async commit(layout: RegexLayout): Promise<LoadedRegexIndex> {
    this.content.flush();
    fs.fsyncSync(this.contentFd);
    fs.closeSync(this.contentFd);
    // From here `abort` must not close it again (the number may belong to another file by then).
    this.contentClosed = true;
    const fd = fs.openSync(this.indexTemporary, 'w', 0o600);
    try {
      const { table, length } = await this.postings.finish(fd, headerBytes);
      const hashes = Buffer.alloc(layout.hashes.length * 32);
      layout.hashes.forEach((hash, index) => hash !== '' && hashes.write(hash, index * 32, 32, 'hex'));
      const meta: StoredMeta = {
        root: layout.root,
        generation: this.generation,
        contentBytes: this.content.end,
        files: layout.files,
        hashes,
        fileOffsets: bytesOf(layout.fileOffsets),
        fileFirstPiece: bytesOf(layout.fileFirstPiece),
        pieceStarts: bytesOf(layout.pieceStarts),
        pieceLines: bytesOf(layout.pieceLines),
        keys: bytesOf(table.keys),
        counts: bytesOf(table.counts),
        offsets: bytesOf(table.offsets),
        lengths: bytesOf(table.lengths),
        crcs: bytesOf(table.crcs),
        blockBytes: contentBlockBytes,
        blockCrcs: bytesOf(this.blocks.finish()),
      };
      const packed = packr.pack(meta);
      const metaOffset = headerBytes + length;
      writeAll(fd, packed, metaOffset);
      writeAll(fd, trailingMetaHeader(magic, regexFormatVersion, metaOffset, packed), 0);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(this.indexTemporary, path.join(this.folder, indexName));
    syncFolder(this.folder);
    this.closed = true;
    removeStale(this.folder, this.generation);
    const loaded = loadRegexIndex(this.folder);
    if (loaded.status !== 'valid') throw new Error(`the index just written does not load: ${loaded.status === 'corrupt' ? loaded.reason : 'missing'}`);
    return loaded.index;
  }

  /** Abandons the build: its files are removed. */
  abort(): void {
    if (this.closed) return;
    this.closed = true;
    if (!this.contentClosed) fs.closeSync(this.contentFd);
    this.postings.discard();
    fs.rmSync(path.join(this.folder, `regex-content-${this.generation}.bin`), { force: true });
    fs.rmSync(this.indexTemporary, { force: true });
  }
}

/** Content files of other generations, and temporary files a crashed build left behind. */
function removeStale(folder: string, keep: string): void {
  for (const entry of fs.readdirSync(folder)) {
    const generation = contentPattern.exec(entry)?.[1];
    const leftover = (entry.startsWith('regex-segment-') || entry.startsWith(`${indexName}.`)) && entry.endsWith('.tmp') && !entry.includes(keep);
    if ((generation !== undefined && generation !== keep) || leftover) fs.rmSync(path.join(folder, entry), { force: true });
  }
}

/** An index loaded from disk: the layout and key table in memory, lists and content on disk. */
export interface LoadedRegexIndex {
  layout: RegexLayout;
  postings: Postings;
  /** The content store, open for reading (workers read it through this descriptor). */
  contentFd: number;
  contentBytes: number;
  /** The content store's block checksums, and which blocks this process has checked. */
  contentCheck: ContentCheck;
  /** Bytes held in memory for the layout and the key table. */
  memoryBytes: number;
  /** Keeps the files open until the matching `release` (a search in flight). */
  retain(): void;
  release(): void;
  /** Closes the files once no search holds them. */
  close(): void;
}

export type RegexLoad = { status: 'valid'; index: LoadedRegexIndex } | { status: 'missing' } | { status: 'corrupt'; reason: string };

/** A saved index's file, opened, and its meta being read and checked off the daemon's thread (`loadRegexIndex` takes both). */
export interface RegexPrefetch {
  fd: number;
  read: Promise<TrailingMetaRead>;
}

/** Starts reading the saved index's meta (undefined: no index file to read, or none readable: `loadRegexIndex` says which). */
export function prefetchRegexIndex(folder: string): RegexPrefetch | undefined {
  let fd: number;
  try {
    fd = fs.openSync(path.join(folder, indexName), 'r');
  } catch {
    return undefined;
  }
  const read = readTrailingMetaAsync(fd, magic, regexFormatVersion, 'regex index').catch((error: unknown) => ({
    reason: `unreadable: ${(error as Error).message}`,
  }));
  return { fd, read };
}

/** The saved index in `folder`; `prefetched`: its file opened and meta read already (prefetchRegexIndex), which this then owns. */
export function loadRegexIndex(folder: string, prefetched?: { fd: number; read: TrailingMetaRead }): RegexLoad {
  const file = path.join(folder, indexName);
  let fd: number;
  if (prefetched) fd = prefetched.fd;
  else
    try {
      fd = fs.openSync(file, 'r');
    } catch (error) {
      if (isVanished(error)) return { status: 'missing' };
      return { status: 'corrupt', reason: `unreadable: ${(error as Error).message}` };
    }
  let contentFd: number | undefined;
  try {
    const read = prefetched?.read ?? readTrailingMeta(fd, magic, regexFormatVersion, 'regex index');
    if ('reason' in read) throw new Error(read.reason);
    const { metaOffset } = read;
    const meta = packr.unpack(read.meta) as StoredMeta;
    const contentFile = path.join(folder, `regex-content-${meta.generation}.bin`);
    try {
      contentFd = fs.openSync(contentFile, 'r');
    } catch {
      throw new Error('its content store is missing');
    }
    if (fs.fstatSync(contentFd).size !== meta.contentBytes) throw new Error('its content store has the wrong size');
    const hexHashes = Buffer.from(meta.hashes.buffer, meta.hashes.byteOffset, meta.hashes.byteLength).toString('hex');
    const layout: RegexLayout = {
      root: meta.root,
      files: meta.files,
      // One hex string cut 64 characters a file (78k small conversions cost ~80 ms of a kernel's restart).
      hashes: meta.files.map((_, index) => {
        const hash = hexHashes.slice(index * 64, index * 64 + 64);
        return hash === noHash ? '' : hash;
      }),
      fileOffsets: typedCopy(meta.fileOffsets, Float64Array),
      fileFirstPiece: typedCopy(meta.fileFirstPiece, Uint32Array),
      pieceStarts: typedCopy(meta.pieceStarts, Float64Array),
      pieceLines: typedCopy(meta.pieceLines, Uint32Array),
    };
    const table: PostingsTable = {
      keys: typedCopy(meta.keys, Uint32Array),
      counts: typedCopy(meta.counts, Uint32Array),
      offsets: typedCopy(meta.offsets, Float64Array),
      lengths: typedCopy(meta.lengths, Uint32Array),
      crcs: typedCopy(meta.crcs, Uint32Array),
    };
    const files = layout.files.length;
    const pieces = layout.pieceLines.length;
    const shaped =
      meta.hashes.length === files * 32 &&
      layout.fileOffsets.length === files + 1 &&
      layout.fileFirstPiece.length === files + 1 &&
      layout.fileFirstPiece[files] === pieces &&
      layout.pieceStarts.length === pieces + 1 &&
      layout.fileOffsets[files] === meta.contentBytes &&
      [table.counts, table.offsets, table.lengths, table.crcs].every((array) => array.length === table.keys.length) &&
      Number.isInteger(meta.blockBytes) &&
      meta.blockBytes > 0 &&
      meta.blockCrcs.length === Math.ceil(meta.contentBytes / meta.blockBytes) * 4;
    if (!shaped) throw new Error('meta has the wrong shape');
    const regionEnd = metaOffset - headerBytes;
    const postings = new Postings(table, (offset, length, scratch) => {
      if (offset + length > regionEnd) throw new Error('posting list out of range');
      return length <= scratch.length ? readExactlyInto(fd, scratch, length, headerBytes + offset) : readExactly(fd, length, headerBytes + offset);
    });
    let closing = false;
    let users = 0;
    const finish = (): void => {
      fs.closeSync(fd);
      fs.closeSync(contentFd!);
    };
    const contentCheck = newContentCheck(typedCopy(meta.blockCrcs, Uint32Array), meta.blockBytes, meta.contentBytes);
    const memoryBytes =
      contentCheck.crcs.byteLength +
      contentCheck.verified.byteLength +
      postings.tableBytes +
      layout.fileOffsets.byteLength +
      layout.fileFirstPiece.byteLength +
      layout.pieceStarts.byteLength +
      layout.pieceLines.byteLength;
    return {
      status: 'valid',
      index: {
        layout,
        postings,
        contentFd,
        contentBytes: meta.contentBytes,
        contentCheck,
        memoryBytes,
        retain: () => {
          users += 1;
        },
        release: () => {
          users -= 1;
          if (closing && users === 0) finish();
        },
        close: () => {
          if (closing) return;
          closing = true;
          if (users === 0) finish();
        },
      },
    };
  } catch (error) {
    fs.closeSync(fd);
    if (contentFd !== undefined) fs.closeSync(contentFd);
    return { status: 'corrupt', reason: (error as Error).message };
  }
}
