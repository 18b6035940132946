// Flat syntax trees kept on disk, by content, between searches and daemon restarts: a structural
// worker that finds a file's tree here matches on it without parsing the file (parsing is most of
// what a pattern common in a large tree costs: web-tree-sitter parses at about half of native
// tree-sitter's speed). Shared by every workspace and worker of the user's daemon.
//
// A tree is found by the SHA-256 of the grammar's identity (its wasm's hash) and the file's content
// hash (the SHA-256 of its bytes, as the workspace's Merkle tree has it: `fathom index` asks which
// files' trees are stored with a stat each, reading none of them), so an edited file or an
// upgraded grammar simply misses (nothing to invalidate); the text is not
// stored (the caller has it). One file a tree, `<folder>/<2 hex>/<62 hex>.tree` (the folder is
// `<cacheRoot>/trees`, not per workspace: trees are found by content), named by the SHA-256 of
// `<language>:<SHA-256 of the grammar's wasm>`, a NUL and the hex SHA-256 of the file's bytes
// (treeKeyOfHash; until 2026-12-05 of the bytes themselves: trees stored before miss once and are
// trimmed as the oldest). Layout (integers little-endian):
//   0-7    the magic "FTHMTREE"
//   8-11   the version (u32)
//   12-15  the CRC-32 of the payload (checked-file.ts's SHA-256 would hash every stored byte again
//          on each read)
//   16-    the payload: node count and text length (u32 each), then per node in preorder four
//          unsigned LEB128 varints: type id × 8 + flags (1 named, 2 missing, 4 extra), start − the
//          previous node's start, length, subtree size − 1 (all in UTF-16 units)
// (0.94 bytes on disk a byte of the kernel's C, 0.57 of TypeScript's lib.) Written to
// `<name>.<pid>.<random>.tmp` and renamed into place without fsync: a torn or damaged file fails
// its checksum (or its decoding), is deleted and the file is parsed again; a `.tmp` an hour old is
// a dead writer's and `trim` deletes it. The folder is kept under its budget by `trim`: the trees
// written longest ago go first.
// Versions (`version` below; bump it when the payload, or source-text.ts's decoding of bytes into
// the text the ranges index, changes; one line per bump):
//   1  the payload in base/checked-file.ts's container (a SHA-256 of the payload)
//   2  a 16-byte header with the payload's CRC-32 in place of the container (hashing the payload
//      on each read cost as much as decoding it); the payload unchanged
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { isVanished } from '../../base/errors.js';
import { FlatTree } from './flat-tree.js';

const magic = 'FTHMTREE';
/** Bump it when the payload, or source-text.ts's decoding of bytes into the text the ranges index, changes. */
const version = 2;
/** Magic (8 bytes), version (u32), CRC-32 of the payload (u32). */
const headerBytes = 16;

/** A stored tree file: the header, then the payload. */
function encodeFile(payload: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(headerBytes + payload.length);
  out.write(magic, 0, 8, 'ascii');
  out.writeUInt32LE(version, 8);
  out.writeUInt32LE(zlib.crc32(payload) >>> 0, 12);
  out.set(payload, headerBytes);
  return out;
}

/** The payload of a stored tree file, or undefined when its header or checksum is wrong. */
function decodeFile(bytes: Buffer): Buffer | undefined {
  if (bytes.length < headerBytes || bytes.toString('ascii', 0, 8) !== magic || bytes.readUInt32LE(8) !== version) return undefined;
  const payload = bytes.subarray(headerBytes);
  return zlib.crc32(payload) >>> 0 === bytes.readUInt32LE(12) ? payload : undefined;
}

/** Each grammar's identity in the store: its id and the SHA-256 of its wasm, read once a thread. */
const grammarIds = new Map<string, string>();

export function grammarStoreId(spec: { readonly id: string; readonly wasmPath: string }): string {
  let id = grammarIds.get(spec.id);
  if (id === undefined) {
    id = `${spec.id}:${createHash('sha256').update(fs.readFileSync(spec.wasmPath)).digest('hex')}`;
    grammarIds.set(spec.id, id);
  }
  return id;
}

/** Where a file's tree is stored: its grammar's identity (`grammarStoreId`) and its content hash (hex SHA-256 of its bytes). */
export function treeKeyOfHash(grammarId: string, contentHash: string): string {
  return createHash('sha256').update(grammarId).update('\0').update(contentHash).digest('hex');
}

/** `treeKeyOfHash` for bytes at hand. */
export function treeKey(grammarId: string, bytes: Uint8Array): string {
  return treeKeyOfHash(grammarId, createHash('sha256').update(bytes).digest('hex'));
}

/** The payload of a flat tree (see the module comment). */
export function encodeFlatTree(tree: FlatTree): Buffer {
  const { kinds, flags, starts, ends, next } = tree;
  const count = kinds.length;
  // At most 3 + 5 + 5 + 5 bytes a node.
  const out = Buffer.allocUnsafe(8 + count * 18);
  out.writeUInt32LE(count, 0);
  out.writeUInt32LE(tree.text.length, 4);
  let at = 8;
  const put = (value: number): void => {
    while (value >= 0x80) {
      out[at++] = (value & 0x7f) | 0x80;
      value >>>= 7;
    }
    out[at++] = value;
  };
  let previous = 0;
  for (let node = 0; node < count; node++) {
    put(kinds[node]! * 8 + flags[node]!);
    put(starts[node]! - previous);
    previous = starts[node]!;
    put(ends[node]! - starts[node]!);
    put(next[node]! - node - 1);
  }
  return out.subarray(0, at);
}

