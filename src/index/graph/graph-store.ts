// Persists a workspace's code graph: every file's packed part with the SHA-256 of the content it
// was tagged from, and the name, kind and container tables its ids point into. A restart keeps
// the parts whose file still has that hash and re-tags only the others (and every file when the
// tag queries changed: `queries` is a hash of their text).
//
// File: base/checked-file.ts's container, magic "FTHMGRF1", payload msgpack of
// { root, queries, names, kinds, chains, files: [{ path, hash (32 bytes), language, the typed
// arrays as bytes, imports as [source, name, local, reexport (0/1), line] }] }. Versions: 1.
import { Packr } from 'msgpackr';
import { encodeChecked, readChecked, writeFileAtomic } from '../../base/checked-file.js';
import type { ImportBinding } from '../syntax/tags.js';
import type { FileGraph } from './file-graph.js';

export const graphFormatVersion = 1;
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

interface Stored {
  root: string;
  queries: string;
  names: string[];
  kinds: string[];
  chains: string[][];
  files: StoredFile[];
}

/** The typed arrays of a part, in a fixed order, with their constructors. */
const arrayFields = [
  ['definitionNames', Uint32Array],
  ['definitionKinds', Uint16Array],
  ['definitionChains', Uint32Array],
  ['definitionParents', Int32Array],
  ['definitionPositions', Int32Array],
  ['referenceNames', Uint32Array],
  ['referenceKinds', Uint16Array],
  ['referenceReceivers', Uint32Array],
  ['referenceLines', Uint32Array],
  ['referenceCharacters', Uint32Array],
  ['referenceEnclosing', Int32Array],
  ['referenceBindings', Int32Array],
] as const;

type TypedArrayConstructor = Uint32ArrayConstructor | Uint16ArrayConstructor | Int32ArrayConstructor;

function bytesOf(array: ArrayBufferView): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

/** A copy with the alignment the element type needs (msgpack hands back views at any offset). */
function typed(bytes: Uint8Array, type: TypedArrayConstructor): Uint32Array | Uint16Array | Int32Array {
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new type(copy.buffer);
}

export function saveGraph(file: string, snapshot: GraphSnapshot): void {
  const stored: Stored = {
    root: snapshot.root,
    queries: snapshot.queries,
    names: [...snapshot.names],
    kinds: snapshot.kinds,
    chains: snapshot.chains,
    files: snapshot.files.map(({ part, hash }) => ({
      path: part.path,
      hash: Buffer.from(hash, 'hex'),
      language: part.language ?? null,
      arrays: arrayFields.map(([field]) => bytesOf(part[field])),
      imports: part.imports.map((binding) => [binding.source, binding.name, binding.local, binding.reexport ? 1 : 0, binding.line]),
    })),
  };
  writeFileAtomic(file, encodeChecked(magic, graphFormatVersion, packr.pack(stored)));
}

export type GraphLoad = { status: 'valid'; snapshot: GraphSnapshot } | { status: 'missing' } | { status: 'corrupt'; reason: string };

export function loadGraph(file: string): GraphLoad {
  const read = readChecked(file, magic, graphFormatVersion);
  if (read.status !== 'valid') return read;
  try {
    const stored = packr.unpack(read.payload) as Stored;
    if (!Array.isArray(stored.names) || stored.names[0] !== '' || !Array.isArray(stored.files)) return { status: 'corrupt', reason: 'payload has the wrong shape' };
    const files = stored.files.map((entry) => {
      if (entry.arrays.length !== arrayFields.length || entry.hash.length !== 32) throw new Error(`${entry.path}: wrong shape`);
      const part = { path: entry.path, language: entry.language ?? undefined, imports: entry.imports.map(([source, name, local, reexport, line]): ImportBinding => ({ source, name, local, reexport: reexport === 1, line })) } as Record<string, unknown>;
      arrayFields.forEach(([field, type], index) => (part[field] = typed(entry.arrays[index]!, type)));
      const graph = part as unknown as FileGraph;
      const definitions = graph.definitionNames.length;
      const references = graph.referenceNames.length;
      const shaped =
        graph.definitionKinds.length === definitions && graph.definitionChains.length === definitions && graph.definitionParents.length === definitions && graph.definitionPositions.length === definitions * 8 &&
        graph.referenceKinds.length === references && graph.referenceReceivers.length === references && graph.referenceLines.length === references && graph.referenceCharacters.length === references &&
        graph.referenceEnclosing.length === references && graph.referenceBindings.length === references;
      if (!shaped) throw new Error(`${entry.path}: arrays of different lengths`);
      for (const name of graph.definitionNames) if (name >= stored.names.length) throw new Error(`${entry.path}: a name id out of range`);
      for (const name of graph.referenceNames) if (name >= stored.names.length) throw new Error(`${entry.path}: a name id out of range`);
      return { part: graph, hash: Buffer.from(entry.hash).toString('hex') };
    });
    return { status: 'valid', snapshot: { root: stored.root, queries: stored.queries, names: stored.names, kinds: stored.kinds, chains: stored.chains, files } };
  } catch (error) {
    return { status: 'corrupt', reason: `payload does not decode: ${(error as Error).message}` };
  }
}
