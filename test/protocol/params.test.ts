// The params' schemas (src/protocol/params.ts), every method at once, from tables: each method has a
// valid example; a wrong type for each required field, and each required field left out, answers
// -32602 naming the field (`data.field`, `params.<field> must be … (got …)`), over the wire for
// requests (a stdio daemon: the schema refuses before any work) and through the parser for
// notifications; each limit is accepted at the limit and refused one past it. Also: every request
// the daemon answers and every Fathom method has a schema, and no message is zod's own wording.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { z } from 'zod';
import { parseParams } from '../../src/daemon/parse-params.js';
import { toResponseError } from '../../src/daemon/to-wire-error.js';
import { ErrorCodes } from '../../src/protocol/errors.js';
import { Methods } from '../../src/protocol/methods.js';
import {
  maxChunkBudgetBytes,
  maxCodeSearchResults,
  maxConnectTimeoutMs,
  maxContextLines,
  maxDebugFrames,
  maxDebugValueCharacters,
  maxDebugWaitMs,
  maxGraphDepth,
  maxGraphResults,
  maxRoots,
  maxSnippetLines,
  maxStructuralResults,
  maxSymbols,
  minChunkBudgetBytes,
  minConnectTimeoutMs,
  notificationMethods,
  notificationSchema,
  requestMethods,
  requestSchema,
  type NotificationMethod,
  type RequestMethod,
} from '../../src/protocol/params.js';
import { spawnStdioDaemon } from '../helpers/raw-client.js';

const root = '/nowhere/fathom-params-test';
const uri = 'file:///nowhere/fathom-params-test/a.ts';
const team = { root, url: 'host=db', keyFile: '/nowhere/team.key' };
const structural = { root, language: 'typescript', pattern: 'f($A)' };

/** A valid example of each request's params (the methods that take none: undefined). */
const requests: Record<RequestMethod, unknown> = {
  initialize: { processId: null, rootUri: null, capabilities: {} },
  shutdown: undefined,
  [Methods.stop]: undefined,
  [Methods.status]: { root },
  [Methods.index]: { root },
  [Methods.files]: { root },
  [Methods.merkle]: { root },
  [Methods.grep]: { root, pattern: 'x' },
  [Methods.codeSearch]: { root, query: 'x' },
  [Methods.symbols]: { root, query: 'x' },
  [Methods.exportIndex]: { root, out: '/nowhere/export.bin' },
  [Methods.teamPush]: team,
  [Methods.teamStatus]: team,
  [Methods.teamJoin]: team,
  [Methods.modelUse]: { root, model: null },
  [Methods.modelPull]: { id: 'owner/name' },
  [Methods.trust]: { path: root },
  [Methods.debugLaunch]: { program: '/nowhere/a.py' },
  [Methods.debugState]: {},
  [Methods.debugEvaluate]: { expression: '1 + 1' },
  [Methods.debugContinue]: {},
  [Methods.debugStep]: { kind: 'over' },
  [Methods.debugSetBreakpoints]: { path: '/nowhere/a.py', breakpoints: [{ line: 3 }] },
  [Methods.debugTerminate]: {},
  [Methods.chunks]: { path: '/nowhere/a.ts' },
  [Methods.outline]: { path: '/nowhere/a.ts' },
  [Methods.definition]: { root, path: 'a.ts', position: { line: 1, column: 1 } },
  [Methods.references]: { root, symbol: 'f' },
  [Methods.callers]: { root, symbol: 'f' },
  [Methods.callees]: { root, symbol: 'f' },
  [Methods.impact]: { root, symbol: 'f' },
  [Methods.structuralSearch]: structural,
  [Methods.structuralRewrite]: { ...structural, rewrite: 'g($A)' },
  [Methods.applyRewrite]: { token: 't' },
  [Methods.discardRewrite]: { token: 't' },
  [Methods.editFile]: { path: '/nowhere/a.ts', edits: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, newText: 'x' }] },
  [Methods.writeFile]: { path: '/nowhere/a.ts', text: 'x' },
  [Methods.newDiagnostics]: { path: '/nowhere/a.ts' },
  'textDocument/definition': { textDocument: { uri }, position: { line: 0, character: 0 } },
  'textDocument/references': { textDocument: { uri }, position: { line: 0, character: 0 }, context: { includeDeclaration: true } },
  'workspace/symbol': { query: 'f' },
  'textDocument/documentSymbol': { textDocument: { uri } },
};

