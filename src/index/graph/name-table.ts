// Interned names for the code graph: every definition name, reference name and receiver text of a
// workspace is stored once and referred to by a small integer (the kernel's 3.4 million
// definitions and 7.9 million references share 2.6 million distinct names). Id 0 is the empty
// name. Names are never removed: a name a deleted file used stays interned (a few bytes) until
// the daemon restarts. A restart adopts the saved array as it is (lookups by id at once) and makes
// the name → id map afterwards, in slices. The map is a hash table of ids (open addressing, linear
// probing, FNV-1a over the name's UTF-16 units) in one Uint32Array: for the kernel's 2.6 M names
// 16 MB, where a Map<string, number> took ~110 MB of the daemon's heap (bench/RESULTS.md). Per
// name it also keeps what symbol search asks of it: the lower case and the character mask. A table
// read back from graph.bin version 3 (`fromStored`) is used as it was saved: the names stay UTF-8
// bytes until one is asked for (then kept as a string), the slots and masks are the saved arrays.
import { breathe } from '../../base/event-loop.js';
import type { StoredNames } from './graph-store.js';
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
  private slots: Uint32Array = new Uint32Array(16);
  /** Ids in the slots (about: a stored table counts its names). */
  private filled = 0;
  private indexed = 1;
  /** Names by id; a stored table's are filled on first ask (undefined: not decoded yet). */
  private readonly names: Array<string | undefined>;
  /** A stored table's names as saved (ids below `count`). */
  private readonly saved: { blob: Buffer; offsets: Uint32Array; count: number } | undefined;
  /** Lower-cased names, the same string when already lower case (symbol search); made on first ask. */
  private readonly lowered: Array<string | undefined> = [''];
  /** Each name's characterMask (symbol-search.ts), 0 until first asked. */
  private masks: Uint32Array = new Uint32Array(0);

  private constructor(names: Array<string | undefined> = [''], stored?: StoredNames) {
    this.names = names;
    if (stored) {
      this.saved = { blob: Buffer.from(stored.blob.buffer, stored.blob.byteOffset, stored.blob.byteLength), offsets: stored.offsets, count: stored.count };
      this.slots = stored.slots;
      this.masks = stored.masks;
      this.filled = stored.count - 1;
      this.indexed = stored.count;
    }
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

  /** A table as graph.bin saved it (graph-store.ts checked its shape): its names decoded on first ask, its slots and masks used as they are. */
  static fromStored(stored: StoredNames): NameTable {
    const names = new Array<string | undefined>(stored.count);
    names[0] = '';
    return new NameTable(names, stored);
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
      const name = this.name(id);
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
      let slot = hashOf(this.name(id)) & mask;
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
      if (this.name(id) === name) return id;
    }
  }

  /** Stores an id not yet in the table (room reserved). */
  private store(name: string, id: number): void {
    const mask = this.slots.length - 1;
    let slot = hashOf(name) & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = id;
    this.filled++;
  }

  /** The id of a name, interning it if new. */
  intern(name: string): number {
    this.indexAll();
    let id = this.lookup(name);
    if (id === undefined) {
      id = this.names.push(name) - 1;
      this.reserve(this.filled + 1);
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
    const name = this.names[id];
    if (name !== undefined) return name;
    const saved = this.saved;
    if (!saved || id >= saved.count || id < 0) return '';
    const decoded = saved.blob.toString('utf8', saved.offsets[id]!, saved.offsets[id + 1]!);
    this.names[id] = decoded;
    return decoded;
  }

  lower(id: number): string {
    let lower = this.lowered[id];
    if (lower === undefined) {
      if (id < 0 || id >= this.names.length) return '';
      const name = this.name(id);
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
      mask = characterMask(this.name(id));
      this.masks[id] = mask;
    }
    return mask;
  }

  get size(): number {
    return this.names.length;
  }

  /**
   * The first `count` names as graph.bin saves them (a stored table's bytes copied, the names
   * interned since encoded after them; every mask made), pausing every ~20 ms. Names only grow and
   * the slots are copied before the first pause, so the answer is the table as it was when asked.
   */
  async encode(): Promise<StoredNames> {
    this.indexAll();
    const count = this.names.length;
    const slots = this.slots.slice();
    const offsets = new Uint32Array(count + 1);
    const savedCount = Math.min(this.saved?.count ?? 0, count);
    const head = this.saved ? this.saved.blob.subarray(0, this.saved.offsets[savedCount]!) : Buffer.alloc(0);
    offsets.set(this.saved ? this.saved.offsets.subarray(0, savedCount + 1) : [0]);
    const tail: Buffer[] = [];
    let end = head.length;
    let last = performance.now();
    for (let id = Math.max(savedCount, 1); id < count; id++) {
      const bytes = Buffer.from(this.name(id), 'utf8');
      tail.push(bytes);
      end += bytes.length;
      offsets[id + 1] = end;
      if ((id & 4095) === 0 && performance.now() - last > 20) {
        await breathe();
        last = performance.now();
      }
    }
    const masks = new Uint32Array(count);
    for (let id = 1; id < count; id++) {
      masks[id] = this.mask(id);
      if ((id & 4095) === 0 && performance.now() - last > 20) {
        await breathe();
        last = performance.now();
      }
    }
    return { count, blob: Buffer.concat([head, ...tail], end), offsets, slots, masks };
  }
}
