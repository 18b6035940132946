// Secrets recognised by what a file holds, whatever its name (names: secrets.ts): called on every
// text file's bytes when they are read for hashing (file-content.ts), in the scan and in the
// watcher's updates alike, and on bytes the regex index reads fresh. A file that holds one is
// skipped as `secret`: never hashed into the file set, so no index reads, stores or returns it.
//
// The policy, and why:
// - A private key, or a live-looking token of a service that issues tokens with a fixed prefix,
//   hides the whole file. A file is indexed whole or not at all: blanking one line would still
//   hand out its neighbours (a key's other lines, the token's account), and a search over a
//   file that answers differently from the disk is worse than one that is absent.
// - Rules are shapes, not names or keywords: a rule must match the secret's own structure, so
//   that code *about* secrets stays indexed. A PEM parser, a test that checks a header, or docs
//   with an elided key ("MIIEow...") hold `-----BEGIN RSA PRIVATE KEY-----` without a key: the
//   key rule wants the header, at least 64 base64 characters of body (the smallest key there is,
//   an X25519 PKCS#8 one, has 64) with 16 different ones, and the END line, with only line breaks
//   (real or `\n` escapes), indentation, comment marks and string-literal punctuation between
//   them. Token rules want the prefix at a word boundary, the exact length or alphabet of the
//   issuer's format, and a random-looking body (several kinds of characters, many different
//   ones), so placeholders (`ghp_XXXX…`, `sk_live_…`) and documentation examples (AWS's
//   `AKIAIOSFODNN7EXAMPLE`) stay. An AWS key id alone is not a credential: it must come with a
//   secret access key (40 base64 characters) within 1 KiB.
// - What is left is a real false positive, and accepted: a full key or token committed as a test
//   fixture (crypto libraries' tests, secret scanners' own fixtures) hides its file. Nothing in
//   the bytes tells a test key from a live one; gitleaks and trufflehog flag these too (gitleaks
//   allowlists test paths, which would let a live key in `test/` through). Go's own tests spell
//   such keys "TESTING KEY" and rewrite them at run time for the same reason.
// - Like detect-secrets and gitleaks, a cheap literal search comes first and the rule's check
//   only where a literal occurs. Here that search is one SIMD pass for every literal at once
//   (secret-prefilter.ts): the check runs over every file of a tree the size of the Linux
//   kernel, in the hash workers beside SHA-256, and must cost a fraction of the hash.
import { Prefilter, type Fingerprint } from './secret-prefilter.js';

/** Which rule found a secret (for tests and logs; the skip reason is `secret` for all). */
export type SecretRule =
  | 'privateKey'
  | 'puttyKey'
  | 'awsAccessKey'
  | 'githubToken'
  | 'slackToken'
  | 'slackWebhook'
  | 'stripeKey'
  | 'gitlabToken'
  | 'npmToken'
  | 'pypiToken'
  | 'anthropicKey'
  | 'openaiKey'
  | 'kubeconfigKey';

interface Needle {
  /** A literal every match of the rule holds, at `start` (the rule's check is given its place). */
  text: string;
  rule: SecretRule;
  /** Where in `text` its fingerprint (three bytes) starts, and its bucket (secret-prefilter.ts). */
  fingerprintAt: number;
  bucket: number;
}

