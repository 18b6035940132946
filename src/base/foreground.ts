// Requests a user is waiting on, so that background work the daemon's thread does in slices
// (moving a team join's vectors into the HNSW graph, writing them to the embedding cache) steps
// aside while one is answered: a slice costs a request every turn of the event loop it takes (a
// joined kernel's first search took 9 s beside ~50 ms graph slices, each of its steps waiting
// behind one). A request in flight longer than the patience (one waiting on a build, or
// `fathom index` waiting for every index) no longer holds the slices back. One set per process:
// the daemon marks each request (session.ts), the engines' slice loops wait on it.

const inFlight = new Map<number, number>();
let next = 0;

/** Marks a request begun; the function returned marks it ended (once). */
export function beginForeground(): () => void {
  const id = next++;
  inFlight.set(id, performance.now());
  return () => inFlight.delete(id);
}

/** Whether a request began less than `patienceMs` ago and has not ended. */
export function foregroundBusy(patienceMs = defaultPatienceMs): boolean {
  const now = performance.now();
  for (const started of inFlight.values()) if (now - started < patienceMs) return true;
  return false;
}

/** Resolves once no request younger than `patienceMs` is in flight (looked at every 5 ms). */
export async function foregroundQuiet(patienceMs = defaultPatienceMs): Promise<void> {
  while (foregroundBusy(patienceMs)) await new Promise((resolve) => setTimeout(resolve, 5));
}

const defaultPatienceMs = 2_000;
