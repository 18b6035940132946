// Loading grammars: one web-tree-sitter runtime per thread, each language's wasm and its queries
// loaded once on first use and kept. A language whose wasm or query fails to load is remembered as
// failed with the reason (its files fall back to line windows) and never retried in this thread,
// since a grammar that crashed inside wasm can break later loads. Used by the chunker, the parse
// cache and the chunk workers; parseSource parses with a time limit and survives a grammar that throws.
import fs from 'node:fs';
import { Language, Parser, type Point, Query, type Range, type Tree } from 'web-tree-sitter';
import { type FlatWalkBinding, flatWalkFunctions } from './flat-tree.js';
import type { SourceText } from './source-text.js';
import { type LanguageSpec, LanguageTable } from './languages.js';

/** Per node-type facts the chunker reads for every node, indexed by type id (no string per node). */
export interface NodeKinds {
  named: Uint8Array;
  comment: Uint8Array;
  /** Strings, comments, regexes, heredocs: never cut even when the grammar gives them children. */
  literal: Uint8Array;
}

export interface LoadedGrammar {
  spec: LanguageSpec;
  language: Language;
  kinds: NodeKinds;
  /** The chunks.scm query, or undefined when the language has none. */
  chunksQuery: Query | undefined;
}

export type GrammarState = { state: 'loaded'; grammar: LoadedGrammar } | { state: 'failed'; reason: string };

let runtime: Promise<void> | undefined;
/** web-tree-sitter's Emscripten module, when it has what the flat-tree walk calls. */
let binding: FlatWalkBinding | undefined;

function nodeKinds(language: Language): NodeKinds {
  const count = language.nodeTypeCount;
  const kinds: NodeKinds = { named: new Uint8Array(count + 1), comment: new Uint8Array(count + 1), literal: new Uint8Array(count + 1) };
  for (let id = 0; id < count; id++) {
    const type = language.nodeTypeForId(id) ?? '';
    kinds.named[id] = language.nodeTypeIsNamed(id) ? 1 : 0;
    kinds.comment[id] = type.includes('comment') ? 1 : 0;
    kinds.literal[id] =
      type.includes('string') || type.includes('comment') || type.includes('regex') || type.includes('heredoc') || type === 'template_literal' ? 1 : 0;
  }
  return kinds;
}

/**
 * Initialises web-tree-sitter's runtime once per thread. The options object handed to
 * Parser.init becomes Emscripten's module (its exports are set on it), which flat-tree.ts calls
 * directly; a build without those functions leaves `binding` unset (the slower walk is used).
 */
function initRuntime(): Promise<void> {
  runtime ??= (async () => {
    const module: Record<string, unknown> = {};
    await Parser.init(module);
    if (flatWalkFunctions.every((name) => typeof module[name] === 'function') && module['HEAPU32'] instanceof Uint32Array)
      binding = module as unknown as FlatWalkBinding;
  })();
  return runtime;
}

/** web-tree-sitter's module for flat-tree.ts's fast walk (undefined before a grammar loads, or when it lacks the functions). */
export function wasmBinding(): FlatWalkBinding | undefined {
  return binding;
}

export class GrammarSet {
  readonly table: LanguageTable;
  private readonly states = new Map<string, Promise<GrammarState>>();
  private readonly parsers = new Map<string, Parser>();
  private readonly tagsQueries = new Map<string, Query | undefined>();

  constructor(
    table: LanguageTable = new LanguageTable(),
    /** Load grammars the manifest disables too (for the test that checks whether they still misbehave). */
    private readonly allowDisabled = false,
  ) {
    this.table = table;
  }

  /** The last grammar load started in this thread (loads run one at a time: see `load`). */
  private static loading: Promise<unknown> = Promise.resolve();

  /**
   * The grammar of a language id, loading it on first use. Loads run one after another per
   * thread: two wasm grammars loaded at once (a worker with two jobs in flight, for TypeScript and
   * JavaScript) confuse Emscripten's dynamic linking ("bad export type for
   * 'tree_sitter_typescript_external_scanner_create'", the second grammar failing).
   */
  load(id: string): Promise<GrammarState> {
    let state = this.states.get(id);
    if (!state) {
      state = GrammarSet.loading.then(() => this.loadNow(id));
      GrammarSet.loading = state;
      this.states.set(id, state);
    }
    return state;
  }