// Fingerprints are three bytes of each needle that are rare in source code, and buckets pair
// fingerprints whose nibbles make few other trigrams: chosen by counting every trigram of the
// Linux kernel, node_modules and /usr/share (1.25 GB), where the prefilter names about 190,000
// places, one per 6.5 KB (the needles' own fingerprints alone: 75,000).
const needles: readonly Needle[] = [
  { text: 'xox', rule: 'slackToken', fingerprintAt: 0, bucket: 0 },
  { text: 'github_pat_', rule: 'githubToken', fingerprintAt: 4, bucket: 0 },
  { text: 'client-key-data', rule: 'kubeconfigKey', fingerprintAt: 9, bucket: 1 },
  { text: 'PuTTY-User-Key-File-', rule: 'puttyKey', fingerprintAt: 1, bucket: 1 },
  { text: 'AKIA', rule: 'awsAccessKey', fingerprintAt: 1, bucket: 2 },
  { text: 'pypi-AgEIcHlwaS5vcmc', rule: 'pypiToken', fingerprintAt: 6, bucket: 2 },
  { text: 'ghp_', rule: 'githubToken', fingerprintAt: 0, bucket: 3 },
  { text: 'ghs_', rule: 'githubToken', fingerprintAt: 0, bucket: 3 },
  { text: 'ghr_', rule: 'githubToken', fingerprintAt: 0, bucket: 3 },
  { text: 'ghu_', rule: 'githubToken', fingerprintAt: 0, bucket: 3 },
  { text: 'glpat-', rule: 'gitlabToken', fingerprintAt: 0, bucket: 3 },
  { text: 'sk-ant-', rule: 'anthropicKey', fingerprintAt: 1, bucket: 4 },
  { text: 'k_live_', rule: 'stripeKey', fingerprintAt: 0, bucket: 4 },
  { text: 'PRIVATE KEY', rule: 'privateKey', fingerprintAt: 6, bucket: 5 },
  { text: 'hooks.slack.com/', rule: 'slackWebhook', fingerprintAt: 5, bucket: 5 },
  { text: 'gho_', rule: 'githubToken', fingerprintAt: 0, bucket: 6 },
  { text: 'npm_', rule: 'npmToken', fingerprintAt: 0, bucket: 6 },
  { text: 'T3BlbkFJ', rule: 'openaiKey', fingerprintAt: 1, bucket: 7 },
  { text: 'ASIA', rule: 'awsAccessKey', fingerprintAt: 1, bucket: 7 },
];

const fingerprints: Fingerprint[] = needles.map((needle) => ({ text: needle.text.slice(needle.fingerprintAt, needle.fingerprintAt + 3), bucket: needle.bucket }));

// ---- character classes ----

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function isUpper(code: number): boolean {
  return code >= 0x41 && code <= 0x5a;
}

function isLower(code: number): boolean {
  return code >= 0x61 && code <= 0x7a;
}

function isAlphanumeric(code: number): boolean {
  return isDigit(code) || isUpper(code) || isLower(code);
}

function isBase64(code: number): boolean {
  return isAlphanumeric(code) || code === 0x2b || code === 0x2f || code === 0x3d;
}

/** Whether the byte before `start` ends a word (a token's prefix must begin one). */
function atWordStart(text: string, start: number): boolean {
  if (start === 0) return true;
  const code = text.charCodeAt(start - 1);
  return !isAlphanumeric(code) && code !== 0x5f;
}

/**
 * Whether a token's body looks generated rather than typed: at least `kinds` of upper case,
 * lower case and digits, and many different characters (half its length, up to 12). A random
 * body of 20 base62 characters passes with near certainty; `XXXX…`, `0000…` and words do not.
 */
function looksRandom(body: string, kinds: number): boolean {
  let upper = 0;
  let lower = 0;
  let digit = 0;
  const seen = new Set<number>();
  for (let index = 0; index < body.length; index++) {
    const code = body.charCodeAt(index);
    if (isUpper(code)) upper = 1;
    else if (isLower(code)) lower = 1;
    else if (isDigit(code)) digit = 1;
    seen.add(code);
  }
  return upper + lower + digit >= kinds && seen.size >= Math.min(12, body.length / 2);
}

/** The sticky match of `pattern` at `start`, or undefined. */
function matchAt(pattern: RegExp, text: string, start: number): RegExpExecArray | undefined {
  pattern.lastIndex = start;
  return pattern.exec(text) ?? undefined;
}

// ---- rules: each is given the file as latin1 text and where its needle starts ----

const pemLabel = /^[A-Z0-9 ]*$/;
const pemHeaderTail = /PRIVATE KEY(?: BLOCK)?-----/y;
const armorHeader = /[A-Za-z][A-Za-z0-9-]*: /y;
/** Bytes a key's body is followed through, at most (a 16384-bit RSA key is about 12 KiB). */
const keyBodyLimit = 256 * 1024;
const keyBodyMinimum = 64;
const keyBodyDistinct = 16;

