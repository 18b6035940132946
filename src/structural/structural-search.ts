// Structural search over a workspace: compile the rule (errors come from here, before any file is
// touched), ask the regex index for the files that contain the pattern's literals (a selective
// pattern never parses the whole tree), keep those of the pattern's language and the path
// filters, then match: open editor buffers on this thread through the parse cache (their trees
// are reused across keystrokes), files on disk in the structural pool's workers. Results come in
// path order; with maxResults the search stops once the files before the cut are done, and `next`
// says where the matches after the cut begin (`after`: the next page starts there).
import { type CancellationSignal, neverCancelled, throwIfCancelled } from '../base/cancellation.js';
import { FathomError } from '../base/errors.js';
import { toAbsolute } from '../base/paths.js';
import { describeQuery, type Query } from '../index/regex/query.js';
import type { GrammarSet, LoadedGrammar } from '../index/syntax/grammars.js';
import type { ParseCache } from '../index/syntax/parse-cache.js';
import { type FileMatch, findInTree, mayMatch } from './find.js';
import { type CompiledSearch, compileSearch, type SearchSpec } from './rule.js';
import { StructuralFileError, type StructuralPool } from './structural-pool.js';

export interface StructuralRequest extends SearchSpec {
  /** Language id, name or extension (grammars/manifest.json). */
  language: string;
  /** Only files whose workspace-relative path passes (globs, paths). */
  accepts?: (relativePath: string) => boolean;
  /** Stop after this many matches (default 1,000). */
  maxResults?: number;
  /** The matches after a previous answer's `next`: files before `path` left out, and the first `skip` matches of `path`. */
  after?: StructuralCursor;
  /** A client that pages: a truncated answer carries `next` (also with `after`). */
  paged?: boolean;
}

/** Where an answer cut at its limit ended: its last match's file and (1-based) line, and how many matches of that file were given up to there. */
export interface StructuralCursor {
  path: string;
  line: number;
  skip: number;
}

export interface StructuralHit extends FileMatch {
  path: string;
}

export interface StructuralResult {
  language: string;
  /** Which rung of the context ladder parsed the pattern. */
  rung: string | undefined;
  variables: string[];
  matches: StructuralHit[];
  files: number;
  truncated: boolean;
  /** When truncated, for a page (`paged`, or `after` given): where the next page starts (`after`). */
  next?: StructuralCursor;
  /** Files that could not be searched (vanished, unreadable, parse timed out), with why. */
  errors: { path: string; message: string }[];
  /** `parsed`: files parsed (in part or whole); `reused`: files matched on a tree a worker kept from an earlier search. */
  stats: { plan: string; fromIndex: boolean; candidates: number; parsed: number; reused: number; elapsedMs: number };
  /** For each file with matches: the SHA-256 of the content matched, or `buffer` with the editor text that was. */
  sources: Map<string, { hash: string } | { buffer: string }>;
}

/** Where the candidate files come from: the regex index of the workspace. */
export interface CandidateSource {
  readonly root: string;
  candidateFiles(
    query: Query,
    accepts: (relativePath: string) => boolean,
    signal: CancellationSignal,
  ): Promise<{ files: { path: string; text?: string }[]; fromIndex: boolean }>;
}

/** Numbers each search (workers' tree caches tell one search's files from another's). */
let nextSearchId = 0;

export class StructuralSearch {
  constructor(
    private readonly grammars: GrammarSet,
    private readonly parseCache: ParseCache,
    private readonly pool: StructuralPool,
  ) {}

  /** Loads a language's grammar by id, name or extension; invalidParams naming the known ones otherwise. */
  async grammarFor(language: string): Promise<LoadedGrammar> {
    const spec = this.grammars.table.resolve(language);
    if (!spec)
      throw new FathomError('invalidParams', `unknown language ${JSON.stringify(language)}; known: ${[...this.grammars.table.languages.keys()].join(', ')}`, {
        field: 'language',
      });
    const state = await this.grammars.load(spec.id);
    if (state.state === 'failed') throw new FathomError('invalidParams', `cannot search ${spec.name}: ${state.reason}`, { field: 'language' });
    return state.grammar;
  }

  /** Recently compiled searches by language and rule: the daemon validates before it searches. */
  private readonly compiled = new Map<string, CompiledSearch>();

  /** Validates a request without searching (the compiled search, or invalidParams). */
  async compile(request: StructuralRequest): Promise<{ grammar: LoadedGrammar; search: CompiledSearch }> {
    const grammar = await this.grammarFor(request.language);
    const spec: SearchSpec = { rule: request.rule, ...(request.constraints ? { constraints: request.constraints } : {}) };
    const key = JSON.stringify([grammar.spec.id, spec]);
    let search = this.compiled.get(key);
    if (!search) {
      search = compileSearch(this.grammars, grammar, spec);
      if (this.compiled.size >= 16) this.compiled.delete(this.compiled.keys().next().value!);
      this.compiled.set(key, search);
    }
    return { grammar, search };
  }

