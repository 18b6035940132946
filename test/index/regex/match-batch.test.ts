// The batches grep workers send matching lines in (match-batch.ts): each line's bytes are copied,
// the daemon keeps a file's lines as a view into the batch and decodes them in pieces, and every
// line must read exactly as decoding its own bytes would read (invalid UTF-8 at a line's end,
// multi-byte characters, lines longer than a piece, empty lines); a batch's bytes are valid UTF-8
// whatever the files held; lines given as objects keep their context and their place in file order.
// (A buffer whose text holds a lone surrogate, sent as objects, is checked in grep.test.ts.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isUtf8 } from 'node:buffer';
import { BatchLines, MatchBatchWriter, linesOf, readBatch, type MatchBatch } from '../../../src/index/regex/match-batch.js';
import type { LineMatch } from '../../../src/index/regex/matcher.js';

/** A line as bytes: `bytes` in one buffer with other bytes around it, as a content window holds it. */
interface ByteLine {
  label: string;
  bytes: Buffer;
}

const byteLines: ByteLine[] = [
  { label: 'ASCII', bytes: Buffer.from('static inline int f(void)') },
  { label: 'empty', bytes: Buffer.alloc(0) },
  { label: 'multi-byte characters', bytes: Buffer.from('/* Jürgen — ✓ 🚀 */ static inline') },
  { label: 'a three-byte sequence cut at the end', bytes: Buffer.from([0x61, 0xe2, 0x82]) },
  { label: 'a lone continuation byte', bytes: Buffer.from([0x80, 0x61, 0x62]) },
  { label: 'a four-byte sequence cut after two bytes', bytes: Buffer.from([0x7a, 0xf0, 0x9f]) },
  { label: 'a carriage return kept', bytes: Buffer.from('static inline\r') },
  { label: 'Latin-1, not UTF-8', bytes: Buffer.from([0x4a, 0xfc, 0x72, 0x67, 0x65, 0x6e]) },
  { label: 'longer than a piece (64 KB)', bytes: Buffer.from('x'.repeat(70_000) + 'é') },
];

/** Writes `files` (per file: its lines) through a writer, as a worker would: the batch taken. */
function writeBatch(files: { byteLines?: Buffer[]; textLines?: string[]; objects?: LineMatch[] }[]): MatchBatch {
  const writer = new MatchBatchWriter();
  files.forEach((file, index) => {
    let line = 1;
    for (const bytes of file.byteLines ?? []) {
      // The line sits inside a larger buffer, between newlines, as in a content window.
      const window = Buffer.concat([Buffer.from('before\n'), bytes, Buffer.from('\nafter')]);
      writer.add(line++, 1, window, 7, 7 + bytes.length);
    }
    for (const text of file.textLines ?? []) writer.addText(line++, 2, text);
    if (file.objects) writer.addMatches(file.objects);
    writer.endFile(index, (file.byteLines?.length ?? 0) + (file.textLines?.length ?? 0) + (file.objects?.length ?? 0));
  });
  return writer.take().batch;
}

/** `files` through a batch and back, each file's lines as objects. */
function roundTrip(files: Parameters<typeof writeBatch>[0]): [number, LineMatch[], number][] {
  return readBatch(writeBatch(files)).map(([index, kept, count]) => [index, linesOf(kept), count]);
}

for (const { label, bytes } of byteLines) {
  test(`a batch line reads as its own bytes decoded: ${label}`, () => {
    // Alone, and between two lines that end in a cut sequence (a decoder must start afresh at '\n').
    for (const neighbours of [[], [Buffer.from([0x61, 0xe2]), Buffer.from([0xf0, 0x9f, 0x98])]]) {
      const lines = neighbours.length ? [neighbours[0]!, bytes, neighbours[1]!] : [bytes];
      const [file] = roundTrip([{ byteLines: lines }]);
      assert.deepEqual(
        file![1].map((match) => match.text),
        lines.map((line) => line.toString('utf8')),
      );
    }
  });
}

