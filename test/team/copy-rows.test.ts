// PostgreSQL's binary COPY format as copy-rows.ts reads it (a real server's output is read by
// team-store.test.ts's join rows): fields as bytes, NULL as null, and every way the bytes can be
// cut short or wrong is an error naming where, never a row made up.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseCopy } from '../../src/team/copy-rows.js';

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
