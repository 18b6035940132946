// Searching sorted numbers: the binary searches that line tables, region starts, import uses and
// similar ascending offset lists share.

/** The index of the last element ≤ `value` in an ascending list whose first element is ≤ `value` (else 0). */
export function lastAtOrBefore(sorted: ArrayLike<number>, value: number): number {
  let low = 0;
  let high = sorted.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >>> 1;
    if (sorted[middle]! <= value) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** The index of the first element ≥ `value` in an ascending list (its length when there is none): how many are below `value`. */
export function firstAtOrAfter(sorted: ArrayLike<number>, value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}
