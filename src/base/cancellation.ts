// Cancellation for long engine work. Engines accept anything with `isCancellationRequested`
// (vscode-jsonrpc's CancellationToken fits), so they never import the wire layer.
import { FathomError } from './errors.js';

export interface CancellationSignal {
  readonly isCancellationRequested: boolean;
  /** Present on vscode-jsonrpc tokens and on CancellationSource: call `listener` once cancelled. */
  onCancellationRequested?: (listener: () => void) => { dispose(): void };
}

export const neverCancelled: CancellationSignal = { isCancellationRequested: false };

export function throwIfCancelled(signal: CancellationSignal): void {
  if (signal.isCancellationRequested) throw new FathomError('cancelled', 'cancelled');
}

/** A cancellation source owned by one job; `cancel()` flips its signal for every holder. */
export class CancellationSource implements CancellationSignal {
  private cancelled = false;
  private readonly listeners = new Set<() => void>();

  get isCancellationRequested(): boolean {
    return this.cancelled;
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    for (const listener of this.listeners) listener();
    this.listeners.clear();
  }

  onCancellationRequested = (listener: () => void): { dispose(): void } => {
    if (this.cancelled) {
      listener();
      return { dispose() {} };
    }
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };
}

/** Resolves or rejects with `work`, or rejects with a 'cancelled' FathomError once `signal` fires. */
export function raceCancellation<T>(work: Promise<T>, signal: CancellationSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.isCancellationRequested) return Promise.reject(new FathomError('cancelled', 'cancelled'));
  return new Promise<T>((resolve, reject) => {
    let poll: NodeJS.Timeout | undefined;
    const cancelled = (): void => reject(new FathomError('cancelled', 'cancelled'));
    const subscription = signal.onCancellationRequested?.(cancelled);
    if (!subscription) poll = setInterval(() => signal.isCancellationRequested && cancelled(), 50);
    work.then(resolve, reject).finally(() => {
      subscription?.dispose();
      clearInterval(poll);
    });
  });
}
