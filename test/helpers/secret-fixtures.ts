// Secrets for tests, made at run time and never committed (a key or token in the repository would
// be one, and secret scanners would rightly flag it): files holding each kind of secret that
// src/workspace/secret-content.ts recognises, under names that say nothing; files that
// src/workspace/secrets.ts recognises by name; and near misses (code about keys, public keys,
// certificates, placeholders, documentation examples, names close to secret ones) that must stay
// indexed. Each secret carries a marker: text of the secret that must never be returned or stored.
import { generateKeyPairSync } from 'node:crypto';
import type { SecretRule } from '../../src/workspace/secret-content.js';
import { SeededRandom } from './seeded-random.js';

export interface SecretFile {
  path: string;
  text: string;
  /** The content rule that finds it; undefined: found by its name. */
  rule?: SecretRule;
  /** A piece of the secret (a key's body line, the token) that no answer or cache may hold. */
  marker: string;
}

export interface NearMiss {
  path: string;
  text: string;
  /** Text of the file a search must find (it is indexed). */
  marker: string;
}

/** Strings from a seeded generator (seeded-random.ts): the same every run, none of them in the repository. */
function generator(seed: number): (alphabet: string, length: number) => string {
  const random = new SeededRandom(seed);
  return (alphabet, length) => {
    let out = '';
    for (let index = 0; index < length; index++) out += alphabet[random.int(alphabet.length)];
    return out;
  };
}

const upper = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const lower = 'abcdefghijklmnopqrstuvwxyz';
const digits = '0123456789';
const base62 = upper + lower + digits;
const base64 = `${base62}+/`;

/** Joined at run time so that no prefix-and-body token stands in this file's source either. */
function token(...parts: string[]): string {
  return parts.join('');
}

function wrap(body: string, width: number): string {
  return body.match(new RegExp(`.{1,${width}}`, 'g'))!.join('\n');
}

/** A PEM block's second body line (the first may be a common ASN.1 prefix): its marker. */
function bodyLine(pem: string): string {
  return pem.split('\n').filter((line) => line !== '' && !line.startsWith('-----') && !line.includes(':'))[1]!;
}

export interface SecretFixtures {
  secrets: SecretFile[];
  nearMisses: NearMiss[];
}

