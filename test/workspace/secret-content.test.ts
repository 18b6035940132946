// Secrets by content (src/workspace/secret-content.ts): one table of texts and the rule each must
// break (or none), from the fixtures of every kind and their near misses plus edge cases of each
// rule; the SIMD prefilter against the nibble tables it implements (random bytes, every offset)
// and against Buffer.indexOf; secrets across the prefilter's windows; the module embedded is the
// .wat compiled.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { findSecret, secretScanArea, secretScanBySimd, type SecretRule } from '../../src/workspace/secret-content.js';
import { Prefilter, windowBytes, type Fingerprint } from '../../src/workspace/secret-prefilter.js';
import { secretPrefilterModule } from '../../src/workspace/secret-prefilter-module.js';
import { secretFixtures } from '../helpers/secret-fixtures.js';

const fixtures = secretFixtures();
const byPath = new Map([...fixtures.secrets, ...fixtures.nearMisses].map((file) => [file.path, file.text]));
const join = (...parts: string[]): string => parts.join('');
const github = join('gh', 'p_', 'aZ7', 'q'.repeat(3), 'Wk29xLmPvB4nR8sT1uYcD6fG0hJ3kM');
const body64 = 'MC4CAQAwBQYDK2VwBCIEIH1xq9cXkR4mT8vWb2nLp0sZ3yJ6gD7fA5hE1iO9uKcB';

interface Case {
  name: string;
  text: string;
  expected: SecretRule | undefined;
}

const pem = (label: string, body: string, end = label): string => `-----BEGIN ${label}-----\n${body}\n-----END ${end}-----\n`;

const cases: Case[] = [
  ...fixtures.secrets.filter((file) => file.rule).map((file) => ({ name: `${file.rule}: ${file.path}`, text: file.text, expected: file.rule })),
  ...fixtures.nearMisses.map((file) => ({ name: `near miss: ${file.path}`, text: file.text, expected: undefined })),
  { name: 'the smallest key body (64 characters)', text: pem('PRIVATE KEY', body64), expected: 'privateKey' },
  { name: 'a body one character short', text: pem('PRIVATE KEY', body64.slice(1)), expected: undefined },
  { name: 'CRLF line ends', text: pem('PRIVATE KEY', body64).replace(/\n/g, '\r\n'), expected: 'privateKey' },
  { name: 'a body with an ellipsis', text: pem('PRIVATE KEY', `${body64.slice(0, 40)}...${body64.slice(40)}`), expected: undefined },
  { name: 'a body of one repeated character', text: pem('RSA PRIVATE KEY', 'A'.repeat(200)), expected: undefined },
  { name: 'no END line', text: `-----BEGIN PRIVATE KEY-----\n${body64}\n`, expected: undefined },
  { name: 'a lower-case label is no PEM label', text: pem('rsa PRIVATE KEY', body64), expected: undefined },
  { name: 'a public key', text: pem('PUBLIC KEY', body64), expected: undefined },
  { name: 'a key quoted in a mail or commented out', text: pem('PRIVATE KEY', body64).replace(/^/gm, '> '), expected: 'privateKey' },
  { name: 'a key in a shell comment', text: pem('PRIVATE KEY', body64).replace(/^/gm, '# '), expected: 'privateKey' },
  {
    name: 'header and footer as constants, code between',
    text: `const a = "-----BEGIN PRIVATE KEY-----";\nfunction parse(text) { return text; }\nconst b = "-----END PRIVATE KEY-----";\n`,
    expected: undefined,
  },
  { name: 'a key after a mention of one', text: `// PRIVATE KEY below\n${pem('PRIVATE KEY', body64)}`, expected: 'privateKey' },
  { name: 'a GitHub token', text: `token: ${github}\n`, expected: 'githubToken' },
  { name: 'a GitHub token inside a word', text: `token: x${github}\n`, expected: undefined },
  { name: 'a GitHub token one character long', text: `token: ${github}Q\n`, expected: undefined },
  { name: 'a GitHub token one character short', text: `token: ${github.slice(0, -1)}\n`, expected: undefined },
  { name: 'a GitHub token of lower case and digits only', text: `token: ${github.toLowerCase()}\n`, expected: undefined },
  { name: 'a token at the very start and end of the file', text: github, expected: 'githubToken' },
  { name: 'a needle cut by the end of the file', text: 'xx PRIVATE KE', expected: undefined },
  { name: 'an empty file', text: '', expected: undefined },
];

