// A member's connection to the team store: every call is one of the schema's member functions
// (migrations/001-store.ts), which the database runs as its owner and which answer only about the
// file hashes presented. Opening checks the store's schema version against this Fathom's and
// refuses another, naming what to do. Hashes travel packed (32 bytes each, one bytea: a binary
// parameter), lists in batches small enough for one statement. Used by push.ts, status.ts and
// join.ts (which reads `filePacks`: one row per file, its chunks and vectors packed, through a
// binary COPY (copy-rows.ts): COPY takes no parameters, so there the hashes are a hex literal
// and the names quoted literals).
import type pg from 'pg';
import { FathomError } from '../base/errors.js';
import { halfBits, halfBytes, HalfVector } from '../base/half-float.js';
import { typedCopy } from '../base/typed-bytes.js';
import { connectTeamStore, storeError, type TeamConnectionOptions } from './connection.js';
import { copyRows } from './copy-rows.js';
import { schemaVersion } from './migrations.js';

/** One chunk of a file's records. */
export interface ChunkRecord {
  startLine: number;
  endLine: number;
  startByte: number;
  endByte: number;
  /** SHA-256 (hex) of the chunk's text. */
  chunkHash: string;
}

/** A file's records as pushed: its content hash (hex), where it sits (masked), its chunks. */
export interface FileRecord {
  fileHash: string;
  maskedPaths: string[];
  chunks: ChunkRecord[];
}

/** A file's records and vectors as a join reads them (`filePacks`). */
export interface FilePack {
  fileHash: string;
  chunks: ChunkRecord[];
  /**
   * Every chunk's vector in chunk order (`dimensions` numbers each): f16 bits as stored (schema 6
   * on), or f32 (pushed before); undefined when the store lacks one of them.
   */
  vectors: HalfVector | Float32Array | undefined;
  /** Bytes of vectors the store sent for the file (f16 or f32 as stored). */
  vectorBytes: number;
}

export interface Snapshot {
  id: number;
  /** Hex. */
  merkleRoot: string;
  /** The 64-bit simhash as 16 hex digits. */
  simhash: string;
  distance: number;
  fileCount: number;
  chunkCount: number;
  createdAt: string;
}

/** Hashes a call takes at most (1.6 MB packed). */
const hashesPerCall = 50_000;

/** Packs hex SHA-256 hashes into one buffer. */
export function packHashes(hashes: readonly string[]): Buffer {
  const packed = Buffer.alloc(hashes.length * 32);
  hashes.forEach((hash, at) => {
    if (!/^[0-9a-f]{64}$/.test(hash)) throw new FathomError('internal', `not a SHA-256 hash: ${hash.slice(0, 80)}`);
    packed.write(hash, at * 32, 'hex');
  });
  return packed;
}

function unpackHashes(packed: Buffer): string[] {
  const hashes: string[] = [];
  for (let at = 0; at + 32 <= packed.length; at += 32) hashes.push(packed.toString('hex', at, at + 32));
  return hashes;
}

/** A simhash as the signed 64-bit integer PostgreSQL keeps, and back. */
export function simhashToSql(hex: string): string {
  return BigInt.asIntN(64, BigInt(`0x${hex}`)).toString();
}

function simhashFromSql(value: string): string {
  return BigInt.asUintN(64, BigInt(value)).toString(16).padStart(16, '0');
}

/** Bytes a vector's number takes in the store: f16 (migrations/006-half-vectors.ts). */
export const halfVectorBytes = 2;

/** Bytes of one chunk's range in `file_packs`: start and end line (int4), start and end byte (int8). */
const rangeBytes = 24;

/** A row of `file_packs`. */
interface PackRow {
  file_hash: Buffer;
  chunk_count: number;
  ranges: Buffer | null;
  chunk_hashes: Buffer | null;
  vectors: Buffer | null;
}

function unpackFile(row: PackRow, dimensions: number): FilePack {
  const fileHash = row.file_hash.toString('hex');
  const count = row.chunk_count;
  const ranges = row.ranges ?? Buffer.alloc(0);
  const hashes = row.chunk_hashes ?? Buffer.alloc(0);
  const found = Math.min(ranges.length / rangeBytes, hashes.length / 32);
  const chunks: ChunkRecord[] = [];
  for (let at = 0; at < found; at++)
    chunks.push({
      startLine: ranges.readInt32BE(at * rangeBytes),
      endLine: ranges.readInt32BE(at * rangeBytes + 4),
      startByte: Number(ranges.readBigInt64BE(at * rangeBytes + 8)),
      endByte: Number(ranges.readBigInt64BE(at * rangeBytes + 16)),
      chunkHash: hashes.toString('hex', at * 32, at * 32 + 32),
    });
  const whole = found === count && ranges.length === count * rangeBytes && hashes.length === count * 32;
  const vectors = whole && row.vectors ? vectorsOf(row.vectors, count, dimensions) : undefined;
  return { fileHash, chunks, vectors, vectorBytes: row.vectors?.length ?? 0 };
}

