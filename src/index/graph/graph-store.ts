// Persists a workspace's code graph, and reads it back where it lies: every file's packed part with
// the SHA-256 of the content it was tagged from, the name, kind and container tables its ids point
// into, and the two name → files tables (name-files.ts). A restart keeps the parts whose file still
// has that hash and re-tags only the others (and every file when the tag queries changed:
// `queries` is a hash of their text); a part is read (a positioned read) and decoded only when a
// question or a save first needs it, and the name tables are used as they were saved.
//
// File: `graph.bin` in the workspace's cache folder, base/checked-file.ts's container (magic
// "FTHMGRF1", version `graphFormatVersion`, the SHA-256 of everything after the header: checked on
// open on a worker thread while the index is read, ~0.45 s for the kernel's 520 MB, so damage is
// found before the first answer), written as records (a u32 length, then the bytes;
// CheckedFileWriter, pausing every ~20 ms so the daemon keeps answering):
//   - one record per file: msgpack { path, hash (32 bytes: the content tagged), language, arrays (the
//     part's 12 typed arrays as bytes, each at its declared width), imports as [source, name, local,
//     reexport (0/1), line] }; where each lies is in the index below;
//   - the index: msgpack { root, queries (SHA-256 of every tags.scm and code-graph.ts's
//     extractionVersion), kinds, chains, names (count), files (count) }; msgpack [the files' paths];
//     then raw little-endian arrays, each its own record: the files' content hashes (32 bytes
//     each), their records' offsets (f64) and lengths (u32), their counts (u32 x 4: definitions,
//     references, import bindings, bytes of the arrays at their declared widths), the names
//     (UTF-8, end to end) and where each starts (u32, one more than the names), the name → id hash
//     slots (name-table.ts), each name's character mask (symbol-search.ts), then for the definers
//     and the referrers the offsets (u32 per name + 1) and entries (u32 file numbers, the order of
//     the file records);
//   - last, 8 bytes: the offset of the index's first record (f64).
// A part read back is held as small as its numbers allow (file-graph.ts's compactPart); a save
// copies the records of parts never read back as they are. A bad checksum or tables of the wrong
// shape: the cache is ignored (logged) and every file re-tagged; a part whose record does not decode
// (which the checksum makes a bug, not damage) is dropped and its file re-tagged. Saved after a
// build, 30 s after the last change, and when the workspace closes (a large graph only once enough
// files changed: code-graph.ts's saveDue).
// Versions (one line per bump):
//   1  one msgpack payload (not read any more)
//   2  records, written and read in pieces, every part decoded on load (still read: the next save
//      writes version 3)
//   3  parts left where they lie; the index (file table, names as bytes, hash slots, masks, name →
//      files tables) at the end
import fs from 'node:fs';
import { Packr } from 'msgpackr';
import { bytesOf } from '../../base/typed-bytes.js';
import { CheckedFileWriter, openCheckedRecords, readCheckedRecords } from '../../base/checked-file.js';
import { readExactly, readExactlyAsync } from '../../base/positioned-io.js';
import { breathe } from '../../base/event-loop.js';
import { releaseUnpackSource } from '../../base/unpack-source.js';
import type { ImportBinding } from '../syntax/tags.js';
import { compactPart, partArrays, type FileGraph, type PartArray } from './file-graph.js';

export const graphFormatVersion = 3;
/** The version before, still read (its parts decoded on load, as it was). */
const previousFormatVersion = 2;
const namesPerRecord = 65_536;
const magic = 'FTHMGRF1';
const packr = new Packr({ useRecords: false, mapsAsObjects: true });

interface StoredFile {
  path: string;
  hash: Uint8Array;
  language: string | null;
  arrays: Uint8Array[];
  imports: Array<[string, string, string, number, number]>;
}

/** Version 2's first record, and version 3's index's first record. */
interface StoredHeader {
  root: string;
  queries: string;
  kinds: string[];
  chains: string[][];
  names: number;
  files: number;
}

