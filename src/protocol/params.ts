// The params of every request and notification the daemon takes (Fathom's methods and the LSP ones
// it handles), one zod schema per method: the one definition of what a client may send, with each
// limit a named constant below. The daemon parses a message's params with its method's schema
// before the handler runs (daemon/parse-params.ts; each schema is made on its first use), and each
// handler receives the typed value (`ParamsOf<method>`). What needs a workspace (a root that
// exists, a path inside it), a language or a compiler (globs, regexes, structural rules:
// base/pattern-limits.ts, structural/rule.ts) is checked behind the schema. methods.ts re-exports
// the types with a type-only import: the CLI's client path never loads zod. docs/protocol.md
// states the same limits. Imports zod and methods.ts.
import { z } from 'zod';
import { Methods } from './methods.js';

// ---- Limits ---------------------------------------------------------------------------------------

/** Context lines on either side of a grep match (`context`, `beforeContext`, `afterContext`). */
export const maxContextLines = 1_000;
/** Hits of one fathom/codeSearch answer (`maxResults`, at least 1). */
export const maxCodeSearchResults = 10_000;
/** Snippet lines of a codeSearch hit (`snippetLines`, at least 1). */
export const maxSnippetLines = 50;
/** Symbols of one fathom/symbols answer (`limit`). */
export const maxSymbols = 10_000;
/** References of one fathom/references answer, and symbols of one callers/callees/impact answer (`limit`, at least 1). */
export const maxGraphResults = 100_000;
/** Steps callers, callees and impact follow (`depth`, at least 1). */
export const maxGraphDepth = 10;
/** Matches of one structural search (`maxResults`). */
export const maxStructuralResults = 100_000;
/** Bytes per chunk of fathom/chunks (`budgetBytes`). */
export const minChunkBudgetBytes = 64;
export const maxChunkBudgetBytes = 1_000_000;
/** How long connecting to a team store may take (`connectTimeoutMs`, ms). */
export const minConnectTimeoutMs = 100;
export const maxConnectTimeoutMs = 600_000;
/** Stack frames of a debug state (`frames`, at least 1). */
export const maxDebugFrames = 200;
/** Characters per debug value (`maxValue`, at least 1). */
export const maxDebugValueCharacters = 100_000;
/** How long a debug launch, continue or step waits for a stop (`timeoutMs`, ms, at least 1). */
export const maxDebugWaitMs = 600_000;
/** Distinct workspace roots in one question (`roots`). */
export const maxRoots = 64;

// ---- Pieces -----------------------------------------------------------------------------------------

/**
 * A schema's own wording of what it expects, for every problem it finds: the daemon's error reads
 * `params.<field> must be <this> (got …)`. A check given its own message (`.max(n, '…')`) says that instead.
 */
const says = (expected: string): { errorMap: z.ZodErrorMap } => ({ errorMap: () => ({ message: expected }) });

const text = () => z.string(says('a string'));
const nonEmptyText = () => z.string(says('a non-empty string')).min(1);
const flag = () => z.boolean(says('a boolean'));
const count = () => z.number(says('a non-negative integer')).int().min(0);
const countAtMost = (max: number) => count().max(max, `at most ${max}`);
/** An integer from `min` to `max` (one of another type, or a fraction, is said to want 'a non-negative integer', as any count). */
const between = (min: number, max: number) =>
  z.number(says('a non-negative integer')).int().min(min, `between ${min} and ${max}`).max(max, `between ${min} and ${max}`);
const lineNumber = () => z.number(says('an integer ≥ 1')).int().min(1);
const progressToken = () => z.union([z.string(), z.number()], says('a string or a number'));
/** One non-empty string or an array of them (globs, paths, languages, kinds, args): an array once parsed. */
const stringList = () =>
  z
    .union([nonEmptyText(), z.array(nonEmptyText())], says('a non-empty string or an array of them'))
    .transform((value) => (typeof value === 'string' ? [value] : value));
const object = <T extends z.ZodRawShape>(shape: T) => z.object(shape, says('an object'));
/** Params a client may leave out (or send as null): read as `{}`. */
const omittable = <T extends z.ZodRawShape>(shape: T) =>
  object(shape)
    .nullish()
    .transform((value) => value ?? {})
    .pipe(object(shape));
/** Any JSON object, passed on as it came (what checks it lies behind the schema). */
const anyObject = <T>() => z.custom<T>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), { message: 'an object' });
/** A field read leniently, as LSP clients differ: a value that does not fit is read as absent. */
const lenient = <T extends z.ZodTypeAny>(schema: T) => schema.optional().catch(undefined);

