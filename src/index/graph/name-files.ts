// One of the code graph's two inverted tables: for each interned name, the files that define it
// (or reference it), each file once. A restart builds it in one go from the parts read back
// (`rebuild`: two passes over the name ids into flat typed arrays, in slices, ~0.3 s for the
// kernel's 11 M ids, where a map of 3 million small lists took 4.5 s and ~150 MB), or takes the
// flat table graph.bin saved (`adopt`); every change after that is an overlay: a file replaced or
// removed is dropped from the flat table and its new part, if any, is listed in `added`. A save
// writes the table as it stands, numbered as the saved file records are (`snapshot`).
import type { StoredNameFiles } from './graph-store.js';

/** A name's added files: an array while short, a set once long (removing one of 20,000 users of kmalloc must not scan them). */
type FileList = string[] | Set<string>;
const setAbove = 32;

export type NameField = 'definitionNames' | 'referenceNames';

export class NameFiles {
  /** The flat table: file number → path, and the file numbers of name id n at entries[offsets[n] .. offsets[n + 1]). */
  private paths: string[] = [];
  private numbers = new Map<string, number>();
  private offsets: Uint32Array = new Uint32Array(1);
  private entries: Uint32Array = new Uint32Array(0);
  /** Flat-table files replaced or removed since it was built. */
  private dropped = new Set<number>();
  /** Files added since the flat table was built, by name. */
  private readonly added = new Map<number, FileList>();

  constructor(private readonly field: NameField) {}

  /** The files holding a name. */
  *files(name: number): Generator<string> {
    if (name + 1 < this.offsets.length) {
      const end = this.offsets[name + 1]!;
      for (let at = this.offsets[name]!; at < end; at++) {
        const file = this.entries[at]!;
        if (!this.dropped.has(file)) yield this.paths[file]!;
      }
    }
    const more = this.added.get(name);
    if (more) yield* more;
  }

  /** A file's part came in (after `remove` of the part it replaces). */
  add(path: string, part: Readonly<Record<NameField, Uint32Array>>): void {
    for (const name of new Set(part[this.field])) addTo(this.added, name, path);
  }

  /** A file's part went away (removed, or about to be replaced); a part still in the flat table needs no arrays (a part left where it lies in graph.bin is). */
  remove(path: string, part: Readonly<Record<NameField, Uint32Array>> | undefined): void {
    const number = this.numbers.get(path);
    if (number !== undefined && !this.dropped.has(number)) {
      this.dropped.add(number);
      return;
    }
    if (part) for (const name of new Set(part[this.field])) removeFrom(this.added, name, path);
  }

  /** Takes the flat table graph.bin saved (its file numbers are `paths`' indexes); the files `taken` does not mark are dropped. */
  adopt(paths: string[], table: StoredNameFiles, taken: Uint8Array): void {
    this.paths = paths;
    this.numbers = new Map(paths.map((path, number) => [path, number]));
    this.offsets = table.offsets;
    this.entries = table.entries;
    this.dropped = new Set();
    this.added.clear();
    for (let number = 0; number < paths.length; number++) if (taken[number] !== 1) this.dropped.add(number);
  }