/** The name table as saved: the names' UTF-8 end to end, where each starts, the name → id slots, each name's character mask. */
export interface StoredNames {
  count: number;
  blob: Uint8Array;
  offsets: Uint32Array;
  slots: Uint32Array;
  masks: Uint32Array;
}

/** One name → files table as saved: the file numbers of name n at entries[offsets[n] .. offsets[n + 1]). */
export interface StoredNameFiles {
  offsets: Uint32Array;
  entries: Uint32Array;
}

/** A part left where it lies: record `number` of an open graph.bin. */
export interface StoredPart {
  readonly file: GraphFile;
  readonly number: number;
}

export function isStoredPart(part: FileGraph | StoredPart): part is StoredPart {
  return (part as StoredPart).file instanceof GraphFile;
}

export interface GraphSnapshot {
  root: string;
  queries: string;
  kinds: string[];
  chains: string[][];
  names: StoredNames;
  /** In this order (the name → files tables number them so); a stored part is copied as it lies. */
  files: Array<{ path: string; hash: string; part: FileGraph | StoredPart }>;
  definers: StoredNameFiles;
  referrers: StoredNameFiles;
}

const countsPerFile = 4;

/** Definitions, references, import bindings and bytes of a part's arrays at their declared widths (status counts them without reading parts back). */
function partCounts(part: FileGraph): [number, number, number, number] {
  const bytes = partArrays.reduce((sum, [field, type]) => sum + part[field].length * type.BYTES_PER_ELEMENT, 0);
  return [part.definitionNames.length, part.referenceNames.length, part.imports.length, bytes];
}

/** An open graph.bin's part records, read where they lie (positioned reads, on this thread: a part is a few KB). */
export class GraphFile {
  private closed = false;

  constructor(
    private readonly fd: number,
    private readonly offsets: Float64Array,
    private readonly lengths: Uint32Array,
    private readonly counts: Uint32Array,
    private readonly limits: { names: number; kinds: number; chains: number },
  ) {}

  get size(): number {
    return this.lengths.length;
  }

  /** A record's bytes as they lie. */
  raw(number: number): Buffer {
    if (this.closed) throw new Error('graph.bin was closed');
    return readExactly(this.fd, this.lengths[number]!, this.offsets[number]!);
  }

  /** Part `number`, decoded and checked (throws when it does not decode or its numbers point outside the file's tables). */
  part(number: number): { part: FileGraph; hash: string } {
    const decoded = decodeFile(packr.unpack(this.raw(number)) as StoredFile, this.limits);
    releaseUnpackSource();
    return decoded;
  }

  /** Part `number`'s counts (partCounts), without reading it. */
  countsOf(number: number): [number, number, number, number] {
    const at = number * countsPerFile;
    return [this.counts[at]!, this.counts[at + 1]!, this.counts[at + 2]!, this.counts[at + 3]!];
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    fs.closeSync(this.fd);
  }
}

function storedFileOf(part: FileGraph, hash: string): StoredFile {
  return {
    path: part.path,
    hash: Buffer.from(hash, 'hex'),
    language: part.language ?? null,
    // As declared, whatever a part read back holds (u16 where its numbers fit): the file's format is one.
    arrays: partArrays.map(([field, type]) => bytesOf(part[field] instanceof type ? part[field] : type.from(part[field]))),
    imports: part.imports.map((binding) => [binding.source, binding.name, binding.local, binding.reexport ? 1 : 0, binding.line]),
  };
}

/**
 * Writes the snapshot piece by piece (other work runs between pieces); the old file stays until
 * the new one is complete. Answers the new file, open: its parts can be read where they lie.
 */
