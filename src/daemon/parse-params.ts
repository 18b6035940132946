// A message's params parsed with its method's schema (src/protocol/params.ts) before its handler
// runs, and the one formatter of what a schema refuses: the first problem becomes an invalidParams
// error (-32602) reading `params.<field> must be <expected> (got <what>)`, `data.field` the dotted
// path (`after.line`, `breakpoints[0].line`); params that are not an object read `<method>: params
// must be an object`. `got` is the type of a value of the wrong type, else the value itself.
// Called by session.ts for every request and notification, and by loading.ts for status.
import type { z } from 'zod';
import { FathomError } from '../base/errors.js';

/** The params of `method`, as its schema parses them, or the invalidParams error naming the field. */
export function parseParams<Schema extends z.ZodTypeAny>(method: string, schema: Schema, raw: unknown): z.output<Schema> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data as z.output<Schema>;
  throw invalidParams(method, parsed.error.issues[0]!, raw);
}

function invalidParams(method: string, issue: z.ZodIssue, raw: unknown): FathomError {
  if (issue.path.length === 0) {
    const got = raw === undefined || raw === null ? '' : `, not ${Array.isArray(raw) ? 'an array' : typeof raw}`;
    return new FathomError('invalidParams', `${method}: params must be an object${got}`);
  }
  const field = issue.path.map((key, at) => (typeof key === 'number' ? `[${key}]` : at === 0 ? key : `.${key}`)).join('');
  const value = valueAt(raw, issue.path);
  // A fraction where an integer is wanted is of the right type: its value says more.
  const ofWrongType = issue.code === 'invalid_type' && !(issue.expected === 'integer' && typeof value === 'number');
  return new FathomError('invalidParams', `params.${field} must be ${issue.message} (got ${ofWrongType ? typeName(value) : describe(value)})`, { field });
}

function valueAt(raw: unknown, path: readonly (string | number)[]): unknown {
  let value = raw;
  for (const key of path)
    value = typeof value === 'object' && value !== null && Object.hasOwn(value, key) ? (value as Record<string | number, unknown>)[key] : undefined;
  return value;
}

function typeName(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

/** A value as the message shows it: short JSON, or what it is when that is long. */
function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return value.length > 60 ? `${JSON.stringify(value.slice(0, 60))}…` : JSON.stringify(value);
  const json = JSON.stringify(value);
  if (json.length <= 60) return json;
  return Array.isArray(value) ? `an array of ${value.length}` : 'an object';
}
