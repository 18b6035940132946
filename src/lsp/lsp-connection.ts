// A JSON-RPC 2.0 client over a language server's stdio, on base/framing.ts: requests matched to
// responses by id (each with a time limit), notifications both ways, and the server's own
// requests (workspace/configuration and the like) answered by a handler. Owns nothing about LSP's
// meaning; language-server.ts speaks LSP on top. When the process's streams end, every pending
// request rejects with ConnectionClosed.
import type { Readable, Writable } from 'node:stream';
import { encodeFrame, FrameDecoder } from '../base/framing.js';

export class ConnectionClosed extends Error {
  constructor(message = 'the language server connection closed') {
    super(message);
    this.name = 'ConnectionClosed';
  }
}

export class RequestTimedOut extends Error {
  constructor(method: string, ms: number) {
    super(`${method}: no answer within ${ms} ms`);
    this.name = 'RequestTimedOut';
  }
}

export class ResponseFailed extends Error {
  constructor(
    method: string,
    readonly code: number,
    message: string,
  ) {
    super(`${method}: ${message} (code ${code})`);
    this.name = 'ResponseFailed';
  }
}

interface Pending {
  method: string;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export interface ConnectionHandlers {
  notification(method: string, params: unknown): void;
  /** The server asks something; the value (or promise) is the result. Unknown methods: throw. */
  request(method: string, params: unknown): unknown;
}

export class LspConnection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private closed = false;
  private readonly decoder: FrameDecoder;

  constructor(
    input: Readable,
    private readonly output: Writable,
    private readonly handlers: ConnectionHandlers,
    private readonly log: (line: string) => void = () => undefined,
  ) {
    this.decoder = new FrameDecoder(
      (message) => this.receive(message),
      (problem) => this.log(`bad frame from the server: ${problem.message}`),
    );
    input.on('data', (chunk: Buffer) => this.decoder.push(chunk));
    input.on('close', () => this.close());
    input.on('error', () => this.close());
    output.on('error', () => this.close());
  }

  get isClosed(): boolean {
    return this.closed;
  }

  request<T>(method: string, params: unknown, timeoutMs = 30_000): Promise<T> {
    if (this.closed) return Promise.reject(new ConnectionClosed());
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        // Tell the server to stop working on it; its late answer is dropped.
        this.notify('$/cancelRequest', { id });
        reject(new RequestTimedOut(method, timeoutMs));
      }, timeoutMs);
      this.pending.set(id, { method, resolve: resolve as (value: unknown) => void, reject, timer });
      this.write({ jsonrpc: '2.0', id, method, params });
    });
  }

  notify(method: string, params: unknown): void {
    if (!this.closed) this.write({ jsonrpc: '2.0', method, params });
  }

  private write(message: unknown): void {
    try {
      this.output.write(encodeFrame(message));
    } catch {
      this.close();
    }
  }

  private receive(raw: unknown): void {
    if (typeof raw !== 'object' || raw === null) return;
    const message = raw as { id?: number | string; method?: string; params?: unknown; result?: unknown; error?: { code: number; message: string } };
    if (typeof message.method === 'string') {
      if (message.id === undefined) {
        try {
          this.handlers.notification(message.method, message.params);
        } catch (error) {
          this.log(`handling ${message.method} failed: ${(error as Error).message}`);
        }
        return;
      }
      void this.answer(message.id, message.method, message.params);
      return;
    }
    if (typeof message.id !== 'number') return;
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    clearTimeout(pending.timer);
    if (message.error) pending.reject(new ResponseFailed(pending.method, message.error.code, message.error.message));
    else pending.resolve(message.result ?? null);
  }

  private async answer(id: number | string, method: string, params: unknown): Promise<void> {
    try {
      const result = await this.handlers.request(method, params);
      this.write({ jsonrpc: '2.0', id, result: result ?? null });
    } catch (error) {
      this.write({ jsonrpc: '2.0', id, error: { code: -32601, message: (error as Error).message } });
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const pending of this.pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(new ConnectionClosed());
    }
    this.pending.clear();
  }
}
