// How well a symbol name answers a query typed by a user looking for it (workspace symbol search,
// an editor's "go to symbol"): exact beats case-insensitive exact beats prefix beats initials of
// camelCase/snake_case words (`gU` → getUser, `ksh` → ksys_sync_helper) beats substring beats an
// in-order subsequence; undefined when the name does not match at all. Pure.

/** Start offsets of the words of an identifier: after `_`/`-`/`.`/`:`, at a lower→upper change, at a letter after digits. */
function wordStarts(name: string): number[] {
  const starts: number[] = [];
  for (let index = 0; index < name.length; index++) {
    const code = name.charCodeAt(index);
    const previous = index > 0 ? name.charCodeAt(index - 1) : -1;
    const isSeparator = code === 0x5f || code === 0x2d || code === 0x2e || code === 0x3a || code === 0x24;
    if (isSeparator) continue;
    const previousSeparator = previous === 0x5f || previous === 0x2d || previous === 0x2e || previous === 0x3a || previous === 0x24 || previous === -1;
    const upper = code >= 0x41 && code <= 0x5a;
    const previousLower = previous >= 0x61 && previous <= 0x7a;
    const previousDigit = previous >= 0x30 && previous <= 0x39;
    if (previousSeparator || (upper && (previousLower || previousDigit))) starts.push(index);
  }
  return starts;
}

/** True when every character of `query` is the start of a word or follows the previous match inside a word. */
function matchesInitials(query: string, name: string): boolean {
  const starts = new Set(wordStarts(name));
  const lowerName = name.toLowerCase();
  let at = 0;
  for (let index = 0; index < query.length; index++) {
    const wanted = query[index]!.toLowerCase();
    // Prefer continuing the current word, else jump to the next word that starts with the character.
    if (index > 0 && at < lowerName.length && lowerName[at] === wanted) {
      at += 1;
      continue;
    }
    let found = -1;
    for (let candidate = at; candidate < lowerName.length; candidate++) {
      if (starts.has(candidate) && lowerName[candidate] === wanted) {
        found = candidate;
        break;
      }
    }
    if (found < 0) return false;
    at = found + 1;
  }
  return true;
}

export function symbolScore(query: string, name: string): number | undefined {
  if (query.length === 0) return 1;
  if (name === query) return 1000;
  const lowerName = name.toLowerCase();
  const lowerQuery = query.toLowerCase();
  if (lowerName === lowerQuery) return 950;
  if (name.startsWith(query)) return 900 - Math.min(99, name.length - query.length);
  if (lowerName.startsWith(lowerQuery)) return 850 - Math.min(99, name.length - query.length);
  if (matchesInitials(query, name)) return 700 - Math.min(99, name.length - query.length);
  const at = lowerName.indexOf(lowerQuery);
  if (at >= 0) return 600 - Math.min(99, at) - Math.min(99, name.length - query.length) / 100;
  // In-order subsequence: the tighter, the better.
  let position = 0;
  let gaps = 0;
  for (const char of lowerQuery) {
    const found = lowerName.indexOf(char, position);
    if (found < 0) return undefined;
    gaps += found - position;
    position = found + 1;
  }
  return 400 - Math.min(299, gaps);
}

/**
 * Which kinds of character a lower-cased text holds, one bit each (a-z, a digit, `_`, `$`, other
 * ASCII, anything else): a name can match a query only if its mask holds the query's, so symbol
 * search rejects most of the kernel's 2.6 M names with one AND. A name with a character outside
 * ASCII gets every bit (its lower case may hold ASCII letters: never rejected by the mask).
 */
export function characterMask(lower: string): number {
  let mask = 0;
  for (let index = 0; index < lower.length; index++) {
    const code = lower.charCodeAt(index);
    if (code >= 0x61 && code <= 0x7a) mask |= 1 << (code - 0x61);
    else if (code >= 0x41 && code <= 0x5a) mask |= 1 << (code - 0x41);
    else if (code >= 0x30 && code <= 0x39) mask |= 1 << 26;
    else if (code === 0x5f) mask |= 1 << 27;
    else if (code === 0x24) mask |= 1 << 28;
    else if (code < 0x80) mask |= 1 << 29;
    else return -1 >>> 0;
  }
  return mask >>> 0;
}