const notifications: Record<NotificationMethod, unknown> = {
  exit: undefined,
  'textDocument/didOpen': { textDocument: { uri, languageId: 'typescript', version: 1, text: '' } },
  'textDocument/didChange': {
    textDocument: { uri, version: 2 },
    contentChanges: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: 'x' }],
  },
  'textDocument/didClose': { textDocument: { uri } },
  'workspace/didChangeWorkspaceFolders': { event: { added: [{ uri, name: 'a' }] } },
};

/** The object schema under a method's wrappers (refinements, transforms, optional params), or undefined when it takes anything. */
function objectOf(schema: z.ZodTypeAny): z.AnyZodObject | undefined {
  if (schema instanceof z.ZodObject) return schema;
  if (schema instanceof z.ZodEffects) return objectOf(schema.innerType());
  if (schema instanceof z.ZodPipeline) return objectOf((schema._def as { out: z.ZodTypeAny }).out);
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) return objectOf(schema.unwrap());
  return undefined;
}

/** A value of another type than `value`. */
const wrongType = (value: unknown): unknown => (typeof value === 'number' ? 'seven' : 7);

interface Case {
  method: string;
  field: string;
  params: unknown;
}

/** For each required field of an example (and the required fields of an object it holds), the example with it mistyped, and without it. */
function requiredFieldCases(method: string, schema: z.ZodTypeAny, example: unknown): { mistyped: Case[]; missing: Case[] } {
  const mistyped: Case[] = [];
  const missing: Case[] = [];
  const visit = (shape: z.AnyZodObject, value: Record<string, unknown>, path: string[], rebuild: (inner: unknown) => unknown): void => {
    for (const [key, field] of Object.entries(shape.shape as Record<string, z.ZodTypeAny>)) {
      if (field.isOptional()) continue;
      const at = [...path, key];
      const replaced = (next: unknown): unknown => rebuild(next === undefined ? omit(value, key) : { ...value, [key]: next });
      mistyped.push({ method, field: at.join('.'), params: replaced(wrongType(value[key])) });
      missing.push({ method, field: at.join('.'), params: replaced(undefined) });
      const inner = objectOf(field);
      if (inner && typeof value[key] === 'object' && value[key] !== null) visit(inner, value[key] as Record<string, unknown>, at, (next) => replaced(next));
    }
  };
  const shape = objectOf(schema);
  if (shape && example !== undefined) visit(shape, example as Record<string, unknown>, [], (next) => next);
  return { mistyped, missing };
}

function omit(value: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _left, ...rest } = value;
  return rest;
}

const requestCases = requestMethods.map((method) => requiredFieldCases(method, requestSchema(method), requests[method]));
const notificationCases = notificationMethods.map((method) => requiredFieldCases(method, notificationSchema(method), notifications[method]));

/** Parses through the daemon's parser: the wire error it would answer (undefined when the params pass). */
function refusal(method: string, params: unknown): { code: number; message: string; data: unknown } | undefined {
  const schema: z.ZodTypeAny = requestMethods.includes(method as RequestMethod)
    ? requestSchema(method as RequestMethod)
    : notificationSchema(method as NotificationMethod);
  try {
    parseParams(method, schema, params);
    return undefined;
  } catch (error) {
    const wire = toResponseError(method, error);
    return { code: wire.code, message: wire.message, data: wire.data };
  }
}

