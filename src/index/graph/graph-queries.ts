// Questions asked of the code graph, each answered by resolving the references that can matter
// (resolver.ts) when asked: what a position refers to (definition), every place that refers to a
// definition (references: the files that use its name, plus names it is imported under), who
// calls it and whom it calls (to a depth), and its blast radius (impact: everything that depends
// on it, transitively, by distance). Every edge keeps the confidence of its resolution; an answer
// through several edges keeps the weakest.
import type { CancellationSignal } from '../../base/cancellation.js';
import { neverCancelled, throwIfCancelled } from '../../base/cancellation.js';
import { breathe } from '../../base/event-loop.js';
import type { CodeGraph } from './code-graph.js';
import { type FileGraph, definitionWithin, positionInDefinition } from './file-graph.js';
import { languageFamily } from './module-resolver.js';
import { type Confidence, Resolver, type Target, type Via } from './resolver.js';

function isHeader(path: string): boolean {
  return /\.(h|hh|hpp|hxx|h\+\+|inl)$/i.test(path);
}

/** A definition: its file and index there. */
export interface Place {
  path: string;
  index: number;
}

export interface ReferenceSite {
  path: string;
  /** 0-based line and UTF-16 characters of the name. */
  line: number;
  character: number;
  endCharacter: number;
  kind: string;
  confidence: Confidence;
  via: Via;
  /** The innermost definition the reference is in (-1: top-level code of the file). */
  enclosing: number;
}

export interface RelatedSymbol {
  /** The definition; undefined for top-level code of `path` (a file, not a symbol). */
  place: Place | undefined;
  path: string;
  /** Steps from the symbol asked about. */
  distance: number;
  /** The weakest edge on the way. */
  confidence: Confidence;
  /** The places where the edge is (call sites for callers/callees, references for impact). */
  sites: ReferenceSite[];
  /** The symbol it was reached from (undefined at distance 1). */
  from: Place | undefined;
}

export interface Unresolved {
  name: string;
  count: number;
}

const strength: Record<Confidence, number> = { exact: 2, unique: 1, 'name-only': 0 };

/** Resolutions made during one question (a file's part → reference index → targets). */
export type ResolutionCache = Map<FileGraph, Map<number, Target[]>>;
export function weakest(a: Confidence, b: Confidence): Confidence {
  return strength[a] <= strength[b] ? a : b;
}
export function atLeast(confidence: Confidence, floor: Confidence): boolean {
  return strength[confidence] >= strength[floor];
}

/** Reference kinds that are calls (a `new X()` is a call of X's constructor). */
const callKinds = new Set(['call', 'class']);

export interface EdgeOptions {
  /** Only edges at least this sure (default: every edge). */
  minConfidence?: Confidence;
  signal?: CancellationSignal;
}

export class GraphQueries {
  readonly resolver: Resolver;

  constructor(private readonly graph: CodeGraph) {
    this.resolver = new Resolver(graph);
  }

  /** The definition whose name is at a position, else the innermost definition around it (-1). */
  definitionAtPosition(path: string, line: number, character: number): { named: number; around: number } {
    const file = this.graph.file(path);
    if (!file) return { named: -1, around: -1 };
    let around = -1;
    const p = file.definitionPositions;
    for (let at = 0; at < file.definitionNames.length; at++) {
      const o = at * 8;
      if (p[o + 4] === line && p[o + 6] === line && character >= p[o + 5]! && character <= p[o + 7]!) return { named: at, around: at };
      if (positionInDefinition(file, at, line, character)) around = at; // definitions are in document order: the last one is the innermost
    }
    return { named: -1, around };
  }

  /** The reference whose name spans a position (-1: none). */
  referenceAtPosition(path: string, line: number, character: number): number {
    const file = this.graph.file(path);
    if (!file) return -1;
    for (let at = 0; at < file.referenceNames.length; at++) {
      if (file.referenceLines[at] !== line) continue;
      const start = file.referenceCharacters[at]!;
      if (character >= start && character <= start + this.graph.names.name(file.referenceNames[at]!).length) return at;
    }
    return -1;
  }

