// The container every Fathom cache file uses, and the one way they are written. Layout (integers
// little-endian): bytes 0-7 an 8-byte ASCII magic naming the kind of file; 8-11 the format version
// (u32); 12-43 the SHA-256 of the payload; 44- the payload. Writes go to a temporary file that is
// fsynced and renamed over the old one, then the folder is fsynced: a crash leaves the old file or
// the new one, never a torn one. Reading checks magic, version and checksum, so a damaged, foreign
// or old file is reported, never trusted. Large caches use CheckedFileWriter / readCheckedRecords:
// the same container with a payload of length-prefixed records, written and read in pieces; or
// openCheckedRecords: the file left where it lies, checked on a worker thread (checksum-worker.ts)
// while its owner reads what it needs first.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { isVanished } from './errors.js';
import { breathe } from './event-loop.js';
import { syncFolder } from './positioned-io.js';

const headerBytes = 8 + 4 + 32;

export type CheckedRead = { status: 'valid'; payload: Buffer } | { status: 'missing' } | { status: 'corrupt'; reason: string };

export function encodeChecked(magic: string, version: number, payload: Uint8Array): Buffer {
  const header = Buffer.alloc(headerBytes);
  header.write(magic, 0, 8, 'ascii');
  header.writeUInt32LE(version, 8);
  createHash('sha256').update(payload).digest().copy(header, 12);
  return Buffer.concat([header, payload]);
}

export function decodeChecked(bytes: Buffer, magic: string, version: number): CheckedRead {
  if (bytes.length < headerBytes || bytes.toString('ascii', 0, 8) !== magic) return { status: 'corrupt', reason: `not a Fathom ${magic} file` };
  const found = bytes.readUInt32LE(8);
  if (found !== version) return { status: 'corrupt', reason: `format version ${found}, expected ${version}` };
  const payload = bytes.subarray(headerBytes);
  if (!createHash('sha256').update(payload).digest().equals(bytes.subarray(12, headerBytes))) return { status: 'corrupt', reason: 'checksum mismatch' };
  return { status: 'valid', payload };
}

export function readChecked(file: string, magic: string, version: number): CheckedRead {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    if (isVanished(error)) return { status: 'missing' };
    return { status: 'corrupt', reason: `unreadable: ${(error as Error).message}` };
  }
  return decodeChecked(bytes, magic, version);
}

/** Writes `bytes` to `file` atomically: temp file, fsync, rename, fsync of the folder. */
export function writeFileAtomic(file: string, bytes: Uint8Array): void {
  const folder = path.dirname(file);
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  const handle = fs.openSync(temporary, 'w', 0o600);
  try {
    fs.writeSync(handle, bytes);
    fs.fsyncSync(handle);
  } finally {
    fs.closeSync(handle);
  }
  fs.renameSync(temporary, file);
  syncFolder(folder);
}

/**
 * The same container written piece by piece without holding the event loop: a payload made of
 * records (a u32 length, then the bytes), hashed as it goes; the header is written last, then the
 * usual fsync and rename. A crash or an abort leaves the old file.
 */
export class CheckedFileWriter {
  private readonly hash = createHash('sha256');
  private position = headerBytes;
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  private constructor(
    private readonly file: string,
    private readonly temporary: string,
    private readonly handle: fs.promises.FileHandle,
    private readonly magic: string,
    private readonly version: number,
  ) {}

  static async open(file: string, magic: string, version: number): Promise<CheckedFileWriter> {
    await fs.promises.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    // Temporary files a crash left behind (another process's live one is younger than a minute).
    const base = path.basename(file);
    for (const entry of await fs.promises.readdir(path.dirname(file)).catch(() => [] as string[])) {
      if (!entry.startsWith(`${base}.`) || !entry.endsWith('.tmp')) continue;
      const stale = path.join(path.dirname(file), entry);
      const stat = await fs.promises.stat(stale).catch(() => undefined);
      if (stat && Date.now() - stat.mtimeMs > 60_000) await fs.promises.unlink(stale).catch(() => undefined);
    }
    const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
    const handle = await fs.promises.open(temporary, 'w', 0o600);
    return new CheckedFileWriter(file, temporary, handle, magic, version);
  }

  /** Where the next record's length will lie in the file (its bytes 4 further). */
  get offset(): number {
    return this.position + this.pendingBytes;
  }

  /** Appends one record; writes out every 4 MB. */
  async record(bytes: Uint8Array): Promise<void> {
    const length = Buffer.alloc(4);
    length.writeUInt32LE(bytes.length, 0);
    for (const piece of [length, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)]) {
      this.hash.update(piece);
      this.pending.push(piece);
      this.pendingBytes += piece.length;
    }
    if (this.pendingBytes >= 4 * 1024 * 1024) await this.drain();
  }

  private async drain(): Promise<void> {
    if (this.pendingBytes === 0) return;
    const chunk = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    await this.writeAll(chunk, this.position);
    this.position += chunk.length;
  }

  /** Writes every byte (a write may take fewer: the rest follows; no progress is an error). */
  private async writeAll(bytes: Buffer, position: number): Promise<void> {
    for (let done = 0; done < bytes.length;) {
      const { bytesWritten } = await this.handle.write(bytes, done, bytes.length - done, position + done);
      if (bytesWritten <= 0) throw new Error(`could not write ${this.temporary}`);
      done += bytesWritten;
    }
  }

  /** Writes the header, syncs and renames over the file. */
  async commit(): Promise<void> {
    await this.drain();
    const header = Buffer.alloc(headerBytes);
    header.write(this.magic, 0, 8, 'ascii');
    header.writeUInt32LE(this.version, 8);
    this.hash.digest().copy(header, 12);
    await this.writeAll(header, 0);
    await this.handle.sync();
    await this.handle.close();
    await fs.promises.rename(this.temporary, this.file);
    const folder = await fs.promises.open(path.dirname(this.file), 'r');
    try {
      await folder.sync();
    } finally {
      await folder.close();
    }
  }

  /** Leaves the old file as it was. */
  async abort(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    await fs.promises.unlink(this.temporary).catch(() => undefined);
  }
}

