// Giving the event loop a turn inside long synchronous work (a code-graph question over the
// kernel, a large cache written or read in pieces), so that other requests are answered and a
// cancellation can arrive meanwhile.

/** Resolves after pending I/O callbacks have run. */
export function breathe(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A pause for long work that calls it often (every few thousand items): it breathes only when
 * 20 ms have passed since it last did, so the work costs little more than done in one go.
 */
export function slicedPause(slice = 20): () => Promise<void> {
  let last = performance.now();
  return async () => {
    if (performance.now() - last < slice) return;
    await breathe();
    last = performance.now();
  };
}