/** A flat tree from its payload, over `text`; undefined when the payload does not fit it (counts, ranges, nesting). */
export function decodeFlatTree(payload: Uint8Array, text: string, types: readonly string[]): FlatTree | undefined {
  if (payload.length < 8) return undefined;
  const view = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  const count = view.readUInt32LE(0);
  if (view.readUInt32LE(4) !== text.length || count === 0 || count > payload.length) return undefined;
  const kinds = new Uint16Array(count);
  const flags = new Uint8Array(count);
  const starts = new Uint32Array(count);
  const ends = new Uint32Array(count);
  const next = new Uint32Array(count);
  let at = 8;
  const length = payload.length;
  const textLength = text.length;
  let bad = false;
  let previous = 0;
  // Four varints a node, read inline (no call per value); a value of more than five bytes, or one
  // running past the end, marks the payload bad.
  const values = [0, 0, 0, 0];
  for (let node = 0; node < count; node++) {
    for (let field = 0; field < 4; field++) {
      let byte = at < length ? payload[at++]! : 0x100;
      let value = byte & 0x7f;
      if (byte >= 0x80) {
        let shift = 7;
        for (;;) {
          if (byte === 0x100 || shift > 28) {
            bad = true;
            break;
          }
          byte = at < length ? payload[at++]! : 0x100;
          value += (byte & 0x7f) * 2 ** shift;
          if (byte < 0x80) break;
          shift += 7;
        }
      }
      values[field] = value;
    }
    if (bad) break;
    kinds[node] = values[0]! >>> 3;
    flags[node] = values[0]! & 7;
    previous += values[1]!;
    starts[node] = previous;
    const end = previous + values[2]!;
    ends[node] = end;
    const after = node + 1 + values[3]!;
    next[node] = after;
    if (end > textLength || after > count) {
      bad = true;
      break;
    }
  }
  if (bad || at !== length || next[0] !== count) return undefined;
  return new FlatTree(types, kinds, flags, starts, ends, next, text);
}

export class TreeStore {
  constructor(readonly folder: string) {}

  private fileOf(key: string): string {
    return path.join(this.folder, key.slice(0, 2), `${key.slice(2)}.tree`);
  }

  /**
   * The tree stored under `key` for `text`, or undefined: none, one that cannot be read (a
   * permission error: the store is only a cache), or a damaged one, which is deleted.
   */
  get(key: string, text: string, types: readonly string[]): FlatTree | undefined {
    const file = this.fileOf(key);
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(file);
    } catch {
      return undefined;
    }
    const payload = decodeFile(bytes);
    const tree = payload ? decodeFlatTree(payload, text, types) : undefined;
    if (!tree) {
      try {
        fs.rmSync(file, { force: true });
      } catch {
        // Not ours to delete: it is missed again next time, and rewritten when the folder allows.
      }
    }
    return tree;
  }

  /** Whether a tree is stored under `key` (not checked: `get` checks it). */
  has(key: string): boolean {
    return fs.existsSync(this.fileOf(key));
  }

  /** Stores a tree under `key` (the bytes written, or 0 when it could not be written: the store is a cache). */
  put(key: string, tree: FlatTree): number {
    const file = this.fileOf(key);
    const bytes = encodeFile(encodeFlatTree(tree));
    const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      fs.writeFileSync(temporary, bytes, { mode: 0o600 });
      fs.renameSync(temporary, file);
      return bytes.length;
    } catch {
      fs.rmSync(temporary, { force: true });
      return 0;
    }
  }

  /**
   * Deletes the trees written longest ago until the folder holds at most `maxBytes` (and any
   * temporary file left by a writer that died an hour ago or more); answers the bytes it holds then.
   * Asynchronous: the daemon's thread is not held by a folder of ~10^5 files.
   */
  async trim(maxBytes: number): Promise<number> {
    const entries: Array<{ file: string; size: number; written: number }> = [];
    let total = 0;
    let folders: string[];
    try {
      folders = await fs.promises.readdir(this.folder);
    } catch (error) {
      if (isVanished(error)) return 0;
      throw error;
    }
    const stale = Date.now() - 60 * 60_000;
    for (const folder of folders) {
      let names: string[];
      try {
        names = await fs.promises.readdir(path.join(this.folder, folder));
      } catch {
        continue;
      }
      await Promise.all(
        names.map(async (name) => {
          const file = path.join(this.folder, folder, name);
          try {
            const stat = await fs.promises.stat(file);
            if (name.endsWith('.tmp')) {
              if (stat.mtimeMs < stale) await fs.promises.rm(file, { force: true });
              return;
            }
            entries.push({ file, size: stat.size, written: stat.mtimeMs });
            total += stat.size;
          } catch {
            // Gone meanwhile (another trim, or a damaged tree deleted by a reader).
          }
        }),
      );
    }
    if (total <= maxBytes) return total;
    entries.sort((a, b) => a.written - b.written);
    for (const entry of entries) {
      if (total <= maxBytes) break;
      await fs.promises.rm(entry.file, { force: true });
      total -= entry.size;
    }
    return total;
  }
}
