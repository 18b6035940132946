// Content-Length framing, as LSP, the daemon's JSON-RPC and the Debug Adapter Protocol put JSON
// messages on a byte stream: `Content-Length: N\r\n` (other headers allowed), a blank line, then N
// bytes of UTF-8 JSON. Owns decoding a stream into message bodies: a message split across chunks,
// several in one chunk, text before a frame (a banner, where the peer is a process that may print
// one), and the limits that keep a hostile or broken peer from costing more than a frame's worth
// of memory or time. Used by the daemon's transports (daemon/frame-reader.ts), the CLI's client (cli/rpc-client.ts), `fathom attach`,
// and the language-server and debug-adapter clients; the protocols on top see whole JSON values.
//
// Invariants: every byte is looked at a bounded number of times (a header is scanned only where
// new bytes arrived, never past maxHeaderBytes); at most one body of at most maxBodyBytes is held,
// as the chunks it arrived in, joined once when it is whole; a larger body is never held.

export function encodeFrame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]);
}

export interface FrameDecoderOptions {
  /** A larger body is refused (tooLarge) and its bytes are dropped as they arrive. Default 256 MiB. */
  maxBodyBytes?: number;
  /** A header that has not ended (blank line) within this many bytes is broken. Default 8 KiB. */
  maxHeaderBytes?: number;
  /**
   * Bytes where a header should start that are not one. 'skip': a banner (a language server or
   * debug adapter printing its own lines on stdout), skipped up to the next `Content-Length:`, and
   * a bad header is skipped too. 'fatal' (a client of the daemon, which must frame every byte): a
   * header that cannot be read breaks the stream and the decoder stops.
   */
  strayBytes?: 'skip' | 'fatal';
}

export type FrameProblem =
  /** The body is not JSON (or not UTF-8 that parses): reported, the stream stays in step. */
  | { kind: 'notJson'; message: string }
  /**
   * A body over maxBodyBytes: reported once its first `head` bytes (up to 1 KiB: enough to find a
   * request's id) have arrived, or it ended; its bytes are dropped and the stream stays in step.
   */
  | { kind: 'tooLarge'; message: string; length: number; limit: number; head: Buffer }
  /** A header that cannot be read. fatal: the decoder stopped ('fatal' mode); else it was skipped. */
  | { kind: 'badHeader'; message: string; fatal: boolean };

const headerEnd = Buffer.from('\r\n\r\n', 'ascii');
const headerStart = Buffer.from('Content-Length:', 'ascii');
const headBytes = 1_024;
/** A header line: a name (an HTTP token) and a colon. */
const headerLine = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+:/;

export const defaultMaxHeaderBytes = 8 * 1024;
export const defaultMaxBodyBytes = 256 * 1024 * 1024;

export class FrameDecoder {
  /** Bytes not yet part of a frame's body: a header being read (or, with 'skip', a banner). */
  private pending: Buffer = Buffer.alloc(0);
  /** The buffer pending was copied into, with room to grow (appending a chunk copies only the chunk). */
  private room: Buffer | undefined;
  /** How far pending is known to hold no header end (the next scan starts 3 bytes before). */
  private scanned = 0;
  /** 'skip' mode: pending begins with `Content-Length:` (else it is banner text being looked through). */
  private inHeader: boolean;
  /** The body being read: its chunks, as they came. */
  private body: { length: number; received: number; chunks: Buffer[] } | undefined;
  /** The body being dropped (too large): what is left of it, and its first bytes until reported. */
  private dropped: { length: number; left: number; head: Buffer[]; headLength: number; reported: boolean } | undefined;
  private stopped = false;
  private readonly maxBodyBytes: number;
  private readonly maxHeaderBytes: number;
  private readonly strayBytes: 'skip' | 'fatal';
  /** Bytes of text seen before the first frame (a banner), for logs. */
  skipped = '';

  constructor(
    private readonly onMessage: (message: unknown) => void,
    private readonly onProblem: (problem: FrameProblem) => void = () => undefined,
    options: FrameDecoderOptions = {},
  ) {
    this.maxBodyBytes = options.maxBodyBytes ?? defaultMaxBodyBytes;
    this.maxHeaderBytes = options.maxHeaderBytes ?? defaultMaxHeaderBytes;
    this.strayBytes = options.strayBytes ?? 'skip';
    this.inHeader = this.strayBytes === 'fatal';
  }

