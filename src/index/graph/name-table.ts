// Interned names for the code graph: every definition name, reference name and receiver text of a
// workspace is stored once and referred to by a small integer (the kernel's 4 million definitions
// and tens of millions of references share about a million distinct names). Id 0 is the empty
// name. Names are never removed: a name a deleted file used stays interned (a few bytes) until
// the daemon restarts.

export class NameTable {
  private readonly ids = new Map<string, number>([['', 0]]);
  private readonly names: string[] = [''];
  /** Lower-cased names, the same string when already lower case (symbol search); made on first ask. */
  private readonly lowered: Array<string | undefined> = [''];

  /** The id of a name, interning it if new. */
  intern(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.names.push(name) - 1;
      this.ids.set(name, id);
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
    let lower = this.lowered[id];
    if (lower === undefined) {
      const name = this.names[id];
      if (name === undefined) return '';
      lower = name.toLowerCase();
      this.lowered[id] = lower === name ? name : lower;
    }
    return lower;
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
    // One set a name (a restart of the kernel's graph interns 2.6 M): a name twice shows in the size.
    const table = new NameTable();
    for (let id = 1; id < names.length; id++) {
      const name = names[id]!;
      if (typeof name !== 'string') throw new Error(`name ${id} is not a string`);
      table.ids.set(name, id);
      table.names.push(name);
    }
    if (table.ids.size !== names.length) throw new Error('a name appears twice');
    return table;
  }
}
