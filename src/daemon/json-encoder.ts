// The daemon's JSON-RPC message encoder: JSON.stringify, except that a value that writes its own
// JSON text (`RawJson`: a grep answer of 50,000 lines kept as the workers' bytes) writes it into
// the message's bytes itself, so that no object per line is made to be serialized, and the
// message is one buffer, written once (a fresh buffer of megabytes costs more in page faults
// than in copying). Outside this encoder (a trace log, a test's JSON.stringify), a RawJson reads
// as its plain value.
import { randomBytes } from 'node:crypto';
import type { Message } from 'vscode-jsonrpc';
import type { ContentTypeEncoder, MessageWriterOptions } from 'vscode-jsonrpc/node';

/** A growing byte buffer for JSON text. */
export class JsonBytes {
  buffer: Buffer;
  at = 0;

  constructor(capacity: number) {
    this.buffer = Buffer.allocUnsafe(Math.max(capacity, 64));
  }

  reserve(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.at + bytes));
    this.buffer.copy(grown, 0, 0, this.at);
    this.buffer = grown;
  }

  bytes(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    // A few bytes (a key, a path) are copied faster by a loop than by a call into set().
    if (bytes.length <= 64) {
      const { buffer } = this;
      let at = this.at;
      for (let index = 0; index < bytes.length; index++) buffer[at++] = bytes[index]!;
      this.at = at;
    } else {
      this.buffer.set(bytes, this.at);
      this.at += bytes.length;
    }
  }

  byte(byte: number): void {
    this.reserve(1);
    this.buffer[this.at++] = byte;
  }

  /** A string's UTF-8 bytes. */
  text(text: string): void {
    this.reserve(text.length * 3);
    this.at += this.buffer.write(text, this.at, 'utf8');
  }

  /** A non-negative integer's digits. */
  integer(value: number): void {
    this.reserve(16);
    if (value < 10) {
      this.buffer[this.at++] = 48 + value;
      return;
    }
    const digits = value < 100 ? 2 : value < 1_000 ? 3 : value < 10_000 ? 4 : value < 100_000 ? 5 : value < 1_000_000 ? 6 : String(value).length;
    let rest = value;
    for (let index = this.at + digits - 1; index >= this.at; index--) {
      this.buffer[index] = 48 + (rest % 10);
      rest = Math.floor(rest / 10);
    }
    this.at += digits;
  }

  /** The bytes written. */
  get written(): Buffer {
    return this.buffer.subarray(0, this.at);
  }
}

/** The values being spliced by the encode running now (JSON.stringify is synchronous). */
let collecting: RawJson[] | undefined;

/** A placeholder no text can hold by chance: random per process. */
const marker = `fathom-raw-json-${randomBytes(16).toString('hex')}-`;

export abstract class RawJson {
  /** About how many bytes `writeJson` writes (the message's buffer is sized from it). */
  abstract estimate(): number;
  /** Writes the value's JSON text (UTF-8). */
  abstract writeJson(out: JsonBytes): void;
  /** The value as plain data (what the JSON text encodes). */
  abstract toValue(): unknown;

  toJSON(): unknown {
    if (!collecting) return this.toValue();
    collecting.push(this);
    return `${marker}${collecting.length - 1}`;
  }
}

/** `message` as JSON text in UTF-8, RawJson values written by themselves. */
export function encodeMessage(message: unknown): Buffer {
  const raws: RawJson[] = [];
  const outer = collecting;
  collecting = raws;
  let text: string;
  try {
    text = JSON.stringify(message);
  } finally {
    collecting = outer;
  }
  if (raws.length === 0) return Buffer.from(text, 'utf8');
  const out = new JsonBytes(raws.reduce((sum, raw) => sum + raw.estimate(), text.length + 64));
  let at = 0;
  raws.forEach((raw, index) => {
    const placeholder = `"${marker}${index}"`;
    const found = text.indexOf(placeholder, at);
    if (found < 0) throw new Error('a raw JSON value lost its place');
    out.text(text.slice(at, found));
    raw.writeJson(out);
    at = found + placeholder.length;
  });
  out.text(text.slice(at));
  return out.written;
}

/** Always UTF-8 (the writers below are made with that charset). */
const encoder: ContentTypeEncoder = {
  name: 'application/json',
  encode(message: Message): Promise<Uint8Array> {
    try {
      return Promise.resolve(encodeMessage(message));
    } catch (error) {
      return Promise.reject(error as Error);
    }
  },
};

/** Options for the daemon's message writers (stdio, socket, in-process). */
export const writerOptions: MessageWriterOptions = { charset: 'utf-8', contentTypeEncoder: encoder };
