// The file set against its oracle: on real git repositories (git init in a temp folder), what
// Fathom lists plus what it skipped for a reason must be exactly `git ls-files --cached --others
// --exclude-standard`; skip reasons are checked per case. Non-git folders have explicit expectations.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { git, gitInit, gitOracle, tempDir, writeFixture } from '../helpers/fixture.js';
import { secretFixtures } from '../helpers/secret-fixtures.js';
import { assertMatchesFreshScan, pool, quiesce, readyWorkspace } from '../helpers/workspace-harness.js';

/**
 * Folders nested so that the deepest listable one's absolute path is 4000 bytes long (fixtures are
 * made by tempDir, whose names have a fixed length): a 250-byte name in it, or a 200-byte folder,
 * is past Linux's PATH_MAX (4096 with the NUL); a short name is not.
 */
const fixtureRootLength = `${fs.realpathSync(os.tmpdir())}/fathom-test-XXXXXX`.length;
const deepFolders = [...Array.from({ length: Math.floor((4000 - fixtureRootLength) / 201) }, () => 'd'.repeat(200))];
deepFolders.push('e'.repeat(4000 - fixtureRootLength - deepFolders.length * 201 - 1));
const deepFolder = deepFolders.join('/');

/** Makes folders one level at a time (a shell's cd: no call names a path past PATH_MAX). */
function makeDeep(root: string, folders: string[], files: string[], subfolders: string[]): void {
  const script = [
    'set -e',
    `cd "${root}"`,
    ...folders.map((name) => `mkdir ${name} && cd ${name}`),
    ...files.map((name) => `echo x > ${name}`),
    ...subfolders.map((name) => `mkdir ${name} && echo y > ${name}/unseen.txt`),
  ].join('\n');
  execFileSync('sh', ['-c', script]);
}

interface Case {
  name: string;
  spec: string;
  git: boolean;
  /** Runs after the files are written (and after git init when git is true). */
  setup?: (root: string) => void;
  /** The root to index, relative to the fixture folder (default: the folder itself). */
  root?: string;
  /** Paths Fathom must skip, with the reason. */
  skipped?: Record<string, string>;
  /** For non-git cases (or to override the oracle): the exact expected file list. */
  files?: string[];
  /** Paths the oracle lists that .fathomignore removes. */
  fathomIgnored?: string[];
}

const secrets = secretFixtures();

function writeFiles(root: string, files: readonly { path: string; text: string }[]): void {
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(root, file.path)), { recursive: true });
    fs.writeFileSync(path.join(root, file.path), file.text);
  }
}

