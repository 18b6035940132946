// Embeddings on disk, per model, keyed by the SHA-256 of a chunk's text: a chunk embedded once is
// never embedded again, whatever workspace, path or branch it shows up in (a renamed file's
// chunks keep their vectors; their headers are not part of the key, so a renamed file keeps the
// vector embedded under its old path until its text changes). One append-only log per model,
// shared by every workspace:
//   bytes 0-7 "FTHMVEC1", 8-11 dimensions (u32 LE), 12-15 zero
//   records:  key (32 bytes) | vector (dimensions × f32 LE) | check (the first 4 bytes of the
//             SHA-256 of key and vector)
// A record that fails its check, or is cut short (a crash while appending), ends the log: it is
// truncated there when opened. Vectors stay on disk; the cache holds key → offset in memory.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { log } from '../../base/logger.js';

const magic = 'FTHMVEC1';
const headerBytes = 16;

export class EmbeddingCache {
  private readonly offsets = new Map<string, number>();
  private fd: number;
  private size: number;
  private readonly recordBytes: number;

  private constructor(
    readonly file: string,
    readonly dimensions: number,
  ) {
    this.recordBytes = 32 + dimensions * 4 + 4;
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    this.fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o600);
    this.size = fs.fstatSync(this.fd).size;
    if (this.size < headerBytes || !this.headerMatches()) this.reset();
    this.scan();
  }

  /** Opens (or starts) the log of a model whose vectors have `dimensions` numbers. */
  static open(folder: string, modelId: string, dimensions: number): EmbeddingCache {
    return new EmbeddingCache(path.join(folder, `${modelId}.vec`), dimensions);
  }

  private headerMatches(): boolean {
    const header = Buffer.alloc(headerBytes);
    fs.readSync(this.fd, header, 0, headerBytes, 0);
    if (header.toString('ascii', 0, 8) === magic && header.readUInt32LE(8) === this.dimensions) return true;
    log.warn(`embedding cache ${this.file}: another format or dimension count; starting it again`);
    return false;
  }

  private reset(): void {
    fs.ftruncateSync(this.fd, 0);
    const header = Buffer.alloc(headerBytes);
    header.write(magic, 0, 'ascii');
    header.writeUInt32LE(this.dimensions, 8);
    fs.writeSync(this.fd, header, 0, headerBytes, 0);
    this.size = headerBytes;
  }

  private scan(): void {
    const batch = 4096;
    const buffer = Buffer.alloc(this.recordBytes * batch);
    let at = headerBytes;
    outer: while (at < this.size) {
      const read = fs.readSync(this.fd, buffer, 0, buffer.length, at);
      const records = Math.floor(read / this.recordBytes);
      if (records === 0) break;
      for (let record = 0; record < records; record++) {
        const start = record * this.recordBytes;
        const body = buffer.subarray(start, start + this.recordBytes - 4);
        const check = buffer.subarray(start + this.recordBytes - 4, start + this.recordBytes);
        if (!createHash('sha256').update(body).digest().subarray(0, 4).equals(check)) break outer;
        this.offsets.set(body.subarray(0, 32).toString('hex'), at + start + 32);
      }
      at += records * this.recordBytes;
      if (records < batch) break;
    }
    if (at < this.size) {
      log.warn(`embedding cache ${this.file}: ${this.size - at} bytes after the last whole record dropped`);
      fs.ftruncateSync(this.fd, at);
      this.size = at;
    }
  }

  get count(): number {
    return this.offsets.size;
  }

  has(key: string): boolean {
    return this.offsets.has(key);
  }

  /** The vector of a key (hex SHA-256), read from disk; undefined when not cached. */
  get(key: string): Float32Array | undefined {
    const offset = this.offsets.get(key);
    if (offset === undefined) return undefined;
    const bytes = Buffer.alloc(this.dimensions * 4);
    fs.readSync(this.fd, bytes, 0, bytes.length, offset);
    return new Float32Array(bytes.buffer, bytes.byteOffset, this.dimensions);
  }

  /** Appends vectors (one write for the batch); a key already cached is skipped. */
  putAll(entries: ReadonlyArray<{ key: string; vector: Float32Array }>): void {
    const fresh = entries.filter((entry, index) => !this.offsets.has(entry.key) && entries.findIndex((other) => other.key === entry.key) === index);
    if (fresh.length === 0) return;
    const buffer = Buffer.alloc(fresh.length * this.recordBytes);
    fresh.forEach((entry, index) => {
      if (entry.vector.length !== this.dimensions) throw new Error(`a vector of ${entry.vector.length} numbers in a cache of ${this.dimensions}`);
      const start = index * this.recordBytes;
      Buffer.from(entry.key, 'hex').copy(buffer, start);
      Buffer.from(entry.vector.buffer, entry.vector.byteOffset, entry.vector.byteLength).copy(buffer, start + 32);
      createHash('sha256').update(buffer.subarray(start, start + this.recordBytes - 4)).digest().copy(buffer, start + this.recordBytes - 4, 0, 4);
    });
    fs.writeSync(this.fd, buffer, 0, buffer.length, this.size);
    fresh.forEach((entry, index) => this.offsets.set(entry.key, this.size + index * this.recordBytes + 32));
    this.size += buffer.length;
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}
