// Positioned, complete reads and writes on file descriptors (a single read or write may move fewer
// bytes than asked: the rest follows, and no progress is an error), sequential writes gathered into
// large ones (SequentialWriter), and the fsync of a folder that makes a rename durable.
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
 * Writes that follow each other from `start` on, gathered into blocks of `blockBytes` (one write
 * each): a file of millions of small pieces (a posting list of one word) costs a few hundred
 * writes, not millions of system calls. `flush` before anything else writes to the file.
 */
export class SequentialWriter {
  private readonly block: Buffer;
  private used = 0;
  private written: number;

  constructor(
    private readonly fd: number,
    start: number,
    blockBytes = 4 << 20,
  ) {
    this.block = Buffer.allocUnsafe(blockBytes);
    this.written = start;
  }

  /** Where the next byte goes. */
  get position(): number {
    return this.written + this.used;
  }

  write(data: Uint8Array): void {
    if (data.length > this.block.length - this.used) this.flush();
    if (data.length >= this.block.length) {
      writeAll(this.fd, data, this.written);
      this.written += data.length;
      return;
    }
    this.block.set(data, this.used);
    this.used += data.length;
  }

  flush(): void {
    if (this.used === 0) return;
    writeAll(this.fd, this.block.subarray(0, this.used), this.written);
    this.written += this.used;
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

/** Fsyncs a folder, so that a rename into it survives a crash. */
export function syncFolder(folder: string): void {
  const handle = fs.openSync(folder, 'r');
  try {
    fs.fsyncSync(handle);
  } finally {
    fs.closeSync(handle);
  }
}
