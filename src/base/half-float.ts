// IEEE 754 half precision (f16) to and from f32, in bulk. The team store keeps vectors as f16 (its
// schema 6): what the semantic index's HNSW graph keeps them as (vector-store.ts), half the bytes
// of f32 to push, store and fetch. f32 → f16 rounds to nearest, ties to even; too large becomes
// ±Infinity, too small ±0 or an f16 subnormal; NaN stays NaN. f16 → f32 is exact (a table of the
// 65,536 values: the join decodes 315 million numbers on the kernel). Little-endian machines only,
// as the embedding cache (x86 and ARM are).
import { typedCopy } from './typed-bytes.js';

const f32 = new Float32Array(1);
const bits = new Uint32Array(f32.buffer);

/** One f32 as f16 bits. */
export function halfOf(value: number): number {
  f32[0] = value;
  const x = bits[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exponent = (x >>> 23) & 0xff;
  const mantissa = x & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa === 0 ? 0 : 0x200 | (mantissa >>> 13));
  const e = exponent - 112; // rebiased: 127 → 15
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    // An f16 subnormal (or zero): the 24-bit significand shifted into f16's 10 bits.
    if (e < -10) return sign;
    const significand = mantissa | 0x800000;
    const shift = 14 - e;
    const half = significand >>> shift;
    const rest = significand & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    return sign | (rest > halfway || (rest === halfway && (half & 1) === 1) ? half + 1 : half);
  }
  const half = (e << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  // A carry out of the mantissa goes into the exponent, as it should (up to Infinity).
  return sign | (rest > 0x1000 || (rest === 0x1000 && (half & 1) === 1) ? half + 1 : half);
}

let table: Float32Array | undefined;

/** Every f16 bit pattern's value (index: the bits). */
export function halfTable(): Float32Array {
  if (table) return table;
  table = new Float32Array(65_536);
  for (let half = 0; half < 65_536; half++) {
    const sign = half & 0x8000 ? -1 : 1;
    const exponent = (half >>> 10) & 0x1f;
    const mantissa = half & 0x3ff;
    table[half] =
      exponent === 0
        ? sign * mantissa * 2 ** -24
        : exponent === 0x1f
          ? mantissa === 0
            ? sign * Number.POSITIVE_INFINITY
            : Number.NaN
          : sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
  }
  return table;
}

/** f32 numbers as f16, little-endian bytes (two a number). */
export function halfBytes(values: Float32Array, out: Buffer = Buffer.alloc(values.length * 2), at = 0): Buffer {
  for (let index = 0; index < values.length; index++) out.writeUInt16LE(halfOf(values[index]!), at + index * 2);
  return out;
}

/** f32 numbers rounded to the f16 values nearest them (as `halfOf` rounds), still as f32: a copy. */
export function roundedToHalf(values: Float32Array): Float32Array {
  const halves = halfTable();
  const out = new Float32Array(values.length);
  for (let index = 0; index < values.length; index++) out[index] = halves[halfOf(values[index]!)]!;
  return out;
}

/** The largest of f16 bits' magnitudes, as bits with the sign cleared (for finite numbers, larger bits are a larger magnitude). */
export function largestHalfBits(bits: Uint16Array): number {
  let largest = 0;
  for (let index = 0; index < bits.length; index++) {
    const magnitude = bits[index]! & 0x7fff;
    if (magnitude > largest) largest = magnitude;
  }
  return largest;
}

/** f16 little-endian bytes (two a number) as f32 numbers. */
export function floatsOfHalfBytes(bytes: Uint8Array): Float32Array {
  // Read as u16 (ten times faster here than two bytes a number).
  return new HalfVector(halfBits(bytes)).floats();
}

/**
 * A vector as f16 bits, kept as it came (a team join's vectors: decoding them all to f32 at once
 * allocated 1.3 GB on the kernel); `floats()` decodes it when its f32 numbers are needed.
 */
export class HalfVector {
  constructor(readonly bits: Uint16Array) {}

  get length(): number {
    return this.bits.length;
  }

  private largest = -1;

  /**
   * The largest magnitude's bits (sign cleared), found once: a join checks every vector is finite
   * and then quantizes it (vector-store.ts's quantizeHalf), which wants the same number.
   */
  largestBits(): number {
    if (this.largest < 0) this.largest = largestHalfBits(this.bits);
    return this.largest;
  }

  /** Whether every number is finite (no Infinity, no NaN: exponent bits not all set, so every magnitude below 0x7c00). */
  finite(): boolean {
    return this.largestBits() < 0x7c00;
  }

  floats(): Float32Array {
    const values = halfTable();
    const out = new Float32Array(this.bits.length);
    for (let index = 0; index < out.length; index++) out[index] = values[this.bits[index]!]!;
    return out;
  }
}

/** f16 little-endian bytes (two a number) as u16 bits: in place when aligned, else copied. */
export function halfBits(bytes: Uint8Array): Uint16Array {
  if (bytes.length % 2 !== 0) throw new Error(`${bytes.length} bytes are not a whole number of f16 values`);
  return bytes.byteOffset % 2 === 0 ? new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2) : typedCopy(bytes, Uint16Array);
}
