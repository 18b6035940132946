// Embeddings on disk, per model, keyed by the SHA-256 of a chunk's text: a chunk embedded once is
// never embedded again, whatever workspace, path or branch it shows up in (a renamed file's
// chunks keep their vectors; their headers are not part of the key, so a renamed file keeps the
// vector embedded under its old path until its text changes). One append-only log per model,
// shared by every workspace:
//   bytes 0-7 "FTHMVEC1", 8-11 dimensions (u32 LE), 12-15 zero
//   records:  key (32 bytes) | vector (dimensions × f32 LE) | check (the first 4 bytes of the
//             SHA-256 of key and vector)
// Records have one size, so record k sits at 16 + k × size. Appends are single O_APPEND writes of
// whole records (several daemons may share the log: each places its batch atomically at the end,
// then indexes everything new from where it last read; when the log ends just after its own
// batch, which began where it last read, nobody else wrote, and the batch is indexed unread). Opening drops a misaligned tail (a crash
// in the middle of a write) and starts a log with another header again (magic, dimensions, the
// zero bytes); a log found shorter than when last read is indexed again from the start; reading a
// vector checks its record (key and check bytes) and answers undefined for one that fails, so the
// chunk is embedded again (the good record appended later is the one the next open indexes). A
// record whose key bytes are damaged is indexed under a key no chunk has: never read, its chunk
// embedded again. Vectors stay on disk; the cache holds key → offset in memory, indexed on first use
// (not on open: the kernel's log is over a gigabyte, and a restarted daemon's first semantic search
// needs no cached vector, only a sync does).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { log } from '../../base/logger.js';

const magic = 'FTHMVEC1';
const headerBytes = 16;

export class EmbeddingCache {
  private readonly offsets = new Map<string, number>();
  private readonly fd: number;
  /** Where the next scan starts (everything before it is indexed). */
  private scanned = headerBytes;
  /** Whether the log has been indexed once (on first use). */
  private indexed = false;
  private readonly recordBytes: number;