/**
 * `-----BEGIN <label> PRIVATE KEY-----` (or `PRIVATE KEY BLOCK`, PGP's), then optional armor
 * headers (`Proc-Type: …`, `Version: …`), then the base64 body, then `-----END`.
 */
function privateKey(text: string, start: number): boolean {
  // The label is short: the header is looked for in the 64 bytes before (never further back,
  // so that a file of many mentions costs time in proportion to its size).
  const from = Math.max(0, start - 64);
  const found = text.slice(from, start).lastIndexOf('-----BEGIN ');
  if (found < 0) return false;
  const begin = from + found;
  if (!pemLabel.test(text.slice(begin + 11, start))) return false;
  const tail = matchAt(pemHeaderTail, text, start);
  if (!tail) return false;
  return armoredBody(text, start + tail[0].length);
}

/**
 * Whether a key's body follows `from`: base64 characters, broken only by line breaks (real, or
 * `\n` and `\r` escapes inside a string literal), blanks, comment marks (`#`, `*`, `//` is
 * base64 anyway) and string-literal punctuation (quotes, `+`, `,`), up to `-----END`.
 */
function armoredBody(text: string, from: number): boolean {
  const limit = Math.min(text.length, from + keyBodyLimit);
  const seen = new Set<number>();
  let count = 0;
  let lineStart = true;
  for (let at = from; at < limit; ) {
    const code = text.charCodeAt(at);
    if (isBase64(code)) {
      if (lineStart && count === 0) {
        // An armor header line before the body: skipped to its end.
        const header = matchAt(armorHeader, text, at);
        if (header) {
          const newline = text.indexOf('\n', at);
          const escaped = text.indexOf('\\n', at);
          const end = Math.min(newline < 0 ? limit : newline, escaped < 0 ? limit : escaped);
          at = end;
          continue;
        }
      }
      count += 1;
      seen.add(code);
      lineStart = false;
      at += 1;
      continue;
    }
    switch (code) {
      case 0x0a: // \n
        lineStart = true;
        at += 1;
        continue;
      case 0x5c: {
        // a backslash: `\n` / `\r` escapes end a line, a lone one (a line continuation) is skipped
        const next = text.charCodeAt(at + 1);
        if (next === 0x6e || next === 0x72) {
          lineStart = true;
          at += 2;
        } else at += 1;
        continue;
      }
      case 0x2d: {
        // `-----END <label> PRIVATE KEY`: the end of the body; any other '-' is no key's.
        if (!text.startsWith('-----END ', at)) return false;
        const footer = text.slice(at, at + 64).indexOf('PRIVATE KEY');
        return footer >= 0 && pemLabel.test(text.slice(at + 9, at + footer)) && count >= keyBodyMinimum && seen.size >= keyBodyDistinct;
      }
      case 0x20: // space
      case 0x09: // tab
      case 0x0d: // \r
      case 0x22: // "
      case 0x27: // '
      case 0x60: // `
      case 0x2b: // +
      case 0x2c: // ,
      case 0x23: // #
      case 0x2a: // *
      case 0x3e: // > (a quoted mail)
        at += 1;
        continue;
      default:
        return false;
    }
  }
  return false;
}

const puttyHeader = /PuTTY-User-Key-File-\d+: [a-z0-9-]+/y;
const puttyPrivateLines = /Private-Lines: \d+(?:\r?\n|\\r?\\n)[A-Za-z0-9+/=]{16}/g;
/** How far after its header a PuTTY key's private lines may start (its public lines come first). */
const puttyKeyBytes = 64 * 1024;
/** Where the text last searched holds private lines (found once a file, however many headers). */
let puttyLines: { text: string; places: number[] } | undefined;

