// The code graph of a workspace: the definitions, references and import bindings (tags.scm) of
// every file of the file set whose language has tag queries, tagged on the syntax workers, packed
// per file (file-graph.ts), kept fresh from the file set's change events (a changed file is
// re-tagged and replaces its old part; a removed one is dropped; a file open in an editor is
// tagged from its unsaved buffer at each change), with two inverted tables by
// interned name: which files define a name and which reference it. Edges are not stored: a
// reference is resolved when a query reaches it (resolver.ts), so a change costs one file's
// re-tagging and never invalidates edges elsewhere. Also answers workspace symbol search by name
// (symbol-search.ts). Persisted as graph.bin (graph-store.ts): a restart re-tags only the files
// whose content hash changed since, and leaves the other parts where they lie in the file until a
// question (or a save) first reads one; the name tables are used as they were saved.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { CancellationSignal } from '../../base/cancellation.js';
import { neverCancelled, throwIfCancelled } from '../../base/cancellation.js';
import { FathomError } from '../../base/errors.js';
import { breathe, slicedPause } from '../../base/event-loop.js';
import { type RewriteDeferral, rewriteDue } from '../../base/rewrite-deferral.js';
import { SerialTask } from '../../base/serial-task.js';
import { log } from '../../base/logger.js';
import { toAbsolute } from '../../base/paths.js';
import type { LanguageTable } from '../syntax/languages.js';
import { oneLine } from '../syntax/entities.js';
import type { FileTags, SymbolDefinition } from '../syntax/tags.js';
import { type FileGraph, KindTable, definitionAt, fileGraphBytes, packFileTags } from './file-graph.js';
import { ModuleResolver } from './module-resolver.js';
import { NameFiles } from './name-files.js';
import { NameTable } from './name-table.js';
import { type GraphFile, type GraphOpen, isStoredPart, loadGraph, openGraph, saveGraph, type SavedGraph, type StoredPart } from './graph-store.js';
import { characterMask, symbolScore } from './symbol-search.js';

/** Bump when tags.ts or file-graph.ts change what a part holds: caches made before are re-tagged. */
const extractionVersion = 2;

/** Unsaved editor buffers of the workspace, by relative path (the daemon's overlay provides them). */
export interface BufferSource {
  /** The buffer's text, or undefined when the file is not open. */
  text(relativePath: string): string | undefined;
  openPaths(): string[];
  /** A buffer opened, changed or closed. */
  onChange(listener: (relativePath: string) => void): { dispose(): void };
}

/** What the index needs from a workspace (the Workspace class provides it). */
export interface SymbolSource {
  root: string;
  files(): string[];
  /** The SHA-256 (hex) the file set holds for a file; undefined when it holds none. */
  hashOf(relativePath: string): string | undefined;
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

export type CodeGraphState = 'absent' | 'building' | 'ready';

const inFlight = 16;

/**
 * A graph of more than 20,000 files writes graph.bin again only once 256 files (or 1%) were tagged
 * again or dropped (base/rewrite-deferral.ts): a restart that re-tagged one file otherwise waited
 * for the kernel's 520 MB to be copied before its first answer.
 */
const defaultRewriteDeferral: RewriteDeferral = { above: 20_000, staleFiles: 256 };

/** Where a file's tags come from (a worker pool, or the engine's syntax pass): read from `absolutePath`, or the `bytes` given. */
export interface TagSource {
  tags(request: { path: string; absolutePath?: string; bytes?: Uint8Array }): Promise<FileTags>;
}

export class CodeGraph {
  /** Every file's part: in memory, or left where it lies in graph.bin (read on first need: `partOf`). */
  private readonly byPath = new Map<string, FileGraph | StoredPart>();
  /** The graph.bin the stored parts lie in (open until the next save takes their records, or dispose). */
  private savedFile: GraphFile | undefined;
  names = NameTable.empty();
  kinds = new KindTable();
  /** The hash each indexed file had when it was tagged (persistence). */
  private readonly hashes = new Map<string, string>();
  private saveTimer: NodeJS.Timeout | undefined;
  /** One save at a time; a change during a save makes another follow. */
  private readonly saver = new SerialTask(() => this.write());
  /** After dispose: tagging that finishes changes nothing, and nothing is saved any more. */
  private disposed = false;
  /** How the last build went: parts taken from the cache, files tagged. */
  lastBuild: { loaded: number; tagged: number } | undefined;
  private dirty = false;
  /** Files tagged again or dropped since graph.bin was written (saveDue). */
  private staleFiles = 0;
  /** graph.bin must be written whatever changed (an older version, another root or tag queries). */
  private rewrite = false;
  readonly modules: ModuleResolver;
  /** Interned name → the files that define it / reference it (each file once). */
  private readonly definers = new NameFiles('definitionNames');
  private readonly referrers = new NameFiles('referenceNames');
  private building: Promise<void> | undefined;
  private built = false;
  private readonly pending = new Set<string>();
  /** Files the build or the flush under way has still to tag, from disk. */
  private readonly toTag = new Set<string>();
  private readonly removedDuringBuild = new Set<string>();
  private flushing: Promise<void> | undefined;
  private readonly subscription: { dispose(): void };
  private readonly bufferSubscription: { dispose(): void } | undefined;
  private readonly progressListeners = new Set<(done: number, total: number) => void>();
  /** The saved graph being opened ahead of the build (prefetch). */
  private opening: Promise<GraphOpen> | undefined;
  /** While the saved copy is read: its files taken of its files. */
  private loadProgress: { done: number; total: number } | undefined;