/**
 * A page's cursor (`after`: a previous answer's `next`, given back as it came): its last result's
 * workspace-relative path and 1-based line, and how many results of that file were given up to there.
 */
const cursor = () => z.object({ path: nonEmptyText(), line: lineNumber(), skip: count() }, says("an object (a previous answer's next)"));

/** 1-based line and UTF-16 column (Fathom's methods). */
const position = () => object({ line: lineNumber(), column: z.number(says('an integer ≥ 1')).int().min(1) });
/** LSP's 0-based line and UTF-16 character. */
const lspPosition = () => object({ line: count(), character: count() });
const lspRange = () => object({ start: lspPosition(), end: lspPosition() });
const textDocument = () => object({ uri: nonEmptyText() });

export const confidences = ['exact', 'unique', 'name-only'] as const;
export const codeSearchModes = ['auto', 'lexical', 'semantic', 'hybrid', 'regex', 'literal'] as const;
export const debugStepKinds = ['in', 'over', 'out'] as const;

/**
 * A structural rule (a subset of ast-grep's rule objects): every key present must hold. `pattern`:
 * code with metavariables; `kind`: the node's tree-sitter kind; `regex`: on the node's text;
 * `inside` / `has`: a rule an ancestor / a descendant satisfies (`stopBy: "neighbor"` for the
 * parent / a direct child only; default `"end"`: any distance); `not`, `all`, `any`. The schema
 * takes any object; structural/rule.ts checks it, naming the field.
 */
export interface StructuralRule {
  pattern?: string;
  kind?: string;
  regex?: string;
  inside?: StructuralRule & { stopBy?: 'neighbor' | 'end' };
  has?: StructuralRule & { stopBy?: 'neighbor' | 'end' };
  not?: StructuralRule;
  all?: StructuralRule[];
  any?: StructuralRule[];
}

// ---- Shapes shared by several methods -------------------------------------------------------------

/** A question of one workspace (`root`), or of several: `roots`, or every folder workspace (`allWorkspaces`). */
const acrossRootsShape = () => ({
  root: nonEmptyText().optional(),
  /** Workspace roots (paths or file:// URIs); duplicates count once. */
  roots: z
    .array(nonEmptyText(), says('a non-empty array of workspace roots'))
    .min(1)
    .transform((roots) => [...new Set(roots)])
    .refine((roots) => roots.length <= maxRoots, `at most ${maxRoots} distinct workspace roots`)
    .optional(),
  allWorkspaces: z.literal(true, says('true when given')).optional(),
});

/** `root` is required unless `roots` or `allWorkspaces` is given (which of them is given twice is across-roots.ts'). */
function rootUnlessAcross(params: { root?: string | undefined; roots?: unknown; allWorkspaces?: unknown }, context: z.RefinementCtx): void {
  if (params.root === undefined && params.roots === undefined && params.allWorkspaces === undefined)
    context.addIssue({ code: 'custom', path: ['root'], message: 'a non-empty string' });
}

/** What a code-graph question is about: the symbol at `position` in `path`, the definitions in `range`, or every definition named `symbol`. */
const graphTargetShape = () => ({
  /** Required with `symbol` and no `path`; else the open workspace holding `path`. */
  root: text().optional(),
  path: nonEmptyText().optional(),
  position: position().optional(),
  range: object({ start: position(), end: position() }).optional(),
  symbol: text().optional(),
  /** Follow only edges at least this sure (default: all). */
  minConfidence: z.enum(confidences, says('exact, unique or name-only')).optional(),
  workDoneToken: progressToken().optional(),
});

function rootForSymbol(params: { root?: string | undefined; path?: string | undefined; symbol?: string | undefined }, context: z.RefinementCtx): void {
  if (params.symbol !== undefined && params.path === undefined && !params.root)
    context.addIssue({ code: 'custom', path: ['root'], message: 'a non-empty string' });
}

const relationShape = () => ({ ...graphTargetShape(), depth: between(1, maxGraphDepth).optional(), limit: between(1, maxGraphResults).optional() });

const structuralSearchShape = () => ({
  /** Without it, `paths` must name one file (searched in the workspace holding it, or on its own). */
  root: nonEmptyText().optional(),
  /** A grammars/manifest.json id, name or extension. */
  language: nonEmptyText(),
  /** Shorthand for `rule: { pattern }`; give `pattern`, `rule`, or both (then `rule` has no pattern). */
  pattern: text().optional(),
  rule: anyObject<StructuralRule>().optional(),
  /** Metavariable name (with or without `$`) → a rule its bound node must satisfy. */
  constraints: anyObject<Record<string, StructuralRule>>().optional(),
  glob: stringList().optional(),
  paths: stringList().optional(),
  maxResults: countAtMost(maxStructuralResults).optional(),
  after: cursor().optional(),
  paged: flag().optional(),
  workDoneToken: progressToken().optional(),
});

