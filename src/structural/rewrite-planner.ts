// Staging a structural rewrite: search, then for every file with matches compute its new content
// from the template (outermost of overlapping matches wins), on exactly the bytes that were
// matched (a file that changed between the match and the read is skipped, as is one open in an
// editor with unsaved changes: Fathom never writes over those), and stage the result as a plan.
// Nothing is written here. Answers the count, each change with its before and after, and one
// unified diff of all files.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { type CancellationSignal, neverCancelled } from '../base/cancellation.js';
import { FathomError } from '../base/errors.js';
import { toAbsolute } from '../base/paths.js';
import { SourceText } from '../index/syntax/source-text.js';
import type { Span } from './find.js';
import { applyEdits, nonOverlapping, parseTemplate, renderTemplate } from './rewrite.js';
import type { RewritePlans } from './rewrite-plans.js';
import type { CandidateSource, StructuralRequest, StructuralSearch } from './structural-search.js';

export interface RewriteRequest extends StructuralRequest {
  /** The replacement, with the pattern's metavariables. */
  rewrite: string;
}

export interface RewriteChange extends Span {
  path: string;
  before: string;
  after: string;
}

export interface RewritePlanResult {
  /** Absent when nothing would change (nothing is staged then). */
  token?: string;
  expiresAt?: number;
  language: string;
  count: number;
  files: { path: string; count: number }[];
  changes: RewriteChange[];
  /** Unified diff of every file (a/ and b/ prefixes, paths relative to the workspace). */
  diff: string;
  /** Files with matches left out of the plan, and why. */
  skipped: { path: string; reason: string }[];
  /** Matches inside another match that is rewritten (only the outermost is). */
  overlapping: number;
  errors: { path: string; message: string }[];
  stats: { candidates: number; parsed: number; elapsedMs: number };
}

/** A rewrite touches at most this many matches; more means the filters are too wide. */
export const maxRewriteMatches = 100_000;

export async function planRewrite(
  structural: StructuralSearch,
  plans: RewritePlans,
  source: CandidateSource,
  request: RewriteRequest,
  signal: CancellationSignal = neverCancelled,
  progress?: (done: number, total: number) => void,
): Promise<RewritePlanResult> {
  const started = performance.now();
  if (request.rewrite.length > 100_000) throw new FathomError('invalidParams', 'rewrite template longer than 100000 characters', { field: 'rewrite' });
  const { search } = await structural.compile(request);
  const template = parseTemplate(request.rewrite, search.variables);
  const result = await structural.search(source, { ...request, maxResults: maxRewriteMatches }, signal, progress);
  if (result.truncated)
    throw new FathomError('invalidParams', `more than ${maxRewriteMatches} matches: narrow the rewrite with paths or glob`, { field: 'maxResults' });

  const byFile = new Map<string, typeof result.matches>();
  for (const match of result.matches) {
    const list = byFile.get(match.path) ?? [];
    list.push(match);
    byFile.set(match.path, list);
  }
  const skipped: { path: string; reason: string }[] = [];
  const changes: RewriteChange[] = [];
  const files: { path: string; before: Buffer; after: Buffer; count: number }[] = [];
  let overlapping = 0;
  for (const [path, matches] of byFile) {
    const origin = result.sources.get(path);
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(toAbsolute(source.root, path));
    } catch (error) {
      skipped.push({ path, reason: `cannot be read: ${(error as Error).message}` });
      continue;
    }
    if (origin && 'buffer' in origin && !bytes.equals(Buffer.from(origin.buffer, 'utf8'))) {
      skipped.push({ path, reason: 'open in an editor with unsaved changes (save it, then rewrite)' });
      continue;
    }
    if (origin && 'hash' in origin && createHash('sha256').update(bytes).digest('hex') !== origin.hash) {
      skipped.push({ path, reason: 'changed while the rewrite was being staged' });
      continue;
    }
    const text = new SourceText(bytes).text;
    const chosen = nonOverlapping(matches);
    overlapping += chosen.overlapping;
    const edits = chosen.kept.map((match) => ({ match, replacement: renderTemplate(template, match, text) }));
    const after = applyEdits(
      bytes,
      edits.map(({ match, replacement }) => ({ startByte: match.startByte, endByte: match.endByte, replacement })),
    );
    if (after.equals(bytes)) continue;
    for (const { match, replacement } of edits) {
      if (replacement === match.text) continue;
      changes.push({
        path,
        before: match.text,
        after: replacement,
        start: match.start,
        end: match.end,
        startByte: match.startByte,
        endByte: match.endByte,
        startUnit: match.startUnit,
        endUnit: match.endUnit,
      });
    }
    files.push({ path, before: bytes, after, count: edits.length });
  }
  files.sort((a, b) => (a.path < b.path ? -1 : 1));
  // `diff` (19 modules) is loaded by the first rewrite, not by every daemon's start.
  const { createTwoFilesPatch } = await import('diff');
  const diff = files
    .map((file) =>
      createTwoFilesPatch(`a/${file.path}`, `b/${file.path}`, file.before.toString('utf8'), file.after.toString('utf8'), undefined, undefined, {
        context: 3,
      }).replace(/^=+\n/, ''),
    )
    .join('');
  const plan =
    files.length > 0
      ? plans.stage(
          source.root,
          files.map(({ path, before, after }) => ({ path, before, after })),
        )
      : undefined;
  return {
    ...(plan ? { token: plan.token, expiresAt: plan.expiresAt } : {}),
    language: result.language,
    count: changes.length,
    files: files.map((file) => ({ path: file.path, count: file.count })),
    changes,
    diff,
    skipped,
    overlapping,
    errors: result.errors,
    stats: { candidates: result.stats.candidates, parsed: result.stats.parsed, elapsedMs: Math.round((performance.now() - started) * 100) / 100 },
  };
}