  /** Whether a fatal problem stopped the decoder (or dispose did): later bytes are ignored. */
  get isStopped(): boolean {
    return this.stopped;
  }

  /** Bytes held now (a header, a body so far): for tests and status. */
  get heldBytes(): number {
    return this.pending.length + (this.body?.received ?? 0) + (this.dropped?.headLength ?? 0);
  }

  /** Reads a chunk. The decoder may keep views of it (a body's part): a chunk is never reused by its sender (as a stream's are not). */
  push(chunk: Buffer): void {
    let rest = chunk;
    while (rest.length > 0 && !this.stopped) {
      if (this.body) rest = this.readBody(rest);
      else if (this.dropped) rest = this.dropBody(rest);
      else rest = this.readHeader(rest);
    }
  }

  /** Drops everything held and ignores later bytes (the stream closed, or its owner gave up on it). */
  dispose(): void {
    this.stopped = true;
    this.pending = Buffer.alloc(0);
    this.room = undefined;
    this.body = undefined;
    this.dropped = undefined;
  }

  /** Adds bytes to the header being read; answers the bytes after it once it is whole, else none. */
  private readHeader(bytes: Buffer): Buffer {
    this.append(bytes);
    for (;;) {
      if (!this.inHeader && !this.findHeaderStart()) return Buffer.alloc(0);
      // Only the new bytes (and the 3 before them) can complete a header end; none past the limit.
      const limit = Math.min(this.pending.length, this.maxHeaderBytes + headerEnd.length);
      const end = this.pending.subarray(0, limit).indexOf(headerEnd, Math.max(0, this.scanned - (headerEnd.length - 1)));
      if (end < 0) {
        if (limit < this.maxHeaderBytes + headerEnd.length) {
          this.scanned = this.pending.length;
          return Buffer.alloc(0);
        }
        if (!this.badHeader(`a header longer than ${this.maxHeaderBytes} bytes (no blank line ends it)`, headerStart.length)) return Buffer.alloc(0);
        continue;
      }
      const header = this.pending.subarray(0, end).toString('latin1');
      const after = this.pending.subarray(end + headerEnd.length);
      const length = this.contentLength(header);
      if (length === undefined) {
        if (!this.badHeader(this.headerProblem(header), end + headerEnd.length)) return Buffer.alloc(0);
        continue;
      }
      // `after` may lie in `room`: it is never written again.
      this.pending = Buffer.alloc(0);
      this.room = undefined;
      this.scanned = 0;
      this.inHeader = this.strayBytes === 'fatal';
      if (length > this.maxBodyBytes) this.dropped = { length, left: length, head: [], headLength: 0, reported: false };
      else this.body = { length, received: 0, chunks: [] };
      // A body of 0 bytes is whole already.
      if (length === 0) this.readBody(Buffer.alloc(0));
      return after;
    }
  }

  /** pending + bytes, copying only bytes (amortised): a header sent a byte at a time costs linear time. */
  private append(bytes: Buffer): void {
    if (this.pending.length === 0) {
      this.pending = bytes;
      return;
    }
    const length = this.pending.length + bytes.length;
    const room = this.room;
    if (room && this.pending.buffer === room.buffer && this.pending.byteOffset === room.byteOffset && length <= room.length) {
      bytes.copy(room, this.pending.length);
      this.pending = room.subarray(0, length);
      return;
    }
    const grown = Buffer.allocUnsafeSlow(Math.max(length, 2 * this.pending.length, 256));
    this.pending.copy(grown, 0);
    bytes.copy(grown, this.pending.length);
    this.room = grown;
    this.pending = grown.subarray(0, length);
  }

  /** 'skip' mode: drops banner text up to the next `Content-Length:`; answers whether one was found. */
  private findHeaderStart(): boolean {
    const start = this.pending.indexOf(headerStart, Math.max(0, this.scanned - (headerStart.length - 1)));
    if (start < 0) {
      // Keep a tail that may be the start of a header split across chunks.
      const keep = Math.min(this.pending.length, headerStart.length - 1);
      this.skip(this.pending.subarray(0, this.pending.length - keep));
      this.pending = Buffer.from(this.pending.subarray(this.pending.length - keep));
      this.scanned = this.pending.length;
      return false;
    }
    this.skip(this.pending.subarray(0, start));
    this.pending = this.pending.subarray(start);
    this.scanned = 0;
    this.inHeader = true;
    return true;
  }

