// Workspace symbols: the definitions (tags.scm) of every file of a workspace's file set whose
// language has tag queries, extracted on the syntax workers, kept fresh from the file set's change
// events (a changed file is re-tagged, a removed one dropped), searched by name with
// symbol-search.ts. Definitions are kept packed (PackedDefinitions); in memory, rebuilt when the
// daemon starts (persistence, references and their resolution come with the rest of the graph).
import fs from 'node:fs';
import type { CancellationSignal } from '../../base/cancellation.js';
import { neverCancelled, throwIfCancelled } from '../../base/cancellation.js';
import { FathomError } from '../../base/errors.js';
import { log } from '../../base/logger.js';
import { toAbsolute } from '../../base/paths.js';
import type { ChunkPool } from '../syntax/chunk-pool.js';
import type { LanguageTable } from '../syntax/languages.js';
import { oneLine } from '../syntax/entities.js';
import type { FileTags, SymbolDefinition } from '../syntax/tags.js';
import { symbolScore } from './symbol-search.js';

/**
 * One file's definitions, packed: the kernel has 4.2 million, which as objects (with positions,
 * containers and first lines) did not fit in 4 GB. Kinds and container chains are interned
 * indexes; positions are 8 numbers per definition (start, end, name start, name end as line,
 * character); first lines are read back from the file for the matches a search returns.
 */
interface PackedDefinitions {
  names: string[];
  /** The lower-cased names (the same string when already lower case). */
  lower: string[];
  kinds: Uint16Array;
  containers: Uint32Array;
  positions: Int32Array;
}

/** What the index needs from a workspace (the Workspace class provides it). */
export interface SymbolSource {
  root: string;
  files(): string[];
  onChanges(listener: (changes: { added: string[]; changed: string[]; removed: string[] }) => void): { dispose(): void };
}

export interface SymbolMatch extends SymbolDefinition {
  path: string;
  score: number;
}

export interface SymbolQuery {
  query: string;
  /** Only these kinds (function, class, …). */
  kinds?: string[];
  /** Only paths this filter accepts. */
  accepts?: (relativePath: string) => boolean;
  /** At most this many (default 100). */
  limit?: number;
}

export type SymbolIndexState = 'absent' | 'building' | 'ready';

const inFlight = 16;

export class SymbolIndex {
  private readonly byPath = new Map<string, PackedDefinitions>();
  private readonly kindNames: string[] = [];
  private readonly kindIds = new Map<string, number>();
  private readonly containerChains: string[][] = [];
  private readonly containerIds = new Map<string, number>();
  private building: Promise<void> | undefined;
  private built = false;
  private readonly pending = new Set<string>();
  private readonly removedDuringBuild = new Set<string>();
  private flushing: Promise<void> | undefined;
  private readonly subscription: { dispose(): void };
  private readonly progressListeners = new Set<(done: number, total: number) => void>();


  constructor(
    private readonly source: SymbolSource,
    private readonly pool: ChunkPool,
    private readonly table: LanguageTable,
  ) {
    this.subscription = source.onChanges((changes) => {
      for (const file of changes.removed) {
        this.byPath.delete(file);
        this.pending.delete(file);
        if (this.building) this.removedDuringBuild.add(file);
      }
      for (const file of [...changes.added, ...changes.changed]) if (this.tagged(file)) this.pending.add(file);
      if (this.built) this.flush();
    });
  }

  get state(): SymbolIndexState {
    return this.built ? 'ready' : this.building ? 'building' : 'absent';
  }

  onProgress(listener: (done: number, total: number) => void): { dispose(): void } {
    this.progressListeners.add(listener);
    return { dispose: () => this.progressListeners.delete(listener) };
  }

  /** Files whose language has tag queries (by name and extension). */
  private tagged(file: string): boolean {
    const spec = this.table.detect(file);
    return spec !== undefined && spec.disabled === undefined && spec.tagsQueryPath !== undefined;
  }

  /** Builds on first use; later calls wait for the same build. */
  async ensureBuilt(signal: CancellationSignal = neverCancelled): Promise<void> {
    if (this.built) return this.flushing;
    this.building ??= this.build().finally(() => (this.building = undefined));
    await this.building;
    throwIfCancelled(signal);
  }

