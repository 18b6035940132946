// The trigram → file-id inverted index. Built by appending ids in increasing order per trigram,
// each list delta + varint encoded as it grows; frozen into three flat arrays (sorted keys, offsets
// into one byte array, the bytes). Invariant: every list is strictly increasing file ids.

interface GrowingList {
  bytes: Uint8Array;
  length: number;
  last: number;
  count: number;
}

function writeVarint(list: GrowingList, value: number): void {
  while (list.length + 5 > list.bytes.length) {
    const grown = new Uint8Array(list.bytes.length * 2);
    grown.set(list.bytes.subarray(0, list.length));
    list.bytes = grown;
  }
  while (value >= 0x80) {
    list.bytes[list.length++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  list.bytes[list.length++] = value;
}

export class PostingsBuilder {
  private readonly lists = new Map<number, GrowingList>();

  /** Adds `fileId` to the list of `key`; ids must be added in increasing order. */
  add(key: number, fileId: number): void {
    let list = this.lists.get(key);
    if (!list) {
      list = { bytes: new Uint8Array(8), length: 0, last: -1, count: 0 };
      this.lists.set(key, list);
    }
    writeVarint(list, fileId - list.last - 1);
    list.last = fileId;
    list.count += 1;
  }

  freeze(): Postings {
    const keys = Uint32Array.from(this.lists.keys()).sort();
    const offsets = new Uint32Array(keys.length + 1);
    const counts = new Uint32Array(keys.length);
    let total = 0;
    keys.forEach((key, index) => {
      offsets[index] = total;
      total += this.lists.get(key)!.length;
    });
    offsets[keys.length] = total;
    const bytes = new Uint8Array(total);
    keys.forEach((key, index) => {
      const list = this.lists.get(key)!;
      bytes.set(list.bytes.subarray(0, list.length), offsets[index]!);
      counts[index] = list.count;
    });
    this.lists.clear();
    return new Postings(keys, offsets, counts, bytes);
  }
}

export class Postings {
  constructor(
    readonly keys: Uint32Array,
    readonly offsets: Uint32Array,
    readonly counts: Uint32Array,
    readonly bytes: Uint8Array,
  ) {}

  private slot(key: number): number {
    let low = 0;
    let high = this.keys.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const value = this.keys[middle]!;
      if (value === key) return middle;
      if (value < key) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  }

  /** How many files hold `key` (0 if none): lets a plan intersect the rarest lists first. */
  count(key: number): number {
    const slot = this.slot(key);
    return slot < 0 ? 0 : this.counts[slot]!;
  }

  /** The sorted file ids that hold `key`. */
  list(key: number): Uint32Array {
    const slot = this.slot(key);
    if (slot < 0) return new Uint32Array(0);
    const out = new Uint32Array(this.counts[slot]!);
    let position = this.offsets[slot]!;
    let previous = -1;
    for (let index = 0; index < out.length; index++) {
      let value = 0;
      let shift = 0;
      let byte: number;
      do {
        byte = this.bytes[position++]!;
        value += (byte & 0x7f) * 2 ** shift;
        shift += 7;
      } while (byte & 0x80);
      previous = previous + 1 + value;
      out[index] = previous;
    }
    return out;
  }

  get byteSize(): number {
    return this.keys.byteLength + this.offsets.byteLength + this.counts.byteLength + this.bytes.byteLength;
  }
}

/** Intersection of two sorted id lists. */
export function intersect(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(Math.min(a.length, b.length));
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) {
      out[n++] = x;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return out.subarray(0, n);
}

/** Union of two sorted id lists. */
export function union(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length || j < b.length) {
    const x = i < a.length ? a[i]! : Infinity;
    const y = j < b.length ? b[j]! : Infinity;
    if (x === y) {
      out[n++] = x;
      i++;
      j++;
    } else if (x < y) {
      out[n++] = x;
      i++;
    } else {
      out[n++] = y;
      j++;
    }
  }
  return out.subarray(0, n);
}
