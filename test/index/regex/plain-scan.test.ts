// The SIMD scan of a plain literal writing lines straight into a worker's batch (run-scan.wat
// `plainScan`, matcher.ts `matchPlain`, match-batch.ts): the lines, numbers, columns and counts a
// batch ends up with equal the regex's on the decoded text, whatever the limit, for lines the scan
// writes itself, lines it hands back (a byte that is not ASCII before the occurrence, a non-ASCII
// neighbour of a -w occurrence), lines longer than the batch's area, and more lines than it holds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { linesOf, MatchBatchWriter, readBatch } from '../../../src/index/regex/match-batch.js';
import { compileMatcher, matchBytes, matchBytesInto, matchLines, type LineMatch } from '../../../src/index/regex/matcher.js';
import { scanBatchBytes, scanBatchLines, scanBuffer, scanRegionBytes } from '../../../src/index/regex/run-scan.js';

// The thread's one writer in the scanner's memory (the first made claims it), and one beside it.
const writer = new MatchBatchWriter();
const plainWriter = new MatchBatchWriter();

/** `texts` (one a file) through `into` as a worker verifies them, then the batch read back. */
function throughBatch(
  into: MatchBatchWriter,
  memory: Buffer,
  texts: Buffer[],
  needle: string,
  word: boolean,
  limit: number,
  firstLine: number,
): { files: [number, LineMatch[], number][]; counts: number[] } {
  const matcher = compileMatcher({ pattern: needle, fixedStrings: true, wordRegexp: word });
  const counts: number[] = [];
  let left = limit;
  texts.forEach((text, index) => {
    // Anywhere in the region, with bytes after it that would extend a match.
    const offset = (index * 13) % 64;
    text.copy(memory, offset);
    memory.fill(needle.charCodeAt(0), offset + text.length, offset + text.length + 64);
    const tally = { count: 0 };
    matchBytesInto(into, memory.subarray(offset, offset + text.length), matcher, [needle], left, firstLine, undefined, tally, { text: needle, word });
    left -= into.kept;
    into.endFile(index, tally.count);
    counts.push(tally.count);
  });
  const files = readBatch(into.take().batch).map(([index, kept, count]): [number, LineMatch[], number] => [index, linesOf(kept), count]);
  return { files, counts };
}

/** What the regex finds in `texts`, the first `limit` lines kept over the files in order. */
function expected(
  texts: Buffer[],
  needle: string,
  word: boolean,
  limit: number,
  firstLine: number,
): { files: [number, LineMatch[], number][]; counts: number[] } {
  const matcher = compileMatcher({ pattern: needle, fixedStrings: true, wordRegexp: word });
  const files: [number, LineMatch[], number][] = [];
  const counts: number[] = [];
  let left = limit;
  texts.forEach((text, index) => {
    const tally = { count: 0 };
    const lines = matchLines(text.toString('utf8'), matcher, Math.max(0, left), tally).map((match) => ({ ...match, line: match.line + firstLine - 1 }));
    left -= lines.length;
    counts.push(tally.count);
    if (tally.count > 0) files.push([index, lines, tally.count]);
  });
  return { files, counts };
}

test("a batch written by the plain scan holds the regex's lines (random files; in the scanner's memory and beside it; every limit)", () => {
  const memory = scanBuffer(0, 1 << 16);
  if (!memory || !writer.scanLines) return assert.fail('WebAssembly SIMD is missing');
  assert.equal(plainWriter.scanLines, undefined, 'a second writer in the thread has an area of its own');
  const pieces = ['kfree', 'kfree', 'k', 'free', 'x', '_', ' ', '(', ');', '\n', '\n', '\n', '\t', 'é', 'ÿ', '\u212a', '🚀', 'kfreé'].map((text) =>
    Buffer.from(text, 'utf8'),
  );
  pieces.push(Buffer.from([0xff]), Buffer.from([0xe2, 0x82]));
  let seed = 11;
  const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  let matched = 0;
  for (const needle of ['kfree', 'e', 'free(', 'é']) {
    for (const word of [false, true]) {
      for (let round = 0; round < 150; round++) {
        const texts = Array.from({ length: 1 + Math.floor(random() * 4) }, () =>
          Buffer.concat(Array.from({ length: Math.floor(random() * 120) }, () => pieces[Math.floor(random() * pieces.length)]!)),
        );
        const limit = random() < 0.3 ? Math.floor(random() * 6) : 1_000_000;
        const firstLine = 1 + Math.floor(random() * 3);
        const want = expected(texts, needle, word, limit, firstLine);
        for (const into of [writer, plainWriter]) {
          const got = throughBatch(into, memory, texts, needle, word, limit, firstLine);
          const label = `${JSON.stringify(needle)}${word ? ' -w' : ''}, limit ${limit}, ${into === writer ? 'scanner area' : 'own area'}, in ${JSON.stringify(texts.map((text) => text.toString('latin1')))}`;
          assert.deepEqual(got.counts, want.counts, `counts: ${label}`);
          assert.deepEqual(got.files, want.files, label);
        }
        matched += want.counts.reduce((sum, count) => sum + count, 0);
      }
    }
  }
  assert.ok(matched > 5_000, 'the random files matched often');
});

