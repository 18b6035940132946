// msgpackr remembers the buffer it last unpacked from (a module-level DataView over the whole
// ArrayBuffer beneath it) until the next unpack anywhere in the process. A cache file read as one
// buffer and unpacked record by record therefore stayed in memory after its load, whatever its
// records were copied into: the kernel's graph.bin held 420 MB of the daemon's RSS (bench/RESULTS.md).
// A loader calls `releaseUnpackSource` once it has unpacked its last record: one byte is unpacked
// so that msgpackr lets the file's buffer go.
import { unpack } from 'msgpackr';

const nil = Uint8Array.of(0xc0);

export function releaseUnpackSource(): void {
  unpack(nil);
}