/**
 * `count` vectors of `dimensions` numbers as stored: f16 (schema 6 on: kept as bits, decoded when
 * needed) or f32 (pushed before it), told apart by length; undefined when the bytes are neither
 * (another model's size, or a mix of both widths: left to local embedding).
 */
function vectorsOf(bytes: Buffer, count: number, dimensions: number): HalfVector | Float32Array | undefined {
  if (bytes.length === count * dimensions * 2) return new HalfVector(halfBits(bytes));
  if (bytes.length !== count * dimensions * 4) return undefined;
  // Little-endian f32; viewed where it lies when aligned (a large value has a buffer of its own).
  return bytes.byteOffset % 4 === 0 ? new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4) : typedCopy(bytes, Float32Array);
}

/**
 * Memory for bytes kept, handed out from 4 MB slabs, each piece 4-aligned (f16 and f32 are viewed
 * where they lie): a buffer a file cost this machine ~8 µs more than a piece of a slab. A piece
 * over 1 MB gets a buffer of its own.
 */
function slabs(slabBytes = 4 << 20): (length: number) => Buffer {
  let slab = Buffer.alloc(0);
  let used = 0;
  return (length) => {
    if (length > slabBytes / 4) return Buffer.allocUnsafeSlow(length);
    if (used + length > slab.length) {
      slab = Buffer.allocUnsafeSlow(slabBytes);
      used = 0;
    }
    const piece = slab.subarray(used, used + length);
    used += (length + 3) & ~3;
    return piece;
  };
}

export class TeamStore {
  private constructor(
    private readonly client: pg.Client,
    /** user@host:port/db, for messages (never the connection string). */
    readonly description: string,
    readonly version: number,
  ) {}

  /** Connects as a member and checks the schema version; a store without Fathom's schema, or of another version, is refused. */
  static async open(options: TeamConnectionOptions): Promise<TeamStore> {
    const { client, description } = await connectTeamStore(options);
    try {
      const schema = await client.query<{ present: boolean }>("SELECT to_regprocedure('fathom.store_version()') IS NOT NULL AS present");
      if (!schema.rows[0]?.present)
        throw new FathomError(
          'teamStore',
          `team store ${description} has no Fathom schema (or this role may not see it): run \`fathom team init\` with the owner's connection, and grant this role the member role`,
          { store: description },
        );
      const version = Number((await client.query<{ version: number | null }>('SELECT fathom.store_version() AS version')).rows[0]?.version ?? 0);
      if (version !== schemaVersion) {
        const todo = version < schemaVersion ? "run `fathom team init` with the owner's connection to migrate it" : 'upgrade Fathom';
        throw new FathomError('teamStore', `team store ${description} speaks schema version ${version}, this Fathom ${schemaVersion}: ${todo}`, {
          store: description,
          version,
          expected: schemaVersion,
        });
      }
      return new TeamStore(client, description, version);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw storeError(description, 'open', error);
    }
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }

  private async call<R extends pg.QueryResultRow>(doing: string, text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    try {
      return await this.client.query<R>(text, values);
    } catch (error) {
      throw storeError(this.description, doing, error);
    }
  }

  /** Of the (file hash, masked path) pairs, the indexes of those whose records or path the store lacks. */
  async missingFiles(team: string, model: string, pairs: ReadonlyArray<{ fileHash: string; maskedPath: string }>): Promise<number[]> {
    const missing: number[] = [];
    for (let start = 0; start < pairs.length; start += hashesPerCall) {
      const slice = pairs.slice(start, start + hashesPerCall);
      const result = await this.call<{ missing: number[] }>('missing_files', 'SELECT fathom.missing_files($1, $2, $3, $4) AS missing', [
        team,
        model,
        packHashes(slice.map((pair) => pair.fileHash)),
        slice.map((pair) => pair.maskedPath),
      ]);
      for (const index of result.rows[0]!.missing) missing.push(start + index);
    }
    return missing;
  }

  /** Of the chunk hashes, those the store has no vector for. */
  async missingChunks(team: string, model: string, chunkHashes: readonly string[]): Promise<string[]> {
    const missing: string[] = [];
    for (let start = 0; start < chunkHashes.length; start += hashesPerCall) {
      const result = await this.call<{ missing: Buffer }>('missing_chunks', 'SELECT fathom.missing_chunks($1, $2, $3) AS missing', [
        team,
        model,
        packHashes(chunkHashes.slice(start, start + hashesPerCall)),
      ]);
      missing.push(...unpackHashes(result.rows[0]!.missing));
    }
    return missing;
  }