export async function saveGraph(file: string, snapshot: GraphSnapshot): Promise<GraphFile> {
  const writer = await CheckedFileWriter.open(file, magic, graphFormatVersion);
  const count = snapshot.files.length;
  const offsets = new Float64Array(count);
  const lengths = new Uint32Array(count);
  const counts = new Uint32Array(count * countsPerFile);
  const hashes = Buffer.alloc(count * 32);
  try {
    let last = performance.now();
    for (let number = 0; number < count; number++) {
      const { hash, part } = snapshot.files[number]!;
      const stored = isStoredPart(part);
      const bytes = stored ? part.file.raw(part.number) : packr.pack(storedFileOf(part, hash));
      counts.set(stored ? part.file.countsOf(part.number) : partCounts(part), number * countsPerFile);
      offsets[number] = writer.offset + 4;
      lengths[number] = bytes.length;
      Buffer.from(hash, 'hex').copy(hashes, number * 32);
      await writer.record(bytes);
      if (performance.now() - last > 20) {
        await breathe();
        last = performance.now();
      }
    }
    const indexAt = writer.offset;
    const header: StoredHeader = {
      root: snapshot.root,
      queries: snapshot.queries,
      kinds: snapshot.kinds,
      chains: snapshot.chains,
      names: snapshot.names.count,
      files: count,
    };
    await writer.record(packr.pack(header));
    await writer.record(packr.pack(snapshot.files.map((entry) => entry.path)));
    const { names, definers, referrers } = snapshot;
    for (const array of [
      hashes,
      offsets,
      lengths,
      counts,
      names.blob,
      names.offsets,
      names.slots,
      names.masks,
      definers.offsets,
      definers.entries,
      referrers.offsets,
      referrers.entries,
    ])
      await writer.record(bytesOf(array));
    const trailer = Buffer.alloc(8);
    trailer.writeDoubleLE(indexAt, 0);
    await writer.record(trailer);
    await writer.commit();
  } catch (error) {
    await writer.abort();
    throw error;
  }
  const fd = fs.openSync(file, 'r');
  return new GraphFile(fd, offsets, lengths, counts, { names: snapshot.names.count, kinds: snapshot.kinds.length, chains: snapshot.chains.length });
}

/** A saved graph, its parts left where they lie (`file`). */
export interface SavedGraph {
  root: string;
  queries: string;
  kinds: string[];
  chains: string[][];
  paths: string[];
  /** Each file's content hash (hex), in file order. */
  hashes: string[];
  names: StoredNames;
  definers: StoredNameFiles;
  referrers: StoredNameFiles;
  file: GraphFile;
}

export type GraphOpen = { status: 'valid'; graph: SavedGraph } | { status: 'previous' } | { status: 'missing' } | { status: 'corrupt'; reason: string };

/**
 * Opens a saved graph: the whole file checked (in pieces, off this thread), then its index read,
 * its parts left where they lie. 'previous': a version-2 file (loadGraph reads it).
 */
export async function openGraph(file: string): Promise<GraphOpen> {
  const opened = openCheckedRecords(file, magic, (version) => version === graphFormatVersion || version === previousFormatVersion);
  if (opened.status !== 'valid') return opened;
  if (opened.version === previousFormatVersion) {
    // loadGraph checks it as it reads it.
    fs.closeSync(opened.fd);
    return { status: 'previous' };
  }
  // The index is read while the file is checked; nothing of it is answered before the check holds.
  const [index, damage] = await Promise.all([readIndex(opened.fd, opened.size).catch((error: Error) => error), opened.checked]);
  if (damage !== undefined || index instanceof Error) {
    fs.closeSync(opened.fd);
    return { status: 'corrupt', reason: damage ?? (index as Error).message };
  }
  return { status: 'valid', graph: index };
}

/** Reads `length` bytes at `position` into an array of their own (aligned for any typed array), on libuv's pool. */
async function readAligned(fd: number, length: number, position: number): Promise<Uint8Array> {
  const bytes = new Uint8Array(new ArrayBuffer(length));
  await readExactlyAsync(fd, bytes, position);
  return bytes;
}