  /**
   * Reports a header that cannot be read. 'fatal': stops, answers false. 'skip': drops its first
   * `skipBytes` bytes and looks for the next header start in the rest, answers true.
   */
  private badHeader(message: string, skipBytes: number): boolean {
    const fatal = this.strayBytes === 'fatal';
    this.onProblem({ kind: 'badHeader', message, fatal });
    if (fatal) {
      this.dispose();
      return false;
    }
    this.pending = this.pending.subarray(skipBytes);
    this.scanned = 0;
    this.inHeader = false;
    return true;
  }

  /** The body's length, or undefined when the header does not give one that can be read. */
  private contentLength(header: string): number | undefined {
    if (this.strayBytes === 'skip') {
      const value = /Content-Length:[ \t]*(\d+)[ \t]*(?:\r\n|$)/i.exec(header)?.[1];
      const length = Number(value);
      return value !== undefined && Number.isSafeInteger(length) ? length : undefined;
    }
    let found: number | undefined;
    for (const line of header.split('\r\n')) {
      if (!headerLine.test(line)) return undefined;
      const colon = line.indexOf(':');
      if (line.slice(0, colon).trim().toLowerCase() !== 'content-length') continue;
      const value = line.slice(colon + 1).trim();
      const length = Number(value);
      if (!/^\d+$/.test(value) || !Number.isSafeInteger(length)) return undefined;
      found = length;
    }
    return found;
  }

  private headerProblem(header: string): string {
    const shown = JSON.stringify(header.length > 100 ? `${header.slice(0, 100)}…` : header);
    const lines = header.split('\r\n');
    if (this.strayBytes === 'fatal' && lines.some((line) => !headerLine.test(line)))
      return `a header line that is not 'Name: value' (every frame starts with a Content-Length header): ${shown}`;
    if (!/content-length\s*:/i.test(header)) return `a header without Content-Length: ${shown}`;
    return `a bad Content-Length header: ${shown}`;
  }

  private readBody(bytes: Buffer): Buffer {
    const body = this.body!;
    const take = Math.min(bytes.length, body.length - body.received);
    if (take > 0) body.chunks.push(bytes.subarray(0, take));
    body.received += take;
    if (body.received < body.length) return bytes.subarray(take);
    this.body = undefined;
    const whole = body.chunks.length === 1 ? body.chunks[0]! : Buffer.concat(body.chunks, body.length);
    const text = whole.toString('utf8');
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.onProblem({ kind: 'notJson', message: `a frame that is not JSON: ${JSON.stringify(text.slice(0, 100))}` });
      return bytes.subarray(take);
    }
    this.onMessage(message);
    return bytes.subarray(take);
  }

  private dropBody(bytes: Buffer): Buffer {
    const dropped = this.dropped!;
    const take = Math.min(bytes.length, dropped.left);
    if (!dropped.reported && dropped.headLength < headBytes) {
      // Copied: the chunk it came in is not kept alive by a slice of it.
      const part = Buffer.from(bytes.subarray(0, Math.min(take, headBytes - dropped.headLength)));
      dropped.head.push(part);
      dropped.headLength += part.length;
    }
    dropped.left -= take;
    if (!dropped.reported && (dropped.headLength >= headBytes || dropped.left === 0)) {
      dropped.reported = true;
      const head = Buffer.concat(dropped.head);
      dropped.head = [];
      dropped.headLength = 0;
      this.onProblem({
        kind: 'tooLarge',
        message: `a frame of ${dropped.length} bytes, over the limit of ${this.maxBodyBytes}`,
        length: dropped.length,
        limit: this.maxBodyBytes,
        head,
      });
    }
    if (dropped.left === 0) this.dropped = undefined;
    return bytes.subarray(take);
  }

  private skip(bytes: Buffer): void {
    if (bytes.length === 0) return;
    if (this.skipped.length < 4_096) this.skipped += bytes.toString('utf8').slice(0, 4_096 - this.skipped.length);
  }
}