export type CheckedOpen =
  | { status: 'valid'; fd: number; size: number; version: number; checked: Promise<string | undefined> }
  | { status: 'missing' }
  | { status: 'corrupt'; reason: string };

/**
 * Opens a file CheckedFileWriter wrote and checks it without holding it in memory: magic, version
 * (`accepts` says which it reads); the whole payload is hashed on a worker thread (read there in
 * 4 MiB pieces) meanwhile: `checked` answers undefined when it holds, else why not. The caller may
 * read records where they lie (positioned reads) before, trusts nothing it read until then, and
 * closes `fd`.
 */
export function openCheckedRecords(file: string, magic: string, accepts: (version: number) => boolean): CheckedOpen {
  const opened = openForReading(file);
  if (typeof opened !== 'number') return opened;
  const fd = opened;
  try {
    const size = fs.fstatSync(fd).size;
    const header = Buffer.alloc(headerBytes);
    if (size < headerBytes || fs.readSync(fd, header, 0, headerBytes, 0) !== headerBytes || header.toString('ascii', 0, 8) !== magic)
      return close(fd, { status: 'corrupt', reason: `not a Fathom ${magic} file` });
    const version = header.readUInt32LE(8);
    if (!accepts(version)) return close(fd, { status: 'corrupt', reason: `format version ${version} is not read here` });
    // Hashed on a worker thread, the bytes read there too (by path: a writer renames a new file
    // over this one, and a file hashed that is not this descriptor's fails the header's checksum).
    const checked = hashOffThread(file, headerBytes).then(
      (digest) =>
        digest.size !== size
          ? 'the file changed while it was checked'
          : digest.digest.equals(header.subarray(12, headerBytes))
            ? undefined
            : 'checksum mismatch',
      (error: Error) => `unreadable: ${error.message}`,
    );
    return { status: 'valid', fd, size, version, checked };
  } catch (error) {
    return close(fd, { status: 'corrupt', reason: `unreadable: ${(error as Error).message}` });
  }
}

/** A cache file's descriptor, opened to read; 'missing' when it is not there, 'corrupt' when it cannot be read. */
export function openForReading(file: string): number | { status: 'missing' } | { status: 'corrupt'; reason: string } {
  try {
    return fs.openSync(file, 'r');
  } catch (error) {
    if (isVanished(error)) return { status: 'missing' };
    return { status: 'corrupt', reason: `unreadable: ${(error as Error).message}` };
  }
}

/** SHA-256 of a file's bytes from `from` to its end, on a worker thread; with the size it had then. */
function hashOffThread(file: string, from: number): Promise<{ digest: Buffer; size: number }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./checksum-worker.js', import.meta.url), { workerData: { file, from } });
    worker.once('message', (answer: { digest?: Uint8Array; size?: number; error?: string }) => {
      void worker.terminate();
      if (answer.error !== undefined || !answer.digest) reject(new Error(answer.error ?? 'no digest'));
      else resolve({ digest: Buffer.from(answer.digest), size: answer.size ?? -1 });
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the checksum worker exited with code ${code}`)));
  });
}

function close<T>(fd: number, answer: T): T {
  fs.closeSync(fd);
  return answer;
}

export type CheckedRecords = { status: 'valid'; records: Buffer[] } | { status: 'missing' } | { status: 'corrupt'; reason: string };

/**
 * Reads a file CheckedFileWriter wrote: magic, version, then the records while hashing them, a
 * pause every ~20 ms so other work runs; the records are answered only when the checksum holds.
 */
export async function readCheckedRecords(file: string, magic: string, version: number): Promise<CheckedRecords> {
  let bytes: Buffer;
  try {
    bytes = await fs.promises.readFile(file);
  } catch (error) {
    if (isVanished(error)) return { status: 'missing' };
    return { status: 'corrupt', reason: `unreadable: ${(error as Error).message}` };
  }
  if (bytes.length < headerBytes || bytes.toString('ascii', 0, 8) !== magic) return { status: 'corrupt', reason: `not a Fathom ${magic} file` };
  const found = bytes.readUInt32LE(8);
  if (found !== version) return { status: 'corrupt', reason: `format version ${found}, expected ${version}` };
  const hash = createHash('sha256');
  const records: Buffer[] = [];
  let last = performance.now();
  for (let at = headerBytes; at < bytes.length;) {
    if (at + 4 > bytes.length) return { status: 'corrupt', reason: 'a record is cut short' };
    const length = bytes.readUInt32LE(at);
    if (at + 4 + length > bytes.length) return { status: 'corrupt', reason: 'a record is cut short' };
    hash.update(bytes.subarray(at, at + 4 + length));
    records.push(bytes.subarray(at + 4, at + 4 + length));
    at += 4 + length;
    if (performance.now() - last > 20) {
      await breathe();
      last = performance.now();
    }
  }
  if (!hash.digest().equals(bytes.subarray(12, headerBytes))) return { status: 'corrupt', reason: 'checksum mismatch' };
  return { status: 'valid', records };
}
