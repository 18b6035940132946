// Whether a question should stop waiting for an index's build: a question waits up to its
// `waitMs` for a graph, ranking or semantic build (then answers from what is ready, saying so),
// and a build whose pace so far cannot end it within what is left of that wait is not waited for:
// on a joined kernel clone the chunk ranking is minutes from ready when the first question comes,
// and the question could wait its whole 5 s for nothing. Small builds (a few hundred files to go) are always waited for: their
// pace in the first half second says little (workers still starting).

/** Files a build must still have to do before its pace can end a wait early. */
export const paceMinRemaining = 1_000;

/** How long a wait runs before the pace is read (and how often it is read again). */
export const paceStepMs = 500;

/**
 * `progress` as the build last reported it; a build that has reported nothing yet (total 0) has
 * all of the workspace's `files` to do (a question came while a cold build was starting: on the
 * joined kernel the ranking said "0 of ?" and the question waited its whole 5 s).
 */
export function buildCannotFinish(reported: { done: number; total: number }, doneAtStart: number, elapsedMs: number, waitMs: number, files = 0): boolean {
  const progress = reported.total > 0 ? reported : { done: 0, total: files };
  const remaining = progress.total - progress.done;
  if (elapsedMs < paceStepMs || progress.total <= 0 || remaining < paceMinRemaining) return false;
  const pace = (progress.done - doneAtStart) / elapsedMs;
  return pace <= 0 || remaining / pace > waitMs - elapsedMs;
}