const cases: Case[] = [
  {
    name: 'nested .gitignore with negation at two levels',
    git: true,
    spec: `
      //- .gitignore
      *.log
      build/
      !keep.log
      //- keep.log
      //- app.log
      //- build/out.js
      //- src/a.ts
      export const a = 1;
      //- src/debug.log
      //- src/.gitignore
      generated/
      !important.log
      //- src/important.log
      //- src/generated/x.ts
      //- src/deep/er/b.ts
      //- src/deep/er/.gitignore
      /local-only.ts
      //- src/deep/er/local-only.ts
      //- src/local-only.ts
    `,
  },
  {
    name: 'info/exclude and core.excludesFile',
    git: true,
    spec: `
      //- src/a.ts
      //- secret-dir/notes.txt
      //- scratch.tmp
      //- src/more.tmp
      //- keep.txt
    `,
    setup: (root) => {
      fs.writeFileSync(path.join(root, '.git/info/exclude'), 'secret-dir/\n');
      const globalFile = path.join(root, '..', `${path.basename(root)}-global-ignore`);
      fs.writeFileSync(globalFile, '*.tmp\n');
      git(root, 'config', 'core.excludesFile', globalFile);
    },
  },
  {
    name: 'tracked files stay listed although ignored',
    git: true,
    spec: `
      //- .gitignore
      *.gen
      vendor/
      //- a.gen
      //- b.gen
      //- vendor/lib.js
      //- vendor/other.js
      //- src/main.ts
    `,
    setup: (root) => {
      git(root, 'add', '-f', 'a.gen', 'vendor/lib.js');
      git(root, 'commit', '-qm', 'tracked');
    },
  },
  {
    name: 'secrets, binaries and large files are skipped with their reason',
    git: true,
    spec: `
      //- .env
      //- .env.local
      //- config/.env.production
      //- server.pem
      //- tls/private.key
      //- id_rsa
      //- id_ed25519.pub
      //- .npmrc
      //- config/credentials.json
      //- .envrc
      //- key.ppk
      //- config/deploy_key
      //- home/.kube/config
      //- home/config
      //- keys/deploy_key.pub
      //- src/env.ts
      export const env = process.env;
    `,
    setup: (root) => {
      fs.writeFileSync(path.join(root, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13]));
      fs.writeFileSync(path.join(root, 'late-nul.txt'), Buffer.concat([Buffer.alloc(9000, 'a'), Buffer.from([0])]));
      fs.writeFileSync(path.join(root, 'big.txt'), Buffer.alloc(1024 * 1024 + 1, 'x'));
      fs.writeFileSync(path.join(root, 'exactly-limit.txt'), Buffer.alloc(1024 * 1024, 'y'));
      fs.writeFileSync(path.join(root, 'empty.txt'), '');
    },
    skipped: {
      '.env': 'secret',
      '.env.local': 'secret',
      'config/.env.production': 'secret',
      'server.pem': 'secret',
      'tls/private.key': 'secret',
      id_rsa: 'secret',
      'id_ed25519.pub': 'secret',
      '.npmrc': 'secret',
      'config/credentials.json': 'secret',
      '.envrc': 'secret',
      'key.ppk': 'secret',
      'config/deploy_key': 'secret',
      'home/.kube/config': 'secret',
      'logo.png': 'binary',
      'big.txt': 'tooLarge',
    },
  },
  {
    // Every kind of secret-content.ts finds, under names that say nothing, and every name
    // secrets.ts adds (test/helpers/secret-fixtures.ts); near misses stay listed.
    name: 'secrets by content whatever the name, and by the names of keys and credential files; near misses stay',
    git: true,
    spec: `
      //- src/main.ts
      export {};
    `,
    setup: (root) => writeFiles(root, [...secrets.secrets, ...secrets.nearMisses]),
    skipped: Object.fromEntries(secrets.secrets.map((file) => [file.path, 'secret'])),
  },
  {
    name: 'symbolic links are not followed (as ripgrep): each is skipped with where it points',
    git: true,
    spec: `
      //- src/real.ts
      export const real = true;
      //- docs/readme.md
    `,
    setup: (root) => {
      fs.symlinkSync('src/real.ts', path.join(root, 'link-in.ts'));
      fs.symlinkSync('/etc/hostname', path.join(root, 'link-out'));
      fs.symlinkSync('docs', path.join(root, 'link-dir'));
      fs.symlinkSync('nowhere.ts', path.join(root, 'link-broken.ts'));
    },
    skipped: { 'link-in.ts': 'symlink', 'link-out': 'symlinkOutside', 'link-dir': 'symlinkDir', 'link-broken.ts': 'brokenSymlink' },
  },
  {
    name: 'a nested repository is not part of the workspace',
    git: true,
    spec: `
      //- src/a.ts
      //- nested/x.ts
    `,
    setup: (root) => gitInit(path.join(root, 'nested')),
    skipped: { nested: 'nestedRepository' },
  },
  {
    name: "a root below the top level applies the parent folders' .gitignore",
    git: true,
    spec: `
      //- .gitignore
      *.o
      /sub/skip-me/
      //- sub/a.c
      //- sub/a.o
      //- sub/skip-me/x.c
      //- sub/deeper/b.c
      //- other/c.c
    `,
    root: 'sub',
  },
  {
    name: '.fathomignore removes files git would show, with its own negation',
    git: true,
    spec: `
      //- .fathomignore
      docs/
      *.snap
      !keep.snap
      //- docs/guide.md
      //- src/a.ts
      //- src/a.test.ts.snap
      //- src/keep.snap
      //- src/.fathomignore
      fixtures/
      //- src/fixtures/big.json
    `,
    fathomIgnored: ['docs/guide.md', 'src/a.test.ts.snap', 'src/fixtures/big.json'],
  },
  {
    name: 'outside git, .gitignore is not applied but .fathomignore is',
    git: false,
    spec: `
      //- .gitignore
      /*
      !/debian/
      //- Makefile
      //- kernel/sched.c
      //- debian/rules
      //- .fathomignore
      *.orig
      //- kernel/sched.c.orig
      //- .git-not-a-repo.txt
    `,
    files: ['.fathomignore', '.git-not-a-repo.txt', '.gitignore', 'Makefile', 'debian/rules', 'kernel/sched.c'],
  },
  {
    name: 'patterns match case-sensitively, as git does',
    git: true,
    spec: `
      //- tools/perf/.gitignore
      perf
      //- tools/perf/perf
      //- tools/perf/scripts/Perf/Trace.pm
      //- Build/out.txt
      //- .gitignore
      build/
    `,
  },
  {
    name: 'below a git-ignored folder only tracked files count, whatever deeper rules say',
    git: true,
    spec: `
      //- .gitignore
      dir/
      //- dir/tracked.txt
      //- dir/.gitignore
      !u.txt
      //- dir/u.txt
      //- dir/sub/tracked-too.txt
      //- dir/sub/untracked.txt
      //- top.txt
    `,
    setup: (root) => {
      git(root, 'add', '-f', 'dir/tracked.txt', 'dir/sub/tracked-too.txt');
      git(root, 'commit', '-qm', 'tracked under an ignored folder');
    },
  },
  {
    name: 'names that are not valid UTF-8 are counted as unreadable, not lost silently',
    git: true,
    spec: `
      //- good.txt
    `,
    setup: (root) => fs.writeFileSync(Buffer.concat([Buffer.from(`${root}/bad-`), Buffer.from([0xff]), Buffer.from('.txt')]), 'x'),
    skipped: { 'bad-\uFFFD.txt': 'unreadable' },
  },
  {
    name: 'paths longer than the system can name are counted as pathTooLong (a file, and a folder once)',
    git: false,
    spec: `
      //- top.txt
    `,
    setup: (root) => makeDeep(root, deepFolders, ['ok.txt', 'f'.repeat(250)], ['g'.repeat(200)]),
    files: [`${deepFolder}/ok.txt`, 'top.txt'],
    skipped: { [`${deepFolder}/${'f'.repeat(250)}`]: 'pathTooLong', [`${deepFolder}/${'g'.repeat(200)}`]: 'pathTooLong' },
  },
  {
    name: 'unicode and spaces in names',
    git: true,
    spec: `
      //- src/naïve café.ts
      //- docs/日本語.md
      //- with space/file name.txt
    `,
    setup: (root) => git(root, 'config', 'core.quotepath', 'false'),
  },
];

