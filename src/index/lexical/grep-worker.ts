// Worker-thread body of the grep pool: verifies the candidate files of one chunk (read, find the
// lines that hold a planned literal, test them with the regex) and reports the files that match.
// It publishes the index of the file it is on in shared memory, so the pool can tell which file a
// runaway regex is stuck in, stop this thread, and go on without that file.
import fs from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { attachContext } from './context-lines.js';
import { matchBytes, matchLines, type CompiledMatcher, type LineMatch } from './matcher.js';

/** How to match: the compiled matcher's parts, and the lines wanted at most per file. */
export interface MatchSpec {
  source: string;
  flags: string;
  multiline: boolean;
  ignoreCase: boolean;
  lineByLine: boolean;
  literals: string[] | undefined;
  limit: number;
  /** Context lines wanted before and after each match (0: none). */
  beforeContext: number;
  afterContext: number;
}

/** A file to read, or a buffer's text to search instead. */
export interface GrepFile {
  readPath: string;
  text?: string;
}

export interface GrepChunk extends MatchSpec {
  id: number;
  files: GrepFile[];
  /** Int32 slot this worker writes the index of its current file to (-1 when idle). */
  progress: SharedArrayBuffer;
}

export type GrepWorkerMessage = { type: 'file'; id: number; index: number; matches: LineMatch[] } | { type: 'done'; id: number };

parentPort?.on('message', (chunk: GrepChunk) => {
  const current = new Int32Array(chunk.progress);
  const matcher: CompiledMatcher = {
    regex: new RegExp(chunk.source, chunk.flags),
    lineRegex: new RegExp(chunk.source, chunk.flags.replace('g', '')),
    multiline: chunk.multiline,
    ignoreCase: chunk.ignoreCase,
    lineByLine: chunk.lineByLine,
  };
  chunk.files.forEach((file, index) => {
    Atomics.store(current, 0, index);
    let matches: LineMatch[];
    const wantsContext = chunk.beforeContext > 0 || chunk.afterContext > 0;
    if (file.text !== undefined) {
      matches = matchLines(file.text, matcher, chunk.limit);
      if (wantsContext) attachContext(file.text, matches, chunk.beforeContext, chunk.afterContext);
    } else {
      let bytes: Buffer;
      try {
        bytes = fs.readFileSync(file.readPath);
      } catch {
        return; // removed between planning and verifying
      }
      matches = matchBytes(bytes, matcher, chunk.literals, chunk.limit);
      if (wantsContext && matches.length > 0) attachContext(bytes.toString('utf8'), matches, chunk.beforeContext, chunk.afterContext);
    }
    if (matches.length > 0) parentPort!.postMessage({ type: 'file', id: chunk.id, index, matches } satisfies GrepWorkerMessage);
  });
  Atomics.store(current, 0, -1);
  parentPort!.postMessage({ type: 'done', id: chunk.id } satisfies GrepWorkerMessage);
});
