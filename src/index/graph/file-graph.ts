// One file's part of the code graph, packed: its definitions, references and import bindings as
// typed arrays of interned names and positions (objects per definition and reference did not fit
// in memory for the kernel). Built from a FileTags (tags.ts) on the main thread; read by the
// resolver and the graph queries through the accessors below.
import type { ImportBinding, SymbolDefinition, FileTags } from '../syntax/tags.js';
import type { NameTable } from './name-table.js';

/** Kinds and container chains, interned per graph (a few hundred of each). */
export class KindTable {
  private readonly ids = new Map<string, number>();
  private readonly kinds: string[] = [];
  private readonly chainIds = new Map<string, number>([['', 0]]);
  private readonly chains: string[][] = [[]];

  kindId(kind: string): number {
    let id = this.ids.get(kind);
    if (id === undefined) {
      id = this.kinds.push(kind) - 1;
      this.ids.set(kind, id);
    }
    return id;
  }

  findKind(kind: string): number | undefined {
    return this.ids.get(kind);
  }

  kind(id: number): string {
    return this.kinds[id] ?? 'unknown';
  }

  chainId(chain: string[]): number {
    const key = chain.join('\u0000');
    let id = this.chainIds.get(key);
    if (id === undefined) {
      id = this.chains.push(chain) - 1;
      this.chainIds.set(key, id);
    }
    return id;
  }

  chain(id: number): string[] {
    return this.chains[id] ?? [];
  }

  /** Every kind and container chain by id (persistence). */
  snapshot(): { kinds: string[]; chains: string[][] } {
    return { kinds: [...this.kinds], chains: this.chains.map((chain) => [...chain]) };
  }

  /** A table holding exactly these kinds and chains under these ids (chain 0 must be []). */
  static from(snapshot: { kinds: readonly string[]; chains: readonly string[][] }): KindTable {
    const table = new KindTable();
    snapshot.kinds.forEach((kind, id) => {
      if (table.kindId(kind) !== id) throw new Error(`kind ${kind} appears twice`);
    });
    for (let id = 1; id < snapshot.chains.length; id++) {
      if (table.chainId(snapshot.chains[id]!) !== id) throw new Error('a container chain appears twice');
    }
    return table;
  }
}

export interface FileGraph {
  path: string;
  language: string | undefined;
  /**
   * Definitions: interned name, kind, container chain, innermost enclosing definition (-1: none).
   * A part holds its arrays as small as their numbers allow (compactPart): never written to once made.
   */
  definitionNames: Uint32Array;
  definitionKinds: Uint16Array;
  definitionChains: Uint32Array | Uint16Array;
  definitionParents: Int32Array;
  /** 8 numbers per definition: start line, character, end line, character, name start line, character, name end line, character. */
  definitionPositions: Int32Array | Uint16Array;
  /** References: interned name, kind, receiver (interned; 0: none), 0-based line and UTF-16 character, enclosing definition, import binding. */
  referenceNames: Uint32Array;
  referenceKinds: Uint16Array;
  referenceReceivers: Uint32Array | Uint16Array;
  referenceLines: Uint32Array | Uint16Array;
  referenceCharacters: Uint32Array | Uint16Array;
  referenceEnclosing: Int32Array;
  referenceBindings: Int32Array;
  imports: ImportBinding[];
  /** The resolver's caches, made on first use and never persisted: definition indexes ordered by name; where each import binding points (for one ModuleResolver generation). */
  definitionsByName?: Uint32Array;
  importModules?: { generation: number; modules: Array<readonly string[] | undefined> };
}

export function packFileTags(tags: FileTags, names: NameTable, kinds: KindTable): FileGraph {
  const definitions = tags.definitions;
  const references = tags.references;
  const graph: FileGraph = {
    path: tags.path,
    language: tags.language,
    definitionNames: new Uint32Array(definitions.length),
    definitionKinds: new Uint16Array(definitions.length),
    definitionChains: new Uint32Array(definitions.length),
    definitionParents: new Int32Array(definitions.length),
    definitionPositions: new Int32Array(definitions.length * 8),
    referenceNames: new Uint32Array(references.length),
    referenceKinds: new Uint16Array(references.length),
    referenceReceivers: new Uint32Array(references.length),
    referenceLines: new Uint32Array(references.length),
    referenceCharacters: new Uint32Array(references.length),
    referenceEnclosing: new Int32Array(references.length),
    referenceBindings: new Int32Array(references.length),
    imports: tags.imports,
  };
  // Definitions come in document order (outer before inner): a stack gives each its parent.
  const stack: number[] = [];
  definitions.forEach((definition, index) => {
    graph.definitionNames[index] = names.intern(definition.name);
    graph.definitionKinds[index] = kinds.kindId(definition.kind);
    graph.definitionChains[index] = kinds.chainId(definition.container);
    while (stack.length > 0 && !contains(definitions[stack[stack.length - 1]!]!, definition)) stack.pop();
    graph.definitionParents[index] = stack.length > 0 ? stack[stack.length - 1]! : -1;
    stack.push(index);
    graph.definitionPositions.set(
      [
        definition.start.line,
        definition.start.character,
        definition.end.line,
        definition.end.character,
        definition.nameStart.line,
        definition.nameStart.character,
        definition.nameEnd.line,
        definition.nameEnd.character,
      ],
      index * 8,
    );
  });
  references.forEach((reference, index) => {
    graph.referenceNames[index] = names.intern(reference.name);
    graph.referenceKinds[index] = kinds.kindId(reference.kind);
    graph.referenceReceivers[index] = reference.receiver === '' ? 0 : names.intern(reference.receiver);
    graph.referenceLines[index] = reference.start.line;
    graph.referenceCharacters[index] = reference.start.character;
    graph.referenceEnclosing[index] = reference.enclosing;
    graph.referenceBindings[index] = reference.binding;
  });
  return compactPart(graph);
}

