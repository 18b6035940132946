// The daemon's JSON-RPC message encoder: JSON.stringify, except that a value that writes its own
// JSON text (`RawJson`: a grep answer of 50,000 lines kept as the workers' bytes) is spliced in
// as those bytes, so that no object per line is made to be serialized. Outside this encoder (a
// trace log, a test's JSON.stringify), a RawJson reads as its plain value.
import { randomBytes } from 'node:crypto';
import type { Message } from 'vscode-jsonrpc';
import type { ContentTypeEncoder, MessageWriterOptions } from 'vscode-jsonrpc/node';

/** The values being spliced by the encode running now (JSON.stringify is synchronous). */
let collecting: RawJson[] | undefined;

/** A placeholder no text can hold by chance: random per process. */
const marker = `fathom-raw-json-${randomBytes(16).toString('hex')}-`;

export abstract class RawJson {
  /** The value's JSON text, UTF-8. */
  abstract writeJson(): Buffer;
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
  const parts: Buffer[] = [];
  let at = 0;
  raws.forEach((raw, index) => {
    const placeholder = `"${marker}${index}"`;
    const found = text.indexOf(placeholder, at);
    if (found < 0) throw new Error('a raw JSON value lost its place');
    parts.push(Buffer.from(text.slice(at, found), 'utf8'), raw.writeJson());
    at = found + placeholder.length;
  });
  parts.push(Buffer.from(text.slice(at), 'utf8'));
  return Buffer.concat(parts);
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
