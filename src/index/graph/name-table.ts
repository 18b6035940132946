// Interned names for the code graph: every definition name, reference name and receiver text of a
// workspace is stored once and referred to by a small integer (the kernel's 4 million definitions
// and tens of millions of references share about a million distinct names). Id 0 is the empty
// name. Names are never removed: a name a deleted file used stays interned (a few bytes) until
// the daemon restarts.

export class NameTable {
  private readonly ids = new Map<string, number>([['', 0]]);
  private readonly names: string[] = [''];
  /** Lower-cased names, the same string when already lower case (symbol search). */
  private readonly lowered: string[] = [''];

  /** The id of a name, interning it if new. */
  intern(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.names.push(name) - 1;
      this.ids.set(name, id);
      const lower = name.toLowerCase();
      this.lowered.push(lower === name ? name : lower);
    }
    return id;
  }

  /** The id of a name already seen, else undefined. */
  find(name: string): number | undefined {
    return this.ids.get(name);
  }

  name(id: number): string {
    return this.names[id] ?? '';
  }

  lower(id: number): string {
    return this.lowered[id] ?? '';
  }

  get size(): number {
    return this.names.length;
  }

  /** Every name by id (persistence). */
  all(): readonly string[] {
    return this.names;
  }

  /** A table holding exactly these names under these ids (index 0 must be ''). */
  static from(names: readonly string[]): NameTable {
    const table = new NameTable();
    for (let id = 1; id < names.length; id++) {
      if (table.intern(names[id]!) !== id) throw new Error(`name ${JSON.stringify(names[id])} appears twice`);
    }
    return table;
  }
}