test('a batch larger than a piece, with a line longer than one: every line in order', () => {
  const lines: Buffer[] = [];
  for (let index = 0; index < 3_000; index++) lines.push(Buffer.from(`static inline int f${index}(void) /* ü ${'y'.repeat(index % 50)} */`));
  lines.splice(1_500, 0, Buffer.from('z'.repeat(200_000)));
  const files = [{ byteLines: lines.slice(0, 1_000) }, { byteLines: [] }, { byteLines: lines.slice(1_000) }];
  const got = roundTrip(files);
  assert.deepEqual(
    got.map(([index]) => index),
    [0, 2],
  );
  assert.deepEqual(
    got.flatMap(([, matches]) => matches.map((match) => match.text)),
    lines.map((line) => line.toString('utf8')),
  );
  assert.deepEqual(
    got[1]![1].slice(0, 3).map((match) => match.line),
    [1, 2, 3],
  );
});

test("lines from texts, and lines as objects, keep their files' order and their context", () => {
  const withContext: LineMatch = { line: 4, column: 3, text: 'b = 1;', before: [{ line: 3, text: 'a' }], after: [{ line: 5, text: 'c' }] };
  const got = roundTrip([{ textLines: ['ünïcödé 🚀', ''] }, { objects: [withContext] }, { byteLines: [Buffer.from('tail')] }]);
  assert.deepEqual(
    got.map(([index, matches, count]) => [index, matches.map((match) => match.text), count]),
    [
      [0, ['ünïcödé 🚀', ''], 2],
      [1, ['b = 1;'], 1],
      [2, ['tail'], 1],
    ],
  );
  assert.deepEqual(got[1]![1][0], withContext);
  assert.deepEqual(
    got[0]![1].map((match) => [match.line, match.column]),
    [
      [1, 2],
      [2, 2],
    ],
  );
});

test('a file whose lines were all counted past the limit sends its count and no line', () => {
  const writer = new MatchBatchWriter();
  writer.endFile(0, 5);
  writer.add(3, 1, Buffer.from('x\n'), 0, 1);
  writer.endFile(1, 1);
  assert.deepEqual(
    readBatch(writer.take().batch).map(([index, matches, count]) => [index, matches.length, count]),
    [
      [0, 0, 5],
      [1, 1, 1],
    ],
  );
});

test("a batch's bytes are valid UTF-8, each file's view over its own lines, whatever the files held", () => {
  const files = byteLines.map(({ bytes }) => ({ byteLines: [bytes, Buffer.from('ok ü')] }));
  const batch = writeBatch(files);
  assert.ok(isUtf8(batch.bytes), 'invalid sequences are replaced when the batch is taken');
  const read = readBatch(batch);
  assert.equal(read.length, files.length);
  for (const [index, kept] of read) {
    assert.ok(kept instanceof BatchLines);
    const view = Buffer.from(kept.bytes.subarray(kept.byteStart, kept.byteEnd));
    const expected = files[index]!.byteLines.map((line) => `${line.toString('utf8')}\n`).join('');
    assert.equal(view.toString('utf8'), expected, byteLines[index]!.label);
    assert.deepEqual(
      kept.decode((line, column, text) => ({ line, column, text })).map((line) => line.text),
      files[index]!.byteLines.map((line) => line.toString('utf8')),
    );
    assert.equal(kept.decode((line, column, text) => ({ line, column, text }), 1).length, 1, 'the first lines only');
  }
});

test('a batch owns exact copies of its lines; the writer keeps its area for the next batch', () => {
  const writer = new MatchBatchWriter();
  writer.add(1, 1, Buffer.from('one line\n'), 0, 8);
  writer.endFile(0, 1);
  const small = writer.take().batch;
  assert.equal(small.bytes.buffer.byteLength, small.bytes.byteLength, 'bytes: exact');
  assert.equal(small.numbers.buffer.byteLength, small.numbers.byteLength, 'numbers: exact');
  // More lines than the area holds: it is moved aside as it fills, and the batch joins the parts.
  const line = Buffer.from('x'.repeat(1_000));
  for (let index = 0; index < 1_200; index++) writer.add(index + 1, 1, line, 0, line.length);
  writer.endFile(0, 1_200);
  const large = writer.take().batch;
  assert.equal(large.bytes.buffer.byteLength, large.bytes.byteLength, 'bytes: exact');
  assert.deepEqual(
    readBatch(large).flatMap(([, kept]) => linesOf(kept).map((match) => [match.line, match.text])),
    Array.from({ length: 1_200 }, (_, index) => [index + 1, line.toString()]),
  );
  // The next batch starts empty.
  writer.add(1, 1, Buffer.from('after\n'), 0, 5);
  writer.endFile(0, 1);
  assert.deepEqual(
    linesOf(readBatch(writer.take().batch)[0]![1]).map((match) => match.text),
    ['after'],
  );
});
