// Byte trigrams: the keys of the regex index. Text is indexed as UTF-8 bytes with ASCII letters
// folded to lower case, so one index serves case-sensitive and case-insensitive queries (a
// case-sensitive query simply verifies more candidates). A key is b0 << 16 | b1 << 8 | b2.

const fold = new Uint8Array(256).map((_, byte) => (byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte));

/** The bitmap `rangeTrigrams` dedupes with: 2^24 bits (2 MiB), one allocation for a whole build. */
export function newTrigramBitmap(): Uint8Array {
  return new Uint8Array(1 << 21);
}

/** The distinct trigram keys of a literal (as the index folds it) that a piece holding it must hold; empty when it is under 3 bytes. */
export function literalTrigrams(literal: string): number[] {
  const bytes = Buffer.from(literal, 'utf8');
  const keys = new Set<number>();
  for (let index = 2; index < bytes.length; index++) {
    // Pieces are cut after a '\n': a trigram with a '\n' before its last byte may straddle a cut,
    // and no piece then holds it. Such trigrams are not looked up.
    if (bytes[index - 2] === 10 || bytes[index - 1] === 10) continue;
    keys.add((fold[bytes[index - 2]!]! << 16) | (fold[bytes[index - 1]!]! << 8) | fold[bytes[index]!]!);
  }
  return [...keys];
}

/**
 * Writes the distinct trigram keys of bytes[start, end) into `out` (room for end - start keys) and
 * returns how many. `seen` comes from `newTrigramBitmap` and is left cleared.
 */
export function rangeTrigrams(bytes: Uint8Array, start: number, end: number, seen: Uint8Array, out: Uint32Array): number {
  if (end - start < 3) return 0;
  let count = 0;
  let key = (fold[bytes[start]!]! << 8) | fold[bytes[start + 1]!]!;
  for (let index = start + 2; index < end; index++) {
    key = ((key << 8) | fold[bytes[index]!]!) & 0xffffff;
    const slot = key >>> 3;
    const bit = 1 << (key & 7);
    if ((seen[slot]! & bit) !== 0) continue;
    seen[slot]! |= bit;
    out[count++] = key;
  }
  for (let index = 0; index < count; index++) seen[out[index]! >>> 3] = 0;
  return count;
}
