// The files never indexed because their name says they hold secrets: environment files, private
// keys and certificates, credential stores and tools' token files. Matched case-insensitively,
// whatever the ignore rules say: a pattern without a slash on the base name, one with a slash on
// the path's last segments at any depth (`.kube/config`, not every `config`). Called by the
// scanner and by incremental updates. Files whose *content* holds a key or a token are found by
// secret-content.ts, whatever their name.
//
// What is named, and why (a name here hides the file from every search, so each is a name that
// holds secrets by its purpose, not one that sometimes does):
// - environments: `.env*`, `*.env`, direnv's `.envrc` (exports, typically tokens).
// - keys and keystores: PEM and PKCS#8/#12 files (`*.pem`, `*.key`, `*.p8`, `*.p12`, `*.pfx`),
//   Java and KeePass stores, PuTTY keys (`*.ppk`), Kerberos keytabs, OpenSSH keys under their
//   default names (`id_*`) and the names people give them (`*_rsa`, `*_ed25519`, …,
//   `deploy_key`, host keys `ssh_host_*_key`; their `.pub` companions are public).
// - credential files of tools: netrc, pgpass, git-credentials, npmrc, pypirc, `credentials`
//   (AWS, gem), Cargo's `credentials.toml`, s3cmd's `.s3cfg`, boto's `.boto`, MySQL's `.my.cnf`,
//   Vault's `.vault-token`, Terraform CLI's `.terraformrc` and `credentials.tfrc.json`, Docker's
//   `.docker/config.json`, kubeconfigs, GitHub CLI's `gh/hosts.yml`, htpasswd files.
// - Terraform state (`*.tfstate`): every resource's attributes, generated passwords and keys
//   among them, in plain text.
// Left to the content rules on purpose: `*.asc` (mostly signatures and public keys; a private
// key block is found by its content), `service-account*.json` (also schemas and templates; a
// real one holds a private key), `*.tfvars` (configuration people search; tokens in it are found).
import picomatch from 'picomatch';

export const defaultSecretPatterns: readonly string[] = [
  '.env',
  '.env.*',
  '*.env',
  '.envrc',
  '*.pem',
  '*.key',
  '*.p8',
  '*.p12',
  '*.pfx',
  '*.jks',
  '*.keystore',
  '*.kdbx',
  '*.ppk',
  '*.keytab',
  'id_rsa*',
  'id_dsa*',
  'id_ecdsa*',
  'id_ed25519*',
  '*_rsa',
  '*_dsa',
  '*_ecdsa',
  '*_ed25519',
  '*_ecdsa_sk',
  '*_ed25519_sk',
  'deploy_key',
  'ssh_host_*_key',
  '.netrc',
  '_netrc',
  '.pgpass',
  '.git-credentials',
  '.npmrc',
  '.pypirc',
  'credentials',
  'credentials.json',
  'credentials.toml',
  'credentials.tfrc.json',
  '.terraformrc',
  'terraform.rc',
  '.s3cfg',
  '.boto',
  '.my.cnf',
  '.vault-token',
  'kubeconfig',
  '*.kubeconfig',
  '.kube/config',
  '.docker/config.json',
  'gh/hosts.yml',
  'secrets.json',
  'secrets.yaml',
  'secrets.yml',
  'secrets.toml',
  '*.tfstate',
  '*.tfstate.backup',
  '.htpasswd',
];

/** Whether a workspace-relative path names a secret. */
export type SecretMatcher = (relativePath: string) => boolean;

/**
 * One regular expression for the base-name patterns (tested on every file name, so one test,
 * not fifty); the path patterns only for the base names they end in.
 */
export function secretMatcher(patterns: readonly string[] = defaultSecretPatterns): SecretMatcher {
  const options = { dot: true, nocase: true };
  const join = (sources: string[]): RegExp | undefined =>
    sources.length === 0 ? undefined : new RegExp(sources.map((source) => `(?:${source})`).join('|'), 'i');
  const names = join(patterns.filter((pattern) => !pattern.includes('/')).map((pattern) => picomatch.makeRe(pattern, options).source));
  const pathPatterns = patterns.filter((pattern) => pattern.includes('/'));
  const paths = join(pathPatterns.map((pattern) => picomatch.makeRe(`**/${pattern}`, options).source));
  const pathEnds = new Set(pathPatterns.map((pattern) => pattern.slice(pattern.lastIndexOf('/') + 1).toLowerCase()));
  return (relativePath) => {
    const name = relativePath.slice(relativePath.lastIndexOf('/') + 1);
    if (names?.test(name)) return true;
    return paths !== undefined && pathEnds.has(name.toLowerCase()) && paths.test(relativePath);
  };
}