after(() => pool.close());

for (const testCase of cases) {
  test(`file set: ${testCase.name}`, async () => {
    const folder = writeFixture(testCase.spec);
    if (testCase.git) gitInit(folder);
    testCase.setup?.(folder);
    const root = testCase.root ? path.join(folder, testCase.root) : folder;
    const workspace = await readyWorkspace(root);
    try {
      const files = workspace.files();
      const skippedByPath = new Map<string, string>();
      for (const [file, reason] of Object.entries(testCase.skipped ?? {})) {
        skippedByPath.set(file, reason);
        assert.ok(!files.includes(file), `${file} must be skipped (${reason}) but is listed`);
      }
      const counts: Record<string, number> = {};
      for (const reason of skippedByPath.values()) counts[reason] = (counts[reason] ?? 0) + 1;
      const { ignored: _ignored, ...reported } = workspace.status().skipped;
      assert.deepEqual(reported, counts, 'skip counts by reason');
      if (testCase.files) {
        assert.deepEqual(files, testCase.files);
        return;
      }
      const oracle = gitOracle(root);
      const fathomIgnored = new Set(testCase.fathomIgnored ?? []);
      const expected = oracle.filter(
        (file) => !skippedByPath.has(file) && !fathomIgnored.has(file) && ![...skippedByPath.keys()].some((skipped) => file.startsWith(`${skipped}/`)),
      );
      assert.deepEqual(files, expected, 'files = git ls-files minus skipped');
      // Every skip stands for a file git shows (a nested repository is a folder git shows as one entry).
      for (const file of [...skippedByPath.keys(), ...fathomIgnored]) {
        if (skippedByPath.get(file) !== 'nestedRepository') assert.ok(oracle.includes(file), `the oracle lists ${file}`);
      }
    } finally {
      await workspace.close();
    }
  });
}

test('file set: a path too long made while watched is counted as pathTooLong; the watcher stays whole', async () => {
  const root = writeFixture(`
    //- top.txt
  `);
  makeDeep(root, deepFolders, ['ok.txt'], []);
  const workspace = await readyWorkspace(root);
  try {
    assert.deepEqual(workspace.status().skipped, {});
    execFileSync('sh', ['-c', `cd "${root}" && cd ${deepFolders.join(' && cd ')} && echo x > ${'f'.repeat(250)} && mkdir ${'g'.repeat(200)}`]);
    await quiesce(workspace);
    assert.deepEqual(workspace.files(), [`${deepFolder}/ok.txt`, 'top.txt']);
    assert.deepEqual(workspace.status().skipped, { pathTooLong: 2 });
    assert.equal(workspace.status().watcher.state, 'watching');
  } finally {
    await workspace.close();
  }
});

