// The CLI's JSON-RPC client: requests with ids, the notifications the daemon sends (`$/progress`),
// `$/cancelRequest`, errors as RpcError with the daemon's code, on the project's own framing
// (base/framing.ts) over any byte stream (the daemon's socket; --no-daemon's in-memory pipe). Part
// of the thin client path: it replaces vscode-jsonrpc there (~12 ms of a client command's start
// went to loading it; bench/RESULTS.md), which the daemon, its transports and the MCP SDK keep.
// A client speaks first and is never asked anything: a request from the peer is answered
// MethodNotFound. *Invariant*: every request settles: with its answer, or with the error `closed`
// makes when the stream ends (a daemon gone mid-request never leaves the command waiting).
import type { Readable, Writable } from 'node:stream';
import { FrameDecoder } from '../base/framing.js';

/** A JSON-RPC error answer: the daemon's message and code (docs/protocol.md, Errors). */
export class RpcError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

export interface Disposable {
  dispose(): void;
}

export interface RequestOptions {
  /** Aborting sends `$/cancelRequest`; the request then settles with the daemon's answer (RequestCancelled). */
  signal?: AbortSignal;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  method: string;
}

export class RpcClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly handlers = new Map<string, Set<(params: unknown) => void>>();
  private readonly decoder: FrameDecoder;
  private closedWith: Error | undefined;

  /**
   * Reads frames from `input` and writes them to `output`. `closed` makes the error pending and
   * later requests reject with once `input` ends, closes or fails, or the framing breaks.
   */
  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly closed: (why: string) => Error = (why) => new Error(`the connection closed: ${why}`),
  ) {
    this.decoder = new FrameDecoder(
      (message) => this.receive(message),
      (problem) => {
        if (problem.kind === 'badHeader' && problem.fatal) this.close(`the daemon's framing broke (${problem.message})`);
        // A frame too large or not JSON: the request it answered cannot be told; it fails when the stream closes.
      },
      { strayBytes: 'fatal' },
    );
    input.on('data', this.onData);
    input.once('end', this.onEnd);
    input.once('close', this.onEnd);
    input.once('error', this.onError);
    output.once('error', this.onError);
  }

  private readonly onData = (chunk: Buffer): void => this.decoder.push(chunk);
  private readonly onEnd = (): void => this.close('the stream ended');
  private readonly onError = (error: Error): void => this.close(error.message);

  /** Sends a request; resolves with its result, rejects with an RpcError (or the closed error). */
  sendRequest<R>(method: string, params?: unknown, options: RequestOptions = {}): Promise<R> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const id = this.nextId++;
    return new Promise<R>((resolve, reject) => {
      const { signal } = options;
      const cancel = (): void => this.sendNotification('$/cancelRequest', { id });
      const settle = (): void => {
        this.pending.delete(id);
        signal?.removeEventListener('abort', cancel);
      };
      this.pending.set(id, {
        method,
        resolve: (value) => {
          settle();
          resolve(value as R);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      this.write({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
      if (signal?.aborted) cancel();
      else signal?.addEventListener('abort', cancel, { once: true });
    });
  }

  sendNotification(method: string, params?: unknown): void {
    if (this.closedWith) return;
    this.write({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
  }

  /** Calls `handler` with the params of each notification named `method` until disposed. */
  onNotification(method: string, handler: (params: unknown) => void): Disposable {
    let set = this.handlers.get(method);
    if (!set) this.handlers.set(method, (set = new Set()));
    set.add(handler);
    return { dispose: () => void set.delete(handler) };
  }

  /** Stops reading; requests still pending reject with the closed error. Writes nothing (the owner ends the stream). */
  dispose(): void {
    this.close('the client closed it');
  }

  private close(why: string): void {
    if (this.closedWith) return;
    this.closedWith = this.closed(why);
    this.decoder.dispose();
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('close', this.onEnd);
    for (const request of [...this.pending.values()]) request.reject(this.closedWith);
  }

  private write(message: object): void {
    const body = JSON.stringify(message);
    this.output.write(`Content-Length: ${Buffer.byteLength(body, 'utf8')}\r\n\r\n${body}`);
  }

  private receive(message: unknown): void {
    if (message === null || typeof message !== 'object') return;
    const { id, method, params, result, error } = message as {
      id?: unknown;
      method?: unknown;
      params?: unknown;
      result?: unknown;
      error?: { code?: unknown; message?: unknown; data?: unknown };
    };
    if (typeof method === 'string') {
      if (id !== undefined && id !== null) {
        this.write({ jsonrpc: '2.0', id, error: { code: -32601, message: `the CLI answers no requests (got ${method})` } });
        return;
      }
      for (const handler of this.handlers.get(method) ?? []) handler(params);
      return;
    }
    if (typeof id !== 'number') return;
    const request = this.pending.get(id);
    if (!request) return;
    if (error !== undefined && error !== null) {
      const code = typeof error.code === 'number' ? error.code : -32603;
      const text = typeof error.message === 'string' ? error.message : `${request.method} failed`;
      request.reject(new RpcError(text, code, error.data));
    } else request.resolve(result);
  }
}