  private constructor(
    readonly file: string,
    readonly dimensions: number,
  ) {
    this.recordBytes = 32 + dimensions * 4 + 4;
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    this.createIfMissing();
    this.fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_APPEND);
    let size = fs.fstatSync(this.fd).size;
    if (size < headerBytes || !this.headerMatches()) this.reset();
    else if ((size - headerBytes) % this.recordBytes !== 0) {
      // Another daemon's append may be landing this instant: look again before calling it torn.
      const waitUntil = Date.now() + 50;
      while (Date.now() < waitUntil && (size - headerBytes) % this.recordBytes !== 0) size = fs.fstatSync(this.fd).size;
      if ((size - headerBytes) % this.recordBytes !== 0) {
        const aligned = size - ((size - headerBytes) % this.recordBytes);
        log.warn(`embedding cache ${this.file}: ${size - aligned} bytes of a record cut short dropped`);
        fs.ftruncateSync(this.fd, aligned);
      }
    }
  }

  /** Opens (or starts) the log of a model whose vectors have `dimensions` numbers. */
  static open(folder: string, modelId: string, dimensions: number): EmbeddingCache {
    return new EmbeddingCache(path.join(folder, `${modelId}.vec`), dimensions);
  }

  /** A new log gets its header through a temporary file and a link: two daemons creating it at once make one header. */
  private createIfMissing(): void {
    if (fs.existsSync(this.file)) return;
    const header = Buffer.alloc(headerBytes);
    header.write(magic, 0, 'ascii');
    header.writeUInt32LE(this.dimensions, 8);
    const temporary = `${this.file}.${process.pid}.${Date.now()}.tmp`;
    fs.writeFileSync(temporary, header, { mode: 0o600 });
    try {
      fs.linkSync(temporary, this.file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      fs.rmSync(temporary, { force: true });
    }
  }

  private headerMatches(): boolean {
    const header = Buffer.alloc(headerBytes);
    fs.readSync(this.fd, header, 0, headerBytes, 0);
    if (header.toString('ascii', 0, 8) === magic && header.readUInt32LE(8) === this.dimensions && header.readUInt32LE(12) === 0) return true;
    log.warn(`embedding cache ${this.file}: another format or dimension count; starting it again`);
    return false;
  }

  private reset(): void {
    fs.ftruncateSync(this.fd, 0);
    const header = Buffer.alloc(headerBytes);
    header.write(magic, 0, 'ascii');
    header.writeUInt32LE(this.dimensions, 8);
    fs.writeSync(this.fd, header);
    this.scanned = headerBytes;
  }

  /**
   * Indexes the log before a sync needs it, a slice of records at a time with the event loop
   * served between slices: on the kernel the log is ~1.3 GB, and indexing it in one go (what the
   * first lookup does otherwise) held the daemon's thread 1.7 s after a restart.
   */
  async indexInSlices(): Promise<void> {
    if (this.indexed) return;
    // ~25 ms of this thread a slice here (16,384 were ~100 ms: a request waited that long behind one).
    const sliceRecords = 4_096;
    while (!this.indexed) {
      const end = fs.fstatSync(this.fd).size;
      const whole = end - ((end - headerBytes) % this.recordBytes);
      // The last slice (or a log cut short under us) is left to scan(), which finishes the job.
      if (whole < this.scanned || whole - this.scanned <= sliceRecords * this.recordBytes) return this.scan();
      this.scanRecords(this.scanned + sliceRecords * this.recordBytes);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Indexes the whole records between the last scan and the end of the file (the keys only). */
  private scan(): void {
    this.indexed = true;
    const end = fs.fstatSync(this.fd).size;
    if (end < this.scanned) {
      // Cut short under us (by hand, or a daemon that found it damaged): what it holds now is indexed again.
      log.warn(`embedding cache ${this.file}: ${this.scanned - end} bytes fewer than when last read; indexing it again`);
      this.offsets.clear();
      this.scanned = headerBytes;
      if (end < headerBytes) this.reset();
    }
    this.scanRecords(end - ((end - headerBytes) % this.recordBytes));
  }

  /** Indexes the records from the last scan up to `whole` (a record boundary). */
  private scanRecords(whole: number): void {
    // Every append scans (another daemon may have written): most scans find only what this one
    // wrote, so the buffer is sized to what is there, never zeroed (only bytes read are looked at).
    if (this.scanned >= whole) return;
    const batch = 4096;
    const buffer = Buffer.allocUnsafe(Math.min(this.recordBytes * batch, whole - this.scanned));
    while (this.scanned < whole) {
      const want = Math.min(buffer.length, whole - this.scanned);
      const read = fs.readSync(this.fd, buffer, 0, want, this.scanned);
      const records = Math.floor(read / this.recordBytes);
      if (records === 0) break;
      for (let record = 0; record < records; record++) {
        const start = record * this.recordBytes;
        this.offsets.set(buffer.toString('hex', start, start + 32), this.scanned + start);
      }
      this.scanned += records * this.recordBytes;
    }
  }

  get count(): number {
    if (!this.indexed) this.scan();
    return this.offsets.size;
  }

  has(key: string): boolean {
    if (!this.indexed) this.scan();
    return this.offsets.has(key);
  }

  /** The vector of a key (hex SHA-256), read from disk and checked; undefined when not cached or damaged. */
  get(key: string): Float32Array | undefined {
    if (!this.indexed) this.scan();
    const offset = this.offsets.get(key);
    if (offset === undefined) return undefined;
    const record = Buffer.alloc(this.recordBytes);
    fs.readSync(this.fd, record, 0, this.recordBytes, offset);
    const body = record.subarray(0, this.recordBytes - 4);
    if (
      record.toString('hex', 0, 32) !== key ||
      !createHash('sha256')
        .update(body)
        .digest()
        .subarray(0, 4)
        .equals(record.subarray(this.recordBytes - 4))
    ) {
      log.debug(`embedding cache ${this.file}: a damaged record for ${key.slice(0, 12)}; it will be embedded again`);
      this.offsets.delete(key);
      return undefined;
    }
    const vector = new Float32Array(this.dimensions);
    new Uint8Array(vector.buffer).set(record.subarray(32, 32 + this.dimensions * 4));
    return vector;
  }

  /** Appends vectors (one write for the batch); a key already cached is skipped. */
  putAll(entries: ReadonlyArray<{ key: string; vector: Float32Array }>): void {
    this.scan();
    const keys = new Set<string>();
    const fresh = entries.filter((entry) => !this.offsets.has(entry.key) && !keys.has(entry.key) && keys.add(entry.key));
    if (fresh.length === 0) return;
    const buffer = Buffer.allocUnsafe(fresh.length * this.recordBytes);
    fresh.forEach((entry, index) => {
      if (entry.vector.length !== this.dimensions) throw new Error(`a vector of ${entry.vector.length} numbers in a cache of ${this.dimensions}`);
      const start = index * this.recordBytes;
      if (buffer.write(entry.key, start, 32, 'hex') !== 32) throw new Error(`not a SHA-256 key: ${entry.key.slice(0, 80)}`);
      buffer.set(new Uint8Array(entry.vector.buffer, entry.vector.byteOffset, entry.vector.byteLength), start + 32);
      createHash('sha256')
        .update(buffer.subarray(start, start + this.recordBytes - 4))
        .digest()
        .copy(buffer, start + this.recordBytes - 4, 0, 4);
    });
    const from = this.scanned;
    const written = fs.writeSync(this.fd, buffer); // O_APPEND: placed at the end, whole
    if (written !== buffer.length) {
      // A short write (a full disk): the tail is torn; the next open drops it.
      this.scan();
      throw new Error(`embedding cache ${this.file}: wrote ${written} of ${buffer.length} bytes`);
    }
    // The log ends just after this batch, which began where the last scan ended: nobody else
    // wrote meanwhile, so the batch's records are where they were written (not read back).
    if (fs.fstatSync(this.fd).size === from + buffer.length) {
      fresh.forEach((entry, index) => this.offsets.set(entry.key, from + index * this.recordBytes));
      this.scanned = from + buffer.length;
    } else this.scan();
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}
