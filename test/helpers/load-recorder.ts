// Records every module a Node process loads, for test/cli/cli-thin.test.ts (or by hand): `node
// --import ./dist/test/helpers/load-recorder.js bin/fathom.js …` with FATHOM_LOAD_RECORD=FILE
// appends one absolute path (or node: name) a line to FILE. Two sources, because Node 20 keeps no public list
// of loaded ES modules: a module.register() resolve hook (it runs in Node's hooks thread, where
// this same file is loaded again and only the hooks below act) sees every ES import, static or
// dynamic, ours or a package's; the CommonJS cache, written at exit, holds every file loaded with
// require (CommonJS packages such as vscode-jsonrpc, and what they require in turn). A resolution
// is recorded before its load: a module resolved is one loaded, except one whose load throws.
import fs from 'node:fs';
import { createRequire, register } from 'node:module';
import { fileURLToPath } from 'node:url';
import { isMainThread } from 'node:worker_threads';

interface ResolveResult {
  url: string;
}

let recordFile: string | undefined;

function record(entries: string[]): void {
  if (recordFile !== undefined && entries.length > 0) fs.appendFileSync(recordFile, `${entries.join('\n')}\n`);
}

if (isMainThread && process.env.FATHOM_LOAD_RECORD) {
  recordFile = process.env.FATHOM_LOAD_RECORD;
  register(import.meta.url, { data: { file: recordFile } });
  const cache = createRequire(import.meta.url).cache;
  process.on('exit', () => record(Object.keys(cache)));
}

/** The hooks thread's start: where to record. */
export function initialize(data: { file: string }): void {
  recordFile = data.file;
}

export async function resolve(
  specifier: string,
  context: unknown,
  next: (specifier: string, context: unknown) => Promise<ResolveResult>,
): Promise<ResolveResult> {
  const result = await next(specifier, context);
  record([result.url.startsWith('file:') ? fileURLToPath(result.url) : result.url]);
  return result;
}