  constructor(
    private readonly source: SymbolSource,
    private readonly pool: TagSource,
    private readonly table: LanguageTable,
    /** Where the graph is persisted (undefined: in memory only). */
    private readonly cacheFile?: string,
    /** How long after the last change the graph is saved again. */
    private readonly saveDelayMs = 30_000,
    /** Open editor buffers: a file open in an editor is tagged from its buffer (and not saved as the disk's). */
    private readonly buffers?: BufferSource,
    private readonly saveDeferral: RewriteDeferral = defaultRewriteDeferral,
  ) {
    this.bufferSubscription = buffers?.onChange((file) => {
      if (!this.tagged(file) || this.source.hashOf(file) === undefined) return;
      this.pending.add(file);
      if (this.built) this.flush();
    });
    this.modules = new ModuleResolver({
      files: () => this.source.files(),
      read: (file) => {
        try {
          return fs.readFileSync(toAbsolute(this.source.root, file), 'utf8');
        } catch {
          return undefined;
        }
      },
    });
    this.subscription = source.onChanges((changes) => {
      if (changes.added.length > 0 || changes.removed.length > 0) this.modules.invalidate();
      else if (changes.changed.some((file) => file === 'go.mod' || file.endsWith('/go.mod'))) this.modules.invalidateModules();
      for (const file of changes.removed) {
        this.replace(file, undefined);
        this.pending.delete(file);
        if (this.building) this.removedDuringBuild.add(file);
      }
      for (const file of [...changes.added, ...changes.changed]) if (this.tagged(file)) this.pending.add(file);
      if (this.built) this.flush();
    });
  }