/** A PuTTY key file (.ppk): its header line, and private lines after it. */
function puttyKey(text: string, start: number): boolean {
  if (!matchAt(puttyHeader, text, start)) return false;
  if (puttyLines?.text !== text) puttyLines = { text, places: [...text.matchAll(puttyPrivateLines)].map((match) => match.index) };
  return puttyLines.places.some((place) => place > start && place < start + puttyKeyBytes);
}

const awsKeyId = /(?:AKIA|ASIA)[A-Z2-7]{16}(?![A-Za-z0-9])/y;
const awsSecret = /(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{40}(?![A-Za-z0-9+/=])/g;
const awsSecretDistance = 1024;
/** Where the text last searched holds secret-access-key-shaped strings (found once a file). */
let awsSecrets: { text: string; places: number[] } | undefined;

/** An AWS access key id (long-term `AKIA`, temporary `ASIA`) with a secret access key near it. */
function awsAccessKey(text: string, start: number): boolean {
  if (!atWordStart(text, start)) return false;
  const id = matchAt(awsKeyId, text, start);
  if (!id || id[0].includes('EXAMPLE')) return false;
  if (awsSecrets?.text !== text) {
    const places: number[] = [];
    for (const match of text.matchAll(awsSecret)) if (looksRandom(match[0], 3) && !match[0].includes('EXAMPLE')) places.push(match.index);
    awsSecrets = { text, places };
  }
  return awsSecrets.places.some((place) => place > start - awsSecretDistance - 40 && place < start + id[0].length + awsSecretDistance);
}

const githubClassic = /gh[pousr]_([A-Za-z0-9]{36})(?![A-Za-z0-9_])/y;
const githubFineGrained = /github_pat_[A-Za-z0-9]{22}_([A-Za-z0-9]{59})(?![A-Za-z0-9_])/y;

/** GitHub's tokens: classic (`ghp_` and its kin, 36 characters) and fine-grained (`github_pat_`). */
function githubToken(text: string, start: number): boolean {
  if (!atWordStart(text, start)) return false;
  const token = matchAt(text.startsWith('github_pat_', start) ? githubFineGrained : githubClassic, text, start);
  return token !== undefined && looksRandom(token[1]!, 3);
}

const slack = /xox[abeoprs]-[0-9]{6,}-(?:[0-9A-Za-z]+-){0,3}([0-9A-Za-z]{16,})/y;

/** Slack's bot, user and app tokens (`xoxb-<team>-<id>-<secret>`). */
function slackToken(text: string, start: number): boolean {
  if (!atWordStart(text, start)) return false;
  const token = matchAt(slack, text, start);
  return token !== undefined && looksRandom(token[1]!, 2);
}

const slackHook = /hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Z0-9]{8,}\/[A-Za-z0-9]{8,}\/([A-Za-z0-9]{16,})/y;

/** A Slack incoming webhook's URL (whoever holds it can post to the channel). */
function slackWebhook(text: string, start: number): boolean {
  const hook = matchAt(slackHook, text, start);
  return hook !== undefined && looksRandom(hook[1]!, 2);
}

const stripe = /k_live_([0-9A-Za-z]{20,})(?![0-9A-Za-z])/y;

/** Stripe's live secret and restricted keys (`sk_live_`, `rk_live_`; test keys are harmless). */
function stripeKey(text: string, start: number): boolean {
  if (start === 0 || (text[start - 1] !== 's' && text[start - 1] !== 'r') || !atWordStart(text, start - 1)) return false;
  const key = matchAt(stripe, text, start);
  return key !== undefined && looksRandom(key[1]!, key[1]!.length >= 30 ? 3 : 2);
}

const gitlab = /glpat-([0-9A-Za-z_-]{20,})(?![0-9A-Za-z_-])/y;

function gitlabToken(text: string, start: number): boolean {
  if (!atWordStart(text, start)) return false;
  const token = matchAt(gitlab, text, start);
  return token !== undefined && looksRandom(token[1]!, 2);
}

const npm = /npm_([A-Za-z0-9]{36})(?![A-Za-z0-9_])/y;

