// The limits on patterns a client hands the daemon to compile (globs, regexes), checked before
// anything compiles them: an oversized or pathological one is an invalidParams error naming the
// limit, never a stack overflow or a compiler's own message surfacing as an internal error. Called
// by every place that compiles a user's glob or regex (the regex index's glob filter and parser,
// the file set's glob listing, structural rules' `regex`). Imports only base/errors.
import { FathomError } from './errors.js';

/** picomatch compiles `*` to a backtracking regex: more than this many in a glob can take exponential time. */
export const maxGlobWildcards = 8;
export const maxGlobLength = 1_000;
/** Globs in one request: every file is tested against each. */
export const maxGlobCount = 1_000;
/** Characters (UTF-16 code units) in a regex: the planner and the verifier hold its tree and its alternatives whole. */
export const maxRegexLength = 100_000;
/** Groups, lookarounds and classes nested in a regex (ripgrep's regex crate stops at 250 too); the parser recurses per level. */
export const maxRegexNesting = 250;

function excerpt(text: string): string {
  return text.length > 60 ? `${JSON.stringify(text.slice(0, 60))}…` : JSON.stringify(text);
}

/** Throws invalidParams unless every glob is within the limits (`field` names the param). */
export function checkGlobs(globs: readonly string[], field = 'glob'): void {
  if (globs.length > maxGlobCount) throw new FathomError('invalidParams', `too many globs: ${globs.length}; at most ${maxGlobCount}`, { field });
  for (const glob of globs) {
    const wildcards = glob.match(/\*/g)?.length ?? 0;
    if (glob.length > maxGlobLength || wildcards > maxGlobWildcards) {
      throw new FathomError(
        'invalidParams',
        `glob too long or with too many wildcards: ${glob.length} characters, ${wildcards} wildcards (*); at most ${maxGlobLength} characters and ${maxGlobWildcards} wildcards: ${excerpt(glob)}`,
        { field },
      );
    }
  }
}

/** How deep groups and classes nest in a regex's source, read without parsing it (escapes skipped). */
export function regexNesting(source: string): number {
  let depth = 0;
  let deepest = 0;
  let inClass = false;
  for (let index = 0; index < source.length; index++) {
    const character = source[index];
    if (character === '\\') {
      index += 1;
    } else if (inClass) {
      if (character === ']') {
        inClass = false;
        depth -= 1;
      }
    } else if (character === '[') {
      inClass = true;
      depth += 1;
    } else if (character === '(') {
      depth += 1;
    } else if (character === ')') {
      depth = Math.max(0, depth - 1);
    }
    if (depth > deepest) deepest = depth;
  }
  return deepest;
}

/** Throws invalidParams unless a regex is within the limits (`field` names the param). */
export function checkRegex(source: string, field = 'pattern'): void {
  if (source.length > maxRegexLength)
    throw new FathomError('invalidParams', `regex too long: ${source.length} characters; at most ${maxRegexLength}`, { field });
  const nesting = regexNesting(source);
  if (nesting > maxRegexNesting)
    throw new FathomError('invalidParams', `regex nested too deeply: ${nesting} levels of groups and classes; at most ${maxRegexNesting}`, { field });
}