  /** What a position means: a reference's targets (with a C prototype's implementation), or the definition whose name it is. */
  definitionsAt(path: string, line: number, character: number): Target[] {
    this.resolver.forget();
    const file = this.graph.file(path);
    if (!file) return [];
    const reference = this.referenceAtPosition(path, line, character);
    if (reference >= 0) {
      const targets = this.resolver.resolve(file, reference);
      const more: Target[] = [];
      for (const target of targets) {
        if (!isHeader(target.path)) continue;
        for (const link of this.linked(target))
          if (!isHeader(link.path)) more.push({ path: link.path, index: link.index, confidence: weakest(target.confidence, link.confidence), via: target.via });
      }
      return [...targets, ...more];
    }
    const { named } = this.definitionAtPosition(path, line, character);
    return named >= 0 ? [{ path, index: named, confidence: 'exact', via: 'scope' }] : [];
  }

  /**
   * A C/C++ function and its prototypes in headers are one symbol: callers reach the prototype
   * through their includes, the body lives in a .c file. The other definitions of a top-level
   * function (prototypes in headers; for a prototype, the bodies outside headers), each `exact`
   * when the workspace has one body of that name and `name-only` when it has several.
   */
  linked(target: Place): Array<Place & { confidence: Confidence }> {
    const file = this.graph.file(target.path);
    if (
      !file ||
      languageFamily(file.language) !== 'c' ||
      file.definitionParents[target.index] !== -1 ||
      this.graph.kinds.kind(file.definitionKinds[target.index]!) !== 'function'
    )
      return [];
    const name = file.definitionNames[target.index]!;
    const others: Place[] = [];
    let bodies = isHeader(target.path) ? 0 : 1;
    for (const path of this.graph.definersOf(name)) {
      const other = this.graph.file(path);
      if (!other || languageFamily(other.language) !== 'c') continue;
      for (let at = 0; at < other.definitionNames.length; at++) {
        if (other.definitionNames[at] !== name || other.definitionParents[at] !== -1 || this.graph.kinds.kind(other.definitionKinds[at]!) !== 'function')
          continue;
        if (path === target.path && at === target.index) continue;
        if (!isHeader(path)) bodies++;
        if (isHeader(path) || isHeader(target.path)) others.push({ path, index: at });
      }
    }
    const confidence: Confidence = bodies <= 1 ? 'exact' : 'name-only';
    return others.map((place) => ({ ...place, confidence }));
  }

  /**
   * Builds every part's caches ahead of questions, a slice at a time (the first question after a
   * restart of the kernel's graph otherwise pays ~1.4 s for them). Once per graph; parts that
   * change later are prepared when a question reaches them.
   */
  async warm(signal = neverCancelled): Promise<void> {
    if (this.warmed) return this.warmed;
    this.warmed = (async () => {
      let last = performance.now();
      for (const part of [...this.graph.loadedParts()]) {
        this.resolver.prepare(part);
        if (performance.now() - last > 20) {
          await breathe();
          throwIfCancelled(signal);
          last = performance.now();
        }
      }
    })();
    return this.warmed;
  }

  private warmed: Promise<void> | undefined;

  /**
   * The files whose imports, includes or uses point at `path` (a Go or Java import of its package
   * counts), by resolving every import binding of the workspace: the files an edit of `path` may
   * break. Pauses every ~20 ms.
   */
  async importersOf(path: string, signal = neverCancelled): Promise<string[]> {
    const importers: string[] = [];
    let last = performance.now();
    for (const part of this.graph.parts()) {
      if (part.path === path) continue;
      for (let at = 0; at < part.imports.length; at++) {
        if (this.resolver.modulesAt(part, at).includes(path)) {
          importers.push(part.path);
          break;
        }
      }
      if (performance.now() - last > 20) {
        await breathe();
        throwIfCancelled(signal);
        last = performance.now();
      }
    }
    return importers.sort();
  }