/** A part's typed arrays, in a fixed order (graph.bin's), with the constructors they are declared and saved as. */
export const partArrays = [
  ['definitionNames', Uint32Array],
  ['definitionKinds', Uint16Array],
  ['definitionChains', Uint32Array],
  ['definitionParents', Int32Array],
  ['definitionPositions', Int32Array],
  ['referenceNames', Uint32Array],
  ['referenceKinds', Uint16Array],
  ['referenceReceivers', Uint32Array],
  ['referenceLines', Uint32Array],
  ['referenceCharacters', Uint32Array],
  ['referenceEnclosing', Int32Array],
  ['referenceBindings', Int32Array],
] as const;

export type PartArray = FileGraph[(typeof partArrays)[number][0]];

/** Fields held as u16 when every number fits (their FileGraph type says so). */
const narrowable = new Set<string>(['definitionChains', 'definitionPositions', 'referenceReceivers', 'referenceLines', 'referenceCharacters']);

/** Arrays of one repeated 0 or -1, shared by every part that has one (views; parts are never written to). */
const constants = new Map<string, Int32Array | Uint32Array | Uint16Array>();

function constant(type: (typeof partArrays)[number][1], value: number, length: number): PartArray {
  const key = `${type.name} ${value}`;
  let shared = constants.get(key);
  if (!shared || shared.length < length) {
    shared = new type(Math.max(length, 2 * (shared?.length ?? 0), 1024));
    shared.fill(value);
    constants.set(key, shared);
  }
  return shared.subarray(0, length) as PartArray;
}

/**
 * The part with its arrays copied into one buffer of its own (one allocation, not twelve: a
 * restart of the kernel's graph made 675k buffers, 2.4 s of copying and most of its GC), each as
 * small as its numbers allow: an array of one repeated 0 or -1 a view of a shared one, the
 * positions, lines, characters, receivers and chains u16 where every number fits. The kernel's
 * graph: ~150 MB less (bench/RESULTS.md).
 */
export function compactPart(part: FileGraph): FileGraph {
  const plans = partArrays.map(([field, type]) => {
    const array = part[field];
    let least = 0;
    let most = 0;
    if (array.length > 0) least = most = array[0]!;
    for (let index = 1; index < array.length; index++) {
      const value = array[index]!;
      if (value < least) least = value;
      else if (value > most) most = value;
    }
    if (least === most && (least === 0 || least === -1)) return { field, type, shared: least, bytes: 0 };
    if (narrowable.has(field) && least >= 0 && most <= 0xffff) return { field, type: Uint16Array, bytes: array.length * 2 };
    return { field, type, bytes: array.byteLength };
  });
  const buffer = new ArrayBuffer(plans.reduce((sum, plan) => sum + ((plan.bytes + 3) & ~3), 0));
  const compact = { ...part } as Record<string, unknown>;
  let at = 0;
  for (const plan of plans) {
    const array = part[plan.field];
    if ('shared' in plan) {
      compact[plan.field] = constant(plan.type, plan.shared!, array.length);
      continue;
    }
    const out = new plan.type(buffer, at, array.length);
    out.set(array);
    compact[plan.field] = out;
    at += (plan.bytes + 3) & ~3;
  }
  return compact as unknown as FileGraph;
}

function before(aLine: number, aCharacter: number, bLine: number, bCharacter: number): boolean {
  return aLine < bLine || (aLine === bLine && aCharacter < bCharacter);
}

function contains(outer: SymbolDefinition, inner: SymbolDefinition): boolean {
  return (
    !before(inner.start.line, inner.start.character, outer.start.line, outer.start.character) &&
    !before(outer.end.line, outer.end.character, inner.end.line, inner.end.character)
  );
}

/** Whether definition `inner` lies within definition `outer` of the same file (itself included). */
export function definitionWithin(file: FileGraph, inner: number, outer: number): boolean {
  for (let at = inner; at >= 0; at = file.definitionParents[at]!) if (at === outer) return true;
  return false;
}

/** Whether a 0-based position lies within a definition's whole range. */
export function positionInDefinition(file: FileGraph, index: number, line: number, character: number): boolean {
  const p = file.definitionPositions;
  const at = index * 8;
  return !before(line, character, p[at]!, p[at + 1]!) && !before(p[at + 2]!, p[at + 3]!, line, character);
}

/** The unpacked definition (signature left empty: it is read back from the file when shown). */
export function definitionAt(file: FileGraph, index: number, names: NameTable, kinds: KindTable): SymbolDefinition {
  const p = file.definitionPositions;
  const at = index * 8;
  return {
    name: names.name(file.definitionNames[index]!),
    kind: kinds.kind(file.definitionKinds[index]!),
    start: { line: p[at]!, character: p[at + 1]! },
    end: { line: p[at + 2]!, character: p[at + 3]! },
    nameStart: { line: p[at + 4]!, character: p[at + 5]! },
    nameEnd: { line: p[at + 6]!, character: p[at + 7]! },
    container: kinds.chain(file.definitionChains[index]!),
    signature: '',
  };
}

/** Approximate bytes held by the typed arrays (benchmarks). */
export function fileGraphBytes(file: FileGraph): number {
  return (
    file.definitionNames.byteLength +
    file.definitionKinds.byteLength +
    file.definitionChains.byteLength +
    file.definitionParents.byteLength +
    file.definitionPositions.byteLength +
    file.referenceNames.byteLength +
    file.referenceKinds.byteLength +
    file.referenceReceivers.byteLength +
    file.referenceLines.byteLength +
    file.referenceCharacters.byteLength +
    file.referenceEnclosing.byteLength +
    file.referenceBindings.byteLength
  );
}