  private async loadNow(id: string): Promise<GrammarState> {
    const spec = this.table.languages.get(id);
    if (!spec) return { state: 'failed', reason: `no language "${id}" in grammars/manifest.json` };
    if (spec.disabled !== undefined && !this.allowDisabled) return { state: 'failed', reason: `the ${spec.name} grammar is disabled: ${spec.disabled}` };
    try {
      await initRuntime();
      const language = await Language.load(fs.readFileSync(spec.wasmPath));
      const chunksText = this.table.queryText(id, 'chunks');
      const chunksQuery = chunksText === undefined ? undefined : new Query(language, chunksText);
      return { state: 'loaded', grammar: { spec, language, kinds: nodeKinds(language), chunksQuery } };
    } catch (error) {
      return { state: 'failed', reason: `${spec.name} grammar failed to load: ${error instanceof Error ? error.message : String(error)}` };
    }
  }

  /**
   * The grammar's tags.scm query, compiled on first use (the C++ one takes ~1 s) and kept;
   * undefined when the language has none or it does not compile.
   */
  tagsQuery(grammar: LoadedGrammar, options: { definitionsOnly?: boolean } = {}): Query | undefined {
    const id = grammar.spec.id;
    const key = options.definitionsOnly ? `${id}:definitions` : id;
    if (!this.tagsQueries.has(key)) {
      const text = this.table.queryText(id, 'tags');
      let query: Query | undefined;
      try {
        query = text === undefined ? undefined : new Query(grammar.language, text);
        if (query && options.definitionsOnly) {
          // Reference patterns off: on the kernel they are most of the query's matches.
          for (let pattern = 0; pattern < query.patternCount(); pattern++) {
            if (!text!.slice(query.startIndexForPattern(pattern), query.endIndexForPattern(pattern)).includes('@definition.')) query.disablePattern(pattern);
          }
        }
      } catch {
        query = undefined; // tested for every shipped language; never fatal here
      }
      this.tagsQueries.set(key, query);
    }
    return this.tagsQueries.get(key);
  }

  /** A parser set to this grammar's language, reused across calls in this thread. */
  parserFor(grammar: LoadedGrammar): Parser {
    let parser = this.parsers.get(grammar.spec.id);
    if (!parser) {
      parser = new Parser();
      parser.setLanguage(grammar.language);
      this.parsers.set(grammar.spec.id, parser);
    }
    return parser;
  }
}

export const defaultParseTimeoutMs = 10_000;

/**
 * Parses `source` with a time limit; undefined when the limit was reached. Throws when the grammar
 * itself fails (the Bash wasm calls a libc function web-tree-sitter does not provide on `case`
 * and `[ a == b ]`), after resetting the parser so that the next file parses normally.
 * `includedRanges`: parse only these [start, end) ranges of UTF-16 units, as if the text between
 * them were absent (node positions stay the file's).
 */
export function parseSource(
  grammars: GrammarSet,
  grammar: LoadedGrammar,
  source: SourceText,
  options: { timeoutMs?: number; oldTree?: Tree; includedRanges?: ReadonlyArray<readonly [number, number]> } = {},
): Tree | undefined {
  const parser = grammars.parserFor(grammar);
  const deadline = performance.now() + (options.timeoutMs ?? defaultParseTimeoutMs);
  const point = (unit: number): Point => {
    const { line, character } = source.position(unit);
    return { row: line, column: character };
  };
  // Included ranges in UTF-16 units (web-tree-sitter's indices), with their (row, column) points.
  const includedRanges = options.includedRanges?.map(([start, end]): Range => ({
    startIndex: start,
    endIndex: end,
    startPosition: point(start),
    endPosition: point(end),
  }));
  let tree: Tree | null;
  try {
    tree = parser.parse(source.parseText, options.oldTree ?? null, {
      progressCallback: () => performance.now() > deadline,
      ...(includedRanges ? { includedRanges } : {}),
    });
  } catch (error) {
    parser.reset();
    throw error;
  }
  if (!tree) {
    parser.reset();
    return undefined;
  }
  return tree;
}