  /**
   * The table as it stands, its files numbered by `numberOf` (a file it lacks is left out: not
   * saved), for names below `nameCount`: what graph.bin saves. Synchronous, so that it matches the
   * parts a save takes in the same turn (~0.1 s for the kernel's 11 M ids).
   */
  snapshot(numberOf: ReadonlyMap<string, number>, nameCount: number): StoredNameFiles {
    const remap = new Int32Array(this.paths.length).fill(-1);
    this.paths.forEach((path, number) => {
      if (!this.dropped.has(number)) remap[number] = numberOf.get(path) ?? -1;
    });
    const flatNames = Math.min(nameCount, this.offsets.length - 1);
    const offsets = new Uint32Array(nameCount + 1);
    for (let name = 0; name < flatNames; name++) {
      let count = 0;
      const end = this.offsets[name + 1]!;
      for (let at = this.offsets[name]!; at < end; at++) if (remap[this.entries[at]!]! >= 0) count++;
      offsets[name + 1] = count;
    }
    for (const [name, list] of this.added) {
      if (name >= nameCount) continue;
      for (const path of list) if (numberOf.has(path)) offsets[name + 1]!++;
    }
    for (let name = 1; name <= nameCount; name++) offsets[name]! += offsets[name - 1]!;
    const entries = new Uint32Array(offsets[nameCount]!);
    const cursor = offsets.slice(0, nameCount);
    for (let name = 0; name < flatNames; name++) {
      const end = this.offsets[name + 1]!;
      for (let at = this.offsets[name]!; at < end; at++) {
        const number = remap[this.entries[at]!]!;
        if (number >= 0) entries[cursor[name]!++] = number;
      }
    }
    for (const [name, list] of this.added) {
      if (name >= nameCount) continue;
      for (const path of list) {
        const number = numberOf.get(path);
        if (number !== undefined) entries[cursor[name]!++] = number;
      }
    }
    return { offsets, entries };
  }

  /**
   * Makes the flat table from `parts` (what the graph holds after a bulk load, none of them
   * `add`ed), `pause` awaited every 256 parts (base/event-loop.ts's slicedPause). A part that `current` no longer holds once it is
   * done (replaced or removed meanwhile) is dropped.
   */
  async rebuild(
    parts: ReadonlyArray<{ path: string } & Readonly<Record<NameField, Uint32Array>>>,
    nameCount: number,
    current: (path: string) => object | undefined,
    pause: () => Promise<void>,
  ): Promise<void> {
    const field = this.field;
    const offsets = new Uint32Array(nameCount + 1);
    // The last file counted for each name: each file is listed once per name.
    const stamp = new Int32Array(nameCount).fill(-1);
    const breathe = async (file: number): Promise<void> => {
      if ((file & 255) === 255) await pause();
    };
    for (let file = 0; file < parts.length; file++) {
      const ids = parts[file]![field];
      for (let at = 0; at < ids.length; at++) {
        const id = ids[at]!;
        if (id >= nameCount) throw new Error(`name id ${id} is past the name table (${nameCount})`);
        if (stamp[id] !== file) {
          stamp[id] = file;
          offsets[id + 1]!++;
        }
      }
      await breathe(file);
    }
    for (let id = 1; id <= nameCount; id++) offsets[id]! += offsets[id - 1]!;
    const entries = new Uint32Array(offsets[nameCount]!);
    const cursor = offsets.slice(0, nameCount);
    stamp.fill(-1);
    for (let file = 0; file < parts.length; file++) {
      const ids = parts[file]![field];
      for (let at = 0; at < ids.length; at++) {
        const id = ids[at]!;
        if (stamp[id] !== file) {
          stamp[id] = file;
          entries[cursor[id]!++] = file;
        }
      }
      await breathe(file);
    }
    this.paths = parts.map((part) => part.path);
    this.numbers = new Map(this.paths.map((path, number) => [path, number]));
    this.offsets = offsets;
    this.entries = entries;
    this.dropped = new Set();
    parts.forEach((part, number) => {
      if (current(part.path) !== part) this.dropped.add(number);
    });
  }

  /** Bytes held (status and benchmarks): the flat table's arrays, not the added lists. */
  get flatBytes(): number {
    return this.offsets.byteLength + this.entries.byteLength;
  }
}

function addTo(table: Map<number, FileList>, name: number, file: string): void {
  const list = table.get(name);
  if (!list) table.set(name, [file]);
  else if (list instanceof Set) list.add(file);
  else if (list.length >= setAbove) table.set(name, new Set([...list, file]));
  else list.push(file);
}

function removeFrom(table: Map<number, FileList>, name: number, file: string): void {
  const list = table.get(name);
  if (!list) return;
  if (list instanceof Set) {
    list.delete(file);
    if (list.size === 0) table.delete(name);
    return;
  }
  const at = list.indexOf(file);
  if (at < 0) return;
  list[at] = list[list.length - 1]!;
  list.pop();
  if (list.length === 0) table.delete(name);
}