/** What every refusal of a field says. */
function assertNames(answer: { code: number; message: string; data?: unknown } | undefined, field: string, what: string): void {
  assert.ok(answer, `${what}: refused`);
  assert.equal(answer.code, ErrorCodes.InvalidParams, what);
  assert.deepEqual(answer.data, { field }, what);
  assert.ok(answer.message.startsWith(`params.${field} must be `), `${what}: ${answer.message}`);
  assert.match(answer.message, /\(got [^)]+\)$/, what);
  assert.doesNotMatch(answer.message, /Expected|Required|Invalid|received/, `${what}: in zod's own words: ${answer.message}`);
}

test('params: every request the daemon answers has a schema, and every Fathom method is one of them', () => {
  const fathomMethods = Object.values(Methods) as string[];
  assert.deepEqual(
    fathomMethods.filter((method) => !requestMethods.includes(method as RequestMethod)),
    [],
  );
  for (const [method, example] of Object.entries(requests)) assert.equal(refusal(method, example), undefined, `${method}: the example passes`);
  for (const [method, example] of Object.entries(notifications)) assert.equal(refusal(method, example), undefined, `${method}: the example passes`);
  assert.ok(requestCases.flatMap((cases) => cases.mistyped).length > 40, 'found the required fields');
});

test('params: a notification with a required field mistyped or missing is refused naming the field', () => {
  for (const { mistyped, missing } of notificationCases) {
    for (const entry of mistyped) assertNames(refusal(entry.method, entry.params), entry.field, `${entry.method} ${entry.field} mistyped`);
    for (const entry of missing) assertNames(refusal(entry.method, entry.params), entry.field, `${entry.method} ${entry.field} missing`);
  }
});

test('params: params that are not an object', () => {
  assert.equal(refusal(Methods.index, undefined)?.message, 'fathom/index: params must be an object');
  assert.equal(refusal(Methods.files, ['/a'])?.message, 'fathom/files: params must be an object, not an array');
  assert.equal(refusal(Methods.grep, 'x')?.message, 'fathom/grep: params must be an object, not string');
  // Those a client may leave out read as {}.
  for (const method of [Methods.status, Methods.debugState, Methods.debugContinue, Methods.debugTerminate]) {
    assert.equal(refusal(method, undefined), undefined, method);
    assert.equal(refusal(method, null), undefined, method);
  }
  assertNames(refusal(Methods.debugStep, null), 'kind', 'debugStep without params');
});

test('params: unknown fields are accepted (and not passed on)', () => {
  assert.equal(refusal(Methods.grep, { root, pattern: 'x', colour: 'blue' }), undefined);
  const parsed = parseParams(Methods.grep, requestSchema(Methods.grep), { root, pattern: 'x', colour: 'blue', glob: '*.ts' });
  assert.deepEqual(parsed, { root, pattern: 'x', glob: ['*.ts'] });
});

/** A limit: the field, the largest (or smallest) value taken, and the params around it. */
interface Limit {
  method: RequestMethod;
  field: string;
  /** The value at the limit (accepted); one past it (refused) is `limit + 1` for `max`, `limit - 1` for `min`. */
  limit: number;
  side: 'max' | 'min';
  params?: Record<string, unknown>;
}

const relation = (method: RequestMethod): Limit[] => [
  { method, field: 'depth', limit: maxGraphDepth, side: 'max' },
  { method, field: 'depth', limit: 1, side: 'min' },
  { method, field: 'limit', limit: maxGraphResults, side: 'max' },
  { method, field: 'limit', limit: 1, side: 'min' },
];

