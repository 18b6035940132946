// The one path filter: globs over workspace-relative paths as ripgrep's -g reads them (its
// override globs, gitignore's rules with the sense turned over). Every place a client names globs
// (fathom/files, grep, codeSearch, structuralSearch, symbols, the CLI's -g/--glob and MCP) builds
// its filter here, so one glob means one thing everywhere:
//   - a glob without a slash matches a name in any folder (`*.ts`, `Makefile`); one with a slash
//     (other than a trailing one) is anchored at the root (`src/*.ts`, `/README.md`, `**/x/*.c`);
//   - a trailing slash matches folders only (`vendor/`);
//   - `!glob` excludes; a folder an exclusion matches excludes everything under it (`!test`);
//   - with any glob that includes, a file must match one to pass (folders never do: `src` lists
//     nothing, `src/**` lists what is under it);
//   - of the globs matching a path, the last one given decides (`!*.md` then `README.md` keeps
//     README.md).
// Globs are checked for size and shape first (base/pattern-limits.ts): a bad one is an
// invalidParams error, as is one picomatch refuses.
import picomatch from 'picomatch';
import { errorMessage, FathomError } from './errors.js';
import { checkGlobs } from './pattern-limits.js';

interface CompiledGlob {
  exclude: boolean;
  foldersOnly: boolean;
  /** Matched against the whole relative path (anchored) rather than the last name. */
  anchored: boolean;
  matches: (text: string) => boolean;
}

const options = { dot: true, noextglob: true, posix: true };

function compile(raw: string): CompiledGlob {
  const exclude = raw.startsWith('!');
  let glob = exclude ? raw.slice(1) : raw;
  const foldersOnly = glob.endsWith('/') && glob.length > 1;
  if (foldersOnly) glob = glob.slice(0, -1);
  const anchored = glob.includes('/');
  if (glob.startsWith('/')) glob = glob.slice(1);
  return { exclude, foldersOnly, anchored, matches: picomatch(glob, options) };
}

function nameOf(relativePath: string): string {
  return relativePath.slice(relativePath.lastIndexOf('/') + 1);
}

/** The last glob matching `relativePath` (a file, or a folder when `folder`), if any. */
function lastMatch(globs: readonly CompiledGlob[], relativePath: string, folder: boolean): CompiledGlob | undefined {
  for (let at = globs.length - 1; at >= 0; at--) {
    const glob = globs[at]!;
    if (glob.foldersOnly && !folder) continue;
    if (glob.matches(glob.anchored ? relativePath : nameOf(relativePath))) return glob;
  }
  return undefined;
}

/** A filter on workspace-relative file paths ('/'-separated) from globs, with ripgrep's -g rules (above). */
export function globFilter(globs: readonly string[]): (relativePath: string) => boolean {
  // picomatch turns '*' into a backtracking regex: many of them in one glob can take exponential
  // time on the daemon's thread.
  checkGlobs(globs);
  if (globs.length === 0) return () => true;
  let compiled: CompiledGlob[];
  try {
    compiled = globs.map(compile);
  } catch (error) {
    throw new FathomError('invalidParams', `bad glob: ${errorMessage(error)}`, { field: 'glob' });
  }
  const anyInclude = compiled.some((glob) => !glob.exclude);
  const anyExclude = compiled.some((glob) => glob.exclude);
  if (!anyExclude && !compiled.some((glob) => glob.foldersOnly)) {
    // Only inclusions (the common case, up to 1,000 of them): order cannot matter, so one matcher
    // for the anchored globs and one for the names.
    const anchored = globs.filter((_, at) => compiled[at]!.anchored).map((glob) => glob.replace(/^\//, ''));
    const names = globs.filter((_, at) => !compiled[at]!.anchored);
    const byPath = anchored.length > 0 ? picomatch(anchored, options) : () => false;
    const byName = names.length > 0 ? picomatch(names, options) : () => false;
    return (relativePath) => byPath(relativePath) || byName(nameOf(relativePath));
  }
  return (relativePath) => {
    if (anyExclude) {
      // A folder on the way excluded (by the last glob matching it) hides what is under it.
      for (let slash = relativePath.indexOf('/'); slash >= 0; slash = relativePath.indexOf('/', slash + 1)) {
        if (lastMatch(compiled, relativePath.slice(0, slash), true)?.exclude) return false;
      }
    }
    const decided = lastMatch(compiled, relativePath, false);
    return decided ? !decided.exclude : !anyInclude;
  };
}

/** A filter on workspace-relative file paths: in one of `paths` (files, or folders and all under them; '' the root). */
export function pathsFilter(paths: readonly string[]): (relativePath: string) => boolean {
  if (paths.length === 0 || paths.includes('')) return () => true;
  return (relativePath) => paths.some((inside) => relativePath === inside || relativePath.startsWith(`${inside}/`));
}
