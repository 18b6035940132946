// Content-Length framing (shared by the daemon, the language-server and debug-adapter clients): a
// message split across chunks at every byte, several messages in one chunk, banner text before
// the first frame and between frames, multi-byte UTF-8 bodies, and bad frames skipped with a report.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeFrame, FrameDecoder } from '../src/base/framing.js';

function decode(chunks: Buffer[]): { messages: unknown[]; problems: string[]; skipped: string } {
  const messages: unknown[] = [];
  const problems: string[] = [];
  const decoder = new FrameDecoder(
    (message) => messages.push(message),
    (problem) => problems.push(problem),
  );
  for (const chunk of chunks) decoder.push(chunk);
  return { messages, problems, skipped: decoder.skipped };
}

const one = { jsonrpc: '2.0', id: 1, result: { text: 'héllo ✓ 𝄞' } };
const two = { jsonrpc: '2.0', method: 'note', params: [1, 2, 3] };

test('a message split at every byte boundary decodes once', () => {
  const bytes = encodeFrame(one);
  for (let cut = 1; cut < bytes.length; cut++) {
    assert.deepEqual(decode([bytes.subarray(0, cut), bytes.subarray(cut)]).messages, [one], `cut at ${cut}`);
  }
  assert.deepEqual(decode([...bytes].map((byte) => Buffer.from([byte]))).messages, [one], 'one byte at a time');
});

test('several messages in one chunk, and a banner before and between them', () => {
  const chunk = Buffer.concat([Buffer.from('Starting adapter v1.2\nlistening...\n'), encodeFrame(one), Buffer.from('stray log line\n'), encodeFrame(two)]);
  const result = decode([chunk]);
  assert.deepEqual(result.messages, [one, two]);
  assert.match(result.skipped, /^Starting adapter v1\.2\nlistening\.\.\.\nstray log line\n$/);
});

test('other headers are allowed; a bad length or a body that is not JSON is reported and skipped', () => {
  const withType = Buffer.concat([Buffer.from('Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n'), encodeFrame(one)]);
  assert.deepEqual(decode([withType]).messages, [one]);
  const notJson = Buffer.concat([Buffer.from('Content-Length: 5\r\n\r\nhello'), encodeFrame(two)]);
  const result = decode([notJson]);
  assert.deepEqual(result.messages, [two]);
  assert.match(result.problems[0]!, /a frame that is not JSON/);
  const badLength = decode([Buffer.concat([Buffer.from('Content-Length: x\r\n\r\n'), encodeFrame(two)])]);
  assert.deepEqual(badLength.messages, [two]);
  assert.match(badLength.problems[0]!, /a bad Content-Length header/);
});
