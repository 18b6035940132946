// Rows read with `COPY (query) TO STDOUT (FORMAT binary)`: each field's bytes as the server sends
// them (a bytea's own bytes, an integer big-endian), no text in between. A join's vectors come
// this way: as an ordinary query's rows they travel as hex text that `pg` decodes to a string and
// then to bytes, which on the kernel cost the joining daemon's thread ~5 s of its 25 and the
// server as much again (bench/RESULTS.md). The copy is a `pg` submittable (its documented hook
// for custom queries): `pg` parses the protocol and hands each CopyData message here, and each
// row goes to the caller as views of that message, valid only during the call (the caller copies
// what it keeps; `pg` reuses its read buffer). pg-copy-streams was tried first: its stream copies
// every message into a zeroed buffer, and the parts it yields are not rows, so they had to be
// joined again; on the kernel the two copies cost 5 s. The format is PostgreSQL's (the COPY
// page, "Binary Format"): a signature, flags and a header extension, then per row a 16-bit field
// count and per field a 32-bit length (-1: NULL) and the bytes, then a count of -1.
import type pg from 'pg';
import { FathomError } from '../base/errors.js';

/** A row: each field's bytes, null for NULL. */
export type CopyRow = Array<Buffer | null>;

const signature = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/**
 * Runs `COPY (select) TO STDOUT (FORMAT binary)` on the connection, calling `onRow` with each
 * row as it arrives (views valid during the call only); settles when the copy has ended.
 */
export function copyRows(client: pg.Client, select: string, onRow: (row: CopyRow) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const copy = new CopyOut(`COPY (${select}) TO STDOUT (FORMAT binary)`, onRow, resolve, reject);
    // The submittable's own errors come through handleError; nothing to await here.
    void client.query(copy as unknown as pg.Submittable);
  });
}

/**
 * The submittable: `pg` calls `submit` when the connection is free, then a handler for each
 * message of the copy's answer. `callback` is `pg`'s query timer's (query_timeout): called when
 * the copy ends, else the timer outlives it, keeping a CLI alive for the whole timeout (as
 * pg-copy-streams issue 156 describes of its stream).
 */
class CopyOut {
  callback?: (error?: Error) => void;
  private readonly reader: CopyReader;
  private failure: Error | undefined;
  private settled = false;

  constructor(
    readonly text: string,
    onRow: (row: CopyRow) => void,
    private readonly resolve: () => void,
    private readonly reject: (error: Error) => void,
  ) {
    this.reader = new CopyReader(onRow);
  }

  submit(connection: { query(text: string): void }): void {
    connection.query(this.text);
  }

  handleCopyData(message: { chunk: Buffer }): void {
    // After a failure, or a timeout (pg's timer settles the copy while the server goes on sending): nothing more is read.
    if (this.failure || this.settled) return;
    try {
      this.reader.add(message.chunk);
    } catch (error) {
      // The rest of the copy still arrives; the answer is this error, given once it has.
      this.failure = error instanceof Error ? error : new Error(String(error));
    }
  }

  handleCommandComplete(): void {}

  handleEmptyQuery(): void {}

  handleError(error: Error): void {
    this.settle(error);
  }

  handleReadyForQuery(): void {
    if (this.failure) return this.settle(this.failure);
    try {
      this.reader.finish();
    } catch (error) {
      return this.settle(error instanceof Error ? error : new Error(String(error)));
    }
    this.settle(undefined);
  }

  private settle(error: Error | undefined): void {
    if (this.settled) return;
    this.settled = true;
    this.callback?.(error);
    if (error) this.reject(error);
    else this.resolve();
  }
}

/**
 * Reads a binary COPY's output as it arrives, part by part (the server sends a row a message):
 * each whole row goes to `onRow` as views of the part it came in; only a row cut by a part's end
 * is copied, to be joined with the next part.
 */
export class CopyReader {
  constructor(private readonly onRow: (row: CopyRow) => void) {}

  /** The bytes of a row (or of the header) that the last part cut short. */
  private pending: Buffer | undefined;
  /** Bytes read before `pending`'s first (for messages). */
  private offset = 0;
  private headerRead = false;
  private trailerRead = false;

  add(part: Buffer): void {
    const data = this.pending ? Buffer.concat([this.pending, part]) : part;
    const used = this.parse(data, false);
    // Copied: the part's memory is the caller's to reuse once this returns.
    this.pending = used < data.length ? Buffer.from(data.subarray(used)) : undefined;
    this.offset += used;
  }

  /** Once the output has ended: an output cut short or malformed is an error. */
  finish(): void {
    if (this.pending) this.parse(this.pending, true);
    else if (!this.headerRead) this.parse(Buffer.alloc(0), true);
    if (!this.trailerRead) throw this.malformed(0, 'it ends without the trailer');
  }

  /** Takes what is whole of `data` (all of it, or an error, when `final`); answers how many bytes it used. */
  private parse(data: Buffer, final: boolean): number {
    let at = 0;
    if (!this.headerRead) {
      if (data.length < signature.length + 8) {
        if (final || (data.length >= signature.length && !data.subarray(0, signature.length).equals(signature))) throw this.malformed(0, 'no PGCOPY signature');
        return 0;
      }
      if (!data.subarray(0, signature.length).equals(signature)) throw this.malformed(0, 'no PGCOPY signature');
      const end = signature.length + 8 + data.readUInt32BE(signature.length + 4);
      if (end > data.length) {
        if (final) throw this.malformed(signature.length + 4, 'a header extension longer than the output');
        return 0;
      }
      this.headerRead = true;
      at = end;
    }
    while (!this.trailerRead) {
      const rowStart = at;
      if (at + 2 > data.length) {
        if (final) throw this.malformed(at, 'it ends without the trailer');
        return rowStart;
      }
      const fields = data.readInt16BE(at);
      at += 2;
      if (fields === -1) {
        this.trailerRead = true;
        break;
      }
      if (fields < 0) throw this.malformed(at - 2, `a row of ${fields} fields`);
      const row: CopyRow = new Array<Buffer | null>(fields);
      let whole = true;
      for (let field = 0; field < fields && whole; field++) {
        if (at + 4 > data.length) {
          if (final) throw this.malformed(at, 'a field without its length');
          whole = false;
          break;
        }
        const length = data.readInt32BE(at);
        at += 4;
        if (length === -1) {
          row[field] = null;
          continue;
        }
        if (length < 0) throw this.malformed(at - 4, `a field of ${length} bytes`);
        if (at + length > data.length) {
          if (final) throw this.malformed(at - 4, `a field of ${length} bytes`);
          whole = false;
          break;
        }
        row[field] = data.subarray(at, at + length);
        at += length;
      }
      if (!whole) return rowStart;
      this.onRow(row);
    }
    return at;
  }

  private malformed(at: number, what: string): FathomError {
    return new FathomError('teamStore', `the store's binary COPY output is malformed at byte ${this.offset + at}: ${what}`);
  }
}
