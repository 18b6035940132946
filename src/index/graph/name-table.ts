// Interned names for the code graph: every definition name, reference name and receiver text of a
// workspace is stored once and referred to by a small integer (the kernel's 3.4 million
// definitions and 7.9 million references share 2.6 million distinct names). Id 0 is the empty
// name. Names are never removed: a name a deleted file used stays interned (a few bytes) until
// the daemon restarts. A restart adopts the saved array as it is (lookups by id at once) and makes
// the name → id map afterwards, in slices. The map is a hash table of ids (open addressing, linear
// probing, FNV-1a over the name's UTF-16 units) in one Uint32Array: for the kernel's 2.6 M names
// 16 MB, where a Map<string, number> took ~110 MB of the daemon's heap (bench/RESULTS.md). Per
// name it also keeps what symbol search asks of it: the lower case and the character mask.
import { characterMask } from './symbol-search.js';

/** FNV-1a of a name's UTF-16 code units, 32 bits. */
function hashOf(name: string): number {
  let hash = 0x811c9dc5;
  for (let at = 0; at < name.length; at++) hash = Math.imul(hash ^ name.charCodeAt(at), 0x01000193);
  return hash >>> 0;
}

/** Slots the table keeps per name at most, as a fraction: it doubles past 70% full. */
const fullest = 0.7;

export class NameTable {
  /** Name → id for the first `indexed` names (the rest are indexed on first need: see adopt): slots of ids, 0 empty (id 0, '', is never stored). */
  private slots = new Uint32Array(16);
  private stored = 0;
  private indexed = 1;
  private readonly names: string[];
  /** Lower-cased names, the same string when already lower case (symbol search); made on first ask. */
  private readonly lowered: Array<string | undefined> = [''];
  /** Each name's characterMask (symbol-search.ts), 0 until first asked. */
  private masks = new Uint32Array(0);

  private constructor(names: string[] = ['']) {
    this.names = names;
  }

  static empty(): NameTable {
    return new NameTable();
  }

  /**
   * A table holding exactly these names under these ids (index 0 must be ''), taking the array.
   * Lookups by id work at once; lookups by name wait for the name → id map, made in slices by
   * `index` or all at once on the first `find`/`intern`.
   */
  static adopt(names: string[]): NameTable {
    if (names[0] !== '') throw new Error('name 0 is not the empty name');
    return new NameTable(names);
  }

  /** Makes the name → id map, `pause` awaited between slices; a name twice keeps its first id. */
  async index(pause: () => Promise<void>): Promise<void> {
    this.reserve(this.names.length);
    let last = performance.now();
    while (this.indexed < this.names.length) {
      this.indexSome(4096);
      if (performance.now() - last > 20) {
        await pause();
        last = performance.now();
      }
    }
  }

  private indexSome(count: number): void {
    const end = Math.min(this.names.length, this.indexed + count);
    this.reserve(end);
    for (let id = this.indexed; id < end; id++) {
      const name = this.names[id]!;
      // A name twice keeps its first id.
      if (name !== '' && this.lookup(name) === undefined) this.store(name, id);
    }
    this.indexed = end;
  }

  private indexAll(): void {
    if (this.indexed < this.names.length) this.indexSome(this.names.length - this.indexed);
  }

  /** Room for `count` names within `fullest`, the table doubled and refilled as often as needed. */
  private reserve(count: number): void {
    if (count <= this.slots.length * fullest) return;
    let size = this.slots.length;
    while (count > size * fullest) size *= 2;
    const old = this.slots;
    this.slots = new Uint32Array(size);
    const mask = size - 1;
    for (const id of old) {
      if (id === 0) continue;
      let slot = hashOf(this.names[id]!) & mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
      this.slots[slot] = id;
    }
  }

  private lookup(name: string): number | undefined {
    if (name === '') return 0;
    const mask = this.slots.length - 1;
    for (let slot = hashOf(name) & mask; ; slot = (slot + 1) & mask) {
      const id = this.slots[slot]!;
      if (id === 0) return undefined;
      if (this.names[id] === name) return id;
    }
  }

  /** Stores an id not yet in the table (room reserved). */
  private store(name: string, id: number): void {
    const mask = this.slots.length - 1;
    let slot = hashOf(name) & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = id;
    this.stored++;
  }

  /** The id of a name, interning it if new. */
  intern(name: string): number {
    this.indexAll();
    let id = this.lookup(name);
    if (id === undefined) {
      id = this.names.push(name) - 1;
      this.reserve(this.stored + 1);
      this.store(name, id);
      this.indexed = this.names.length;
    }
    return id;
  }

  /** The id of a name already seen, else undefined. */
  find(name: string): number | undefined {
    this.indexAll();
    return this.lookup(name);
  }

  name(id: number): string {
    return this.names[id] ?? '';
  }

  lower(id: number): string {
    let lower = this.lowered[id];
    if (lower === undefined) {
      const name = this.names[id];
      if (name === undefined) return '';
      lower = name.toLowerCase();
      this.lowered[id] = lower === name ? name : lower;
    }
    return lower;
  }

  /** The name's characterMask (upper case counts as lower), made on first ask. */
  mask(id: number): number {
    if (id >= this.masks.length) {
      const grown = new Uint32Array(Math.max(this.names.length, id + 1, this.masks.length * 2));
      grown.set(this.masks);
      this.masks = grown;
    }
    let mask = this.masks[id]!;
    if (mask === 0) {
      mask = characterMask(this.names[id] ?? '');
      this.masks[id] = mask;
    }
    return mask;
  }

  get size(): number {
    return this.names.length;
  }

  /** Every name by id (persistence). */
  all(): readonly string[] {
    return this.names;
  }
}
