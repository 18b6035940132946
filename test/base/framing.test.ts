// Content-Length framing (shared by the daemon, the language-server and debug-adapter clients): a
// message split across chunks at every byte, several messages in one chunk, banner text before
// the first frame and between frames, multi-byte UTF-8 bodies, bad frames skipped with a report;
// and the limits: a body over the limit dropped without being held, a header that never ends
// refused after maxHeaderBytes, both in the daemon's strict mode and the clients' lenient one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeFrame, FrameDecoder, type FrameDecoderOptions, type FrameProblem } from '../../src/base/framing.js';

function decode(
  chunks: Buffer[],
  options: FrameDecoderOptions = {},
): { messages: unknown[]; problems: FrameProblem[]; skipped: string; stopped: boolean; held: number } {
  const messages: unknown[] = [];
  const problems: FrameProblem[] = [];
  const decoder = new FrameDecoder(
    (message) => messages.push(message),
    (problem) => problems.push(problem),
    options,
  );
  for (const chunk of chunks) decoder.push(chunk);
  return { messages, problems, skipped: decoder.skipped, stopped: decoder.isStopped, held: decoder.heldBytes };
}

const one = { jsonrpc: '2.0', id: 1, result: { text: 'héllo ✓ 𝄞' } };
const two = { jsonrpc: '2.0', method: 'note', params: [1, 2, 3] };
const bytes = (text: string): Buffer => Buffer.from(text, 'latin1');
const frameOf = (body: string): Buffer => Buffer.from(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);

test('a message split at every byte boundary decodes once', () => {
  const frame = encodeFrame(one);
  for (const strayBytes of ['skip', 'fatal'] as const) {
    for (let cut = 1; cut < frame.length; cut++) {
      assert.deepEqual(decode([frame.subarray(0, cut), frame.subarray(cut)], { strayBytes }).messages, [one], `${strayBytes}: cut at ${cut}`);
    }
    assert.deepEqual(
      decode(
        [...frame].map((byte) => Buffer.from([byte])),
        { strayBytes },
      ).messages,
      [one],
      `${strayBytes}: one byte at a time`,
    );
  }
});

test('several messages in one chunk, and a banner before and between them', () => {
  const chunk = Buffer.concat([Buffer.from('Starting adapter v1.2\nlistening...\n'), encodeFrame(one), Buffer.from('stray log line\n'), encodeFrame(two)]);
  const result = decode([chunk]);
  assert.deepEqual(result.messages, [one, two]);
  assert.match(result.skipped, /^Starting adapter v1\.2\nlistening\.\.\.\nstray log line\n$/);
});

interface Case {
  name: string;
  chunks: Buffer[];
  options?: FrameDecoderOptions;
  messages: unknown[];
  /** Each problem's kind and a pattern its message matches, in order. */
  problems?: [FrameProblem['kind'], RegExp][];
  /** Whether the decoder stopped (a fatal header). */
  stopped?: boolean;
}

const strict: FrameDecoderOptions = { strayBytes: 'fatal' };
const small: FrameDecoderOptions = { strayBytes: 'fatal', maxBodyBytes: 64, maxHeaderBytes: 100 };
const oversized = `{"jsonrpc":"2.0","id":7,"method":"fathom/grep","params":{"pattern":"${'x'.repeat(200)}"}}`;