const limits: Limit[] = [
  ...(['context', 'beforeContext', 'afterContext'] as const).map((field): Limit => ({ method: Methods.grep, field, limit: maxContextLines, side: 'max' })),
  { method: Methods.grep, field: 'context', limit: 0, side: 'min' },
  { method: Methods.grep, field: 'maxResults', limit: 1, side: 'min', params: { paged: true } },
  { method: Methods.codeSearch, field: 'maxResults', limit: maxCodeSearchResults, side: 'max' },
  { method: Methods.codeSearch, field: 'maxResults', limit: 1, side: 'min' },
  { method: Methods.codeSearch, field: 'snippetLines', limit: maxSnippetLines, side: 'max' },
  { method: Methods.codeSearch, field: 'snippetLines', limit: 1, side: 'min' },
  { method: Methods.codeSearch, field: 'hybridWeight', limit: 1, side: 'max' },
  { method: Methods.codeSearch, field: 'hybridWeight', limit: 0, side: 'min' },
  { method: Methods.symbols, field: 'limit', limit: maxSymbols, side: 'max' },
  { method: Methods.references, field: 'limit', limit: maxGraphResults, side: 'max' },
  { method: Methods.references, field: 'limit', limit: 1, side: 'min' },
  ...relation(Methods.callers),
  ...relation(Methods.callees),
  ...relation(Methods.impact),
  { method: Methods.structuralSearch, field: 'maxResults', limit: maxStructuralResults, side: 'max' },
  { method: Methods.structuralRewrite, field: 'maxResults', limit: maxStructuralResults, side: 'max' },
  { method: Methods.chunks, field: 'budgetBytes', limit: maxChunkBudgetBytes, side: 'max' },
  { method: Methods.chunks, field: 'budgetBytes', limit: minChunkBudgetBytes, side: 'min' },
  ...([Methods.teamPush, Methods.teamStatus, Methods.teamJoin] as const).flatMap((method): Limit[] => [
    { method, field: 'connectTimeoutMs', limit: maxConnectTimeoutMs, side: 'max' },
    { method, field: 'connectTimeoutMs', limit: minConnectTimeoutMs, side: 'min' },
  ]),
  { method: Methods.debugState, field: 'frames', limit: maxDebugFrames, side: 'max' },
  { method: Methods.debugState, field: 'frames', limit: 1, side: 'min' },
  { method: Methods.debugState, field: 'maxValue', limit: maxDebugValueCharacters, side: 'max' },
  ...([Methods.debugLaunch, Methods.debugContinue, Methods.debugStep] as const).flatMap((method): Limit[] => [
    { method, field: 'timeoutMs', limit: maxDebugWaitMs, side: 'max' },
    { method, field: 'timeoutMs', limit: 1, side: 'min' },
  ]),
  // Counts: none below 0.
  { method: Methods.files, field: 'limit', limit: 0, side: 'min' },
  { method: Methods.grep, field: 'maxResults', limit: 0, side: 'min' },
  { method: Methods.symbols, field: 'waitMs', limit: 0, side: 'min' },
  { method: Methods.codeSearch, field: 'waitMs', limit: 0, side: 'min' },
  { method: Methods.references, field: 'offset', limit: 0, side: 'min' },
  { method: Methods.editFile, field: 'expectedVersion', limit: 0, side: 'min' },
];

/** The example of `method` with `field` set to `value` (and the limit's other params). */
function withValue(limit: Limit, value: number): unknown {
  return { ...(requests[limit.method] as Record<string, unknown>), ...limit.params, [limit.field]: value };
}

const past = (limit: Limit): number => (limit.side === 'max' ? limit.limit + 1 : limit.limit - 1);

