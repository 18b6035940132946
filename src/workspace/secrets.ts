// The files never indexed because they hold secrets: environment files, private keys and
// certificates, credential stores. Matched on the base name, case-insensitively, whatever the
// ignore rules say. Called by the scanner and by incremental updates.
import picomatch from 'picomatch';

export const defaultSecretPatterns: readonly string[] = [
  '.env',
  '.env.*',
  '*.env',
  '*.pem',
  '*.key',
  '*.p12',
  '*.pfx',
  '*.jks',
  '*.keystore',
  '*.kdbx',
  'id_rsa*',
  'id_dsa*',
  'id_ecdsa*',
  'id_ed25519*',
  '.netrc',
  '_netrc',
  '.pgpass',
  '.git-credentials',
  '.npmrc',
  '.pypirc',
  'credentials',
  'credentials.json',
  'secrets.json',
  'secrets.yaml',
  'secrets.yml',
  '.htpasswd',
];

export type SecretMatcher = (baseName: string) => boolean;

/** One regular expression for all patterns: tested on every file name, so one test, not 26. */
export function secretMatcher(patterns: readonly string[] = defaultSecretPatterns): SecretMatcher {
  const sources = patterns.map((pattern) => picomatch.makeRe(pattern, { dot: true, nocase: true }).source);
  const regex = new RegExp(sources.map((source) => `(?:${source})`).join('|'), 'i');
  return (baseName) => regex.test(baseName);
}