const cases: Case[] = [
  // Both modes.
  {
    name: 'other headers are allowed',
    chunks: [Buffer.concat([bytes('Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n'), encodeFrame(one)])],
    messages: [one],
  },
  {
    name: 'strict: other headers are allowed',
    options: strict,
    chunks: [
      bytes(
        `Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(JSON.stringify(two))}\r\n\r\n${JSON.stringify(two)}`,
      ),
    ],
    messages: [two],
  },
  {
    name: 'a body that is not JSON is reported, the next frame read',
    chunks: [Buffer.concat([bytes('Content-Length: 5\r\n\r\nhello'), encodeFrame(two)])],
    messages: [two],
    problems: [['notJson', /a frame that is not JSON/]],
  },
  {
    name: 'strict: a body that is not JSON is reported, the next frame read',
    options: strict,
    chunks: [Buffer.concat([bytes('Content-Length: 5\r\n\r\nhello'), encodeFrame(two)])],
    messages: [two],
    problems: [['notJson', /not JSON/]],
  },
  {
    name: 'strict: an empty body is not JSON',
    options: strict,
    chunks: [Buffer.concat([bytes('Content-Length: 0\r\n\r\n'), encodeFrame(two)])],
    messages: [two],
    problems: [['notJson', /not JSON/]],
  },
  {
    name: 'a bad length is skipped',
    chunks: [Buffer.concat([bytes('Content-Length: x\r\n\r\n'), encodeFrame(two)])],
    messages: [two],
    problems: [['badHeader', /a bad Content-Length header/]],
  },

  // The body limit: dropped as it arrives, the stream kept in step, the head kept for the id.
  {
    name: 'a body at the limit is read',
    options: { ...small, maxBodyBytes: Buffer.byteLength(JSON.stringify(two)) },
    chunks: [encodeFrame(two)],
    messages: [two],
  },
  {
    name: 'strict: a body over the limit is dropped, the next frame read',
    options: small,
    chunks: [frameOf(oversized), encodeFrame(two)],
    messages: [two],
    problems: [['tooLarge', /a frame of 271 bytes, over the limit of 64/]],
  },
  {
    name: 'strict: a body over the limit, a byte at a time',
    options: small,
    chunks: [...Buffer.concat([frameOf(oversized), encodeFrame(two)])].map((byte) => Buffer.from([byte])),
    messages: [two],
    problems: [['tooLarge', /271 bytes/]],
  },
  {
    name: 'lenient: a body over the limit is dropped whole (frames inside it are not read)',
    options: { maxBodyBytes: 64 },
    chunks: [frameOf(`${JSON.stringify(one)}${frameOf(JSON.stringify(two)).toString()}${'x'.repeat(100)}`), encodeFrame(one)],
    messages: [one],
    problems: [['tooLarge', /over the limit of 64/]],
  },
  {
    name: 'strict: 99999999999 bytes announced, 1,000 sent: not reported before its first KiB',
    options: small,
    chunks: [bytes('Content-Length: 99999999999\r\n\r\n'), Buffer.alloc(1_000, 0x20)],
    messages: [],
  },
  {
    name: 'strict: 99999999999 bytes announced, 2,000 sent: reported',
    options: small,
    chunks: [bytes('Content-Length: 99999999999\r\n\r\n'), Buffer.alloc(2_000, 0x20)],
    messages: [],
    problems: [['tooLarge', /a frame of 99999999999 bytes/]],
  },

  // The header limit and broken headers: strict stops, lenient skips.
  {
    name: 'strict: a header that never ends stops the decoder',
    options: small,
    chunks: [bytes(`Content-Length: 5${'\r\nX-Padding: yes'.repeat(20)}`), encodeFrame(two)],
    messages: [],
    problems: [['badHeader', /a header longer than 100 bytes/]],
    stopped: true,
  },
  {
    name: 'strict: garbage without a blank line stops after the limit',
    options: small,
    chunks: Array.from({ length: 50 }, () => bytes('garbage ')),
    messages: [],
    problems: [['badHeader', /longer than 100 bytes/]],
    stopped: true,
  },
  {
    name: 'lenient: a header that never ends is skipped',
    options: { maxHeaderBytes: 100 },
    chunks: [bytes(`Content-Length: 5${'\r\nX-Padding: yes'.repeat(20)}`), encodeFrame(two)],
    messages: [two],
    problems: [['badHeader', /longer than 100 bytes/]],
  },
  {
    name: 'strict: a header without Content-Length',
    options: strict,
    chunks: [bytes('Content-Type: nothing\r\n\r\n{}'), encodeFrame(two)],
    messages: [],
    problems: [['badHeader', /without Content-Length/]],
    stopped: true,
  },
  {
    name: 'strict: a line that is not a header',
    options: strict,
    chunks: [bytes('garbage without headers\r\n\r\n'), encodeFrame(two)],
    messages: [],
    problems: [['badHeader', /not 'Name: value'/]],
    stopped: true,
  },
  {
    name: 'strict: a banner is not skipped',
    options: strict,
    chunks: [Buffer.concat([bytes('hello\n'), encodeFrame(two)])],
    messages: [],
    problems: [['badHeader', /not 'Name: value'/]],
    stopped: true,
  },
  {
    name: 'strict: a length that is not a number',
    options: strict,
    chunks: [bytes('Content-Length: 12a\r\n\r\n{}')],
    messages: [],
    problems: [['badHeader', /a bad Content-Length/]],
    stopped: true,
  },
  {
    name: 'strict: a length past 2^53',
    options: strict,
    chunks: [bytes('Content-Length: 99999999999999999999\r\n\r\n{}')],
    messages: [],
    problems: [['badHeader', /a bad Content-Length/]],
    stopped: true,
  },
];