export function secretFixtures(seed = 7): SecretFixtures {
  const random = generator(seed);
  const mixed = (length: number): string => `aZ7${random(base62, length - 3)}`;
  const rsa = generateKeyPairSync('rsa', {
    modulusLength: 1024,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const pkcs8 = generateKeyPairSync('rsa', {
    modulusLength: 1024,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const publicOnly = generateKeyPairSync('rsa', {
    modulusLength: 1024,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const ed25519 = generateKeyPairSync('ed25519', { privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  const ec = generateKeyPairSync('ec', {
    namedCurve: 'prime256v1',
    privateKeyEncoding: { type: 'sec1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const encrypted = generateKeyPairSync('ec', {
    namedCurve: 'prime256v1',
    privateKeyEncoding: { type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'test only' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const legacyEncrypted = generateKeyPairSync('rsa', {
    modulusLength: 1024,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem', cipher: 'aes-128-cbc', passphrase: 'test only' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const openssh = `-----BEGIN OPENSSH PRIVATE KEY-----\n${wrap(Buffer.concat([Buffer.from('openssh-key-v1\0'), Buffer.from(random(base62, 380))]).toString('base64'), 70)}\n-----END OPENSSH PRIVATE KEY-----\n`;
  const pgp = `-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\nComment: test only\n\n${wrap(random(base64, 900), 64)}\n=${random(base64, 4)}\n-----END PGP PRIVATE KEY BLOCK-----\n`;
  const puttyPrivate = random(base64, 64);
  const putty = `PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: test only\nPublic-Lines: 2\n${random(base64, 64)}\n${random(base64, 4)}\nPrivate-Lines: 1\n${puttyPrivate}\nPrivate-MAC: ${random('0123456789abcdef', 64)}\n`;
  const serviceAccount = JSON.stringify(
    {
      type: 'service_account',
      project_id: 'fathom-test',
      private_key_id: random('0123456789abcdef', 40),
      private_key: pkcs8.privateKey,
      client_email: 'fathom-test@fathom-test.iam.gserviceaccount.com',
      client_id: random(digits, 21),
      token_uri: 'https://oauth2.googleapis.com/token',
    },
    null,
    2,
  );
  const awsId = token('AK', 'IA', random('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16));
  const awsSecret = `aZ7/${random(base64, 36)}`;
  const github = token('gh', 'p_', mixed(36));
  const githubFine = token('github', '_pat_', `11${random(upper + digits, 20)}`, '_', mixed(59));
  const slack = token('xo', 'xb-', random(digits, 12), '-', random(digits, 13), '-', mixed(24));
  const slackHook = token('https://hooks.', 'slack.com/services/T', random(upper + digits, 10), '/B', random(upper + digits, 10), '/', mixed(24));
  const stripe = token('sk', '_live_', mixed(24));
  const gitlab = token('gl', 'pat-', mixed(20));
  const npm = token('np', 'm_', mixed(36));
  const pypi = token('pypi-AgEI', 'cHlwaS5vcmc', random(`${base62}_-`, 120));
  const anthropic = token('sk-ant-', 'api03-', mixed(93), 'AA');
  const openai = token('sk-proj-', mixed(74), 'T3Blbk', 'FJ', mixed(74));
  const kubeKey = Buffer.from(ec.privateKey).toString('base64');
  const javascriptLines = pkcs8.privateKey
    .trim()
    .split('\n')
    .map((line) => `  "${line}\\n"`)
    .join(' +\n');

  const secrets: SecretFile[] = [
    {
      path: 'src/keys.ts',
      rule: 'privateKey',
      marker: bodyLine(rsa.privateKey),
      text: `// A key someone pasted in.\nexport const key = \`${rsa.privateKey}\`;\n`,
    },
    { path: 'fixtures/ed25519.txt', rule: 'privateKey', marker: ed25519.privateKey.split('\n')[1]!, text: ed25519.privateKey },
    { path: 'config/tls.conf', rule: 'privateKey', marker: bodyLine(ec.privateKey), text: `server:\n  tls_key: |\n${ec.privateKey.replace(/^/gm, '    ')}\n` },
    { path: 'keys/encrypted.txt', rule: 'privateKey', marker: bodyLine(encrypted.privateKey), text: encrypted.privateKey },
    { path: 'keys/legacy.txt', rule: 'privateKey', marker: bodyLine(legacyEncrypted.privateKey), text: legacyEncrypted.privateKey },
    { path: 'home/ssh/github', rule: 'privateKey', marker: bodyLine(openssh), text: openssh },
    { path: 'keys/signing.txt', rule: 'privateKey', marker: bodyLine(pgp), text: pgp },
    { path: 'service-account.json', rule: 'privateKey', marker: bodyLine(pkcs8.privateKey), text: serviceAccount },
    { path: 'src/client.js', rule: 'privateKey', marker: bodyLine(pkcs8.privateKey), text: `const key =\n${javascriptLines};\nmodule.exports = { key };\n` },
    { path: 'notes/putty.txt', rule: 'puttyKey', marker: puttyPrivate, text: putty },
    {
      path: 'app/settings.py',
      rule: 'awsAccessKey',
      marker: awsSecret,
      text: `AWS_ACCESS_KEY_ID = "${awsId}"\nAWS_SECRET_ACCESS_KEY = "${awsSecret}"\nREGION = "eu-west-1"\n`,
    },
    { path: 'scripts/deploy.sh', rule: 'githubToken', marker: github, text: `#!/bin/sh\nexport GITHUB_TOKEN=${github}\ngit push\n` },
    { path: 'ci/release.yml', rule: 'githubToken', marker: githubFine, text: `env:\n  TOKEN: ${githubFine}\n` },
    { path: 'bot/config.js', rule: 'slackToken', marker: slack, text: `module.exports = { token: '${slack}' };\n` },
    { path: 'notify.rb', rule: 'slackWebhook', marker: slackHook, text: `HOOK = "${slackHook}"\n` },
    { path: 'billing/stripe.ts', rule: 'stripeKey', marker: stripe, text: `export const stripe = new Stripe('${stripe}');\n` },
    { path: 'ci/gitlab.txt', rule: 'gitlabToken', marker: gitlab, text: `token=${gitlab}\n` },
    { path: 'publish.sh', rule: 'npmToken', marker: npm, text: `NPM_TOKEN=${npm} npm publish\n` },
    { path: 'upload.cfg', rule: 'pypiToken', marker: pypi, text: `[pypi]\npassword = ${pypi}\n` },
    { path: 'agent.py', rule: 'anthropicKey', marker: anthropic, text: `client = Anthropic(api_key="${anthropic}")\n` },
    { path: 'src/openai.ts', rule: 'openaiKey', marker: openai, text: `const openai = new OpenAI({ apiKey: '${openai}' });\n` },
    {
      path: 'deploy/cluster.yaml',
      rule: 'kubeconfigKey',
      marker: kubeKey.slice(40, 100),
      text: `users:\n- name: admin\n  user:\n    client-certificate-data: ${random(base64, 80)}\n    client-key-data: ${kubeKey}\n`,
    },
    // By name: the content says nothing a rule knows.
    ...[
      '.envrc',
      'key.ppk',
      'config/deploy_key',
      'keys/github_ed25519',
      'etc/ssh/ssh_host_ed25519_key',
      'AuthKey_ABC123.p8',
      'krb5.keytab',
      '.s3cfg',
      '.boto',
      '.my.cnf',
      '.vault-token',
      '.cargo/credentials.toml',
      '.aws/credentials',
      'terraform.tfstate',
      'prod.tfstate.backup',
      'kubeconfig',
      'dev.kubeconfig',
      'home/.kube/config',
      'home/.docker/config.json',
      'home/.config/gh/hosts.yml',
      '.terraformrc',
      '.streamlit/secrets.toml',
    ].map((path, index) => {
      const marker = `named-secret-${index}-${random(lower, 12)}`;
      return { path, marker, text: `value = "${marker}"\n` };
    }),
  ];

  const near = (path: string, text: string, marker: string): NearMiss => ({ path, text, marker });
  const nearMisses: NearMiss[] = [
    near(
      'src/pem.ts',
      `// Reads PEM blocks.\nconst header = '-----BEGIN RSA PRIVATE KEY-----';\nconst footer = '-----END RSA PRIVATE KEY-----';\nexport function isKey(text: string) { return text.includes(header) && text.includes(footer); }\n`,
      'export function isKey',
    ),
    near(
      'docs/keys.md',
      `Paste your key:\n\n    -----BEGIN RSA PRIVATE KEY-----\n    MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi...\n    -----END RSA PRIVATE KEY-----\n\nor \`-----BEGIN OPENSSH PRIVATE KEY-----\` <your key here> \`-----END OPENSSH PRIVATE KEY-----\`.\n`,
      'Paste your key',
    ),
    near('docs/placeholder.md', `-----BEGIN RSA PRIVATE KEY-----\n${'X'.repeat(64)}\n${'X'.repeat(64)}\n-----END RSA PRIVATE KEY-----\n`, 'X'.repeat(64)),
    // Another pair's public key: a key pair's public half shares bytes with its private one.
    near('keys/public.txt', publicOnly.publicKey, bodyLine(publicOnly.publicKey)),
    near('certs/server.crt', `-----BEGIN CERTIFICATE-----\n${wrap(random(base64, 600), 64)}\n-----END CERTIFICATE-----\n`, 'BEGIN CERTIFICATE'),
    near('keys/deploy_rsa.pub', `ssh-rsa AAAAB3NzaC1yc2E${random(base64, 300)} deploy@example\n`, 'deploy@example'),
    near('keys/github_ed25519.pub', `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5${random(base64, 43)} me@example\n`, 'me@example'),
    near(
      'release.tar.gz.asc',
      `-----BEGIN PGP SIGNATURE-----\n\n${wrap(random(base64, 300), 64)}\n=${random(base64, 4)}\n-----END PGP SIGNATURE-----\n`,
      'BEGIN PGP SIGNATURE',
    ),
    near(
      'docs/aws.md',
      `Example: aws_access_key_id = ${token('AKIA', 'IOSFODNN7EXAMPLE')}\naws_secret_access_key = ${token('wJalrXUtnFEMI/K7MDENG/', 'bPxRfiCYEXAMPLEKEY')}\n`,
      'Example: aws_access_key_id',
    ),
    near(
      'src/aws.ts',
      `// The key id alone names a key; it does not open anything.\nexport const keyId = '${token('AK', 'IA', random('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16))}';\n`,
      'The key id alone',
    ),
    near(
      'src/tokens.ts',
      `export const isGitHub = (token: string) => token.startsWith('ghp_') || token.startsWith('github_pat_');\nexport const placeholder = '${token('gh', 'p_', 'X'.repeat(36))}';\nexport const slack = 'xoxb-your-token-here';\nexport const stripeTest = '${token('sk', '_test_', mixed(24))}';\nexport const stripeLive = 'sk_live_...';\nexport const npmVar = process.env.npm_config_registry;\n`,
      'export const isGitHub',
    ),
    near('app/config', 'verbose = true\n', 'verbose = true'),
    near('config.json', '{ "auths": {} }\n', '"auths"'),
    near('hosts.yml', 'all:\n  hosts: {}\n', 'hosts: {}'),
    near('k8s/service-account.yaml', 'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: builder\n', 'kind: ServiceAccount'),
    near('terraform.tfvars', 'region = "eu-west-1"\n', 'region = "eu-west-1"'),
    near('tools/generate_key.py', 'import secrets\nprint(secrets.token_hex(32))\n', 'token_hex'),
    near('keys/deploy_key.pub', `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5${random(base64, 43)} ci@example\n`, 'ci@example'),
    near('src/rsa.c', 'int rsa_sign(const unsigned char *digest);\n', 'rsa_sign'),
  ];
  return { secrets, nearMisses };
}