/** An LSP TextEdit against the file as it is. */
const textEdit = () => object({ range: lspRange(), newText: text() });

const editShape = () => ({
  /** Absolute, file:// URI, or relative to `root`. */
  path: nonEmptyText(),
  root: text().optional(),
  /** Write a file no open workspace holds. */
  loose: flag().optional(),
  edits: z.array(textEdit(), says('an array of TextEdits')).optional(),
  newText: text().optional(),
  /** Refuse unless Fathom's version of the file (from the last answer) is this. */
  expectedVersion: count().optional(),
  /** The ledger to compare with (an agent's conversation id); default: the connection's. */
  conversation: text().optional(),
  includeHints: flag().optional(),
});

const teamStoreShape = () => ({
  root: nonEmptyText(),
  /** A libpq connection string (keyword/value or postgresql:// URI). */
  url: text(),
  /** The team key file (absolute; checked for its mode when read). */
  keyFile: text(),
  password: text().optional(),
  connectTimeoutMs: between(minConnectTimeoutMs, maxConnectTimeoutMs).optional(),
  workDoneToken: progressToken().optional(),
});

const debugSessionShape = () => ({
  /** Default: the owner's live session. */
  session: text().optional(),
  /** An agent's conversation owns the session (default: the connection). */
  conversation: text().optional(),
});
const debugWait = () => between(1, maxDebugWaitMs);
const breakpointLine = () => object({ line: lineNumber(), condition: text().optional() });

/** A workspace folder as `initialize` and didChangeWorkspaceFolders name it; anything else is skipped. */
const workspaceFolder = () =>
  z
    .union([z.string(), z.object({ uri: z.string() })])
    .optional()
    .catch(undefined);

// ---- Requests -------------------------------------------------------------------------------------

/**
 * Every request the daemon answers, by method: its params' schema, made on first use (made all at
 * once, the schemas would cost a daemon's start some 20 ms).
 */