  private async build(): Promise<void> {
    const started = performance.now();
    const files = this.source.files().filter((file) => this.tagged(file));
    let done = 0;
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < files.length) {
        const file = files[next++]!;
        await this.tagOne(file);
        done += 1;
        if (done % 64 === 0 || done === files.length) for (const listener of this.progressListeners) listener(done, files.length);
      }
    };
    await Promise.all(Array.from({ length: inFlight }, lane));
    for (const file of this.removedDuringBuild) this.byPath.delete(file);
    this.removedDuringBuild.clear();
    this.built = true;
    log.info(`symbols of ${this.source.root}: ${files.length} files, ${this.definitionCount()} definitions in ${Math.round(performance.now() - started)} ms`);
    if (this.pending.size > 0) this.flush();
  }

  private async tagOne(file: string): Promise<void> {
    try {
      const tags = await this.pool.tags({ path: file, absolutePath: toAbsolute(this.source.root, file), definitionsOnly: true });
      this.byPath.set(file, this.pack(tags));
    } catch (error) {
      // Vanished or unreadable since the file set saw it: the change event that follows says so.
      this.byPath.delete(file);
      log.debug(`symbols: ${file}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Re-tags the files changed since; one flush at a time, later changes wait for the next. */
  private flush(): void {
    if (this.flushing || this.pending.size === 0) return;
    const files = [...this.pending];
    this.pending.clear();
    this.flushing = Promise.all(files.map((file) => this.tagOne(file))).then(() => {
      this.flushing = undefined;
      this.flush();
    });
  }

  /** Waits until the changes seen so far are in the index. */
  async settle(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private pack(tags: FileTags): PackedDefinitions {
    const count = tags.definitions.length;
    const packed: PackedDefinitions = { names: [], lower: [], kinds: new Uint16Array(count), containers: new Uint32Array(count), positions: new Int32Array(count * 8) };
    tags.definitions.forEach((definition, index) => {
      packed.names.push(definition.name);
      const lower = definition.name.toLowerCase();
      packed.lower.push(lower === definition.name ? definition.name : lower);
      let kind = this.kindIds.get(definition.kind);
      if (kind === undefined) {
        kind = this.kindNames.push(definition.kind) - 1;
        this.kindIds.set(definition.kind, kind);
      }
      packed.kinds[index] = kind;
      const chainKey = definition.container.join('\u0000');
      let chain = this.containerIds.get(chainKey);
      if (chain === undefined) {
        chain = this.containerChains.push(definition.container) - 1;
        this.containerIds.set(chainKey, chain);
      }
      packed.containers[index] = chain;
      const at = index * 8;
      packed.positions.set([definition.start.line, definition.start.character, definition.end.line, definition.end.character, definition.nameStart.line, definition.nameStart.character, definition.nameEnd.line, definition.nameEnd.character], at);
    });
    return packed;
  }

  private unpack(packed: PackedDefinitions, index: number, signature: string): SymbolDefinition {
    const p = packed.positions;
    const at = index * 8;
    return {
      name: packed.names[index]!,
      kind: this.kindNames[packed.kinds[index]!]!,
      start: { line: p[at]!, character: p[at + 1]! },
      end: { line: p[at + 2]!, character: p[at + 3]! },
      nameStart: { line: p[at + 4]!, character: p[at + 5]! },
      nameEnd: { line: p[at + 6]!, character: p[at + 7]! },
      container: this.containerChains[packed.containers[index]!]!,
      signature,
    };
  }

  /** First lines of definitions, read back from their file (empty when it cannot be read). */
  private firstLines(file: string, lines: number[]): Map<number, string> {
    const out = new Map<number, string>();
    let text: string;
    try {
      text = fs.readFileSync(toAbsolute(this.source.root, file), 'utf8');
    } catch {
      return out;
    }
    const wanted = new Set(lines);
    let line = 0;
    for (let start = 0; start <= text.length && out.size < wanted.size; line++) {
      const newline = text.indexOf('\n', start);
      const end = newline < 0 ? text.length : newline;
      if (wanted.has(line)) out.set(line, oneLine(text.slice(start, end), 160));
      if (newline < 0) break;
      start = newline + 1;
    }
    return out;
  }

  definitionCount(): number {
    let count = 0;
    for (const packed of this.byPath.values()) count += packed.names.length;
    return count;
  }

  /** The definitions of one indexed file (first lines left empty). */
  fileTags(file: string): FileTags | undefined {
    const packed = this.byPath.get(file);
    if (!packed) return undefined;
    return { path: file, language: this.table.detect(file)?.id, definitions: packed.names.map((_, index) => this.unpack(packed, index, '')), references: [] };
  }

  search(request: SymbolQuery): { matches: SymbolMatch[]; truncated: boolean } {
    if (!this.built) throw new FathomError('internal', 'symbol index searched before it was built');
    const limit = request.limit ?? 100;
    const kinds = request.kinds && request.kinds.length > 0 ? new Set(request.kinds.map((kind) => this.kindIds.get(kind) ?? -1)) : undefined;
    const query = request.query.trim();
    const lowerQuery = query.toLowerCase();
    const found: Array<{ file: string; packed: PackedDefinitions; index: number; score: number }> = [];
    for (const [file, packed] of this.byPath) {
      if (request.accepts && !request.accepts(file)) continue;
      const lower = packed.lower;
      for (let index = 0; index < lower.length; index++) {
        // Cheap rejection first: the query's characters must occur in order (every tier needs it).
        const name = lower[index]!;
        let at = 0;
        let ok = true;
        for (let char = 0; char < lowerQuery.length; char++) {
          const position = name.indexOf(lowerQuery[char]!, at);
          if (position < 0) {
            ok = false;
            break;
          }
          at = position + 1;
        }
        if (!ok || (kinds && !kinds.has(packed.kinds[index]!))) continue;
        const score = symbolScore(query, packed.names[index]!);
        if (score !== undefined) found.push({ file, packed, index, score });
      }
    }
    found.sort((a, b) => b.score - a.score || a.packed.names[a.index]!.length - b.packed.names[b.index]!.length || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.packed.positions[a.index * 8]! - b.packed.positions[b.index * 8]!);
    const shown = found.slice(0, limit);
    // First lines for what is shown, one read per file.
    const linesByFile = new Map<string, number[]>();
    for (const hit of shown) {
      const lines = linesByFile.get(hit.file) ?? [];
      lines.push(hit.packed.positions[hit.index * 8]!);
      linesByFile.set(hit.file, lines);
    }
    const firstLines = new Map([...linesByFile].map(([file, lines]) => [file, this.firstLines(file, lines)]));
    const matches = shown.map((hit): SymbolMatch => {
      const line = hit.packed.positions[hit.index * 8]!;
      return { ...this.unpack(hit.packed, hit.index, firstLines.get(hit.file)?.get(line) ?? ''), path: hit.file, score: hit.score };
    });
    return { matches, truncated: found.length > limit };
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