function view<T>(bytes: Uint8Array, type: { new (buffer: ArrayBuffer, offset: number, length: number): T; BYTES_PER_ELEMENT: number }, what: string): T {
  if (bytes.byteLength % type.BYTES_PER_ELEMENT !== 0) throw new Error(`${what} is not whole`);
  return new type(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength / type.BYTES_PER_ELEMENT);
}

/** Offsets that start at 0, never go down, and end at `end`. */
function checkOffsets(offsets: Uint32Array, length: number, end: number, what: string): void {
  if (offsets.length !== length || offsets[0] !== 0 || offsets[length - 1] !== end) throw new Error(`${what} has the wrong shape`);
  for (let at = 1; at < length; at++) if (offsets[at]! < offsets[at - 1]!) throw new Error(`${what} goes backwards`);
}

async function readIndex(fd: number, size: number): Promise<SavedGraph> {
  const headerEnd = 44;
  if (size < headerEnd + 12) throw new Error('no index');
  const trailer = readExactly(fd, 12, size - 12);
  const indexAt = trailer.readDoubleLE(4);
  if (trailer.readUInt32LE(0) !== 8 || !Number.isSafeInteger(indexAt) || indexAt < headerEnd || indexAt >= size - 12)
    throw new Error('the index is not where the file says');
  const records: Uint8Array[] = [];
  for (let at = indexAt; at < size - 12;) {
    const length = readExactly(fd, 4, at).readUInt32LE(0);
    if (at + 4 + length > size - 12) throw new Error('an index record is cut short');
    records.push(await readAligned(fd, length, at + 4));
    at += 4 + length;
  }
  if (records.length !== 14) throw new Error(`the index has ${records.length} records, not 14`);
  const header = packr.unpack(records[0]!) as StoredHeader;
  const paths = packr.unpack(records[1]!) as string[];
  releaseUnpackSource();
  const files = header.files;
  if (
    typeof header.root !== 'string' ||
    typeof header.queries !== 'string' ||
    !Array.isArray(header.kinds) ||
    !Array.isArray(header.chains) ||
    !Number.isSafeInteger(files) ||
    !Number.isSafeInteger(header.names) ||
    header.names < 1 ||
    !Array.isArray(paths) ||
    paths.length !== files ||
    paths.some((path) => typeof path !== 'string')
  )
    throw new Error('the index has the wrong shape');
  const hashBytes = records[2]!;
  const offsets = view(records[3]!, Float64Array, 'the record offsets');
  const lengths = view(records[4]!, Uint32Array, 'the record lengths');
  const counts = view(records[5]!, Uint32Array, 'the counts');
  if (hashBytes.length !== files * 32 || offsets.length !== files || lengths.length !== files || counts.length !== files * countsPerFile)
    throw new Error('the file table has the wrong shape');
  for (let number = 0; number < files; number++) {
    const offset = offsets[number]!;
    if (!Number.isSafeInteger(offset) || offset < headerEnd || offset + lengths[number]! > indexAt) throw new Error('a part record is outside the file');
  }
  const nameCount = header.names;
  const blob = records[6]!;
  const nameOffsets = view(records[7]!, Uint32Array, 'the name offsets');
  const slots = view(records[8]!, Uint32Array, 'the name slots');
  const masks = view(records[9]!, Uint32Array, 'the name masks');
  checkOffsets(nameOffsets, nameCount + 1, blob.length, 'the name table');
  if (nameOffsets[1] !== 0) throw new Error('name 0 is not the empty name');
  if (slots.length === 0 || (slots.length & (slots.length - 1)) !== 0 || masks.length !== nameCount) throw new Error('the name slots have the wrong shape');
  for (let at = 0; at < slots.length; at++) if (slots[at]! >= nameCount) throw new Error('a name slot points past the names');
  const nameFiles = (from: number, what: string): StoredNameFiles => {
    const table = { offsets: view(records[from]!, Uint32Array, what), entries: view(records[from + 1]!, Uint32Array, what) };
    checkOffsets(table.offsets, nameCount + 1, table.entries.length, what);
    for (let at = 0; at < table.entries.length; at++) if (table.entries[at]! >= files) throw new Error(`${what} points past the files`);
    return table;
  };
  const definers = nameFiles(10, 'the definers table');
  const referrers = nameFiles(12, 'the referrers table');
  const hashes = Array.from({ length: files }, (_, number) => Buffer.from(hashBytes.buffer, hashBytes.byteOffset + number * 32, 32).toString('hex'));
  return {
    root: header.root,
    queries: header.queries,
    kinds: header.kinds,
    chains: header.chains,
    paths,
    hashes,
    names: { count: nameCount, blob, offsets: nameOffsets, slots, masks },
    definers,
    referrers,
    file: new GraphFile(fd, offsets, lengths, counts, { names: nameCount, kinds: header.kinds.length, chains: header.chains.length }),
  };
}

