// Giving the event loop a turn inside long synchronous work (a code-graph question over the
// kernel, a large cache written or read in pieces), so that other requests are answered and a
// cancellation can arrive meanwhile.

/** Resolves after pending I/O callbacks have run. */
export function breathe(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
