// Checks a request's raw params and turns them into typed values, naming the offending field in an
// invalidParams error. Every handler reads its params through here.
import { FathomError } from '../base/errors.js';
import { pathFromUriOrPath, realPathForWrite, toRelative } from '../base/paths.js';

export type Params = Record<string, unknown>;

export function paramsObject(method: string, raw: unknown, options: { optional?: boolean } = {}): Params {
  if (raw === undefined || raw === null) {
    if (options.optional) return {};
    throw new FathomError('invalidParams', `${method}: params must be an object`);
  }
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw new FathomError('invalidParams', `${method}: params must be an object, not ${Array.isArray(raw) ? 'an array' : typeof raw}`);
  return raw as Params;
}

function fail(field: string, expected: string, value: unknown): never {
  throw new FathomError(
    'invalidParams',
    `params.${field} must be ${expected} (got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value})`,
    { field },
  );
}

export function requiredString(params: Params, field: string): string {
  const value = params[field];
  if (typeof value !== 'string' || value === '') fail(field, 'a non-empty string', value);
  return value;
}

/** A string that may be empty (document text). */
export function requiredText(params: Params, field: string): string {
  const value = params[field];
  if (typeof value !== 'string') fail(field, 'a string', value);
  return value;
}

export function optionalString(params: Params, field: string): string | undefined {
  const value = params[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') fail(field, 'a string', value);
  return value;
}

export function optionalBoolean(params: Params, field: string): boolean | undefined {
  const value = params[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') fail(field, 'a boolean', value);
  return value;
}

export function optionalCount(params: Params, field: string): number | undefined {
  const value = params[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) fail(field, 'a non-negative integer', value);
  return value;
}

export function optionalStringList(params: Params, field: string): string[] | undefined {
  const value = params[field];
  if (value === undefined) return undefined;
  if (typeof value === 'string' && value !== '') return [value];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' && item !== '')) fail(field, 'a non-empty string or an array of them', value);
  return value as string[];
}

export function optionalProgressToken(params: Params, field: string): string | number | undefined {
  const value = params[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' && typeof value !== 'number') fail(field, 'a string or a number', value);
  return value;
}

export function requiredCount(params: Params, field: string): number {
  const value = params[field];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) fail(field, 'a non-negative integer', value);
  return value;
}

export function requiredNumber(params: Params, field: string): number {
  const value = params[field];
  if (typeof value !== 'number' || !Number.isFinite(value)) fail(field, 'a number', value);
  return value;
}

export function requiredObject(params: Params, field: string): Params {
  const value = params[field];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(field, 'an object', value);
  return value as Params;
}

export function requiredArray(params: Params, field: string): unknown[] {
  const value = params[field];
  if (!Array.isArray(value)) fail(field, 'an array', value);
  return value;
}

/**
 * A page's cursor (`after`: a previous answer's `next`, given back as it came): `{ path, line,
 * skip }`, a workspace-relative path, a line ≥ 1, the count of that file's results already given.
 */
export function optionalCursor(params: Params, field: string): { path: string; line: number; skip: number } | undefined {
  const value = params[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(field, "an object (a previous answer's next)", value);
  const cursor = value as Params;
  const { path, line, skip } = cursor;
  if (typeof path !== 'string' || path === '') fail(`${field}.path`, 'a non-empty string', path);
  if (typeof line !== 'number' || !Number.isInteger(line) || line < 1) fail(`${field}.line`, 'an integer ≥ 1', line);
  if (typeof skip !== 'number' || !Number.isInteger(skip) || skip < 0) fail(`${field}.skip`, 'a non-negative integer', skip);
  return { path, line, skip };
}

/**
 * `paths`: files or folders (absolute, file:// or relative to `root`) inside the workspace, as
 * workspace-relative paths ('' for the root itself); one outside is a pathOutsideWorkspace error.
 */
export function optionalPathsWithin(params: Params, root: string, field = 'paths'): string[] {
  return (optionalStringList(params, field) ?? []).map((value) => {
    const relative = toRelative(root, realPathForWrite(pathFromUriOrPath(value, root)));
    if (relative === undefined) throw new FathomError('pathOutsideWorkspace', `path ${value} is outside the workspace ${root}`, { path: value });
    return relative;
  });
}