  async search(
    source: CandidateSource,
    request: StructuralRequest,
    signal: CancellationSignal = neverCancelled,
    progress?: (done: number, total: number) => void,
  ): Promise<StructuralResult> {
    const started = performance.now();
    const { grammar, search } = await this.compile(request);
    const language = grammar.spec.id;
    const limit = request.maxResults ?? 1_000;
    const table = this.grammars.table;
    const accepts = (path: string): boolean => table.detect(path)?.id === language && (request.accepts?.(path) ?? true);
    const candidates = await source.candidateFiles(search.query, accepts, signal);
    const { fromIndex } = candidates;
    // A page after a cursor: the files from the cursor's on (paths are in order); of its own
    // file, the matches after the first `skip` (found too, and dropped when the file settles).
    const after = request.after;
    const files = after ? candidates.files.filter((file) => file.path >= after.path) : candidates.files;
    const skipOf = (index: number): number => (after && index === 0 && files[0]!.path === after.path ? after.skip : 0);
    const spec: SearchSpec = { rule: request.rule, ...(request.constraints ? { constraints: request.constraints } : {}) };
    const key = JSON.stringify([language, spec]);

    const perFile = new Array<FileMatch[] | undefined>(files.length);
    const errors: { path: string; message: string }[] = [];
    const sources = new Map<string, { hash: string } | { buffer: string }>();
    let parsed = 0;
    let reused = 0;
    const searchId = (nextSearchId += 1);
    let done = 0;
    // Files are finished in any order; `prefix` counts matches in the leading run of finished files.
    let prefixEnd = 0;
    let prefixMatches = 0;
    const enough = (): boolean => prefixMatches > limit;
    const settle = (index: number, found: FileMatch[]): void => {
      const matches = skipOf(index) > 0 ? found.slice(skipOf(index)) : found;
      perFile[index] = matches;
      done += 1;
      while (prefixEnd < files.length && perFile[prefixEnd] !== undefined) prefixMatches += perFile[prefixEnd++]!.length;
      progress?.(done, files.length);
    };

    const searchOne = async (index: number): Promise<void> => {
      const file = files[index]!;
      try {
        if (file.text !== undefined && file.text.length <= 2_000_000) {
          const matches = await this.searchBuffer(source.root, file.path, file.text, grammar, search, limit + 1 + skipOf(index), () => (parsed += 1));
          if (matches.length > 0) sources.set(file.path, { buffer: file.text });
          settle(index, matches);
          return;
        }
        const answer = await this.pool.search({
          language,
          spec,
          key,
          search: searchId,
          path: file.path,
          limit: limit + 1 + skipOf(index),
          ...(file.text !== undefined ? { text: file.text } : { absolutePath: toAbsolute(source.root, file.path) }),
        });
        if (answer.parsed) parsed += 1;
        if (answer.reused) reused += 1;
        if (file.text !== undefined && answer.matches.length > 0) sources.set(file.path, { buffer: file.text });
        else if (answer.hash) sources.set(file.path, { hash: answer.hash });
        settle(index, answer.matches);
      } catch (error) {
        const gone = error instanceof StructuralFileError && (error.code === 'ENOENT' || error.code === 'ENOTDIR');
        if (!gone) errors.push({ path: file.path, message: error instanceof Error ? error.message : String(error) });
        settle(index, []);
      }
    };

    // A window of files in flight, in path order, so that maxResults can stop early.
    const window = Math.max(2, this.pool.size * 4);
    let next = 0;
    const running = new Set<Promise<void>>();
    while (next < files.length || running.size > 0) {
      while (next < files.length && running.size < window && !enough() && !signal.isCancellationRequested) {
        const task = searchOne(next++).finally(() => running.delete(task));
        running.add(task);
      }
      if (running.size === 0) break;
      await Promise.race(running);
    }
    throwIfCancelled(signal);

    const matches: StructuralHit[] = [];
    let total = 0;
    let fileCount = 0;
    perFile.forEach((list, index) => {
      if (!list || list.length === 0) return;
      total += list.length;
      if (matches.length >= limit) return;
      fileCount += 1;
      for (const match of list.slice(0, limit - matches.length)) matches.push({ path: files[index]!.path, ...match });
    });
    errors.sort((a, b) => (a.path < b.path ? -1 : 1));
    const truncated = total > limit || next < files.length;
    const last = matches.at(-1);
    return {
      language,
      rung: search.rule.pattern?.rung,
      variables: search.variables,
      matches,
      files: fileCount,
      truncated,
      ...((request.paged || after) && truncated && last
        ? {
            next: {
              path: last.path,
              line: last.start.line + 1,
              skip: matches.filter((match) => match.path === last.path).length + (after && after.path === last.path ? after.skip : 0),
            },
          }
        : {}),
      errors,
      stats: {
        plan: search.query.op === 'all' ? '*' : describeQuery(search.query),
        fromIndex,
        candidates: files.length,
        parsed,
        reused,
        elapsedMs: Math.round((performance.now() - started) * 100) / 100,
      },
      sources,
    };
  }

  /** Buffer searches run one at a time: a tree from the parse cache is valid only until its next call. */
  private bufferTurn: Promise<unknown> = Promise.resolve();

  private searchBuffer(
    root: string,
    path: string,
    text: string,
    grammar: LoadedGrammar,
    search: CompiledSearch,
    limit: number,
    onParse: () => void,
  ): Promise<FileMatch[]> {
    const turn = this.bufferTurn.then(() => this.searchBufferNow(root, path, text, grammar, search, limit, onParse));
    this.bufferTurn = turn.catch(() => undefined);
    return turn;
  }

  /** An open buffer: matched on this thread, on the parse cache's (incrementally kept) tree. */
  private async searchBufferNow(
    root: string,
    path: string,
    text: string,
    grammar: LoadedGrammar,
    search: CompiledSearch,
    limit: number,
    onParse: () => void,
  ): Promise<FileMatch[]> {
    const bytes = Buffer.from(text, 'utf8');
    if (!mayMatch(bytes, search.required)) return [];
    const cached = await this.parseCache.tree(toAbsolute(root, path), grammar.spec.id, bytes);
    if (!cached) throw new Error('parse timed out');
    onParse();
    return findInTree(cached.tree, cached.source, search, limit);
  }
}
