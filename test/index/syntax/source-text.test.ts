// SourceText's offsets: for texts in ASCII, with 2-, 3- and 4-byte characters, a byte-order mark,
// and invalid UTF-8, every code unit's byte offset and every byte offset's code unit equal what a
// brute-force walk over the decoded characters gives.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SourceText } from '../../../src/index/syntax/source-text.js';

interface Row {
  name: string;
  bytes: Buffer;
  text: string;
}

const utf8 = (name: string, text: string): Row => ({ name, bytes: Buffer.from(text, 'utf8'), text });

const rows: Row[] = [
  utf8('ASCII', 'int main(void) { return 0; }\n'),
  utf8('empty', ''),
  utf8('two-byte characters', 'café = "naïve";\n'),
  utf8('three-byte characters at both ends', '€ x = "日本語" €'),
  utf8('a surrogate pair between ASCII', 'a😀b'),
  utf8('surrogate pairs side by side and at the end', '😀😀 x 𝄞'),
  utf8('a byte-order mark first', '\ufeffconst a = 1;\n'),
  utf8('a long mixed text', `${'x'.repeat(500)}é${'y'.repeat(300)}😀${'z'.repeat(200)}中\n`.repeat(3)),
  // Each byte of an invalid sequence is one U+FFFD.
  {
    name: 'invalid UTF-8: a lone continuation byte and a cut sequence',
    bytes: Buffer.from([0x61, 0x80, 0x62, 0xe2, 0x82, 0x63, 0xc3, 0xa9]),
    text: 'a\ufffdb\ufffd\ufffdcé',
  },
];

/** Byte offset of each code unit, walking characters: a surrogate pair's second unit starts after its 4 bytes. */
function expectedOffsets(row: Row): number[] {
  const offsets: number[] = [];
  if (row.bytes.length !== Buffer.byteLength(row.text, 'utf8')) {
    // Invalid input: each unit is one character of known byte length (U+FFFD stands for 1 byte).
    let byte = 0;
    for (const character of row.text) {
      offsets.push(byte);
      byte += character === '\ufffd' ? 1 : Buffer.byteLength(character, 'utf8');
    }
    offsets.push(byte);
    return offsets;
  }
  let byte = 0;
  for (const character of row.text) {
    offsets.push(byte);
    byte += Buffer.byteLength(character, 'utf8');
    if (character.length === 2) offsets.push(byte);
  }
  offsets.push(byte);
  return offsets;
}

describe('SourceText offsets', () => {
  for (const row of rows) {
    test(row.name, () => {
      const source = new SourceText(row.bytes);
      assert.equal(source.text, row.text);
      const offsets = expectedOffsets(row);
      assert.equal(offsets.length, source.length + 1);
      assert.deepEqual(
        Array.from({ length: source.length + 1 }, (_, unit) => source.byteOffset(unit)),
        offsets,
      );
      for (let byte = 0; byte <= row.bytes.length; byte++) {
        const first = offsets.findIndex((offset) => offset >= byte);
        assert.equal(source.unitAt(byte), first, `unitAt(${byte})`);
      }
      assert.equal(source.byteLength(0, source.length), row.bytes.length);
    });
  }
});