test("the plain scan's batch: more lines than its area holds, more bytes than it holds, a line longer than it, lines after the limit counted", () => {
  const memory = scanBuffer(1, scanRegionBytes);
  if (!memory || !writer.scanLines) return assert.fail('WebAssembly SIMD is missing');
  const many = Buffer.from(Array.from({ length: scanBatchLines * 2 + 100 }, (_, index) => (index % 3 === 0 ? 'no match' : `\tkfree(p${index});`)).join('\n'));
  const long = Buffer.from(Array.from({ length: 40 }, (_, index) => `${'y'.repeat(30_000 + index)} kfree x`).join('\n'));
  const huge = Buffer.from(`a kfree\n${'z'.repeat(scanBatchBytes + 10)} kfree\nb kfree\n`);
  for (const texts of [[many], [long], [huge], [many, huge, long]]) {
    for (const limit of [1_000_000, 5_000, 3]) {
      const want = expected(texts, 'kfree', false, limit, 1);
      const got = throughBatch(writer, memory, texts, 'kfree', false, limit, 1);
      assert.deepEqual(got.counts, want.counts);
      assert.deepEqual(got.files, want.files, `${texts.length} files, limit ${limit}`);
    }
  }
});

test("the lines holding one of several literals, by SIMD in the scanner's memory: those the byte search finds (random texts and literal sets, folding case or not)", () => {
  const memory = scanBuffer(0, 1 << 16);
  if (!memory) return assert.fail('WebAssembly SIMD is missing');
  const letters = ['a', 'b', 'k', 'K', 'm', 'M', '(', '_', ' ', 'é', '\n', '\n'];
  let seed = 3;
  const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pick = <T>(from: T[]): T => from[Math.floor(random() * from.length)]!;
  let matched = 0;
  for (let round = 0; round < 1_500; round++) {
    const ignoreCase = random() < 0.5;
    const literals = Array.from({ length: 1 + Math.floor(random() * 4) }, () =>
      Array.from({ length: 1 + Math.floor(random() * 6) }, () => pick(['a', 'b', 'k', 'm', '(', '_'])).join(''),
    );
    if (round % 7 === 0) literals.push('k'.repeat(30) + 'm');
    const pattern = literals.map((text) => text.replace(/[()]/g, '\\$&')).join('|');
    const matcher = compileMatcher({ pattern, ignoreCase });
    const text = Buffer.from(Array.from({ length: Math.floor(random() * 300) }, () => pick(letters)).join(''), 'utf8');
    const offset = Math.floor(random() * 64);
    const inMemory = memory.subarray(offset, offset + text.length);
    text.copy(inMemory);
    // Bytes after the text that would complete a literal.
    memory.fill(literals[0]!.charCodeAt(0), offset + text.length, offset + text.length + 64);
    const expected = matchBytes(text, matcher, literals, 1_000);
    assert.deepEqual(matchBytes(inMemory, matcher, literals, 1_000), expected, `${pattern}${ignoreCase ? ' -i' : ''} in ${JSON.stringify(text.toString())}`);
    matched += expected.length;
  }
  assert.ok(matched > 1_000, 'the random texts matched often');
  // A text where nearly every place is a candidate that fails: the scan gives up, the byte search
  // answers, with the same lines.
  const hard = Buffer.from(`x ZQZQ! y\n${'ZQ'.repeat(30_000)}\nZQZQ!\n`);
  hard.copy(memory, 0);
  const matcher = compileMatcher({ pattern: 'ZQZQ!|QZQZ?' });
  assert.deepEqual(
    matchBytes(memory.subarray(0, hard.length), matcher, ['ZQZQ!', 'QZQZ?'], 10).map((match) => match.line),
    [1, 3],
  );
});
