// Resolution of a reference to the definitions it means, best-effort and honest about it. In order:
// 1. an import binding's own name → the definition the module exports (following re-exports);
// 2. a member access on `this`/`self` → the enclosing class's members; on an imported module or
//    namespace → that module's definitions; on a class name → its members;
// 3. a bare name → the same file's definitions visible from the reference (innermost scope first),
//    then the same package (Go, Java, C#, Kotlin: the directory), then the file's import bindings
//    (named, then whole modules brought in unqualified: C includes, `from m import *`, Go's dot
//    import, Java's `.*`, Rust's `::*`);
// 4. else every definition of that name in the workspace, in the same language family.
// Steps 1–3 give `exact` edges; step 4 gives `unique` when the workspace defines a bare name once
// and `name-only` when it defines it several times (one edge to each), or when the name is a
// member called on a value of unknown type (it may be a library's type). A name bound by an import of
// a module outside the workspace (a package, a system header) resolves to nothing rather than to
// a definition that happens to share its name.
import type { ImportBinding } from '../syntax/tags.js';
import type { FileGraph, KindTable } from './file-graph.js';
import { type ModuleResolver, languageFamily } from './module-resolver.js';
import type { NameTable } from './name-table.js';

export type Confidence = 'exact' | 'unique' | 'name-only';
/** Which step found the edge. */
export type Via = 'scope' | 'member' | 'package' | 'import' | 'workspace';

export interface Target {
  path: string;
  /** Index of the definition in its file's part of the graph. */
  index: number;
  confidence: Confidence;
  via: Via;
}

/** What the resolver reads (CodeGraph provides it). */
export interface GraphView {
  readonly names: NameTable;
  readonly kinds: KindTable;
  readonly modules: ModuleResolver;
  file(path: string): FileGraph | undefined;
  definersOf(name: number): Iterable<string>;
}

const selfReceivers = new Set(['this', 'self', 'Self', 'cls']);
const classKinds = new Set(['class', 'interface', 'struct', 'enum', 'trait', 'impl', 'type', 'module', 'namespace', 'object']);
/** Languages where a bare name inside a class body reaches the class's members (an implicit this). */
const implicitThis = new Set(['java', 'c_sharp', 'cpp', 'kotlin', 'scala', 'swift', 'php', 'ruby']);
/** Languages whose package is a directory: its files see each other's top-level names without an import. */
const directoryPackages = new Set(['go', 'java', 'c_sharp', 'kotlin', 'scala']);
/** At most this many edges from one reference resolved by name only. */
const maxNameOnly = 64;
const maxReexportDepth = 6;
/** Reference kinds that name a type. */
const typeKinds = new Set(['type', 'implementation']);

type Accept = (file: FileGraph, index: number) => boolean;

export class Resolver {
  /** Per file part: interned name → its definitions' indexes (built when first needed; a new part is a new key). */
  constructor(private readonly graph: GraphView) {}

  private readonly exportMemo = new Map<readonly string[], Map<number, Target[]>>();
  private readonly nameMemo = new Map<string, Map<Accept, Map<number, Target[]>>>();
  private memoEntries = 0;

  /** Where import binding `index` of a file points (kept on the part for one ModuleResolver generation). */
  modulesAt(file: FileGraph, index: number): readonly string[] {
    const generation = this.graph.modules.generation;
    let cache = file.importModules;
    if (!cache || cache.generation !== generation)
      file.importModules = cache = { generation, modules: new Array<readonly string[] | undefined>(file.imports.length) };
    return (cache.modules[index] ??= this.graph.modules.resolve(file.path, file.language, file.imports[index]!.source));
  }

  private modulesFor(file: FileGraph, binding: ImportBinding): readonly string[] {
    return this.modulesAt(file, file.imports.indexOf(binding));
  }