for (const { name, chunks, options, messages, problems = [], stopped = false } of cases) {
  test(`frames: ${name}`, () => {
    const result = decode(chunks, options);
    assert.deepEqual(result.messages, messages);
    assert.deepEqual(
      result.problems.map((problem) => problem.kind),
      problems.map(([kind]) => kind),
      JSON.stringify(result.problems.map((problem) => problem.message)),
    );
    problems.forEach(([, pattern], index) => assert.match(result.problems[index]!.message, pattern));
    assert.equal(result.stopped, stopped);
  });
}

test('a dropped body reports its first KiB (where a request names its id) and nothing past it', () => {
  const { problems } = decode([frameOf(oversized), encodeFrame(two)], { ...small, maxBodyBytes: 64 });
  const problem = problems[0]!;
  assert.equal(problem.kind, 'tooLarge');
  assert.equal(problem.kind === 'tooLarge' && problem.head.toString(), oversized);
  const long = `{"id":3,"x":"${'y'.repeat(5_000)}"}`;
  const [longProblem] = decode([frameOf(long)], small).problems;
  assert.equal(longProblem?.kind === 'tooLarge' && longProblem.head.toString(), long.slice(0, 1_024));
});

test('a 1 GiB body announced and streamed in 64 KiB chunks is never held', () => {
  const decoder = new FrameDecoder(
    () => assert.fail('nothing to decode'),
    () => undefined,
    { strayBytes: 'fatal', maxBodyBytes: 64 * 1024 * 1024 },
  );
  decoder.push(bytes(`Content-Length: ${2 ** 30}\r\n\r\n`));
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  let most = 0;
  // 256 MiB of it is enough to see that nothing accumulates.
  for (let sent = 0; sent < 2 ** 28; sent += chunk.length) {
    decoder.push(chunk);
    most = Math.max(most, decoder.heldBytes);
  }
  assert.ok(most <= 1_024, `held ${most} bytes`);
});

test('a header sent a byte at a time is read; one that never ends is refused once, at the limit', () => {
  const header = bytes(`Content-Length: 2${'\r\nX: y'.repeat(1_300)}\r\n\r\n{}`);
  const messages: unknown[] = [];
  const decoder = new FrameDecoder(
    (message) => messages.push(message),
    (problem) => assert.fail(problem.message),
    { strayBytes: 'fatal' },
  );
  for (let at = 0; at < header.length; at++) decoder.push(header.subarray(at, at + 1));
  assert.deepEqual(messages, [{}]);
  const problems: FrameProblem[] = [];
  const endless = new FrameDecoder(
    () => undefined,
    (problem) => problems.push(problem),
    { strayBytes: 'fatal' },
  );
  let sent = 0;
  for (; sent < 48 * 1024 * 1024 && !endless.isStopped; sent += 1_024) endless.push(Buffer.alloc(1_024, 0x61));
  assert.equal(sent, 9 * 1_024, 'stopped at the first chunk past 8 KiB');
  assert.deepEqual(
    problems.map((problem) => problem.message),
    ['a header longer than 8192 bytes (no blank line ends it)'],
  );
  assert.equal(endless.heldBytes, 0);
});
