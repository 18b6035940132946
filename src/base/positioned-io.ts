// Positioned, complete reads and writes on file descriptors (a single read or write may move fewer
// bytes than asked: the rest follows, and no progress is an error), sequential writes gathered into
// large ones (BufferedWriter), and the fsync of a folder that makes a rename durable.
import fs from 'node:fs';

/** Writes every byte of `data` at `position`. */
export function writeAll(fd: number, data: Uint8Array, position: number): void {
  for (let done = 0; done < data.length;) {
    const written = fs.writeSync(fd, data, done, data.length - done, position + done);
    if (written <= 0) throw new Error('short write');
    done += written;
  }
}

/**
 * Appends bytes to a file from `position` on through a buffer (one write per `size` bytes): the
 * regex index's postings and content store, chunks.bin's posting lists (a kernel term of one
 * chunk is 4 bytes: millions of them cost a few hundred writes, not millions of system calls).
 */
export class BufferedWriter {
  private readonly buffer: Buffer;
  private used = 0;
  constructor(
    private readonly fd: number,
    public position: number,
    size = 4 << 20,
  ) {
    this.buffer = Buffer.allocUnsafe(size);
  }

  byte(value: number): void {
    if (this.used === this.buffer.length) this.flush();
    this.buffer[this.used++] = value;
  }

  varint(value: number): void {
    while (value >= 0x80) {
      this.byte((value & 0x7f) | 0x80);
      value = Math.floor(value / 128);
    }
    this.byte(value);
  }

  bytes(data: Uint8Array): void {
    if (data.length > this.buffer.length - this.used) this.flush();
    if (data.length > this.buffer.length) {
      writeAll(this.fd, data, this.position);
      this.position += data.length;
      return;
    }
    this.buffer.set(data, this.used);
    this.used += data.length;
  }

  /** Bytes written through this writer so far, buffered ones included. */
  get end(): number {
    return this.position + this.used;
  }

  flush(): void {
    if (this.used === 0) return;
    writeAll(this.fd, this.buffer.subarray(0, this.used), this.position);
    this.position += this.used;
    this.used = 0;
  }
}

/** Reads exactly `length` bytes at `position`; a file that ends before is an error. */
export function readExactly(fd: number, length: number, position: number): Buffer {
  return readExactlyInto(fd, Buffer.allocUnsafe(length), length, position);
}

/** Reads exactly `length` bytes at `position` into the start of `target`; answers that part of it. */
export function readExactlyInto(fd: number, target: Buffer, length: number, position: number): Buffer {
  if (length > target.length) throw new RangeError(`a read of ${length} bytes into ${target.length}`);
  for (let done = 0; done < length;) {
    const read = fs.readSync(fd, target, done, length - done, position + done);
    if (read <= 0) throw new Error(`file ends at ${position + done}, expected ${position + length}`);
    done += read;
  }
  return target.subarray(0, length);
}

/**
 * Reads exactly `target.length` bytes at `position` into `target` on libuv's pool (a large read's
 * page faults and copy stay off this thread); a file that ends first is an error saying where.
 */
export async function readExactlyAsync(fd: number, target: Uint8Array, position: number): Promise<void> {
  for (let done = 0; done < target.length;) {
    const read = await new Promise<number>((resolve, reject) =>
      fs.read(fd, target, done, target.length - done, position + done, (error, bytes) => (error ? reject(error) : resolve(bytes))),
    );
    if (read <= 0) throw new Error(`file ends at ${position + done}, expected ${position + target.length}`);
    done += read;
  }
}

/** Fsyncs a folder, so that a rename into it survives a crash. */
export function syncFolder(folder: string): void {
  const handle = fs.openSync(folder, 'r');
  try {
    fs.fsyncSync(handle);
  } finally {
    fs.closeSync(handle);
  }
}
