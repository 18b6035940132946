// The 64-bit simhash of a tree's leaves, by which a workspace finds the team's snapshot most like
// it (nearest by Hamming distance: migrations/001-store.ts `nearest_snapshots`). The leaves are
// the distinct content hashes of the tree's files (not their paths: the store is by content, and
// a moved file is the same leaf); each leaf votes +1 or -1 on every bit by the bits of its first 8
// bytes (a SHA-256 is uniform already), and a bit is set where the votes are more than half for.
// Trees that share most files get simhashes a few bits apart; unrelated trees about 32 apart.
// Pure; used by push.ts and status.ts.

/** The simhash of the leaves (hex SHA-256 content hashes) as 16 hex digits; 0 for none. */
export function leafSimhash(leaves: Iterable<string>): string {
  const votes = new Int32Array(64);
  for (const leaf of new Set(leaves)) {
    for (let byte = 0; byte < 8; byte++) {
      const value = Number.parseInt(leaf.slice(byte * 2, byte * 2 + 2), 16);
      for (let bit = 0; bit < 8; bit++) votes[byte * 8 + bit]! += (value >> (7 - bit)) & 1 ? 1 : -1;
    }
  }
  let hash = 0n;
  for (let bit = 0; bit < 64; bit++) if (votes[bit]! > 0) hash |= 1n << BigInt(63 - bit);
  return hash.toString(16).padStart(16, '0');
}

/** The number of bits two simhashes differ in. */
export function hammingDistance(a: string, b: string): number {
  let x = BigInt(`0x${a}`) ^ BigInt(`0x${b}`);
  let count = 0;
  while (x > 0n) {
    count += Number(x & 1n);
    x >>= 1n;
  }
  return count;
}
