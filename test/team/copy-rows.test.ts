// PostgreSQL's binary COPY format as copy-rows.ts reads it (a real server's output is read by
// team-store.test.ts's join rows): fields as bytes, NULL as null, the same rows however the output
// is cut into parts, and every way the bytes can be cut short or wrong is an error naming where,
// never a row made up. The submittable around it is run against a real server by team-store.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CopyReader, type CopyRow } from '../../src/team/copy-rows.js';

/** The rows of a binary COPY's whole output, read as one part. */
function parseCopy(data: Buffer): CopyRow[] {
  const rows: CopyRow[] = [];
  const reader = new CopyReader((row) => rows.push(row));
  reader.add(data);
  reader.finish();
  return rows;
}

const signature = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const int16 = (value: number): Buffer => Buffer.from([(value >> 8) & 0xff, value & 0xff]);
const int32 = (value: number): Buffer => {
  const bytes = Buffer.alloc(4);
  bytes.writeInt32BE(value);
  return bytes;
};
const header = (extension = Buffer.alloc(0)): Buffer => Buffer.concat([signature, int32(0), int32(extension.length), extension]);
const row = (...fields: Array<Buffer | null>): Buffer =>
  Buffer.concat([int16(fields.length), ...fields.flatMap((field) => (field ? [int32(field.length), field] : [int32(-1)]))]);
const trailer = int16(-1);

describe('binary COPY rows', () => {
  test('fields as bytes, NULL as null, a header extension skipped, no rows', () => {
    const data = Buffer.concat([header(Buffer.from('ext')), row(Buffer.from('ab'), null, Buffer.alloc(0)), row(int32(7)), trailer]);
    const rows = parseCopy(data);
    assert.deepEqual(
      rows.map((fields) => fields.map((field) => (field ? [...field] : null))),
      [[[0x61, 0x62], null, []], [[0, 0, 0, 7]]],
    );
    assert.deepEqual(parseCopy(Buffer.concat([header(), trailer])), []);
  });

  test('read part by part, cut anywhere (a row, a length, the header), the same rows, though each part is overwritten once read', () => {
    const data = Buffer.concat([header(Buffer.from('ext')), row(Buffer.from('first'), null), row(Buffer.alloc(300, 7), int32(-2)), row(), trailer]);
    const whole = parseCopy(data).map((fields) => fields.map((field) => field && [...field]));
    for (let cut = 0; cut <= data.length; cut++)
      for (const second of [cut, Math.min(data.length, cut + 5)]) {
        // Rows are views valid during the call: taken as copies there, as a caller must.
        const rows: Array<Array<number[] | null>> = [];
        const reader = new CopyReader((fields) => rows.push(fields.map((field) => field && [...field])));
        for (const [from, to] of [
          [0, cut],
          [cut, second],
          [second, data.length],
        ] as const) {
          const part = Buffer.from(data.subarray(from, to));
          reader.add(part);
          part.fill(0xee); // as pg reuses its read buffer
        }
        reader.finish();
        assert.deepEqual(rows, whole, `cut at ${cut} and ${second}`);
      }
  });

  const cases: Array<[string, Buffer, RegExp]> = [
    ['no signature', Buffer.concat([Buffer.from('PGCOPY\n'), int32(0), int32(0), trailer]), /no PGCOPY signature/],
    ['empty', Buffer.alloc(0), /no PGCOPY signature/],
    ['no trailer', Buffer.concat([header(), row(Buffer.from('x'))]), /ends without the trailer/],
    ['a field longer than the data', Buffer.concat([header(), int16(1), int32(100), Buffer.from('short'), trailer]), /a field of 100 bytes/],
    ['a negative length', Buffer.concat([header(), int16(1), int32(-5), trailer]), /a field of -5 bytes/],
    ['a length cut short', Buffer.concat([header(), int16(2), int32(1), Buffer.from('x'), Buffer.from([0, 0])]), /a field without its length/],
    ['a negative field count', Buffer.concat([header(), int16(-3), trailer]), /a row of -3 fields/],
  ];
  for (const [name, data, error] of cases) test(`malformed: ${name}`, () => assert.throws(() => parseCopy(data), error));
});