test('file set: a linked worktree reads info/exclude from the main repository', async () => {
  const main = writeFixture(`
    //- a.txt
  `);
  gitInit(main);
  git(main, 'add', '-A');
  git(main, 'commit', '-qm', 'base');
  const worktree = path.join(tempDir(), 'wt');
  git(main, 'worktree', 'add', '-q', worktree);
  fs.writeFileSync(path.join(main, '.git/info/exclude'), '*.secretlog\n');
  fs.writeFileSync(path.join(worktree, 'b.secretlog'), 'x');
  fs.writeFileSync(path.join(worktree, 'c.txt'), 'x');
  const workspace = await readyWorkspace(worktree);
  try {
    assert.deepEqual(workspace.files(), gitOracle(worktree));
    assert.deepEqual(workspace.files(), ['a.txt', 'c.txt']);
  } finally {
    await workspace.close();
  }
});

test('file set: a configurable size limit; a restart judges skipped files afresh', async () => {
  const root = tempDir();
  const cacheDir = path.join(tempDir('fathom-cache-'), 'ws');
  fs.writeFileSync(path.join(root, 'small.txt'), 'x'.repeat(100));
  fs.writeFileSync(path.join(root, 'medium.txt'), 'x'.repeat(2000));
  fs.writeFileSync(path.join(root, 'large.txt'), 'y'.repeat(3000));
  const workspace = await readyWorkspace(root, { maxFileBytes: 1000, cacheDir });
  try {
    assert.deepEqual(workspace.files(), ['small.txt']);
    assert.deepEqual(workspace.status().skipped, { tooLarge: 2 });
  } finally {
    await workspace.close();
  }
  // While no daemon ran: one skipped file shrank, another was moved over a known file's name.
  fs.writeFileSync(path.join(root, 'medium.txt'), 'x'.repeat(500));
  fs.renameSync(path.join(root, 'large.txt'), path.join(root, 'small.txt'));
  const again = await readyWorkspace(root, { maxFileBytes: 1000, cacheDir });
  try {
    assert.deepEqual(again.files(), ['medium.txt']);
    assert.deepEqual(again.status().skipped, { tooLarge: 1 });
    assert.equal(again.status().lastScan?.kind, 'restart');
  } finally {
    await again.close();
  }
});

test('file set: a file edited to hold a key leaves the file set, and comes back when the key is gone; a new file holding a token never enters', async () => {
  const root = writeFixture(`
    //- src/a.ts
    export const a = 1;
    //- src/b.ts
    export const b = 2;
  `);
  const key = secrets.secrets.find((file) => file.path === 'fixtures/ed25519.txt')!.text;
  const token = secrets.secrets.find((file) => file.path === 'scripts/deploy.sh')!.text;
  const cacheDir = path.join(tempDir('fathom-cache-'), 'ws');
  const workspace = await readyWorkspace(root, { cacheDir });
  const added = new Set<string>();
  const removed = new Set<string>();
  workspace.onChanges((changes) => {
    for (const file of [...changes.added, ...changes.changed]) added.add(file);
    for (const file of changes.removed) removed.add(file);
  });
  try {
    fs.writeFileSync(path.join(root, 'src/a.ts'), `export const a = 1;\nconst pem = \`${key}\`;\n`);
    fs.writeFileSync(path.join(root, 'src/deploy.sh'), token);
    await quiesce(workspace);
    assert.deepEqual(workspace.files(), ['src/b.ts']);
    assert.deepEqual(workspace.status().skipped, { secret: 2 });
    assert.ok(removed.has('src/a.ts'), 'its removal was published');
    assert.ok(!added.has('src/a.ts') && !added.has('src/deploy.sh'), 'neither was ever published as present');
    await assertMatchesFreshScan(workspace);
    fs.writeFileSync(path.join(root, 'src/a.ts'), 'export const a = 3;\n');
    await quiesce(workspace);
    assert.deepEqual(workspace.files(), ['src/a.ts', 'src/b.ts']);
    assert.deepEqual(workspace.status().skipped, { secret: 1 });
    await assertMatchesFreshScan(workspace);
  } finally {
    await workspace.close();
  }
  // A restart from the cache reads the secret again and skips it again.
  const again = await readyWorkspace(root, { cacheDir });
  try {
    assert.equal(again.status().cache.loaded, 'valid');
    assert.deepEqual(again.files(), ['src/a.ts', 'src/b.ts']);
    assert.deepEqual(again.status().skipped, { secret: 1 });
  } finally {
    await again.close();
  }
});
