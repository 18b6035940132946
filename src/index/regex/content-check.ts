// The content store's checksums: a CRC-32 of every `contentBlockBytes` (4 KiB) block of a
// `regex-content-*.bin` file (the last block may be shorter), written with the store and kept in
// its index's meta (regex-store.ts). A block is checked the first time a search reads any of it
// in this process (each daemon checks what it reads once: a byte flipped on disk, a truncated or
// torn store is caught before its lines are matched); which blocks passed is kept in shared
// memory, so the grep workers and the daemon's thread check each block once between them. A
// block that fails throws ContentDamaged: the search is answered from the files on disk and the
// generation is rebuilt (regex-index.ts); nothing is ever answered from damaged bytes.
import fs from 'node:fs';
import zlib from 'node:zlib';

/**
 * Bytes a checksum covers: small, so that the first read of a short range reads and checks little
 * more than it (the blocks at a window's ends are read with it); 231,000 checksums for the kernel.
 */
export const contentBlockBytes = 4 * 1024;

/** What a reader needs to check a content store (shared memory: posted to workers without a copy). */
export interface ContentCheck {
  blockBytes: number;
  /** The size of the store the checksums are for. */
  contentBytes: number;
  crcs: Uint32Array;
  /** 1 for a block that passed in this process. */
  verified: Uint8Array;
}

export class ContentDamaged extends Error {
  constructor(
    readonly store: number,
    readonly block: number,
    reason: string,
  ) {
    super(`the regex content store ${store} is damaged at block ${block}: ${reason}`);
    this.name = 'ContentDamaged';
  }
}

/** The checksums of a store as it is written, block by block. */
export class BlockChecksums {
  private readonly done: number[] = [];
  private running = 0;
  private filled = 0;

  constructor(private readonly blockBytes: number = contentBlockBytes) {}

  add(bytes: Uint8Array): void {
    for (let at = 0; at < bytes.length;) {
      const take = Math.min(this.blockBytes - this.filled, bytes.length - at);
      this.running = zlib.crc32(bytes.subarray(at, at + take), this.running);
      this.filled += take;
      at += take;
      if (this.filled === this.blockBytes) {
        this.done.push(this.running);
        this.running = 0;
        this.filled = 0;
      }
    }
  }

  finish(): Uint32Array {
    if (this.filled > 0) this.done.push(this.running);
    this.running = 0;
    this.filled = 0;
    return Uint32Array.from(this.done);
  }
}

/** A check over `crcs` with nothing verified yet, in shared memory. */
export function newContentCheck(crcs: Uint32Array, blockBytes: number, contentBytes: number): ContentCheck {
  const shared = new Uint32Array(new SharedArrayBuffer(crcs.byteLength));
  shared.set(crcs);
  return { blockBytes, contentBytes, crcs: shared, verified: new Uint8Array(new SharedArrayBuffer(crcs.length)) };
}

/** Forgets which blocks passed: each is checked again when next read (`fathom index`). */
export function forgetVerified(check: ContentCheck): void {
  check.verified.fill(0);
}

let scratch: Buffer | undefined;

/**
 * Checks the blocks overlapping [start, start + bytes.length) of store `store` that no one has
 * checked yet: from `bytes` where a block lies wholly inside them, else read whole from `fd`.
 * Throws ContentDamaged on the first that fails.
 */
export function checkRead(check: ContentCheck, fd: number, store: number, start: number, bytes: Uint8Array): void {
  const { blockBytes, verified, crcs, contentBytes } = check;
  const end = start + bytes.length;
  const last = Math.ceil(end / blockBytes);
  for (let block = Math.floor(start / blockBytes); block < last; block++) {
    if (verified[block] === 1) continue;
    const from = block * blockBytes;
    const to = Math.min(from + blockBytes, contentBytes);
    if (block >= crcs.length || to <= from) throw new ContentDamaged(store, block, 'past the end of its checksums');
    let crc: number;
    if (from >= start && to <= end) crc = zlib.crc32(bytes.subarray(from - start, to - start));
    else {
      if (!scratch || scratch.length < blockBytes) scratch = Buffer.allocUnsafeSlow(blockBytes);
      const length = to - from;
      let done = 0;
      while (done < length) {
        const read = fs.readSync(fd, scratch, done, length - done, from + done);
        if (read <= 0) throw new ContentDamaged(store, block, 'the file ends early');
        done += read;
      }
      crc = zlib.crc32(scratch.subarray(0, length));
    }
    if (crc !== crcs[block]) throw new ContentDamaged(store, block, 'checksum mismatch');
    verified[block] = 1;
  }
}