  get state(): CodeGraphState {
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

  /**
   * Starts opening the saved graph (checked on a worker thread, its index read) so that the build
   * finds it open: a restarted daemon's first graph question does it while the file set is checked.
   */
  prefetch(): void {
    if (this.cacheFile && !this.built && !this.building && !this.opening && !this.disposed) this.opening = openGraph(this.cacheFile);
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
    let files = this.source.files().filter((file) => this.tagged(file));
    const loaded = await this.load(files);
    // Files open in an editor are tagged from their buffers, whatever the cache holds.
    const open = new Set(this.buffers?.openPaths() ?? []);
    if (loaded > 0 || open.size > 0) files = files.filter((file) => !this.byPath.has(file) || open.has(file));
    let done = 0;
    let next = 0;
    for (const file of files) this.toTag.add(file);
    const lane = async (): Promise<void> => {
      while (next < files.length) {
        const file = files[next++]!;
        await this.tagOne(file);
        done += 1;
        if (done % 64 === 0 || done === files.length) for (const listener of this.progressListeners) listener(done, files.length);
      }
    };
    await Promise.all(Array.from({ length: inFlight }, lane)).finally(() => this.toTag.clear());
    for (const file of this.removedDuringBuild) this.replace(file, undefined);
    this.removedDuringBuild.clear();
    this.built = true;
    this.lastBuild = { loaded, tagged: files.length };
    const counts = this.counts();
    log.info(
      `code graph of ${this.source.root}: ${counts.files} files (${loaded} from the cache, ${files.length} tagged), ${counts.definitions} definitions, ${counts.references} references in ${Math.round(performance.now() - started)} ms`,
    );
    this.staleFiles += files.length;
    if ((files.length > 0 || this.dirty) && !this.disposed) void this.save();
    if (this.pending.size > 0) this.flush();
  }

  /** A hash of the tag queries and of how tags are extracted: a cache made with others is not used. */
  private queriesKey(): string {
    const hash = createHash('sha256').update(`extraction ${extractionVersion}\n`);
    for (const id of [...this.table.languages.keys()].sort()) hash.update(`${id}\n${this.table.queryText(id, 'tags') ?? ''}\n`);
    return hash.digest('hex');
  }

  /**
   * Takes every cached part whose file still has the hash it was tagged from, as the snapshot is
   * read (the graph answers from what it holds meanwhile: `loading` says so); answers how many.
   */
  private async load(files: string[]): Promise<number> {
    if (!this.cacheFile) return 0;
    // Loading from the start (reading and checking the file comes before its first part) to
    // the end (the name tables made from the parts).
    this.loadProgress = { done: 0, total: 0 };
    try {
      const opening = performance.now();
      const opened = await (this.opening ?? openGraph(this.cacheFile));
      this.opening = undefined;
      log.debug(`code graph of ${this.source.root}: graph.bin checked and its index read in ${Math.round(performance.now() - opening)} ms`);
      if (opened.status === 'previous') {
        // Written again as version 3 once built.
        this.dirty = true;
        this.rewrite = true;
        return await this.loadParts(this.cacheFile, new Set(files));
      }
      if (opened.status === 'corrupt') log.warn(`code graph cache ${this.cacheFile} is unusable (${opened.reason}); re-tagging every file`);
      if (opened.status !== 'valid') return 0;
      return this.takeSaved(opened.graph, new Set(files));
    } finally {
      this.loadProgress = undefined;
    }
  }

  /** Takes a saved graph's tables as they are, and its parts whose file still has their hash, left where they lie; answers how many. */
  private takeSaved(saved: SavedGraph, wanted: Set<string>): number {
    const started = performance.now();
    if (saved.root !== this.source.root || saved.queries !== this.queriesKey() || this.disposed) {
      saved.file.close();
      this.dirty = true;
      this.rewrite = true;
      return 0;
    }
    let kinds: KindTable;
    try {
      kinds = KindTable.from(saved);
    } catch (error) {
      saved.file.close();
      log.warn(`code graph cache ${this.cacheFile} is unusable (${(error as Error).message}); re-tagging every file`);
      return 0;
    }
    this.names = NameTable.fromStored(saved.names);
    this.kinds = kinds;
    const taken = new Uint8Array(saved.paths.length);
    let loaded = 0;
    saved.paths.forEach((path, number) => {
      const hash = saved.hashes[number]!;
      if (!wanted.has(path) || this.source.hashOf(path) !== hash || this.byPath.has(path)) {
        this.dirty = true;
        this.staleFiles++;
        return;
      }
      this.byPath.set(path, { file: saved.file, number });
      this.hashes.set(path, hash);
      taken[number] = 1;
      loaded++;
    });
    this.definers.adopt(saved.paths, saved.definers, taken);
    this.referrers.adopt(saved.paths, saved.referrers, taken);
    this.savedFile = saved.file;
    for (const listener of this.progressListeners) listener(saved.paths.length, saved.paths.length);
    log.info(
      `code graph of ${this.source.root}: ${loaded} of ${saved.paths.length} saved files taken in ${Math.round(performance.now() - started)} ms, left where they lie`,
    );
    return loaded;
  }

  /** A version-2 graph.bin: every part decoded as it is read, the name → files tables made from them (the next save writes version 3). */
  private async loadParts(cacheFile: string, wanted: Set<string>): Promise<number> {
    const started = performance.now();
    let loaded = 0;
    let taken = false;
    let last = 0;
    let tables = 0;
    let read = await loadGraph(cacheFile, {
      begin: async (header) => {
        if (header.root !== this.source.root || header.queries !== this.queriesKey()) return false;
        const names = NameTable.adopt(header.names);
        const kinds = KindTable.from(header);
        this.names = names;
        this.kinds = kinds;
        this.loadProgress!.total = header.files;
        taken = true;
        tables = performance.now();
        return true;
      },
      file: (part, hash) => {
        const progress = this.loadProgress!;
        progress.done++;
        if (!wanted.has(part.path) || this.source.hashOf(part.path) !== hash) this.dirty = true;
        else {
          // Into place only: the name tables are made in one go once every part is read.
          this.byPath.set(part.path, part);
          this.hashes.set(part.path, hash);
          loaded++;
        }
        if (progress.done - last >= 512 || progress.done === progress.total) {
          last = progress.done;
          for (const listener of this.progressListeners) listener(progress.done, progress.total);
        }
      },
    });
    const partsRead = performance.now();
    if (read.status === 'valid' && loaded > 0) {
      try {
        const parts = [...this.loadedParts()];
        const current = (path: string): object | undefined => this.byPath.get(path);
        const pause = slicedPause();
        await this.definers.rebuild(parts, this.names.size, current, pause);
        await this.referrers.rebuild(parts, this.names.size, current, pause);
      } catch (error) {
        read = { status: 'corrupt', reason: (error as Error).message };
      }
    }
    if (read.status === 'corrupt') {
      log.warn(`code graph cache ${cacheFile} is unusable (${read.reason}); re-tagging every file`);
      if (taken) {
        this.byPath.clear();
        this.hashes.clear();
        this.names = NameTable.empty();
        this.kinds = new KindTable();
      }
      return 0;
    }
    if (read.status !== 'valid') return 0;
    const ms = (from: number, to: number) => Math.round(to - from);
    log.info(
      `code graph of ${this.source.root}: ${loaded} files read back in ${ms(started, performance.now())} ms (file and name table ${ms(started, tables)} ms, parts ${ms(tables, partsRead)} ms, name → files tables ${ms(partsRead, performance.now())} ms)`,
    );
    // Lookups by name (a question naming a symbol, tagging a changed file) need the name → id map.
    void this.names.index(breathe);
    return loaded;
  }

  /** Whether the graph is being read from its saved copy (a restart) rather than tagged. */
  get loading(): boolean {
    return this.loadProgress !== undefined;
  }

  /** Whether a change is not yet written. */
  get unsaved(): boolean {
    return this.saveTimer !== undefined || (this.dirty && this.saveDue());
  }

  /** Whether a save now is worth its cost (base/rewrite-deferral.ts); a small graph always saves. */
  private saveDue(): boolean {
    return this.rewrite || !fs.existsSync(this.cacheFile!) || rewriteDue(this.saveDeferral, this.byPath.size, this.byPath.size, this.staleFiles);
  }

  /**
   * Writes the graph (atomically, in pieces: other work runs meanwhile). One save at a time; a
   * change during a save makes another one follow. Parts never change once made and names only
   * grow, so the snapshot taken at the start is consistent.
   */
  save(): Promise<void> {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    if (!this.cacheFile || !this.built) return Promise.resolve();
    return this.saver.run();
  }

  private async write(): Promise<void> {
    if (!this.saveDue()) {
      log.debug(`code graph of ${this.source.root}: ${this.staleFiles} files changed since graph.bin was written; its save waits for more`);
      return;
    }
    const started = performance.now();
    const stale = this.staleFiles;
    // The parts, the name → files tables numbered as they are, and the names' count, all in this
    // turn: parts never change once made and names only grow, so they agree.
    const files: Array<{ path: string; hash: string; part: FileGraph | StoredPart }> = [];
    for (const [path, part] of this.byPath) {
      const hash = this.hashes.get(path);
      if (hash !== undefined) files.push({ path, hash, part });
    }
    const numberOf = new Map(files.map((file, number) => [file.path, number]));
    const nameCount = this.names.size;
    const definers = this.definers.snapshot(numberOf, nameCount);
    const referrers = this.referrers.snapshot(numberOf, nameCount);
    const names = await this.names.encode();
    this.dirty = false;
    try {
      if (names.count !== nameCount) throw new Error('the name table changed while it was encoded');
      const written = await saveGraph(this.cacheFile!, {
        root: this.source.root,
        queries: this.queriesKey(),
        ...this.kinds.snapshot(),
        names,
        files,
        definers,
        referrers,
      });
      // The parts left where they lay now lie in the new file; the old one is let go.
      files.forEach(({ path, part }, number) => {
        if (isStoredPart(part) && this.byPath.get(path) === part) this.byPath.set(path, { file: written, number });
      });
      this.savedFile?.close();
      this.savedFile = written;
      // What changed while it was written is not in the file: it stays counted.
      this.staleFiles = Math.max(0, this.staleFiles - stale);
      this.rewrite = false;
      log.debug(`code graph of ${this.source.root} saved in ${Math.round(performance.now() - started)} ms`);
    } catch (error) {
      this.dirty = true;
      log.warn(`code graph of ${this.source.root} not saved: ${(error as Error).message}`);
    }
  }

  /** Waits for a save under way (and the one a change during it asked for). */
  async saved(): Promise<void> {
    await this.saver.idle();
  }

  /** Saves a while after the last change. */
  private scheduleSave(): void {
    this.dirty = true;
    this.staleFiles++;
    if (!this.cacheFile || this.saveTimer || this.disposed) return;
    this.saveTimer = setTimeout(() => void this.save(), this.saveDelayMs);
    this.saveTimer.unref();
  }

  /** Whether the graph will ask for this file's tags soon (its build or its flush has it to do): the engine's syntax pass makes them with another index's pass of it. */
  awaitsTags(file: string): boolean {
    return this.toTag.has(file);
  }

  private async tagOne(file: string): Promise<void> {
    this.toTag.delete(file);
    // The hash before reading: if the file changes meanwhile, its change event re-tags it.
    const buffer = this.buffers?.text(file);
    // A part tagged from a buffer has no disk hash: it is not saved, and a restart re-tags the disk.
    const hash = buffer === undefined ? this.source.hashOf(file) : undefined;
    try {
      const tags = await this.pool.tags(
        buffer === undefined ? { path: file, absolutePath: toAbsolute(this.source.root, file) } : { path: file, bytes: Buffer.from(buffer, 'utf8') },
      );
      if (this.disposed) return;
      // Removed while it was being tagged: the removal stands.
      if (this.source.hashOf(file) === undefined) {
        this.replace(file, undefined);
        return;
      }
      this.replace(file, packFileTags(tags, this.names, this.kinds));
      if (hash !== undefined) this.hashes.set(file, hash);
      else this.hashes.delete(file);
    } catch (error) {
      if (this.disposed) return;
      // Vanished or unreadable since the file set saw it: the change event that follows says so.
      this.replace(file, undefined);
      log.debug(`code graph: ${file}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Puts a file's new part in place of its old one (undefined: drops it), keeping the name tables right. */
  private replace(file: string, next: FileGraph | undefined): void {
    if (!next) this.hashes.delete(file);
    if (this.built) this.scheduleSave();
    const previous = this.byPath.get(file);
    if (previous) {
      // A part left in graph.bin is in the flat tables: its arrays are not needed to drop it.
      const arrays = isStoredPart(previous) ? undefined : previous;
      this.definers.remove(file, arrays);
      this.referrers.remove(file, arrays);
      this.byPath.delete(file);
    }
    if (next) {
      this.byPath.set(file, next);
      this.definers.add(file, next);
      this.referrers.add(file, next);
    }
  }

  /** Re-tags the files changed since; one flush at a time, later changes wait for the next. */
  private flush(): void {
    if (this.disposed || this.flushing || this.pending.size === 0) return;
    const files = [...this.pending];
    this.pending.clear();
    for (const file of files) if (this.buffers?.text(file) === undefined) this.toTag.add(file);
    this.flushing = Promise.all(files.map((file) => this.tagOne(file))).then(() => {
      this.flushing = undefined;
      this.flush();
    });
  }

  /** Re-tags one file now (benchmarks: the cost of an update without the watcher). */
  async refresh(file: string): Promise<void> {
    await this.tagOne(file);
  }

  /** Waits until the changes seen so far are in the index. */
  async settle(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** Lines of a file (0-based numbers), whitespace collapsed, read back from the disk (none when it cannot be read). */
  firstLines(file: string, lines: number[]): Map<number, string> {
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

  /** Sizes, for status and benchmarks: files, definitions, references, import bindings, distinct names, bytes of the packed arrays. */
  counts(): { files: number; definitions: number; references: number; imports: number; names: number; packedBytes: number } {
    let definitions = 0;
    let references = 0;
    let imports = 0;
    let packedBytes = 0;
    for (const file of this.byPath.values()) {
      const [fileDefinitions, fileReferences, fileImports, bytes] = isStoredPart(file)
        ? file.file.countsOf(file.number)
        : [file.definitionNames.length, file.referenceNames.length, file.imports.length, fileGraphBytes(file)];
      definitions += fileDefinitions;
      references += fileReferences;
      imports += fileImports;
      packedBytes += bytes;
    }
    return { files: this.byPath.size, definitions, references, imports, names: this.names.size, packedBytes };
  }

  definitionCount(): number {
    return this.counts().definitions;
  }

  /** Every file's part (those left in graph.bin read as they come). */
  *parts(): Generator<FileGraph> {
    for (const path of this.byPath.keys()) {
      const part = this.partOf(path);
      if (part) yield part;
    }
  }

  /** The parts in memory (not those still left in graph.bin). */
  *loadedParts(): Generator<FileGraph> {
    for (const part of this.byPath.values()) if (!isStoredPart(part)) yield part;
  }

  /** One file's part of the graph (undefined: not tagged, or not in the file set). */
  file(path: string): FileGraph | undefined {
    return this.partOf(path);
  }

  /**
   * A file's part, read from graph.bin the first time it is needed. A record that does not decode
   * (the file's checksum held, so a bug rather than damage) drops the part and re-tags the file.
   */
  private partOf(path: string): FileGraph | undefined {
    const entry = this.byPath.get(path);
    if (entry === undefined || !isStoredPart(entry)) return entry;
    try {
      const { part, hash } = entry.file.part(entry.number);
      if (part.path !== path || hash !== this.hashes.get(path)) throw new Error(`record ${entry.number} holds ${part.path}`);
      this.byPath.set(path, part);
      return part;
    } catch (error) {
      log.warn(`code graph: ${path}: its part in graph.bin does not read back (${(error as Error).message}); tagging it again`);
      this.replace(path, undefined);
      if (this.source.hashOf(path) !== undefined) {
        this.pending.add(path);
        if (this.built) this.flush();
      }
      return undefined;
    }
  }

  /** Files that define / reference an interned name. */
  definersOf(name: number): Iterable<string> {
    return this.definers.files(name);
  }

  referrersOf(name: number): Iterable<string> {
    return this.referrers.files(name);
  }

  /** A definition with its first line read back from the file. */
  definition(path: string, index: number): SymbolDefinition | undefined {
    const file = this.partOf(path);
    if (!file || index < 0 || index >= file.definitionNames.length) return undefined;
    const definition = definitionAt(file, index, this.names, this.kinds);
    definition.signature = this.firstLines(path, [definition.start.line]).get(definition.start.line) ?? '';
    return definition;
  }

  /** Definitions of many places, first lines read once per file. */
  definitions(places: ReadonlyArray<{ path: string; index: number }>): SymbolDefinition[] {
    const lines = new Map<string, number[]>();
    const unpacked = places.map(({ path, index }) => {
      const definition = definitionAt(this.partOf(path)!, index, this.names, this.kinds);
      const list = lines.get(path) ?? [];
      list.push(definition.start.line);
      lines.set(path, list);
      return definition;
    });
    const firstLines = new Map([...lines].map(([path, list]) => [path, this.firstLines(path, list)]));
    places.forEach(({ path }, at) => (unpacked[at]!.signature = firstLines.get(path)?.get(unpacked[at]!.start.line) ?? ''));
    return unpacked;
  }

  /** The definitions of one indexed file (first lines left empty). */
  fileTags(file: string): FileTags | undefined {
    const packed = this.partOf(file);
    if (!packed) return undefined;
    return {
      path: file,
      language: packed.language,
      definitions: Array.from(packed.definitionNames, (_, index) => definitionAt(packed, index, this.names, this.kinds)),
      references: [],
      imports: packed.imports,
    };
  }

  search(request: SymbolQuery): { matches: SymbolMatch[]; truncated: boolean } {
    // While it builds, the files tagged so far answer (the daemon says the answer is partial).
    if (!this.built && !this.building) throw new FathomError('internal', 'code graph searched before it was built');
    const limit = request.limit ?? 100;
    const kinds = request.kinds && request.kinds.length > 0 ? new Set(request.kinds.map((kind) => this.kinds.findKind(kind) ?? -1)) : undefined;
    const query = request.query.trim();
    const lowerQuery = query.toLowerCase();
    const found: Array<{ file: string; packed: FileGraph; index: number; score: number }> = [];
    const inOrder = (name: string): boolean => {
      let at = 0;
      for (let char = 0; char < lowerQuery.length; char++) {
        const position = name.indexOf(lowerQuery[char]!, at);
        if (position < 0) return false;
        at = position + 1;
      }
      return true;
    };
    if (this.loadProgress) {
      // Read back from disk, the name tables not made yet: the parts read so far, one by one.
      const scores = new Map<number, number | undefined>();
      for (const file of this.byPath.keys()) {
        if (request.accepts && !request.accepts(file)) continue;
        const packed = this.partOf(file);
        if (!packed) continue;
        const nameIds = packed.definitionNames;
        for (let index = 0; index < nameIds.length; index++) {
          const nameId = nameIds[index]!;
          if (kinds && !kinds.has(packed.definitionKinds[index]!)) continue;
          let score = scores.get(nameId);
          if (!scores.has(nameId)) {
            score = inOrder(this.names.lower(nameId)) ? symbolScore(query, this.names.name(nameId)) : undefined;
            scores.set(nameId, score);
          }
          if (score !== undefined) found.push({ file, packed, index, score });
        }
      }
    } else {
      // Each name scored once (most rejected by their character mask, then by the query's
      // characters not occurring in order: every tier needs both), then its definers' definitions.
      const queryMask = characterMask(lowerQuery);
      for (let nameId = 1; nameId < this.names.size; nameId++) {
        if ((this.names.mask(nameId) & queryMask) !== queryMask || !inOrder(this.names.lower(nameId))) continue;
        const score = symbolScore(query, this.names.name(nameId));
        if (score === undefined) continue;
        for (const file of this.definers.files(nameId)) {
          if (request.accepts && !request.accepts(file)) continue;
          const packed = this.partOf(file);
          if (!packed) continue;
          const nameIds = packed.definitionNames;
          for (let index = 0; index < nameIds.length; index++) {
            if (nameIds[index] === nameId && (!kinds || kinds.has(packed.definitionKinds[index]!))) found.push({ file, packed, index, score });
          }
        }
      }
    }
    const nameLength = (hit: { packed: FileGraph; index: number }) => this.names.name(hit.packed.definitionNames[hit.index]!).length;
    found.sort(
      (a, b) =>
        b.score - a.score ||
        nameLength(a) - nameLength(b) ||
        (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) ||
        a.packed.definitionPositions[a.index * 8]! - b.packed.definitionPositions[b.index * 8]!,
    );
    const shown = found.slice(0, limit);
    // First lines for what is shown, one read per file.
    const linesByFile = new Map<string, number[]>();
    for (const hit of shown) {
      const lines = linesByFile.get(hit.file) ?? [];
      lines.push(hit.packed.definitionPositions[hit.index * 8]!);
      linesByFile.set(hit.file, lines);
    }
    const firstLines = new Map([...linesByFile].map(([file, lines]) => [file, this.firstLines(file, lines)]));
    const matches = shown.map((hit): SymbolMatch => {
      const line = hit.packed.definitionPositions[hit.index * 8]!;
      return {
        ...definitionAt(hit.packed, hit.index, this.names, this.kinds),
        signature: firstLines.get(hit.file)?.get(line) ?? '',
        path: hit.file,
        score: hit.score,
      };
    });
    return { matches, truncated: found.length > limit };
  }

  /** Stops following changes; answers when a last save of unsaved changes is written. */
  dispose(): Promise<void> {
    this.subscription.dispose();
    this.bufferSubscription?.dispose();
    if (this.dirty && this.built && !this.disposed) void this.save();
    this.disposed = true;
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    void this.opening?.then((opened) => opened.status === 'valid' && opened.graph.file.close());
    return this.saved().finally(() => this.savedFile?.close());
  }
}