test('params: each limit is accepted at the limit and refused one past it', () => {
  for (const limit of limits) {
    const what = `${limit.method} ${limit.field} ${limit.side} ${limit.limit}`;
    assert.equal(refusal(limit.method, withValue(limit, limit.limit)), undefined, `${what}: accepted`);
    assertNames(refusal(limit.method, withValue(limit, past(limit))), limit.field, `${what}: refused at ${past(limit)}`);
  }
  // The roots of one question: distinct ones counted.
  const roots = (count: number): string[] => Array.from({ length: count }, (_, index) => `/nowhere/r${index}`);
  for (const method of [Methods.grep, Methods.codeSearch, Methods.symbols] as const) {
    const example = omit(requests[method] as Record<string, unknown>, 'root');
    assert.equal(refusal(method, { ...example, roots: roots(maxRoots) }), undefined, `${method}: ${maxRoots} roots`);
    assert.equal(refusal(method, { ...example, roots: [...roots(maxRoots), ...roots(maxRoots)] }), undefined, `${method}: duplicates count once`);
    assertNames(refusal(method, { ...example, roots: roots(maxRoots + 1) }), 'roots', `${method}: ${maxRoots + 1} roots`);
    assertNames(refusal(method, { ...example, roots: [] }), 'roots', `${method}: no roots`);
  }
});

test('params: the messages clients know', () => {
  const cases: Array<[string, unknown, string]> = [
    [Methods.index, { root: 5 }, 'params.root must be a non-empty string (got number)'],
    [Methods.grep, { root, pattern: 'a', after: { path: 'a', line: 0, skip: 0 } }, 'params.after.line must be an integer ≥ 1 (got 0)'],
    [Methods.grep, { root, pattern: 'a', afterContext: 5000 }, 'params.afterContext must be at most 1000 (got 5000)'],
    [Methods.grep, { pattern: 'a' }, 'params.root must be a non-empty string (got undefined)'],
    [Methods.grep, { root, pattern: 'a', paged: true, maxResults: 0 }, 'params.maxResults must be at least 1 for a page (paged) (got 0)'],
    [Methods.callers, { root, symbol: 'a', depth: 50 }, 'params.depth must be between 1 and 10 (got 50)'],
    [Methods.callers, { symbol: 'a' }, 'params.root must be a non-empty string (got undefined)'],
    [Methods.impact, { root, symbol: 'a', minConfidence: 'sure' }, 'params.minConfidence must be exact, unique or name-only (got "sure")'],
    [Methods.codeSearch, { root, query: 'x', mode: 'fuzzy' }, 'params.mode must be one of auto, lexical, semantic, hybrid, regex, literal (got "fuzzy")'],
    [Methods.debugLaunch, { program: 'a.py', breakpoints: [{ path: 'a.py', line: 0 }] }, 'params.breakpoints[0].line must be an integer ≥ 1 (got 0)'],
    [Methods.editFile, { path: '/a', edits: [{ range: 1 }] }, 'params.edits[0].range must be an object (got number)'],
    [Methods.writeFile, { path: '/a' }, 'params.text must be a string (got undefined)'],
    [Methods.files, { root, glob: [''] }, 'params.glob[0] must be a non-empty string (got "")'],
    [Methods.callers, { root, symbol: 'a', limit: 1.5 }, 'params.limit must be a non-negative integer (got 1.5)'],
  ];
  for (const [method, params, message] of cases) assert.equal(refusal(method, params)?.message, message, method);
});

describe('over the wire: a required field of each request mistyped or missing answers -32602 naming it', () => {
  const daemon = spawnStdioDaemon();
  after(() => daemon.child.kill());
  for (const { mistyped, missing } of requestCases) {
    for (const [how, entries] of [
      ['mistyped', mistyped],
      ['missing', missing],
    ] as const) {
      if (entries.length === 0) continue;
      test(`${entries[0]!.method}: ${how}`, async () => {
        for (const entry of entries)
          assertNames((await daemon.client.request(entry.method, entry.params)).error, entry.field, `${entry.method} ${entry.field} ${how}`);
      });
    }
  }
  test('every limit, one past it', async () => {
    for (const limit of limits) {
      const answer = await daemon.client.request(limit.method, withValue(limit, past(limit)));
      assertNames(answer.error, limit.field, `${limit.method} ${limit.field} at ${past(limit)}`);
    }
  });
});
