// A question asked of several workspaces at once (`fathom/grep`, `fathom/codeSearch`,
// `fathom/symbols` with `roots: [...]` or `allWorkspaces: true` in place of `root`), as Sourcebot
// and zoekt search across repositories: the one-root handler runs for each root in turn with the
// same params, and each answer, or the error of that root alone, is labelled by its root. Pages
// (`after`) are of one root: a client pages a root's answer with `root` and its `next`. The params'
// schemas (protocol/params.ts) check each field and the number of roots; which of them is given is
// checked here.
import { FathomError } from '../base/errors.js';
import type { CancellationToken } from 'vscode-jsonrpc/node';
import type { AcrossRootsResult } from '../protocol/methods.js';
import { toResponseError } from './to-wire-error.js';

/** What the three methods share: one root, several, or every open one (the schema requires one of them). */
interface AcrossRootsParams {
  root?: string | undefined;
  roots?: string[] | undefined;
  allWorkspaces?: true | undefined;
  after?: unknown;
}

/**
 * Answers `params` with `one` for its `root`, or for each of its `roots` (every open folder
 * workspace with `allWorkspaces`): `{ answers: [{ root, result } | { root, error }] }` in the order given.
 */
export async function acrossRoots<P extends AcrossRootsParams, T extends { root: string }>(
  method: string,
  params: P,
  token: CancellationToken,
  openRoots: () => string[],
  one: (params: P & { root: string }, token: CancellationToken) => Promise<T>,
): Promise<T | AcrossRootsResult<T>> {
  if (params.roots === undefined && params.allWorkspaces === undefined) return one({ ...params, root: params.root! }, token);
  const given = [params.root !== undefined && 'root', params.roots !== undefined && 'roots', params.allWorkspaces !== undefined && 'allWorkspaces'].filter(
    Boolean,
  );
  if (given.length > 1)
    throw new FathomError('invalidParams', `${method}: give one of root, roots and allWorkspaces (got ${given.join(' and ')})`, { field: String(given[1]) });
  if (params.after !== undefined)
    throw new FathomError('invalidParams', `${method}: a page (after) is of one workspace: give root, with the next of that root's answer`, { field: 'after' });
  const roots = params.roots ?? openRoots();
  if (roots.length === 0)
    throw new FathomError('invalidParams', `${method}: the daemon holds no workspace yet (open one with root, or fathom index PATH)`, {
      field: 'allWorkspaces',
    });
  const { roots: _roots, allWorkspaces: _all, ...rest } = params;
  const answers: AcrossRootsResult<T>['answers'] = [];
  for (const root of roots) {
    if (token.isCancellationRequested) break;
    try {
      const result = await one({ ...rest, root } as P & { root: string }, token);
      answers.push({ root: result.root, result });
    } catch (error) {
      // One root's failure (not a workspace, unreadable, a bad glob for it) is its answer alone.
      const wire = toResponseError(method, error);
      answers.push({ root, error: { code: wire.code, message: wire.message } });
    }
  }
  if (token.isCancellationRequested) throw new FathomError('cancelled', `${method}: cancelled`);
  return { answers };
}
