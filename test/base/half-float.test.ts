// base/half-float.ts: known f16 encodings (rounding ties to even, overflow, subnormals, NaN), every
// f16 value through f32 and back, and the bulk byte form the team store keeps.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { floatsOfHalfBytes, halfBits, halfBytes, halfOf, HalfVector } from '../../src/base/half-float.js';

const cases: Array<[number, number, string]> = [
  [0, 0x0000, 'zero'],
  [-0, 0x8000, 'negative zero'],
  [1, 0x3c00, 'one'],
  [-2, 0xc000, 'minus two'],
  [0.1, 0x2e66, 'a tenth, rounded'],
  [1 / 3, 0x3555, 'a third, rounded'],
  [65504, 0x7bff, 'the largest f16'],
  [65519, 0x7bff, 'below the halfway to 65536'],
  [65520, 0x7c00, 'halfway past the largest: to even, Infinity'],
  [1e10, 0x7c00, 'too large: Infinity'],
  [-1e10, 0xfc00, 'too large negative: -Infinity'],
  [Number.POSITIVE_INFINITY, 0x7c00, 'Infinity'],
  [2 ** -14, 0x0400, 'the smallest normal'],
  [2 ** -24, 0x0001, 'the smallest subnormal'],
  [2 ** -25, 0x0000, 'half the smallest subnormal: to even, zero'],
  [2 ** -25 * 1.5, 0x0001, 'above half the smallest subnormal'],
  [3 * 2 ** -25, 0x0002, 'a subnormal tie to even, up'],
  [2 ** -30, 0x0000, 'too small: zero'],
  [1 + 2 ** -11, 0x3c00, 'a tie to even, down'],
  [1 + 3 * 2 ** -11, 0x3c02, 'a tie to even, up'],
  [1 + 2 ** -11 + 2 ** -20, 0x3c01, 'just past a tie'],
];

test('half-float: known encodings', () => {
  for (const [value, half, what] of cases) assert.equal(halfOf(value), half, `${what}: ${value}`);
  assert.equal(halfOf(Number.NaN) & 0x7c00, 0x7c00, 'NaN keeps its exponent');
  assert.notEqual(halfOf(Number.NaN) & 0x3ff, 0, 'NaN stays NaN');
});

test('half-float: every f16 value to f32 and back is itself', () => {
  const all = Buffer.alloc(65_536 * 2);
  for (let half = 0; half < 65_536; half++) all.writeUInt16LE(half, half * 2);
  const floats = floatsOfHalfBytes(all);
  for (let half = 0; half < 65_536; half++) {
    const value = floats[half]!;
    if (Number.isNaN(value)) assert.ok((half & 0x7c00) === 0x7c00 && (half & 0x3ff) !== 0, `only NaN patterns decode to NaN (${half.toString(16)})`);
    else assert.equal(halfOf(value), half, `0x${half.toString(16)} → ${value}`);
  }
});

test('half-float: bulk bytes round trip within f16 precision, at an offset into a shared buffer', () => {
  const values = Float32Array.from({ length: 384 }, (_, at) => Math.sin(at) * 0.2);
  const out = Buffer.alloc(4 + values.length * 2);
  halfBytes(values, out, 4);
  const back = floatsOfHalfBytes(out.subarray(4));
  assert.equal(back.length, values.length);
  for (let at = 0; at < values.length; at++) assert.ok(Math.abs(back[at]! - values[at]!) <= Math.abs(values[at]!) * 2 ** -11 + 2 ** -25, `number ${at}`);
  assert.throws(() => floatsOfHalfBytes(new Uint8Array(3)), /not a whole number/);
});

test('half-float: a vector kept as bits decodes as its bytes do, says whether it is finite, and bits at an odd offset are copied', () => {
  const values = Float32Array.from([0.5, -0.25, 3, 1e-6]);
  const bytes = Buffer.alloc(1 + values.length * 2);
  halfBytes(values, bytes, 1);
  const bits = halfBits(bytes.subarray(1));
  const vector = new HalfVector(bits);
  assert.equal(vector.length, 4);
  assert.deepEqual(Array.from(vector.floats()), Array.from(floatsOfHalfBytes(bytes.subarray(1))));
  assert.equal(vector.finite(), true);
  assert.equal(new HalfVector(Uint16Array.from([0x3c00, 0x7c00])).finite(), false, 'Infinity');
  assert.equal(new HalfVector(Uint16Array.from([0x7e00])).finite(), false, 'NaN');
});
