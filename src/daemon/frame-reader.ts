// The daemon's reader of one client's frames (stdio, a socket, the CLI's in-process pipe) for
// vscode-jsonrpc, in place of its StreamMessageReader: base/framing.ts in strict mode, with the
// daemon's limits. vscode-jsonrpc's own reader holds a frame of any announced size until it is
// whole and rescans an unfinished header from its start on every chunk, so one client could take
// the daemon's memory or stall every other client. Called by server.ts; what a problem means for
// the connection (an answer, closing it) is message-guard.ts's to decide, from the FrameError.
import type { Readable } from 'node:stream';
import { AbstractMessageReader, type DataCallback, type Disposable, type Message } from 'vscode-jsonrpc/node';
import { FrameDecoder, type FrameProblem } from '../base/framing.js';

/** A frame the reader could not pass on; `problem.kind` says whether the stream is still in step. */
export class FrameError extends Error {
  constructor(readonly problem: FrameProblem) {
    super(problem.message);
    this.name = 'FrameError';
  }
}

export class FrameReader extends AbstractMessageReader {
  private listening: Disposable | undefined;
  private decoder: FrameDecoder | undefined;

  constructor(
    private readonly input: Readable,
    private readonly limits: { maxFrameBytes: number },
  ) {
    super();
  }

  /** Bytes of this client's frames held now (a header, a body so far): 0 once its stream closed. For tests and status. */
  get heldBytes(): number {
    return this.decoder?.heldBytes ?? 0;
  }

  listen(callback: DataCallback): Disposable {
    const decoder = (this.decoder = new FrameDecoder(
      (message) => callback(message as Message),
      (problem) => this.fireError(new FrameError(problem)),
      { strayBytes: 'fatal', maxBodyBytes: this.limits.maxFrameBytes },
    ));
    let ended = false;
    const onData = (chunk: Buffer): void => decoder.push(chunk);
    const onEnd = (): void => {
      // The client is gone: whatever it had half sent is dropped now, not when this object is.
      decoder.dispose();
      if (ended) return;
      ended = true;
      this.fireClose();
    };
    const onError = (error: Error): void => this.fireError(error);
    this.input.on('data', onData);
    this.input.on('end', onEnd);
    this.input.on('close', onEnd);
    this.input.on('error', onError);
    this.listening = {
      dispose: () => {
        this.input.off('data', onData);
        this.input.off('end', onEnd);
        this.input.off('close', onEnd);
        this.input.off('error', onError);
        decoder.dispose();
      },
    };
    return this.listening;
  }

  override dispose(): void {
    super.dispose();
    this.listening?.dispose();
  }
}
