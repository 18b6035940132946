// Rows read with `COPY (query) TO STDOUT (FORMAT binary)`: each field's bytes as the server sends
// them (a bytea's own bytes, an integer big-endian), no text in between. A join's vectors come
// this way: as an ordinary query's rows they travel as hex text that `pg` decodes to a string and
// then to bytes, which on the kernel cost the joining daemon's thread ~5 s of its 25 and the
// server as much again (bench/RESULTS.md). The stream is `pg-copy-streams`' (loaded on first use,
// as `pg` is); the format is PostgreSQL's (the COPY page, "Binary Format"): a signature, flags
// and a header extension, then per row a 16-bit field count and per field a 32-bit length (-1:
// NULL) and the bytes, then a count of -1.
import type pg from 'pg';
import type { CopyToStreamQuery } from 'pg-copy-streams';
import { FathomError } from '../base/errors.js';

/** A row: each field's bytes, null for NULL. */
export type CopyRow = Array<Buffer | null>;

/** What `pg` and the stream call when a copy ends (the typings leave them out). */
interface Completion {
  callback?: (error?: Error) => void;
  handleReadyForQuery(): void;
  handleError(error: Error): void;
}

const signature = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/** Runs `COPY (select) TO STDOUT (FORMAT binary)` and answers its rows (views of one buffer). */
export async function copyRows(client: pg.Client, select: string): Promise<CopyRow[]> {
  const { default: copyStreams } = await import('pg-copy-streams');
  const query = copyStreams.to(`COPY (${select}) TO STDOUT (FORMAT binary)`) as CopyToStreamQuery & Completion;
  // `pg` times a query out (the connection's query_timeout) with a timer that only the query's
  // callback clears, and the COPY stream never calls it: the timer outlived the copy, keeping a
  // CLI alive for the whole timeout (pg-copy-streams issue 156). Called when the copy ends.
  const ended = (): void => query.callback?.();
  const readyForQuery = query.handleReadyForQuery.bind(query);
  const handleError = query.handleError.bind(query);
  query.handleReadyForQuery = () => (ended(), readyForQuery());
  query.handleError = (error) => (ended(), handleError(error));
  const stream = client.query(query);
  const parts: Buffer[] = [];
  for await (const part of stream as AsyncIterable<Buffer>) parts.push(part);
  return parseCopy(Buffer.concat(parts));
}

/** The rows of a binary COPY's whole output; a malformed one is an error saying where. */
export function parseCopy(data: Buffer): CopyRow[] {
  const malformed = (at: number, what: string): FathomError =>
    new FathomError('teamStore', `the store's binary COPY output is malformed at byte ${at} of ${data.length}: ${what}`);
  if (data.length < signature.length + 8 || !data.subarray(0, signature.length).equals(signature)) throw malformed(0, 'no PGCOPY signature');
  let at = signature.length + 4;
  at += 4 + data.readUInt32BE(at);
  const rows: CopyRow[] = [];
  for (;;) {
    if (at + 2 > data.length) throw malformed(at, 'it ends without the trailer');
    const fields = data.readInt16BE(at);
    at += 2;
    if (fields === -1) return rows;
    if (fields < 0) throw malformed(at - 2, `a row of ${fields} fields`);
    const row: CopyRow = new Array<Buffer | null>(fields);
    for (let field = 0; field < fields; field++) {
      if (at + 4 > data.length) throw malformed(at, 'a field without its length');
      const length = data.readInt32BE(at);
      at += 4;
      if (length === -1) {
        row[field] = null;
        continue;
      }
      if (length < 0 || at + length > data.length) throw malformed(at - 4, `a field of ${length} bytes`);
      row[field] = data.subarray(at, at + length);
      at += length;
    }
    rows.push(row);
  }
}
