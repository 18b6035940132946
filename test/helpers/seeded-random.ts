// A seeded random source for the reliability harnesses (test/reliability/): every fuzzed frame,
// kill point, damaged byte and churn step comes from one of these, so a failure is replayed by
// running again with the seed it printed (FATHOM_RELIABILITY_SEED overrides the default).

/** The seed for a run: $FATHOM_RELIABILITY_SEED when set, else `fallback`. */
export function runSeed(fallback: number): number {
  const fromEnv = Number(process.env.FATHOM_RELIABILITY_SEED);
  return Number.isSafeInteger(fromEnv) && process.env.FATHOM_RELIABILITY_SEED !== '' ? fromEnv : fallback;
}

/** mulberry32: small, fast and good enough to spread test inputs. */
export class SeededRandom {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [low, high]. */
  between(low: number, high: number): number {
    return low + this.int(high - low + 1);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(items.length)]!;
  }

  bytes(length: number): Buffer {
    const out = Buffer.alloc(length);
    for (let index = 0; index < length; index++) out[index] = this.int(256);
    return out;
  }

  /** `count` distinct items of `items`, in random order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const copy = [...items];
    for (let index = copy.length - 1; index > 0; index--) {
      const other = this.int(index + 1);
      [copy[index], copy[other]] = [copy[other]!, copy[index]!];
    }
    return copy.slice(0, Math.min(count, copy.length));
  }
}
