// The files one search verifies, in path order, packed as the grep workers get them: every
// content-store range of every file in one Float64Array ([offset, length, firstLine] triples),
// where each file's ranges start, which content store they are in, and as objects only the files
// read otherwise (from disk, or a buffer's text). A chunk for a worker is a slice of these arrays.
// (Three objects and a growing array per candidate file made 3.5 MB of garbage a query on the
// daemon's thread for `-w kfree`'s 10,000 files, the most of any step.)
import type { GrepFile } from './verify.js';

/** Files packed for verifying (see verify.ts `GrepChunk`). */
export interface PackedFiles {
  /** Per file: null when its ranges are in `ranges`; else the file to read, or a buffer's text. */
  files: (GrepFile | null)[];
  /** Every ranged file's [offset, length, firstLine] triples; file i's are [rangeIndex[i], rangeIndex[i + 1]). */
  ranges: Float64Array;
  rangeIndex: Int32Array;
  /** Each ranged file's content store. */
  stores: Uint8Array;
}

/** A search's files: packed, with their paths (relative to the workspace). */
export interface WorkList extends PackedFiles {
  paths: string[];
}

export const emptyWorkList = (): WorkList => ({ paths: [], files: [], ranges: new Float64Array(0), rangeIndex: new Int32Array(1), stores: new Uint8Array(0) });

/** Builds a work list file by file, in path order. */
export class WorkListBuilder {
  private readonly paths: string[] = [];
  private readonly files: (GrepFile | null)[] = [];
  private ranges = new Float64Array(3 * 1024);
  private used = 0;
  private rangeIndex = new Int32Array(1024);
  private stores = new Uint8Array(1024);

  get length(): number {
    return this.paths.length;
  }

  /** A file whose ranges follow (`range`), in content store `store`. */
  ranged(path: string, store: number): void {
    this.open(path, null);
    this.stores[this.paths.length - 1] = store;
  }

  /** A range of the last ranged file. */
  range(offset: number, length: number, firstLine: number): void {
    if (this.used + 3 > this.ranges.length) {
      const grown = new Float64Array(this.ranges.length * 2);
      grown.set(this.ranges);
      this.ranges = grown;
    }
    this.ranges[this.used] = offset;
    this.ranges[this.used + 1] = length;
    this.ranges[this.used + 2] = firstLine;
    this.used += 3;
  }

  /** Moves the end of the last range to `end` (a piece right after it). */
  extendTo(end: number): void {
    this.ranges[this.used - 2] = end - this.ranges[this.used - 3]!;
  }

  /** A file read from disk, or a buffer's text. */
  file(path: string, file: GrepFile): void {
    this.open(path, file);
  }

  build(): WorkList {
    const count = this.paths.length;
    const rangeIndex = this.rangeIndex.slice(0, count + 1);
    rangeIndex[count] = this.used;
    return { paths: this.paths, files: this.files, ranges: this.ranges.slice(0, this.used), rangeIndex, stores: this.stores.slice(0, count) };
  }

  private open(path: string, file: GrepFile | null): void {
    const index = this.paths.length;
    if (index + 2 > this.rangeIndex.length) {
      const grownIndex = new Int32Array(this.rangeIndex.length * 2);
      grownIndex.set(this.rangeIndex);
      this.rangeIndex = grownIndex;
      const grownStores = new Uint8Array(this.stores.length * 2);
      grownStores.set(this.stores);
      this.stores = grownStores;
    }
    this.paths.push(path);
    this.files.push(file);
    this.rangeIndex[index] = this.used;
  }
}

/** Merges work lists that are each in path order (no path is in two). */
export function mergeWorkLists(lists: WorkList[]): WorkList {
  const nonEmpty = lists.filter((list) => list.paths.length > 0);
  if (nonEmpty.length === 0) return emptyWorkList();
  if (nonEmpty.length === 1) return nonEmpty[0]!;
  const at = nonEmpty.map(() => 0);
  const out = new WorkListBuilder();
  for (;;) {
    let next = -1;
    for (let list = 0; list < nonEmpty.length; list++) {
      if (at[list]! >= nonEmpty[list]!.paths.length) continue;
      if (next < 0 || nonEmpty[list]!.paths[at[list]!]! < nonEmpty[next]!.paths[at[next]!]!) next = list;
    }
    if (next < 0) return out.build();
    const list = nonEmpty[next]!;
    const index = at[next]!++;
    const file = list.files[index]!;
    if (file) out.file(list.paths[index]!, file);
    else {
      out.ranged(list.paths[index]!, list.stores[index]!);
      for (let range = list.rangeIndex[index]!; range < list.rangeIndex[index + 1]!; range += 3)
        out.range(list.ranges[range]!, list.ranges[range + 1]!, list.ranges[range + 2]!);
    }
  }
}

/** Files [offset, offset + count) of a packed list, as a chunk of their own (arrays exactly theirs). */
export function sliceFiles(list: PackedFiles, offset: number, count: number): PackedFiles {
  const start = list.rangeIndex[offset]!;
  const end = list.rangeIndex[offset + count]!;
  const rangeIndex = list.rangeIndex.slice(offset, offset + count + 1);
  for (let index = 0; index < rangeIndex.length; index++) rangeIndex[index]! -= start;
  return {
    files: list.files.slice(offset, offset + count),
    ranges: list.ranges.slice(start, end),
    rangeIndex,
    stores: list.stores.slice(offset, offset + count),
  };
}

/** Bytes of file `index`'s ranges (its text's length, or a guess for a file read from disk). */
export function fileWeight(list: PackedFiles, index: number): number {
  const file = list.files[index];
  if (file) return file.text !== undefined ? file.text.length : 64 * 1024;
  let bytes = 0;
  for (let at = list.rangeIndex[index]! + 1; at < list.rangeIndex[index + 1]!; at += 3) bytes += list.ranges[at]!;
  return bytes;
}

/** The files of a work list from the first whose path is `path` or after it (a page's cursor: paths are in order). */
export function sliceWorkList(list: WorkList, path: string): WorkList {
  let low = 0;
  let high = list.paths.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (list.paths[middle]! < path) low = middle + 1;
    else high = middle;
  }
  if (low === 0) return list;
  const count = list.paths.length - low;
  return { paths: list.paths.slice(low), ...sliceFiles(list, low, count) };
}