const requestSchemas = {
  initialize: () =>
    object({
      workspaceFolders: lenient(z.array(workspaceFolder())),
      rootUri: lenient(z.string()),
      rootPath: lenient(z.string()),
    }),
  shutdown: () => z.unknown(),
  [Methods.stop]: () => z.unknown(),
  [Methods.status]: () => omittable({ root: text().optional() }),
  [Methods.index]: () => object({ root: nonEmptyText(), wait: flag().optional(), workDoneToken: progressToken().optional() }),
  [Methods.files]: () => object({ root: nonEmptyText(), glob: stringList().optional(), limit: count().optional(), workDoneToken: progressToken().optional() }),
  [Methods.merkle]: () => object({ root: nonEmptyText(), path: text().optional(), workDoneToken: progressToken().optional() }),
  [Methods.grep]: () =>
    object({
      ...acrossRootsShape(),
      /** A JavaScript (u-mode) regular expression, or a literal with fixedStrings. */
      pattern: text(),
      fixedStrings: flag().optional(),
      ignoreCase: flag().optional(),
      wordRegexp: flag().optional(),
      multiline: flag().optional(),
      glob: stringList().optional(),
      paths: stringList().optional(),
      maxResults: count().optional(),
      languages: stringList().optional(),
      context: countAtMost(maxContextLines).optional(),
      beforeContext: countAtMost(maxContextLines).optional(),
      afterContext: countAtMost(maxContextLines).optional(),
      after: cursor().optional(),
      paged: flag().optional(),
      workDoneToken: progressToken().optional(),
    }).superRefine((params, context) => {
      rootUnlessAcross(params, context);
      if (params.paged === true && params.maxResults === 0)
        context.addIssue({ code: 'custom', path: ['maxResults'], message: 'at least 1 for a page (paged)' });
    }),
  [Methods.codeSearch]: () =>
    object({
      ...acrossRootsShape(),
      query: text(),
      mode: z.enum(codeSearchModes, says(`one of ${codeSearchModes.join(', ')}`)).optional(),
      glob: stringList().optional(),
      languages: stringList().optional(),
      paths: stringList().optional(),
      maxResults: between(1, maxCodeSearchResults).optional(),
      snippetLines: between(1, maxSnippetLines).optional(),
      ignoreCase: flag().optional(),
      /** hybrid: the semantic weight instead of the model's measured one. */
      hybridWeight: z.number(says('a number')).min(0, 'between 0 and 1').max(1, 'between 0 and 1').optional(),
      /** An answer whose JSON is longer is written to a file (0: never). */
      maxInlineBytes: count().optional(),
      /** How long (ms) to wait for an index still building before answering from what it holds. */
      waitMs: count().optional(),
      workDoneToken: progressToken().optional(),
    }).superRefine(rootUnlessAcross),
  [Methods.symbols]: () =>
    object({
      ...acrossRootsShape(),
      /** Fuzzy name; empty lists all. */
      query: text(),
      kinds: stringList().optional(),
      glob: stringList().optional(),
      limit: countAtMost(maxSymbols).optional(),
      waitMs: count().optional(),
      workDoneToken: progressToken().optional(),
    }).superRefine(rootUnlessAcross),
  [Methods.exportIndex]: () =>
    object({
      root: nonEmptyText(),
      /** An absolute path in an existing folder. */
      out: text(),
      /** A team key file (absolute); default: the user's own key. */
      keyFile: text().optional(),
      workDoneToken: progressToken().optional(),
    }),
  [Methods.teamPush]: () => object(teamStoreShape()),
  [Methods.teamStatus]: () => object(teamStoreShape()),
  [Methods.teamJoin]: () => object(teamStoreShape()),
  [Methods.modelUse]: () =>
    object({
      root: nonEmptyText(),
      /** A model folder, the id of a pulled model, or null (semantic search off). */
      model: z.string(says('a model folder, a pulled model id, or null')).nullable(),
    }),
  /** A model hub id (owner/name). */
  [Methods.modelPull]: () => object({ id: nonEmptyText() }),
  [Methods.trust]: () =>
    object({
      /** A folder: trusted, it may run code it ships. */
      path: nonEmptyText(),
      /** true: trust it; false: stop; absent: only ask. */
      trusted: flag().optional(),
    }),
  [Methods.debugLaunch]: () =>
    object({
      /** Absolute, or relative to `cwd`. */
      program: nonEmptyText(),
      cwd: text().optional(),
      args: stringList().optional(),
      env: z.record(z.string(says('a string')), says('an object mapping names to strings')).optional(),
      breakpoints: z.array(object({ path: nonEmptyText(), line: lineNumber(), condition: text().optional() }), says('an array')).optional(),
      stopOnEntry: flag().optional(),
      conversation: debugSessionShape().conversation,
      timeoutMs: debugWait().optional(),
    }),
  [Methods.debugState]: () =>
    omittable({
      ...debugSessionShape(),
      frames: between(1, maxDebugFrames).optional(),
      /** Frame ids whose locals to include besides the top frame's. */
      localsOf: z.array(z.number(says('a frame id (an integer)')).int(), says('an array of frame ids')).optional(),
      maxValue: between(1, maxDebugValueCharacters).optional(),
    }),
  [Methods.debugEvaluate]: () => object({ ...debugSessionShape(), expression: text(), frameId: z.number(says('a number')).optional() }),
  [Methods.debugContinue]: () => omittable({ ...debugSessionShape(), timeoutMs: debugWait().optional() }),
  [Methods.debugStep]: () => omittable({ ...debugSessionShape(), kind: z.enum(debugStepKinds, says('in, over or out')), timeoutMs: debugWait().optional() }),
  [Methods.debugSetBreakpoints]: () =>
    object({
      ...debugSessionShape(),
      path: nonEmptyText(),
      /** Replaces the file's breakpoints (an empty list clears them). */
      breakpoints: z.array(breakpointLine(), says('an array')),
    }),
  [Methods.debugTerminate]: () => omittable(debugSessionShape()),
  [Methods.chunks]: () =>
    object({
      /** Absolute, file:// URI, or relative to `root` (default: the open workspace holding it). */
      path: nonEmptyText(),
      root: text().optional(),
      budgetBytes: between(minChunkBudgetBytes, maxChunkBudgetBytes).optional(),
      includeText: flag().optional(),
      workDoneToken: progressToken().optional(),
    }),
  [Methods.outline]: () => object({ path: nonEmptyText(), root: text().optional(), workDoneToken: progressToken().optional() }),
  [Methods.definition]: () => object(graphTargetShape()).superRefine(rootForSymbol),
  [Methods.references]: () =>
    object({
      ...graphTargetShape(),
      includeDeclaration: flag().optional(),
      limit: between(1, maxGraphResults).optional(),
      /** Leave out the first this many (a previous answer's `next`). */
      offset: count().optional(),
      paged: flag().optional(),
    }).superRefine(rootForSymbol),
  [Methods.callers]: () => object(relationShape()).superRefine(rootForSymbol),
  [Methods.callees]: () => object(relationShape()).superRefine(rootForSymbol),
  [Methods.impact]: () => object(relationShape()).superRefine(rootForSymbol),
  [Methods.structuralSearch]: () => object(structuralSearchShape()),
  [Methods.structuralRewrite]: () =>
    object({
      ...structuralSearchShape(),
      /** The replacement, using the pattern's metavariables. */
      rewrite: text(),
    }),
  [Methods.applyRewrite]: () => object({ token: nonEmptyText() }),
  [Methods.discardRewrite]: () => object({ token: nonEmptyText() }),
  [Methods.editFile]: () => object(editShape()),
  [Methods.writeFile]: () =>
    object({
      ...editShape(),
      /** The whole content (or `newText`). */
      text: text().optional(),
    }).superRefine((params, context) => {
      if (params.newText === undefined && params.text === undefined) context.addIssue({ code: 'custom', path: ['text'], message: 'a string' });
    }),
  [Methods.newDiagnostics]: () => object({ path: nonEmptyText(), root: text().optional(), conversation: text().optional(), includeHints: flag().optional() }),
  'textDocument/definition': () => object({ textDocument: textDocument(), position: lspPosition() }),
  'textDocument/references': () =>
    object({
      textDocument: textDocument(),
      position: lspPosition(),
      context: lenient(z.object({ includeDeclaration: lenient(z.boolean()) })),
    }),
  'workspace/symbol': () => object({ query: lenient(z.string()), workDoneToken: progressToken().optional() }),
  'textDocument/documentSymbol': () => object({ textDocument: textDocument() }),
};