  /** Uploads vectors as f16 (one statement, one transaction); answers how many were new. */
  async putEmbeddings(team: string, model: string, dimensions: number, entries: ReadonlyArray<{ chunkHash: string; vector: Float32Array }>): Promise<number> {
    const vectors = Buffer.alloc(entries.length * dimensions * halfVectorBytes);
    entries.forEach((entry, at) => {
      if (entry.vector.length !== dimensions) throw new FathomError('internal', `a vector of ${entry.vector.length} numbers for a model of ${dimensions}`);
      halfBytes(entry.vector, vectors, at * dimensions * halfVectorBytes);
    });
    const result = await this.call<{ inserted: number }>('put_embeddings', 'SELECT fathom.put_embeddings($1, $2, $3, $4, $5) AS inserted', [
      team,
      model,
      dimensions,
      packHashes(entries.map((entry) => entry.chunkHash)),
      vectors,
    ]);
    return result.rows[0]!.inserted;
  }

  /** Uploads files' records and paths (each file hash once; one statement, one transaction); answers how many files were new. */
  async putFiles(team: string, model: string, files: readonly FileRecord[]): Promise<number> {
    const chunkFiles: number[] = [];
    const startLines: number[] = [];
    const endLines: number[] = [];
    const startBytes: number[] = [];
    const endBytes: number[] = [];
    const chunkHashes: string[] = [];
    const pathFiles: number[] = [];
    const maskedPaths: string[] = [];
    files.forEach((file, index) => {
      for (const chunk of file.chunks) {
        chunkFiles.push(index);
        startLines.push(chunk.startLine);
        endLines.push(chunk.endLine);
        startBytes.push(chunk.startByte);
        endBytes.push(chunk.endByte);
        chunkHashes.push(chunk.chunkHash);
      }
      for (const masked of file.maskedPaths) {
        pathFiles.push(index);
        maskedPaths.push(masked);
      }
    });
    const result = await this.call<{ inserted: number }>(
      'put_files',
      'SELECT fathom.put_files($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) AS inserted',
      [
        team,
        model,
        packHashes(files.map((file) => file.fileHash)),
        files.map((file) => file.chunks.length),
        chunkFiles,
        startLines,
        endLines,
        startBytes,
        endBytes,
        packHashes(chunkHashes),
        pathFiles,
        maskedPaths,
      ],
    );
    return result.rows[0]!.inserted;
  }

  /**
   * Records a pushed tree (the same tree again is the row already there); `complete`: the push
   * stored every file of its index (a partial snapshot of the tree becomes complete).
   */
  async putSnapshot(
    team: string,
    model: string,
    snapshot: { merkleRoot: string; simhash: string; fileCount: number; chunkCount: number; complete: boolean },
  ): Promise<{ id: number; created: boolean }> {
    const result = await this.call<{ id: string; created: boolean }>(
      'put_snapshot',
      'SELECT id, created FROM fathom.put_snapshot($1, $2, $3, $4, $5, $6, $7)',
      [team, model, packHashes([snapshot.merkleRoot]), simhashToSql(snapshot.simhash), snapshot.fileCount, snapshot.chunkCount, snapshot.complete],
    );
    return { id: Number(result.rows[0]!.id), created: result.rows[0]!.created };
  }

  /** The tree's complete snapshot (a push that stored every file of its index), if any. */
  async completeSnapshot(team: string, model: string, merkleRoot: string): Promise<{ id: number; chunkCount: number } | undefined> {
    const result = await this.call<{ id: string | null; chunk_count: number | null }>(
      'complete_snapshot',
      'SELECT id, chunk_count FROM fathom.complete_snapshot($1, $2, $3)',
      [team, model, packHashes([merkleRoot])],
    );
    const row = result.rows[0];
    return row?.id == null ? undefined : { id: Number(row.id), chunkCount: row.chunk_count ?? 0 };
  }

  /** How many of these files (by hash) the store holds records of, and their chunks. */
  async heldFiles(team: string, model: string, fileHashes: readonly string[]): Promise<{ files: number; chunks: number }> {
    const held = { files: 0, chunks: 0 };
    const distinct = [...new Set(fileHashes)];
    for (let start = 0; start < distinct.length; start += hashesPerCall) {
      const result = await this.call<{ files: string; chunks: string }>('held_files', 'SELECT files, chunks FROM fathom.held_files($1, $2, $3)', [
        team,
        model,
        packHashes(distinct.slice(start, start + hashesPerCall)),
      ]);
      held.files += Number(result.rows[0]!.files);
      held.chunks += Number(result.rows[0]!.chunks);
    }
    return held;
  }

