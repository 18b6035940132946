// A grep answer written to the wire from the workers' bytes (daemon/grep-json.ts, spliced in by
// daemon/json-encoder.ts) must be byte for byte what JSON.stringify writes for the same lines as
// objects: every control character, quotes and backslashes, multi-byte and invalid UTF-8, empty
// lines, lines with context given as objects, answers cut after some of a file's lines.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GrepLines, type GrepLineRun } from '../../src/index/regex/grep-lines.js';
import { MatchBatchWriter, readBatch } from '../../src/index/regex/match-batch.js';
import type { LineMatch } from '../../src/index/regex/matcher.js';
import { GrepLinesJson } from '../../src/daemon/grep-json.js';
import { RawJson, encodeMessage } from '../../src/daemon/json-encoder.js';

const controls = Buffer.from(Array.from({ length: 32 }, (_, code) => code).filter((code) => code !== 10));

const lines: { label: string; bytes: Buffer }[] = [
  { label: 'plain', bytes: Buffer.from('static inline int f(void)') },
  { label: 'empty', bytes: Buffer.alloc(0) },
  { label: 'tabs, quotes and backslashes', bytes: Buffer.from('\tprintk("a \\"b\\" \\\\ c\\n");\t') },
  { label: 'every control character but \\n', bytes: Buffer.concat([Buffer.from('x'), controls, Buffer.from('y')]) },
  { label: 'DEL, U+2028, U+2029, multi-byte characters', bytes: Buffer.from('\x7f \u2028 \u2029 Jürgen — ✓ 🚀') },
  { label: 'invalid UTF-8', bytes: Buffer.from([0x61, 0xe2, 0x82, 0x22, 0x80, 0xff, 0xf0, 0x9f]) },
  { label: 'a carriage return', bytes: Buffer.from('static inline\r') },
  { label: 'long', bytes: Buffer.from(`"${'\\'.repeat(5_000)}${'é'.repeat(20_000)}"`) },
];

/** Line numbers and columns of every width up to the largest an Int32Array holds. */
const numbers = [1, 9, 10, 99, 100, 999, 1_000, 9_999, 10_000, 99_999, 100_000, 999_999, 1_000_000, 12_345_678, 2 ** 31 - 1];

/** Files of lines through a worker's batch writer: the daemon's runs over them, each file's first `take` lines. */
function runsOf(files: { path: string; byteLines?: Buffer[]; objects?: LineMatch[]; take?: number }[]): GrepLines {
  const writer = new MatchBatchWriter();
  let at = 0;
  files.forEach((file, index) => {
    file.byteLines?.forEach((bytes) => {
      const window = Buffer.concat([Buffer.from('before\n'), bytes, Buffer.from('\nafter')]);
      writer.add(numbers[at % numbers.length]!, numbers[(at * 7 + 3) % numbers.length]!, window, 7, 7 + bytes.length);
      at += 1;
    });
    if (file.objects) writer.addMatches(file.objects);
    writer.endFile(index, (file.byteLines?.length ?? 0) + (file.objects?.length ?? 0));
  });
  const runs: GrepLineRun[] = readBatch(writer.take().batch).map(([index, kept]) => ({
    path: files[index]!.path,
    lines: kept,
    take: Math.min(kept.length, files[index]!.take ?? kept.length),
  }));
  return new GrepLines(
    runs.filter((run) => run.take > 0),
    runs.reduce((sum, run) => sum + run.take, 0),
  );
}

function assertSameJson(answer: GrepLines, label: string): void {
  const message = { jsonrpc: '2.0', id: 7, result: { root: '/r', matches: new GrepLinesJson(answer), total: answer.length } };
  const expected = JSON.stringify({ jsonrpc: '2.0', id: 7, result: { root: '/r', matches: answer.toArray(), total: answer.length } });
  assert.equal(encodeMessage(message).toString('utf8'), expected, label);
  // Outside the daemon's encoder the value reads as its objects.
  assert.equal(JSON.stringify(message), expected, `${label}: stringified elsewhere`);
}

for (const { label, bytes } of lines) {
  test(`a grep line on the wire is what JSON.stringify writes: ${label}`, () => {
    assertSameJson(runsOf([{ path: 'a.c', byteLines: [bytes] }]), label);
    assertSameJson(runsOf([{ path: 'dir/"quoted" \\ ü.c', byteLines: [Buffer.from('x'), bytes, Buffer.from('y')] }]), `${label}, between lines, odd path`);
    assertSameJson(
      runsOf([{ path: `${'deeply/nested/'.repeat(8)}file.c`, byteLines: Array.from({ length: numbers.length }, () => bytes) }]),
      `${label}, a long path, every width of number`,
    );
  });
}

test('files of bytes and of objects (context lines), answers cut part-way, and a second value in one message', () => {
  const withContext: LineMatch = { line: 4, column: 3, text: 'b = "1";\t', before: [{ line: 3, text: 'a\u0001' }], after: [{ line: 5, text: 'c' }] };
  const answer = runsOf([
    { path: 'a.c', byteLines: lines.map((line) => line.bytes) },
    { path: 'b.c', objects: [withContext, { line: 9, column: 1, text: 'd' }], take: 1 },
    { path: 'c.c', byteLines: [Buffer.from('one'), Buffer.from('two'), Buffer.from('three')], take: 2 },
    { path: 'd.c', byteLines: [Buffer.from('none kept')], take: 0 },
  ]);
  assert.equal(answer.length, lines.length + 1 + 2);
  assertSameJson(answer, 'mixed');
  const other = runsOf([{ path: 'e.c', byteLines: [Buffer.from('e')] }]);
  const two = { a: new GrepLinesJson(answer), b: [new GrepLinesJson(other)] };
  assert.equal(encodeMessage(two).toString('utf8'), JSON.stringify({ a: answer.toArray(), b: [other.toArray()] }));
  assert.deepEqual(other.toArray(), [{ path: 'e.c', line: 1, column: 99, text: 'e' }]);
  assertSameJson(new GrepLines([], 0), 'no line');
});

test("a message without raw values is JSON.stringify's text; a raw value that throws fails the encode, not the next one", () => {
  const plain = { jsonrpc: '2.0', id: 1, result: { text: 'ü "x"', list: [1, null, true] } };
  assert.equal(encodeMessage(plain).toString('utf8'), JSON.stringify(plain));
  class Broken extends RawJson {
    estimate(): number {
      return 1;
    }
    writeJson(): void {
      throw new Error('broken');
    }
    toValue(): unknown {
      return 1;
    }
  }
  assert.throws(() => encodeMessage({ result: new Broken() }), /broken/);
  assert.equal(encodeMessage(plain).toString('utf8'), JSON.stringify(plain));
  assert.equal(JSON.stringify({ value: new Broken() }), '{"value":1}', 'no encode is collecting after a failure');
});
