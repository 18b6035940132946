// Persists a workspace's code graph: every file's packed part with the SHA-256 of the content it
// was tagged from, and the name, kind and container tables its ids point into. A restart keeps
// the parts whose file still has that hash and re-tags only the others (and every file when the
// tag queries changed: `queries` is a hash of their text).
//
// File: `graph.bin` in the workspace's cache folder, base/checked-file.ts's container (magic
// "FTHMGRF1", version `graphFormatVersion`), written and read as records (a u32 length, then
// msgpack; CheckedFileWriter / readCheckedRecords, pausing every ~20 ms so the daemon keeps
// answering): record 0 is msgpack { root, queries (SHA-256 of every tags.scm and code-graph.ts's
// extractionVersion), kinds, chains, names (count), files (count) }; then the interned names in
// chunks of 65,536 (msgpack string arrays); then one record per file: msgpack { path, hash (32
// bytes: the content tagged), language, arrays (the part's 12 typed arrays as bytes), imports as
// [source, name, local, reexport (0/1), line] }. On load a part whose file's hash differs (or
// another `queries`) is re-tagged; a bad checksum, ids out of range or arrays of different
// lengths: the cache is ignored (logged). A part read back is held as small as its numbers allow
// (file-graph.ts's compactPart); a save writes each array at its declared width, so the format
// stays one. Saved after a build, 30 s after the last change, and when the workspace closes.
// Versions (one line per bump):
//   1  one msgpack payload (not read any more)
//   2  records, written and read in pieces
import { Packr } from 'msgpackr';
import { bytesOf } from '../../base/typed-bytes.js';
import { CheckedFileWriter, readCheckedRecords } from '../../base/checked-file.js';
import { breathe } from '../../base/event-loop.js';
import { releaseUnpackSource } from '../../base/unpack-source.js';
import type { ImportBinding } from '../syntax/tags.js';
import { compactPart, partArrays, type FileGraph, type PartArray } from './file-graph.js';

export const graphFormatVersion = 2;
const namesPerRecord = 65_536;
const magic = 'FTHMGRF1';
const packr = new Packr({ useRecords: false, mapsAsObjects: true });

export interface GraphSnapshot {
  root: string;
  queries: string;
  names: readonly string[];
  kinds: string[];
  chains: string[][];
  files: Array<{ part: FileGraph; hash: string }>;
}

interface StoredFile {
  path: string;
  hash: Uint8Array;
  language: string | null;
  arrays: Uint8Array[];
  imports: Array<[string, string, string, number, number]>;
}

interface StoredHeader {
  root: string;
  queries: string;
  kinds: string[];
  chains: string[][];
  names: number;
  files: number;
}

/** Writes the snapshot piece by piece (other work runs between pieces); the old file stays until the new one is complete. */
export async function saveGraph(file: string, snapshot: GraphSnapshot): Promise<void> {
  const writer = await CheckedFileWriter.open(file, magic, graphFormatVersion);
  try {
    const header: StoredHeader = {
      root: snapshot.root,
      queries: snapshot.queries,
      kinds: snapshot.kinds,
      chains: snapshot.chains,
      names: snapshot.names.length,
      files: snapshot.files.length,
    };
    await writer.record(packr.pack(header));
    for (let at = 0; at < snapshot.names.length; at += namesPerRecord) await writer.record(packr.pack(snapshot.names.slice(at, at + namesPerRecord)));
    let last = performance.now();
    for (const { part, hash } of snapshot.files) {
      const stored: StoredFile = {
        path: part.path,
        hash: Buffer.from(hash, 'hex'),
        language: part.language ?? null,
        // As declared, whatever a part read back holds (u16 where its numbers fit): the file's format is one.
        arrays: partArrays.map(([field, type]) => bytesOf(part[field] instanceof type ? part[field] : type.from(part[field]))),
        imports: part.imports.map((binding) => [binding.source, binding.name, binding.local, binding.reexport ? 1 : 0, binding.line]),
      };
      await writer.record(packr.pack(stored));
      if (performance.now() - last > 20) {
        await breathe();
        last = performance.now();
      }
    }
    await writer.commit();
  } catch (error) {
    await writer.abort();
    throw error;
  }
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
 * Reads and checks a snapshot into `sink`, pausing every ~20 ms so other work runs. A 'corrupt'
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
  const read = await readCheckedRecords(file, magic, graphFormatVersion);
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