function npmToken(text: string, start: number): boolean {
  if (!atWordStart(text, start)) return false;
  const token = matchAt(npm, text, start);
  return token !== undefined && looksRandom(token[1]!, 3);
}

const pypi = /pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}/y;

/** A PyPI upload token (a macaroon whose first bytes name pypi.org). */
function pypiToken(text: string, start: number): boolean {
  return atWordStart(text, start) && matchAt(pypi, text, start) !== undefined;
}

const anthropic = /sk-ant-[a-z]{2,8}\d\d-([A-Za-z0-9_-]{80,})/y;

function anthropicKey(text: string, start: number): boolean {
  if (!atWordStart(text, start)) return false;
  const key = matchAt(anthropic, text, start);
  return key !== undefined && looksRandom(key[1]!, 3);
}

const openai = /^sk-[A-Za-z0-9_-]*T3BlbkFJ[A-Za-z0-9_-]{16,}$/;

function isTokenCharacter(code: number): boolean {
  return isAlphanumeric(code) || code === 0x5f || code === 0x2d;
}

/**
 * OpenAI's keys: `sk-…` with "OpenAI" in base64 (`T3BlbkFJ`) inside, at most 120 characters in
 * (about 80 in the keys issued now): the token around the needle, looked for that far only.
 */
function openaiKey(text: string, start: number): boolean {
  if (!text.slice(Math.max(0, start - 120), start).includes('sk-')) return false;
  let first = start;
  while (first > 0 && first > start - 120 && isTokenCharacter(text.charCodeAt(first - 1))) first -= 1;
  let end = start;
  while (end < text.length && end < start + 240 && isTokenCharacter(text.charCodeAt(end))) end += 1;
  const token = text.slice(first, end);
  return token.length >= 40 && openai.test(token) && looksRandom(token, 3);
}

const kubeconfig = /client-key-data["']?\s*:\s*["']?LS0tLS1CRUdJTi[A-Za-z0-9+/=]{60,}/y;

/** A kubeconfig's client key: a PEM private key in base64 (`LS0tLS1CRUdJTi` is `-----BEGIN`). */
function kubeconfigKey(text: string, start: number): boolean {
  return matchAt(kubeconfig, text, start) !== undefined;
}

const checks: Record<SecretRule, (text: string, start: number) => boolean> = {
  privateKey,
  puttyKey,
  awsAccessKey,
  githubToken,
  slackToken,
  slackWebhook,
  stripeKey,
  gitlabToken,
  npmToken,
  pypiToken,
  anthropicKey,
  openaiKey,
  kubeconfigKey,
};

// ---- the search ----

let prefilter: Prefilter | undefined;

/** The thread's prefilter, made on first use. */
function threadPrefilter(): Prefilter {
  prefilter ??= new Prefilter(fingerprints);
  return prefilter;
}

/**
 * A buffer of `size` bytes that `findSecret` scans without a copy (file-content.ts reads files
 * into it): the same memory each time, valid until the next call.
 */
export function secretScanArea(size: number): Buffer {
  return threadPrefilter().area(size);
}

/** Whether the prefilter runs by SIMD here (false: by Buffer.indexOf, slower). */
export function secretScanBySimd(): boolean {
  return threadPrefilter().simd;
}

/** The rule a file's bytes break, or undefined when they hold no secret it knows. */
export function findSecret(bytes: Uint8Array): SecretRule | undefined {
  let text: string | undefined;
  let found: SecretRule | undefined;
  threadPrefilter().visit(bytes, (place) => {
    const first = bytes[place]!;
    for (const needle of needles) {
      const start = place - needle.fingerprintAt;
      if (start < 0 || start + needle.text.length > bytes.length || needle.text.charCodeAt(needle.fingerprintAt) !== first) continue;
      let equal = true;
      for (let index = 0; index < needle.text.length && equal; index++) equal = bytes[start + index] === needle.text.charCodeAt(index);
      if (!equal) continue;
      text ??= Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
      if (checks[needle.rule](text, start)) {
        found = needle.rule;
        return true;
      }
    }
    return false;
  });
  return found;
}
