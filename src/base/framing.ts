// Content-Length framing, as LSP and the Debug Adapter Protocol both put JSON messages on a byte
// stream: `Content-Length: N\r\n` (other headers allowed), a blank line, then N bytes of UTF-8
// JSON. Owns decoding a stream into message bodies: a message split across chunks, several in one
// chunk, and text a process prints before its first frame (a banner) are handled here and only
// here; the protocols on top (lsp-connection.ts, later the DAP client) see whole JSON values.

export function encodeFrame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]);
}

const headerEnd = Buffer.from('\r\n\r\n', 'ascii');
const maxHeaderBytes = 8_192;
const maxBodyBytes = 256 * 1024 * 1024;

export class FrameDecoder {
  private buffer: Buffer = Buffer.alloc(0);
  /** Bytes of text seen before the first frame (a banner), for logs. */
  skipped = '';

  constructor(
    private readonly onMessage: (message: unknown) => void,
    /** A frame whose body is not JSON, or a header that makes no sense: reported, then skipped. */
    private readonly onError: (problem: string) => void = () => undefined,
  ) {}

  push(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      // A banner: anything before the first `Content-Length:` header is not ours.
      const start = this.buffer.indexOf('Content-Length:', 0, 'ascii');
      if (start < 0) {
        // Keep a tail that may be the start of a header split across chunks.
        const keep = Math.min(this.buffer.length, 'Content-Length:'.length - 1);
        this.skip(this.buffer.subarray(0, this.buffer.length - keep));
        this.buffer = this.buffer.subarray(this.buffer.length - keep);
        return;
      }
      if (start > 0) {
        this.skip(this.buffer.subarray(0, start));
        this.buffer = this.buffer.subarray(start);
      }
      const end = this.buffer.indexOf(headerEnd);
      if (end < 0) {
        if (this.buffer.length > maxHeaderBytes) {
          this.onError('a header longer than 8 KiB');
          this.buffer = this.buffer.subarray(1);
          continue;
        }
        return;
      }
      const header = this.buffer.subarray(0, end).toString('ascii');
      const length = Number(/Content-Length:\s*(\d+)/i.exec(header)?.[1]);
      if (!Number.isSafeInteger(length) || length > maxBodyBytes) {
        this.onError(`a bad Content-Length header: ${JSON.stringify(header.slice(0, 100))}`);
        this.buffer = this.buffer.subarray(end + headerEnd.length);
        continue;
      }
      const bodyStart = end + headerEnd.length;
      if (this.buffer.length < bodyStart + length) return;
      const body = this.buffer.subarray(bodyStart, bodyStart + length).toString('utf8');
      this.buffer = this.buffer.subarray(bodyStart + length);
      let message: unknown;
      try {
        message = JSON.parse(body);
      } catch {
        this.onError(`a frame that is not JSON: ${JSON.stringify(body.slice(0, 100))}`);
        continue;
      }
      this.onMessage(message);
    }
  }

  private skip(bytes: Buffer): void {
    if (bytes.length === 0) return;
    if (this.skipped.length < 4_096) this.skipped += bytes.toString('utf8').slice(0, 4_096 - this.skipped.length);
  }
}