// An AWS key id with its secret near, and too far away.
{
  const settings = byPath.get('app/settings.py')!;
  const [id] = /AKIA[A-Z2-7]{16}/.exec(settings)!;
  const [secret] = /"([A-Za-z0-9+/]{40})"/.exec(settings.split('\n')[1]!)!.slice(1);
  cases.push(
    { name: 'an AWS key id with its secret 1 KiB away', text: `${id}\n${'#'.repeat(900)}\n${secret}\n`, expected: 'awsAccessKey' },
    { name: 'an AWS key id with its secret 2 KiB away', text: `${id}\n${'#'.repeat(2100)}\n${secret}\n`, expected: undefined },
    { name: 'an AWS key id with a hex digest', text: `${id}\n${'0123456789abcdef'.repeat(3).slice(0, 40)}\n`, expected: undefined },
    // Ids are base32 in AWS's own keys, but scanners (gitleaks, trufflehog) take any digit: so does Fathom.
    { name: 'an AWS key id with digits 0, 1, 8, 9, and its secret', text: `${id.slice(0, 16)}0189\n${secret}\n`, expected: 'awsAccessKey' },
  );
}

for (const testCase of cases) {
  test(`secret content: ${testCase.name}`, () => {
    assert.equal(findSecret(Buffer.from(testCase.text, 'utf8')), testCase.expected);
  });
}

test('secret content: a file of one needle repeated (1 MiB) takes time in proportion to its size, not its square', () => {
  const needles = [
    'PRIVATE KEY ',
    '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi\n',
    'PuTTY-User-Key-File-3: ssh-rsa\n',
    join('AK', 'IAABCDEFGHIJKLMNOP '),
    join('gh', 'p_'),
    'xoxb-123456789-',
    'T3BlbkFJ',
    join('sk', '_live_'),
    'hooks.slack.com/services/',
    'client-key-data: LS0tLS1CRUdJTi',
  ];
  for (const needle of needles) {
    const bytes = Buffer.from(needle.repeat(Math.ceil((1 << 20) / needle.length)), 'latin1');
    const started = performance.now();
    assert.equal(findSecret(bytes), undefined);
    // About 30 ms here; a scan whose checks looked back or ahead to the file's ends would take minutes.
    assert.ok(performance.now() - started < 2000, `${JSON.stringify(needle)}: ${Math.round(performance.now() - started)} ms`);
  }
});

test('secret content: the prefilter runs by SIMD here', () => {
  assert.ok(secretScanBySimd(), 'WebAssembly SIMD is missing: the scan would fall back to Buffer.indexOf');
});

test("secret content: found across the prefilter's windows, in bytes read elsewhere and in its area", () => {
  const key = pem('PRIVATE KEY', body64);
  for (const offset of [windowBytes - 8, windowBytes - 3, windowBytes - 2, windowBytes - 1, windowBytes, windowBytes + 1, 2 * windowBytes - 5]) {
    const text = Buffer.alloc(offset + key.length + 100, 0x20);
    // The needle 'PRIVATE KEY' starts 11 bytes in; its fingerprint 6 bytes later.
    text.write(key, offset - 17, 'latin1');
    assert.equal(findSecret(text), 'privateKey', `a key whose fingerprint is at ${offset}`);
    const token = Buffer.alloc(offset + 200, 0x20);
    token.write(github, offset - 1, 'latin1');
    assert.equal(findSecret(token), 'githubToken', `a token at ${offset - 1}`);
  }
  const area = secretScanArea(key.length + 10);
  area.fill(0x20);
  area.write(key, 5, 'latin1');
  assert.equal(findSecret(area), 'privateKey', 'in the area, scanned in place');
  assert.equal(findSecret(area.subarray(0, 20)), undefined, 'a view of the area that holds only the header');
});

