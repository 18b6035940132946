// Interned names for the code graph: every definition name, reference name and receiver text of a
// workspace is stored once and referred to by a small integer (the kernel's 3.4 million
// definitions and 7.9 million references share 2.6 million distinct names). Id 0 is the empty
// name. Names are never removed: a name a deleted file used stays interned (a few bytes) until
// the daemon restarts. A restart adopts the saved array as it is (lookups by id at once) and makes
// the name → id map afterwards, in slices. Per name it also keeps what symbol search asks of it:
// the lower case and the character mask.
import { characterMask } from './symbol-search.js';

export class NameTable {
  /** Name → id, for the first `indexed` names (the rest are indexed on first need: see adopt). */
  private readonly ids = new Map<string, number>([['', 0]]);
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
   * `index` (the kernel's 2.6 M names take ~2.5 s) or all at once on the first `find`/`intern`.
   */
  static adopt(names: string[]): NameTable {
    if (names[0] !== '') throw new Error('name 0 is not the empty name');
    return new NameTable(names);
  }

  /** Makes the name → id map, `pause` awaited between slices; a name twice keeps its first id. */
  async index(pause: () => Promise<void>): Promise<void> {
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
    for (let id = this.indexed; id < end; id++) {
      const name = this.names[id]!;
      if (!this.ids.has(name)) this.ids.set(name, id);
    }
    this.indexed = end;
  }

  private indexAll(): void {
    if (this.indexed < this.names.length) this.indexSome(this.names.length - this.indexed);
  }

  /** The id of a name, interning it if new. */
  intern(name: string): number {
    this.indexAll();
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.names.push(name) - 1;
      this.ids.set(name, id);
      this.indexed = this.names.length;
    }
    return id;
  }

  /** The id of a name already seen, else undefined. */
  find(name: string): number | undefined {
    this.indexAll();
    return this.ids.get(name);
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