  /** The records the store holds of these files (by hash); nothing about any other file. */
  async fileRecords(team: string, model: string, fileHashes: readonly string[]): Promise<FileRecord[]> {
    const records = new Map<string, FileRecord>();
    for (let start = 0; start < fileHashes.length; start += hashesPerCall) {
      const result = await this.call<{
        file_hash: Buffer;
        masked_paths: string[] | null;
        ordinal: number | null;
        start_line: number;
        end_line: number;
        start_byte: string;
        end_byte: string;
        chunk_hash: Buffer;
      }>('file_records', 'SELECT * FROM fathom.file_records($1, $2, $3)', [team, model, packHashes(fileHashes.slice(start, start + hashesPerCall))]);
      for (const row of result.rows) {
        const fileHash = row.file_hash.toString('hex');
        let record = records.get(fileHash);
        if (!record) records.set(fileHash, (record = { fileHash, maskedPaths: row.masked_paths ?? [], chunks: [] }));
        if (row.ordinal !== null)
          record.chunks.push({
            startLine: row.start_line,
            endLine: row.end_line,
            startByte: Number(row.start_byte),
            endByte: Number(row.end_byte),
            chunkHash: row.chunk_hash.toString('hex'),
          });
      }
    }
    return [...records.values()];
  }

  /** The vectors of these files' chunks (by file hash), each chunk once; one not `dimensions` numbers is left out. */
  async fileVectors(team: string, model: string, dimensions: number, fileHashes: readonly string[]): Promise<Map<string, Float32Array>> {
    const vectors = new Map<string, Float32Array>();
    for (let start = 0; start < fileHashes.length; start += hashesPerCall) {
      const result = await this.call<{ chunk_hash: Buffer; vector: Buffer }>('file_vectors', 'SELECT chunk_hash, vector FROM fathom.file_vectors($1, $2, $3)', [
        team,
        model,
        packHashes(fileHashes.slice(start, start + hashesPerCall)),
      ]);
      for (const row of result.rows) {
        const vector = vectorsOf(row.vector, 1, dimensions);
        if (vector) vectors.set(row.chunk_hash.toString('hex'), vector instanceof HalfVector ? vector.floats() : vector);
      }
    }
    return vectors;
  }

  /**
   * The records and vectors the store holds of these files (by hash), one row per file (what a
   * join reads: migrations/005-file-packs.ts); nothing about any other file. A file whose packed
   * columns do not agree with its chunk count, or whose vectors are not `dimensions` numbers
   * each, comes back without vectors (left to local embedding). Read with a binary COPY
   * (copy-rows.ts: no hex), each file's vectors copied once out of pg's read buffer.
   */
  async filePacks(team: string, model: string, dimensions: number, fileHashes: readonly string[]): Promise<FilePack[]> {
    const packs: FilePack[] = [];
    const take = slabs();
    for (let start = 0; start < fileHashes.length; start += hashesPerCall) {
      const hashes = packHashes(fileHashes.slice(start, start + hashesPerCall)).toString('hex');
      const select = `SELECT file_hash, chunk_count, ranges, chunk_hashes, vectors FROM fathom.file_packs(${this.client.escapeLiteral(team)}, ${this.client.escapeLiteral(model)}, decode('${hashes}', 'hex'))`;
      try {
        await copyRows(this.client, select, ([fileHash, chunkCount, ranges, chunkHashes, vectors]) => {
          if (!fileHash || chunkCount?.length !== 4) throw new Error('a row without its file hash or chunk count');
          // The row's bytes are pg's read buffer: the vectors are copied out (into memory of their own, aligned).
          const owned = vectors ? take(vectors.length) : null;
          if (vectors && owned) vectors.copy(owned);
          packs.push(
            unpackFile(
              { file_hash: fileHash, chunk_count: chunkCount.readInt32BE(0), ranges: ranges ?? null, chunk_hashes: chunkHashes ?? null, vectors: owned },
              dimensions,
            ),
          );
        });
      } catch (error) {
        throw storeError(this.description, 'file_packs', error);
      }
    }
    return packs;
  }

  /** The team's snapshots of a model nearest to a simhash (Hamming distance), nearest first. */
  async nearestSnapshots(team: string, model: string, simhash: string, k = 5): Promise<Snapshot[]> {
    const result = await this.call<{
      id: string;
      merkle_root: Buffer;
      simhash: string;
      distance: number;
      file_count: number;
      chunk_count: number;
      created_at: Date;
    }>('nearest_snapshots', 'SELECT * FROM fathom.nearest_snapshots($1, $2, $3, $4)', [team, model, simhashToSql(simhash), k]);
    return result.rows.map((row) => ({
      id: Number(row.id),
      merkleRoot: row.merkle_root.toString('hex'),
      simhash: simhashFromSql(row.simhash),
      distance: row.distance,
      fileCount: row.file_count,
      chunkCount: row.chunk_count,
      createdAt: row.created_at.toISOString(),
    }));
  }
}