export type GraphLoad = { status: 'valid' } | { status: 'skipped' } | { status: 'missing' } | { status: 'corrupt'; reason: string };

/** What a snapshot holds before its files: the name, kind and container tables its ids point into. */
export interface GraphHeader {
  root: string;
  queries: string;
  names: string[];
  kinds: string[];
  chains: string[][];
  /** How many file records follow. */
  files: number;
}

/**
 * Takes a snapshot as it is read, so the graph fills (and answers from what it holds) while the
 * rest is read: `begin` gets the tables (false: skip the files, e.g. a cache made for other tag
 * queries; a throw: the tables are unusable), then `file` each checked part in order.
 */
export interface GraphSink {
  begin(header: GraphHeader): boolean | Promise<boolean>;
  file(part: FileGraph, hash: string): void;
}

/** The file's arrays are checked in this scratch space (one per daemon, grown as needed), then copied out. */
let scratch = new ArrayBuffer(1 << 16);

function decodeFile(entry: StoredFile, limits: { names: number; kinds: number; chains: number }): { part: FileGraph; hash: string } {
  if (!Array.isArray(entry.arrays) || entry.arrays.length !== partArrays.length || entry.hash.length !== 32) throw new Error(`${entry.path}: wrong shape`);
  let total = 0;
  const offsets = partArrays.map(([, type], index) => {
    const bytes = entry.arrays[index]!;
    if (!(bytes instanceof Uint8Array) || bytes.byteLength % type.BYTES_PER_ELEMENT !== 0) throw new Error(`${entry.path}: an array is not whole`);
    const at = total;
    total += (bytes.byteLength + 3) & ~3;
    return at;
  });
  if (scratch.byteLength < total) scratch = new ArrayBuffer(Math.max(total, 2 * scratch.byteLength));
  const scratchBytes = new Uint8Array(scratch);
  const wide = {} as Record<(typeof partArrays)[number][0], PartArray>;
  partArrays.forEach(([field, type], index) => {
    const stored = entry.arrays[index]!;
    scratchBytes.set(stored, offsets[index]!);
    wide[field] = new type(scratch, offsets[index]!, stored.byteLength / type.BYTES_PER_ELEMENT) as PartArray;
  });
  checkPart(entry.path, wide, entry.imports.length, limits);
  // Out of the scratch, each array as small as its numbers allow (file-graph.ts's compactPart).
  const part = compactPart({
    path: entry.path,
    language: entry.language ?? undefined,
    imports: entry.imports.map(([source, name, local, reexport, line]): ImportBinding => ({ source, name, local, reexport: reexport === 1, line })),
    ...wide,
  } as FileGraph);
  return { part, hash: Buffer.from(entry.hash).toString('hex') };
}