  /** Builds a part's caches ahead of questions (its definitions by name, where its imports point). */
  prepare(file: FileGraph): void {
    this.named(file, 0);
    for (let at = 0; at < file.imports.length; at++) this.modulesAt(file, at);
  }

  /** The indexes of a file's definitions with this name: a binary search in the part's definitions ordered by name (made on first use, 4 bytes a definition). */
  private named(file: FileGraph, name: number): number[] {
    const names = file.definitionNames;
    let order = file.definitionsByName;
    if (!order) {
      order = new Uint32Array(names.length);
      for (let at = 0; at < order.length; at++) order[at] = at;
      order.sort((a, b) => names[a]! - names[b]! || a - b);
      file.definitionsByName = order;
    }
    let low = 0;
    let high = order.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (names[order[middle]!]! < name) low = middle + 1;
      else high = middle;
    }
    const found: number[] = [];
    for (let at = low; at < order.length && names[order[at]!] === name; at++) found.push(order[at]!);
    return found;
  }

  /** The definitions reference `index` of `file` means. */
  resolve(file: FileGraph, index: number): Target[] {
    const names = this.graph.names;
    const name = file.referenceNames[index]!;
    const kind = this.graph.kinds.kind(file.referenceKinds[index]!);
    if (kind === 'module') return [];
    if (kind === 'import') {
      const binding = file.imports[file.referenceBindings[index]!];
      if (!binding) return [];
      const modules = this.modulesAt(file, file.referenceBindings[index]!);
      const exported = binding.name === 'default' ? binding.local : binding.name;
      const wanted = names.find(exported);
      return wanted === undefined ? [] : this.exported(modules, wanted);
    }
    const enclosing = file.referenceEnclosing[index]!;
    const receiver = file.referenceReceivers[index]!;
    const accept = typeKinds.has(kind) ? this.typeLike : kind === 'other' ? this.notCallable : this.anyKind;
    if (receiver !== 0) return this.resolveMember(file, name, names.name(receiver), enclosing, accept);
    return this.resolveBare(file, name, enclosing, accept);
  }

  /** Any definition a name can mean (not an impl block, which is named after its type). */
  private readonly anyKind = (file: FileGraph, index: number): boolean => this.graph.kinds.kind(file.definitionKinds[index]!) !== 'impl';
  /** What a receiver (Counter of Counter.create()) can mean: not a method or constructor named like its class. */
  private readonly notCallable = (file: FileGraph, index: number): boolean => {
    const kind = this.graph.kinds.kind(file.definitionKinds[index]!);
    return kind !== 'impl' && kind !== 'method' && kind !== 'constructor';
  };
  /** Definitions a type use can mean: classes, interfaces, types (not a constructor named like its class). */
  private readonly typeLike = (file: FileGraph, index: number): boolean => {
    const kind = this.graph.kinds.kind(file.definitionKinds[index]!);
    return kind !== 'impl' && classKinds.has(kind);
  };

  /** A name used on its own. */
  resolveBare(file: FileGraph, name: number, enclosing: number, accept: Accept = this.anyKind): Target[] {
    const scoped = this.inScope(file, name, enclosing, accept);
    if (scoped.length > 0) return scoped;
    const inPackage = this.inPackage(file, name);
    if (inPackage.length > 0) return inPackage;
    const bare = this.graph.names.name(name);
    let named: ImportBinding[] | undefined;
    let namespace = false;
    for (const binding of file.imports) {
      if (binding.local !== bare) continue;
      if (binding.name === '*') namespace = true;
      else (named ??= []).push(binding);
    }
    // The name of a whole module (import * as X, import X, const X = require(…)): a module, not a definition.
    if (namespace && !named) return [];
    if (named) {
      const found: Target[] = [];
      for (const binding of named) {
        const wanted = this.graph.names.find(binding.name === 'default' ? binding.local : binding.name);
        if (wanted !== undefined) found.push(...this.exported(this.modulesFor(file, binding), wanted));
      }
      return found; // bound by an import: never a same-named definition elsewhere
    }
    // Whole modules brought in unqualified (C includes, star imports). Answers are shared (memo):
    // one module's answer is returned as is, several are copied together.
    let found: Target[] | undefined;
    let several = false;
    for (let at = 0; at < file.imports.length; at++) {
      const binding = file.imports[at]!;
      if (binding.name !== '*' || binding.local !== '') continue;
      const hit = this.exported(this.modulesAt(file, at), name);
      if (hit.length === 0) continue;
      if (!found) found = hit;
      else {
        if (!several) found = [...found];
        several = true;
        found.push(...hit);
      }
    }
    if (found) return several ? dedupe(found) : found;
    return this.byNameRemembered(file, name, accept);
  }

  /** byName for a bare name, remembered for the rest of the question (thousands of calls to a widely used function ask the same). */
  private byNameRemembered(file: FileGraph, name: number, accept: Accept): Target[] {
    const family = languageFamily(file.language);
    let byAccept = this.nameMemo.get(family);
    if (!byAccept) this.nameMemo.set(family, (byAccept = new Map<Accept, Map<number, Target[]>>()));
    let byName = byAccept.get(accept);
    if (!byName) byAccept.set(accept, (byName = new Map<number, Target[]>()));
    let found = byName.get(name);
    if (!found) {
      found = this.byName(file, name, accept);
      byName.set(name, found);
      if (++this.memoEntries > 200_000) this.forget();
    }
    return found;
  }

  /** `receiver.name`: on this/self, an imported module or namespace, a class; else any member of that name. */
  private resolveMember(file: FileGraph, name: number, receiver: string, enclosing: number, accept: Accept): Target[] {
    const kinds = this.graph.kinds;
    if (selfReceivers.has(receiver)) {
      const owner = this.enclosingClass(file, enclosing);
      if (owner >= 0) {
        const members = this.membersOf(file.path, owner, name);
        if (members.length > 0) return members;
      }
      return this.byName(file, name, (definer, at) => accept(definer, at) && this.isMember(definer, at), false);
    }
    const go = file.language === 'go';
    const binding =
      file.imports.find((candidate) => candidate.local === receiver) ??
      (go ? file.imports.find((candidate) => candidate.local === '' && candidate.name === '*' && lastSegment(candidate.source) === receiver) : undefined);
    if (binding) {
      const modules = this.modulesFor(file, binding);
      if (binding.name === '*') return this.exported(modules, name);
      const wanted = this.graph.names.find(binding.name === 'default' ? binding.local : binding.name);
      const owners = wanted === undefined ? [] : this.exported(modules, wanted);
      const members = owners.flatMap((owner) =>
        classKinds.has(kinds.kind(this.graph.file(owner.path)!.definitionKinds[owner.index]!)) ? this.membersOf(owner.path, owner.index, name) : [],
      );
      if (members.length > 0) return members;
      // `from pkg import module` then module.name(): the binding names a submodule.
      const submodule = this.graph.modules.resolve(file.path, file.language, submoduleSpecifier(file.language, binding.source, binding.name));
      if (submodule.length > 0) return this.exported(submodule, name);
      return [];
    }
    // A class (or module) named by the receiver: Foo.create(), Thing::new().
    const receiverName = this.graph.names.find(receiver);
    if (receiverName !== undefined) {
      const owners = this.resolveBare(file, receiverName, enclosing).filter(
        (owner) => owner.confidence !== 'name-only' && classKinds.has(kinds.kind(this.graph.file(owner.path)!.definitionKinds[owner.index]!)),
      );
      const members = owners.flatMap((owner) => this.membersOf(owner.path, owner.index, name).map((member) => ({ ...member, confidence: owner.confidence })));
      if (members.length > 0) return members;
    }
    // A value whose type is unknown here: any member of that name.
    return this.byName(file, name, (definer, at) => accept(definer, at) && this.isMember(definer, at), false);
  }

  /** A method, or a definition nested in a class-like one (a field, a nested type). */
  private isMember(file: FileGraph, index: number): boolean {
    if (this.graph.kinds.kind(file.definitionKinds[index]!) === 'method') return true;
    const parent = file.definitionParents[index]!;
    return parent >= 0 && classKinds.has(this.graph.kinds.kind(file.definitionKinds[parent]!));
  }

  /** Definitions of the same file visible from the reference: the innermost enclosing scope that defines the name. */
  private inScope(file: FileGraph, name: number, enclosing: number, accept: Accept): Target[] {
    const candidates = this.named(file, name).filter((at) => accept(file, at));
    if (candidates.length === 0) return [];
    const memberReachable = implicitThis.has(file.language ?? '');
    // Walk outwards from the reference: the first scope that holds a candidate wins.
    for (let scope = enclosing; scope >= -1; scope = scope === -1 ? -2 : (file.definitionParents[scope] ?? -1)) {
      const here = candidates.filter(
        (at) =>
          file.definitionParents[at] === scope && (scope === -1 || memberReachable || !classKinds.has(this.graph.kinds.kind(file.definitionKinds[scope]!))),
      );
      if (here.length > 0) return here.map((at) => ({ path: file.path, index: at, confidence: 'exact', via: 'scope' }));
      if (scope === -1) break;
    }
    return [];
  }

  /** Top-level definitions of the same package (the directory) in languages whose packages are directories. */
  private inPackage(file: FileGraph, name: number): Target[] {
    if (!directoryPackages.has(file.language ?? '')) return [];
    const directory = file.path.includes('/') ? file.path.slice(0, file.path.lastIndexOf('/')) : '';
    const found: Target[] = [];
    for (const path of this.graph.definersOf(name)) {
      if (path === file.path) continue;
      const slash = path.lastIndexOf('/');
      if ((slash < 0 ? '' : path.slice(0, slash)) !== directory) continue;
      const other = this.graph.file(path);
      if (!other || other.language !== file.language) continue;
      for (const at of this.named(other, name))
        if (other.definitionParents[at] === -1 && this.anyKind(other, at)) found.push({ path, index: at, confidence: 'exact', via: 'package' });
    }
    return found;
  }

  /**
   * What modules export under a name, remembered for the rest of the question: every file of a
   * folder that includes the same header shares the module list, so a question that resolves
   * thousands of references asks each (header, name) once. GraphQueries calls forget() when a
   * question starts; the memory is also dropped when it grows past 200,000 answers.
   */
  private exported(modules: readonly string[], name: number): Target[] {
    let byName = this.exportMemo.get(modules);
    if (!byName) this.exportMemo.set(modules, (byName = new Map<number, Target[]>()));
    let found = byName.get(name);
    if (!found) {
      found = this.exportedFrom(modules, name, 'import');
      byName.set(name, found);
      if (++this.memoEntries > 200_000) this.forget();
    }
    return found;
  }

  /** Drops what exported() remembered (the graph may have changed since). */
  forget(): void {
    this.exportMemo.clear();
    this.nameMemo.clear();
    this.memoEntries = 0;
  }

  /** What modules export under a name: their top-level definitions, else what they re-export (named, then whole modules). */
  exportedFrom(modules: readonly string[], name: number, via: Via, depth = 0, seen = new Set<string>()): Target[] {
    const found: Target[] = [];
    const bare = this.graph.names.name(name);
    for (const path of modules) {
      if (seen.has(path)) continue;
      seen.add(path);
      const module = this.graph.file(path);
      if (!module) continue;
      let here = 0;
      for (const at of this.named(module, name)) {
        if (module.definitionParents[at] === -1 && this.anyKind(module, at)) {
          found.push({ path, index: at, confidence: 'exact', via });
          here++;
        }
      }
      if (here > 0 || depth >= maxReexportDepth) continue;
      for (const binding of module.imports) {
        if (binding.local !== bare || binding.name === '*') continue;
        const wanted = this.graph.names.find(binding.name === 'default' ? binding.local : binding.name);
        if (wanted !== undefined) found.push(...this.exportedFrom(this.modulesFor(module, binding), wanted, via, depth + 1, seen));
      }
      for (const binding of module.imports) {
        if (binding.name !== '*' || binding.local !== '') continue;
        // Whole modules re-exported (`export * from`, Python's `from m import *` in an __init__); C headers are not followed.
        if (!binding.reexport && module.language !== 'python' && module.language !== 'rust') continue;
        found.push(...this.exportedFrom(this.modulesFor(module, binding), name, via, depth + 1, seen));
      }
    }
    return dedupe(found);
  }

  /** Members named `name` of the class-like definition `owner`: nested in it, or (Rust impl blocks, C++ out-of-line methods) in the same file with it in their container chain. */
  private membersOf(path: string, owner: number, name: number): Target[] {
    const file = this.graph.file(path);
    if (!file) return [];
    const ownerName = this.graph.names.name(file.definitionNames[owner]!);
    const found: Target[] = [];
    for (const at of this.named(file, name)) {
      if (at === owner || !this.anyKind(file, at)) continue;
      let nested = false;
      for (let parent = file.definitionParents[at]!; parent >= 0; parent = file.definitionParents[parent]!) if (parent === owner) nested = true;
      if (nested || this.graph.kinds.chain(file.definitionChains[at]!).includes(ownerName)) found.push({ path, index: at, confidence: 'exact', via: 'member' });
    }
    return found;
  }

  /** The innermost class-like definition around a reference (-1: none). */
  private enclosingClass(file: FileGraph, enclosing: number): number {
    for (let scope = enclosing; scope >= 0; scope = file.definitionParents[scope]!)
      if (classKinds.has(this.graph.kinds.kind(file.definitionKinds[scope]!))) return scope;
    return -1;
  }

  /** Every definition of the name in the workspace, same language family, that `accept` keeps: unique or name-only. */
  /**
   * Every definition of the name in the workspace that `accept` keeps: `unique` when there is one
   * and `canBeUnique` (a bare name), else `name-only`. A method called on a value of unknown type
   * is never `unique`: the value may well be a library's or a built-in type ("abc".encode()).
   */
  private byName(file: FileGraph, name: number, accept: (definer: FileGraph, index: number) => boolean, canBeUnique = true): Target[] {
    const family = languageFamily(file.language);
    const found: Target[] = [];
    for (const path of this.graph.definersOf(name)) {
      const definer = this.graph.file(path);
      if (!definer || languageFamily(definer.language) !== family) continue;
      for (const at of this.named(definer, name)) if (accept(definer, at)) found.push({ path, index: at, confidence: 'name-only', via: 'workspace' });
    }
    if (found.length === 1 && canBeUnique) found[0]!.confidence = 'unique';
    found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.index - b.index));
    return found.slice(0, maxNameOnly);
  }
}

function lastSegment(source: string): string {
  const segments = source.split('/');
  const last = segments[segments.length - 1] ?? '';
  // gopkg.in/yaml.v3 → yaml; example.com/m/v2 → m.
  if (/^v\d+$/.test(last) && segments.length > 1) return segments[segments.length - 2]!;
  return last.replace(/\.v\d+$/, '').replace(/^go-/, '');
}

function submoduleSpecifier(language: string | undefined, source: string, name: string): string {
  if (language === 'python') return source.endsWith('.') ? `${source}${name}` : `${source}.${name}`;
  if (language === 'rust') return `${source}::${name}`;
  if (language === 'typescript' || language === 'tsx' || language === 'javascript') return source;
  return `${source}/${name}`;
}

function dedupe(targets: Target[]): Target[] {
  const seen = new Set<string>();
  return targets.filter((target) => {
    const key = `${target.path}\u0000${target.index}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