  /** Definitions named `name`, or `Container.name` / `Container::name` (its containers end with those), optionally only in files `accepts` keeps; impl blocks left out. */
  definitionsNamed(qualified: string, accepts?: (path: string) => boolean): Place[] {
    const parts = qualified.split(/\.|::|#/).filter(Boolean);
    const id = this.graph.names.find(parts[parts.length - 1] ?? '');
    if (id === undefined) return [];
    const containers = parts.slice(0, -1);
    const places: Place[] = [];
    for (const path of [...this.graph.definersOf(id)].sort()) {
      if (accepts && !accepts(path)) continue;
      const file = this.graph.file(path)!;
      for (let at = 0; at < file.definitionNames.length; at++) {
        if (file.definitionNames[at] !== id || this.graph.kinds.kind(file.definitionKinds[at]!) === 'impl') continue;
        const chain = this.graph.kinds.chain(file.definitionChains[at]!);
        if (containers.length > 0 && chain.slice(-containers.length).join('\u0000') !== containers.join('\u0000')) continue;
        places.push({ path, index: at });
      }
    }
    return places;
  }

  /** Every reference that resolves to the definition(s) (or to a C prototype linked to one), in path and position order. */
  referencesTo(targets: Place | Place[], options: EdgeOptions = {}, cache?: ResolutionCache): Promise<ReferenceSite[]> {
    return this.referencesToAny(Array.isArray(targets) ? targets : [targets], options, cache);
  }

  /**
   * Every reference that reaches any of the targets, found in one scan: the files that use any of
   * their names (or names they are imported under; a name a file re-exports a target under is
   * followed to the files that use that name), each reference resolved once. Each site says which
   * target it reached first (`target`: its index in the list). Pauses every ~20 ms so the daemon
   * keeps answering, and a cancelled request stops there.
   */
  async referencesToAny(targets: Place[], options: EdgeOptions = {}, cache?: ResolutionCache): Promise<Array<ReferenceSite & { target: number }>> {
    if (!cache) {
      this.resolver.forget();
      cache = new Map();
    }
    const signal = options.signal ?? neverCancelled;
    const floor = options.minConfidence ?? 'name-only';
    // The targets and their linked C prototypes, by place.
    const members = new Map<string, { target: number; confidence: Confidence }>();
    const names = new Set<number>();
    targets.forEach((target, index) => {
      const owner = this.graph.file(target.path);
      if (!owner || target.index >= owner.definitionNames.length) return;
      names.add(owner.definitionNames[target.index]!);
      const key = `${target.path}\u0000${target.index}`;
      if (!members.has(key) || members.get(key)!.confidence !== 'exact') members.set(key, { target: index, confidence: 'exact' });
      for (const link of this.linked(target)) {
        const linkKey = `${link.path}\u0000${link.index}`;
        if (!members.has(linkKey)) members.set(linkKey, { target: index, confidence: link.confidence });
      }
    });
    // Files to scan: a queue, since a re-export under another name adds that name's users.
    // A file scanned before a new name was learnt is scanned again (sites are kept once).
    const queued = new Set<string>();
    const queue: string[] = [];
    const enqueue = (name: number, again: boolean) => {
      for (const path of this.graph.referrersOf(name)) {
        if (queued.has(path) && !again) continue;
        queued.add(path);
        queue.push(path);
      }
    };
    for (const name of names) enqueue(name, false);
    queue.sort();
    const seenSites = new Set<string>();
    const importKind = this.graph.kinds.findKind('import');
    const sites: Array<ReferenceSite & { target: number }> = [];
    let last = performance.now();
    for (let next = 0; next < queue.length; next++) {
      if (performance.now() - last > 20) {
        await breathe();
        throwIfCancelled(signal);
        last = performance.now();
      }
      const file = this.graph.file(queue[next]!);
      if (!file) continue;
      let resolved = cache.get(file);
      if (!resolved) cache.set(file, (resolved = new Map<number, Target[]>()));
      const hit = (reference: number): { target: number; confidence: Confidence; via: Via } | undefined => {
        let found = resolved!.get(reference);
        if (!found) resolved!.set(reference, (found = this.resolver.resolve(file, reference)));
        for (const candidate of found) {
          const member = members.get(`${candidate.path}\u0000${candidate.index}`);
          if (member) return { target: member.target, confidence: weakest(candidate.confidence, member.confidence), via: candidate.via };
        }
        return undefined;
      };
      // Names a target is imported under in this file (import { a as b }): their uses too; a
      // re-export under another name (export { a as b } from): that name's users everywhere.
      let wanted = names;
      for (let at = 0; at < file.referenceNames.length; at++) {
        if (file.referenceKinds[at] !== importKind || !names.has(file.referenceNames[at]!)) continue;
        const binding = file.imports[file.referenceBindings[at]!];
        const local = binding && binding.local !== '' ? this.graph.names.find(binding.local) : undefined;
        if (local === undefined || wanted.has(local) || !hit(at)) continue;
        if (wanted === names) wanted = new Set(names);
        wanted.add(local);
        if (binding!.reexport && !names.has(local)) {
          names.add(local);
          enqueue(local, true);
        }
      }
      for (let at = 0; at < file.referenceNames.length; at++) {
        if (!wanted.has(file.referenceNames[at]!)) continue;
        const reached = hit(at);
        if (!reached || !atLeast(reached.confidence, floor)) continue;
        const key = `${file.path}:${at}`;
        if (seenSites.has(key)) continue;
        seenSites.add(key);
        sites.push(this.site(file, at, reached, reached.target));
      }
    }
    return sites.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line || a.character - b.character));
  }

  /** Who calls the definitions, breadth first to `depth` (at most `limit` symbols). */
  callers(roots: Place[], depth: number, limit: number, options: EdgeOptions = {}): Promise<{ symbols: RelatedSymbol[]; truncated: boolean }> {
    return this.walkUp(roots, depth, limit, options, (site) => callKinds.has(site.kind), false);
  }

  /** Everything that depends on the definitions (any kind of reference), breadth first to `depth`. */
  impact(roots: Place[], depth: number, limit: number, options: EdgeOptions = {}): Promise<{ symbols: RelatedSymbol[]; truncated: boolean }> {
    return this.walkUp(roots, depth, limit, options, () => true, true);
  }

  private async walkUp(
    roots: Place[],
    depth: number,
    limit: number,
    options: EdgeOptions,
    keep: (site: ReferenceSite) => boolean,
    fileLevel: boolean,
  ): Promise<{ symbols: RelatedSymbol[]; truncated: boolean }> {
    const key = (place: Place) => `${place.path}\u0000${place.index}`;
    const seen = new Set(roots.map(key));
    const found = new Map<string, RelatedSymbol>();
    const cache: ResolutionCache = new Map();
    this.resolver.forget();
    // A frontier entry's confidence is read when its level is scanned: an entry upgraded by a
    // surer site later in the level it was found in passes the upgrade on.
    let frontier: Array<{ place: Place; entry: { confidence: Confidence } }> = roots.map((place) => ({ place, entry: { confidence: 'exact' as Confidence } }));
    let truncated = false;
    for (let distance = 1; distance <= depth && frontier.length > 0; distance++) {
      const next: Array<{ place: Place; entry: { confidence: Confidence } }> = [];
      // One scan per level: every reference to any symbol of the frontier.
      for (const site of await this.referencesToAny(
        frontier.map((item) => item.place),
        options,
        cache,
      )) {
        if (!keep(site)) continue;
        const { place, entry: reachedFrom } = frontier[site.target]!;
        const confidence = weakest(reachedFrom.confidence, site.confidence);
        const caller: Place | undefined = site.enclosing >= 0 ? { path: site.path, index: site.enclosing } : undefined;
        if (!caller && !fileLevel && !callKinds.has(site.kind)) continue;
        const id = caller ? key(caller) : `${site.path}\u0000file`;
        if (caller && seen.has(id) && !found.has(id)) continue; // a root
        let entry = found.get(id);
        if (!entry) {
          if (found.size >= limit) {
            truncated = true;
            continue;
          }
          entry = { place: caller, path: site.path, distance, confidence, sites: [], from: place };
          found.set(id, entry);
          if (caller && !seen.has(id)) {
            seen.add(id);
            next.push({ place: caller, entry });
          }
        } else if (entry.distance === distance && strength[confidence] > strength[entry.confidence]) {
          entry.confidence = confidence;
          entry.from = place;
        }
        if (entry.distance === distance) entry.sites.push(site);
      }
      // Full: a deeper level could only be scanned, not shown.
      if (found.size >= limit && distance < depth && next.length > 0) {
        truncated = true;
        break;
      }
      frontier = next;
    }
    return { symbols: [...found.values()], truncated };
  }

  /** Whom the definitions call, breadth first to `depth`; calls that resolve to nothing in the workspace are counted by name. */
  async callees(
    roots: Place[],
    depth: number,
    limit: number,
    options: EdgeOptions = {},
  ): Promise<{ symbols: RelatedSymbol[]; unresolved: Unresolved[]; truncated: boolean }> {
    const floor = options.minConfidence ?? 'name-only';
    const signal = options.signal ?? neverCancelled;
    const key = (place: Place) => `${place.path}\u0000${place.index}`;
    const seen = new Set(roots.map(key));
    const found = new Map<string, RelatedSymbol>();
    const unresolved = new Map<string, number>();
    this.resolver.forget();
    let truncated = false;
    let frontier: Array<{ place: Place; entry: { confidence: Confidence } }> = roots.map((place) => ({ place, entry: { confidence: 'exact' as Confidence } }));
    let last = performance.now();
    for (let distance = 1; distance <= depth && frontier.length > 0; distance++) {
      const next: Array<{ place: Place; entry: { confidence: Confidence } }> = [];
      for (const { place, entry: reachedFrom } of frontier) {
        if (performance.now() - last > 20) {
          await breathe();
          last = performance.now();
        }
        throwIfCancelled(signal);
        const confidence = reachedFrom.confidence;
        const file = this.graph.file(place.path);
        if (!file) continue;
        for (let at = 0; at < file.referenceNames.length; at++) {
          const enclosing = file.referenceEnclosing[at]!;
          if (enclosing < 0 || !callKinds.has(this.graph.kinds.kind(file.referenceKinds[at]!)) || !definitionWithin(file, enclosing, place.index)) continue;
          const targets = this.resolver.resolve(file, at).filter((target) => atLeast(target.confidence, floor));
          const name = this.graph.names.name(file.referenceNames[at]!);
          if (targets.length === 0) {
            if (distance === 1) unresolved.set(name, (unresolved.get(name) ?? 0) + 1);
            continue;
          }
          const site = this.site(file, at, targets[0]!);
          for (const target of targets) {
            const id = key(target);
            if (seen.has(id) && !found.has(id)) continue; // a root calling itself
            let entry = found.get(id);
            if (!entry) {
              if (found.size >= limit) {
                truncated = true;
                continue;
              }
              entry = {
                place: { path: target.path, index: target.index },
                path: target.path,
                distance,
                confidence: weakest(confidence, target.confidence),
                sites: [],
                from: place,
              };
              found.set(id, entry);
              seen.add(id);
              next.push({ place: entry.place!, entry });
            } else if (entry.distance === distance && strength[weakest(confidence, target.confidence)] > strength[entry.confidence]) {
              entry.confidence = weakest(confidence, target.confidence);
              entry.from = place;
            }
            if (entry.distance === distance) entry.sites.push({ ...site, confidence: target.confidence, via: target.via });
          }
        }
      }
      // Full: a deeper level could only be scanned, not shown.
      if (found.size >= limit && distance < depth && next.length > 0) {
        truncated = true;
        break;
      }
      frontier = next;
    }
    return {
      symbols: [...found.values()],
      unresolved: [...unresolved].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1)),
      truncated,
    };
  }

  /** A reference as a site (one object shape for every site: `target` is -1 when it does not apply). */
  private site(file: FileGraph, at: number, reached: { confidence: Confidence; via: Via }, target = -1): ReferenceSite & { target: number } {
    const start = file.referenceCharacters[at]!;
    return {
      path: file.path,
      line: file.referenceLines[at]!,
      character: start,
      endCharacter: start + this.graph.names.name(file.referenceNames[at]!).length,
      kind: this.graph.kinds.kind(file.referenceKinds[at]!),
      confidence: reached.confidence,
      via: reached.via,
      enclosing: file.referenceEnclosing[at]!,
      target,
    };
  }
}