/** Every array the same length as its kind, every index pointing where it can (a parent before its child, ids inside their tables: a loop up the parents must end). */
function checkPart(
  path: string,
  graph: Record<(typeof partArrays)[number][0], PartArray>,
  imports: number,
  limits: { names: number; kinds: number; chains: number },
): void {
  const definitions = graph.definitionNames.length;
  const references = graph.referenceNames.length;
  const shaped =
    graph.definitionKinds.length === definitions &&
    graph.definitionChains.length === definitions &&
    graph.definitionParents.length === definitions &&
    graph.definitionPositions.length === definitions * 8 &&
    graph.referenceKinds.length === references &&
    graph.referenceReceivers.length === references &&
    graph.referenceLines.length === references &&
    graph.referenceCharacters.length === references &&
    graph.referenceEnclosing.length === references &&
    graph.referenceBindings.length === references;
  if (!shaped) throw new Error(`${path}: arrays of different lengths`);
  const check = (ok: boolean, what: string) => {
    if (!ok) throw new Error(`${path}: ${what} out of range`);
  };
  for (let at = 0; at < definitions; at++) {
    check(graph.definitionNames[at]! < limits.names, 'a name id');
    check(graph.definitionKinds[at]! < limits.kinds, 'a kind id');
    check(graph.definitionChains[at]! < limits.chains, 'a container chain id');
    const parent = graph.definitionParents[at]!;
    check(parent >= -1 && parent < at, 'a parent');
  }
  for (let at = 0; at < references; at++) {
    check(graph.referenceNames[at]! < limits.names && graph.referenceReceivers[at]! < limits.names, 'a name id');
    check(graph.referenceKinds[at]! < limits.kinds, 'a kind id');
    const enclosing = graph.referenceEnclosing[at]!;
    check(enclosing >= -1 && enclosing < definitions, 'an enclosing definition');
    const binding = graph.referenceBindings[at]!;
    check(binding >= -1 && binding < imports, 'an import binding');
  }
}

/**
 * Reads and checks a version-2 snapshot into `sink` (every part decoded: the next save writes version 3), pausing every ~20 ms so other work runs. A 'corrupt'
 * answer may come after `sink` took some files: the caller drops them.
 */
export async function loadGraph(file: string, sink: GraphSink): Promise<GraphLoad> {
  try {
    return await readGraph(file, sink);
  } finally {
    releaseUnpackSource();
  }
}

async function readGraph(file: string, sink: GraphSink): Promise<GraphLoad> {
  const read = await readCheckedRecords(file, magic, previousFormatVersion);
  if (read.status !== 'valid') return read;
  const records = read.records;
  let header: StoredHeader;
  const names: string[] = [];
  try {
    header = packr.unpack(records[0]!) as StoredHeader;
    const nameRecords = Math.ceil(header.names / namesPerRecord);
    if (typeof header.root !== 'string' || !Array.isArray(header.kinds) || !Array.isArray(header.chains) || records.length !== 1 + nameRecords + header.files)
      return { status: 'corrupt', reason: 'payload has the wrong shape' };
    for (let at = 1; at <= nameRecords; at++) {
      for (const name of packr.unpack(records[at]!) as string[]) names.push(name);
      await breathe();
    }
  } catch (error) {
    return { status: 'corrupt', reason: `payload does not decode: ${(error as Error).message}` };
  }
  if (names.length !== header.names || names[0] !== '') return { status: 'corrupt', reason: 'the name table has the wrong shape' };
  const first = 1 + Math.ceil(header.names / namesPerRecord);
  try {
    if (!(await sink.begin({ root: header.root, queries: header.queries, names, kinds: header.kinds, chains: header.chains, files: header.files })))
      return { status: 'skipped' };
  } catch (error) {
    return { status: 'corrupt', reason: (error as Error).message };
  }
  const limits = { names: names.length, kinds: header.kinds.length, chains: header.chains.length };
  let last = performance.now();
  for (let at = first; at < records.length; at++) {
    let decoded: { part: FileGraph; hash: string };
    try {
      decoded = decodeFile(packr.unpack(records[at]!) as StoredFile, limits);
    } catch (error) {
      return { status: 'corrupt', reason: `payload does not decode: ${(error as Error).message}` };
    }
    sink.file(decoded.part, decoded.hash);
    if (performance.now() - last > 20) {
      await breathe();
      last = performance.now();
    }
  }
  return { status: 'valid' };
}