/** Where the nibble tables put a fingerprint's start: what secret-prefilter.wat must answer. */
function oraclePlaces(bytes: Uint8Array, fingerprints: readonly Fingerprint[]): number[] {
  const tables = new Uint8Array(96);
  for (const { text, bucket } of fingerprints) {
    for (let index = 0; index < 3; index++) {
      const byte = text.charCodeAt(index);
      tables[32 * index + (byte & 15)]! |= 1 << bucket;
      tables[32 * index + 16 + (byte >> 4)]! |= 1 << bucket;
    }
  }
  const places: number[] = [];
  // Bytes past the end are zero here, and zero is in no table: a fingerprint needs its three bytes.
  const at = (index: number): number => (index < bytes.length ? bytes[index]! : 0);
  for (let place = 0; place < bytes.length; place++) {
    let buckets = 0xff;
    for (let index = 0; index < 3; index++) {
      const byte = at(place + index);
      buckets &= tables[32 * index + (byte & 15)]! & tables[32 * index + 16 + (byte >> 4)]!;
    }
    if (buckets !== 0) places.push(place);
  }
  return places;
}

function exactPlaces(bytes: Buffer, fingerprints: readonly Fingerprint[]): number[] {
  const places = new Set<number>();
  for (const { text } of fingerprints) for (let at = bytes.indexOf(text, 0, 'latin1'); at >= 0; at = bytes.indexOf(text, at + 1, 'latin1')) places.add(at);
  return [...places].sort((a, b) => a - b);
}

test('secret prefilter: SIMD names exactly the places its nibble tables imply, a superset of every fingerprint (random bytes, all lengths and offsets)', () => {
  const fingerprints: Fingerprint[] = [
    { text: 'E K', bucket: 0 },
    { text: 'gho', bucket: 1 },
    { text: 'ghp', bucket: 1 },
    { text: 'xox', bucket: 2 },
    { text: 'k_l', bucket: 7 },
  ];
  const simd = new Prefilter(fingerprints);
  const plain = new Prefilter(fingerprints, { simd: false });
  assert.ok(simd.simd && !plain.simd);
  // Bytes drawn mostly from the fingerprints' own, so that places are dense.
  const alphabet = Buffer.from('EK ghopxk_l\n\x80\xff', 'latin1');
  let seed = 12345;
  const next = (limit: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % limit;
  };
  for (let round = 0; round < 600; round++) {
    const length = next(200);
    const bytes = Buffer.alloc(length);
    for (let index = 0; index < length; index++) bytes[index] = alphabet[next(alphabet.length)]!;
    const seen: number[] = [];
    simd.visit(bytes, (place) => (seen.push(place), false));
    assert.deepEqual(seen, oraclePlaces(bytes, fingerprints), `round ${round}: ${bytes.toString('latin1')}`);
    const exact = exactPlaces(bytes, fingerprints);
    const fallback: number[] = [];
    plain.visit(bytes, (place) => (fallback.push(place), false));
    assert.deepEqual(fallback, exact, 'the fallback names exactly the fingerprints');
    for (const place of exact) assert.ok(seen.includes(place), `SIMD names fingerprint place ${place}`);
    // The same bytes in the area, at an odd offset: scanned in place, the same places.
    const area = simd.area(length + 7).subarray(7);
    bytes.copy(area);
    const inPlace: number[] = [];
    simd.visit(area.subarray(0, length), (place) => (inPlace.push(place), false));
    assert.deepEqual(inPlace, oraclePlaces(bytes, fingerprints), 'in place');
  }
  // A visit that answers true stops the search.
  const stopped: number[] = [];
  assert.equal(
    simd.visit(Buffer.from('ghp ghp ghp'), (place) => (stopped.push(place), true)),
    true,
  );
  assert.deepEqual(stopped, [0]);
});

test(
  'secret prefilter: the SIMD module embedded is secret-prefilter.wat compiled (when wat2wasm is installed)',
  { skip: spawnSync('wat2wasm', ['--version']).status !== 0 && 'wat2wasm (Debian wabt) is not installed' },
  () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-wasm-')), 'secret-prefilter.wasm');
    const source = fileURLToPath(new URL('../../../src/workspace/secret-prefilter.wat', import.meta.url));
    const result = spawnSync('wat2wasm', [source, '-o', out]);
    assert.equal(result.status, 0, result.stderr?.toString());
    assert.equal(fs.readFileSync(out).toString('base64'), secretPrefilterModule, 'run scripts/build-secret-prefilter.sh');
  },
);
