// A one-shot worker thread that hashes a file's bytes from an offset to its end (SHA-256, read in
// 4 MiB pieces) and posts the digest: checked-file.ts's openCheckedRecords checks a large cache
// file (the kernel's 520 MB graph.bin: ~0.4 s of hashing) without taking the daemon's thread.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

const { file, from } = workerData as { file: string; from: number };
try {
  const fd = fs.openSync(file, 'r');
  try {
    const hash = createHash('sha256');
    const piece = Buffer.allocUnsafe(4 << 20);
    for (let at = from; ;) {
      const read = fs.readSync(fd, piece, 0, piece.length, at);
      if (read <= 0) break;
      hash.update(piece.subarray(0, read));
      at += read;
    }
    parentPort!.postMessage({ digest: hash.digest(), size: fs.fstatSync(fd).size });
  } finally {
    fs.closeSync(fd);
  }
} catch (error) {
  parentPort!.postMessage({ error: (error as Error).message });
}