// ---- Notifications --------------------------------------------------------------------------------

/** Every notification the daemon acts on, by method (others, such as `initialized`, are ignored); made as requests' are. */
const notificationSchemas = {
  exit: () => z.unknown(),
  'textDocument/didOpen': () =>
    object({
      textDocument: object({ uri: nonEmptyText(), languageId: text().optional(), version: z.number(says('a number')), text: text() }),
    }),
  'textDocument/didChange': () =>
    object({
      textDocument: object({ uri: nonEmptyText(), version: z.number(says('a number')) }),
      /** Incremental edits (a range and its text) or a whole new text. */
      contentChanges: z.array(object({ range: lspRange().optional(), text: text() }), says('an array')),
    }),
  'textDocument/didClose': () => object({ textDocument: textDocument() }),
  'workspace/didChangeWorkspaceFolders': () => object({ event: object({ added: z.array(workspaceFolder(), says('an array')) }) }),
};

export type RequestMethod = keyof typeof requestSchemas;
export type NotificationMethod = keyof typeof notificationSchemas;
export type RequestSchema<M extends RequestMethod> = ReturnType<(typeof requestSchemas)[M]>;
export type NotificationSchema<M extends NotificationMethod> = ReturnType<(typeof notificationSchemas)[M]>;
/** A request's params as its handler receives them (parsed: lists are arrays). */
export type ParamsOf<M extends RequestMethod> = z.output<RequestSchema<M>>;
/** A request's params as a client sends them. */
export type ParamsIn<M extends RequestMethod> = z.input<RequestSchema<M>>;
export type NotificationParamsOf<M extends NotificationMethod> = z.output<NotificationSchema<M>>;

export const requestMethods = Object.keys(requestSchemas) as RequestMethod[];
export const notificationMethods = Object.keys(notificationSchemas) as NotificationMethod[];
export const isRequestMethod = (method: string): method is RequestMethod => Object.hasOwn(requestSchemas, method);
export const isNotificationMethod = (method: string): method is NotificationMethod => Object.hasOwn(notificationSchemas, method);

const made = new Map<string, z.ZodTypeAny>();

/** The schema of a request's params (made once, on first use). */
export function requestSchema<M extends RequestMethod>(method: M): RequestSchema<M> {
  let schema = made.get(method);
  if (schema === undefined) made.set(method, (schema = requestSchemas[method]()));
  return schema as RequestSchema<M>;
}

/** The schema of a notification's params (made once, on first use). */
export function notificationSchema<M extends NotificationMethod>(method: M): NotificationSchema<M> {
  const key = `notification:${method}`;
  let schema = made.get(key);
  if (schema === undefined) made.set(key, (schema = notificationSchemas[method]()));
  return schema as NotificationSchema<M>;
}
export type ResultCursor = z.output<ReturnType<typeof cursor>>;
export type Confidence = (typeof confidences)[number];
export type CodeSearchMode = (typeof codeSearchModes)[number];
