// A Debug Adapter Protocol client over an adapter's stdio, on the same Content-Length framing as
// the language-server client (base/framing.ts: split and merged frames, banners). DAP is not
// JSON-RPC: every message has a `seq` and a `type`; a response names the request it answers by
// `request_seq` and says `success` (or carries `message`); events are a third kind; the adapter
// may also send requests of its own (reverse requests such as runInTerminal), which are answered
// as unsupported. When the process's streams end, every pending request fails.
import type { Readable, Writable } from 'node:stream';
import { encodeFrame, FrameDecoder } from '../base/framing.js';

export class DapClosed extends Error {
  constructor(message = 'the debug adapter connection closed') {
    super(message);
    this.name = 'DapClosed';
  }
}

export class DapTimedOut extends Error {
  constructor(command: string, ms: number) {
    super(`${command}: the debug adapter did not answer within ${ms} ms`);
    this.name = 'DapTimedOut';
  }
}

export class DapFailed extends Error {
  constructor(
    readonly command: string,
    message: string,
  ) {
    super(`${command}: ${message}`);
    this.name = 'DapFailed';
  }
}

export interface DapEvent {
  event: string;
  body?: Record<string, unknown>;
}

interface Pending {
  command: string;
  resolve: (body: Record<string, unknown>) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export class DapConnection {
  private seq = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Set<(event: DapEvent) => void>();
  private readonly closeListeners = new Set<() => void>();
  private closed = false;

  constructor(
    input: Readable,
    private readonly output: Writable,
    private readonly log: (line: string) => void = () => undefined,
  ) {
    const decoder = new FrameDecoder(
      (message) => this.receive(message),
      (problem) => this.log(`bad frame from the debug adapter: ${problem.message}`),
    );
    input.on('data', (chunk: Buffer) => decoder.push(chunk));
    input.on('close', () => this.close());
    input.on('error', () => this.close());
    output.on('error', () => this.close());
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Sends a request; resolves with the response's body, rejects with DapFailed (success false), DapTimedOut or DapClosed. */
  request(command: string, args?: unknown, timeoutMs = 15_000): Promise<Record<string, unknown>> {
    if (this.closed) return Promise.reject(new DapClosed());
    const seq = this.seq++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(seq);
        reject(new DapTimedOut(command, timeoutMs));
      }, timeoutMs);
      this.pending.set(seq, { command, resolve, reject, timer });
      this.write({ seq, type: 'request', command, ...(args === undefined ? {} : { arguments: args }) });
    });
  }

  onEvent(listener: (event: DapEvent) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  onClose(listener: () => void): void {
    this.closeListeners.add(listener);
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
    const message = raw as {
      seq?: number;
      type?: string;
      request_seq?: number;
      success?: boolean;
      command?: string;
      message?: string;
      body?: Record<string, unknown>;
      event?: string;
      arguments?: unknown;
    };
    if (message.type === 'response' && typeof message.request_seq === 'number') {
      const pending = this.pending.get(message.request_seq);
      if (!pending) return;
      this.pending.delete(message.request_seq);
      clearTimeout(pending.timer);
      if (message.success) pending.resolve(message.body ?? {});
      else
        pending.reject(
          new DapFailed(pending.command, String((message.body as { error?: { format?: string } } | undefined)?.error?.format ?? message.message ?? 'failed')),
        );
      return;
    }
    if (message.type === 'event' && typeof message.event === 'string') {
      for (const listener of this.listeners) {
        try {
          listener({ event: message.event, ...(message.body ? { body: message.body } : {}) });
        } catch (error) {
          this.log(`handling the ${message.event} event failed: ${(error as Error).message}`);
        }
      }
      return;
    }
    if (message.type === 'request' && typeof message.seq === 'number') {
      // Reverse requests (runInTerminal, startDebugging): Fathom runs the debuggee itself.
      this.write({
        seq: this.seq++,
        type: 'response',
        request_seq: message.seq,
        command: message.command,
        success: false,
        message: `${message.command ?? 'request'} is not supported by Fathom`,
      });
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const pending of this.pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(new DapClosed());
    }
    this.pending.clear();
    for (const listener of this.closeListeners) listener();
  }
}
