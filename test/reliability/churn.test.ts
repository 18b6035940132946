// Files created, edited, renamed and deleted (folders too), seeded, while 4 socket clients query:
// every query is answered (never an error), and once the watcher settles (a bounded wait, no
// fathom/index to help it) grep equals ripgrep over the files on disk, and the file list, status,
// Merkle root, symbols, structural and lexical search equal those of a fresh daemon on a fresh cache.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { sleep } from '../helpers/fixture.js';
import { answerDifferences, collectAnswers, reliabilityCorpus, ripgrepInstalled, standardProbe, withRipgrep, type Answers } from '../helpers/oracle-answers.js';
import { runSeed, SeededRandom } from '../helpers/seeded-random.js';
import { cleanupReliability, medianMax, startDaemon, type StrictClient } from '../helpers/strict-client.js';

if (!ripgrepInstalled && process.env.CI) throw new Error('ripgrep is required in CI (apt-get install ripgrep)');

const seed = runSeed(31_337);
const operations = 400;
const settleMs = 30_000;

after(cleanupReliability);

/** Every file below `root` outside .git, relative. */
function filesOnDisk(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === '.git') continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.push(path.relative(root, full));
    }
  };
  walk(root);
  return out;
}

const untouchable = new Set(['.gitignore', '.env', 'deploy/id_ed25519']);

/** One seeded change on disk; answers what it did. */
function churnOnce(root: string, random: SeededRandom, step: number): string {
  const files = filesOnDisk(root).filter((file) => !untouchable.has(file));
  const roll = random.int(100);
  const target = files.length > 0 ? random.pick(files) : undefined;
  const fresh = (): string =>
    path.join(
      random.pick(['src/workspace', 'src/base', 'app/src', 'churn', 'churn/deep/er', 'build']),
      `churned${step}.${random.pick(['ts', 'py', 'md', 'go'])}`,
    );
  const text = (): string =>
    `// churn step ${step}\nexport function churned${step}(value: number): number {\n  const scale${step} = ${step};\n  return value * scale${step}; // TODO churn\n}\n`;
  if (roll < 30 || !target) {
    const name = fresh();
    fs.mkdirSync(path.join(root, path.dirname(name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text());
    return `create ${name}`;
  }
  if (roll < 55) {
    if (random.chance(0.5)) fs.appendFileSync(path.join(root, target), `\nconst appended${step} = ${step}; // FIXME churn\n`);
    else fs.writeFileSync(path.join(root, target), text());
    return `edit ${target}`;
  }
  if (roll < 75) {
    const to = random.chance(0.5) ? path.join(path.dirname(target), `renamed${step}-${path.basename(target)}`) : fresh();
    fs.mkdirSync(path.join(root, path.dirname(to)), { recursive: true });
    fs.renameSync(path.join(root, target), path.join(root, to));
    return `rename ${target} → ${to}`;
  }
  if (roll < 92) {
    fs.rmSync(path.join(root, target));
    return `delete ${target}`;
  }
  // A whole folder: renamed, or deleted.
  const folders = [...new Set(files.map((file) => path.dirname(file)).filter((folder) => folder !== '.' && !folder.startsWith('deploy')))];
  if (folders.length === 0) return 'nothing';
  const folder = random.pick(folders);
  if (random.chance(0.6)) {
    const to = `${folder}-moved${step}`;
    fs.renameSync(path.join(root, folder), path.join(root, to));
    return `rename folder ${folder} → ${to}`;
  }
  fs.rmSync(path.join(root, folder), { recursive: true, force: true });
  return `delete folder ${folder}`;
}

/** skipped.ignored counts what the last full scan excluded (docs/protocol.md): it may lag changes by design. */
function comparable(answers: Answers): Answers {
  return { ...answers, status: answers.status.replace(/"ignored":\d+,?/, '') };
}

test(
  `churn: ${operations} creates, edits, renames and deletes while 4 clients query; then grep equals ripgrep and the Merkle root a fresh scan`,
  { skip: !ripgrepInstalled, timeout: 600_000 },
  async (t) => {
    const corpus = reliabilityCorpus('fathom-rel-churn-');
    const root = corpus.root;
    const random = new SeededRandom(seed);
    const daemon = await startDaemon({ transport: 'socket', label: 'churn daemon' });
    const { client: warm } = await daemon.connect('warm-up');
    await collectAnswers(warm, root, standardProbe, { semantic: false });

    const problems: string[] = [];
    const latencies: number[] = [];
    let churning = true;
    let queries = 0;
    const query = async (client: StrictClient, index: number): Promise<void> => {
      const mine = new SeededRandom(seed * 10 + index);
      while (churning) {
        const [method, params] = mine.pick<[string, Record<string, unknown>]>([
          ['fathom/grep', { root, pattern: mine.pick(standardProbe.grep), maxResults: 100_000 }],
          ['fathom/files', { root }],
          ['fathom/symbols', { root, query: mine.pick(standardProbe.symbols) }],
          ['fathom/status', { root }],
          ['fathom/merkle', { root }],
          ['fathom/codeSearch', { root, query: mine.pick(standardProbe.lexical), mode: 'lexical' }],
        ]);
        const sent = performance.now();
        const answer = await client.request(method, params, 60_000).catch((error: Error) => error);
        queries++;
        if (answer instanceof Error) problems.push(`client ${index}: ${method}: ${answer.message}`);
        else if (answer.error)
          problems.push(`client ${index}: ${method} ${JSON.stringify(params).slice(0, 100)} answered ${answer.error.code} ${answer.error.message}`);
        else latencies.push(performance.now() - sent);
      }
    };
    const clients = await Promise.all([0, 1, 2, 3].map((index) => daemon.connect(`querier ${index}`)));
    const querying = clients.map(({ client }, index) => query(client, index));
    const log: string[] = [];
    const began = performance.now();
    for (let step = 0; step < operations; step++) {
      log.push(churnOnce(root, random, step));
      await sleep(random.between(0, 40));
    }
    const churnMs = performance.now() - began;
    churning = false;
    await Promise.all(querying);

    // The disk is final: what a fresh daemon on a fresh cache answers now, and ripgrep.
    const fresh = await startDaemon({ transport: 'stdio', label: 'fresh scan' });
    const freshAnswers = await collectAnswers(fresh.stdio!, root, standardProbe, { semantic: false });
    await fresh.kill();
    const reference: Answers = comparable(withRipgrep(root, freshAnswers, standardProbe.grep));
    problems.push(...answerDifferences(comparable(freshAnswers), reference).map((difference) => `the fresh daemon itself: ${difference}`));

    // The churned daemon catches up by itself: poll until it agrees, at most settleMs.
    const settleStart = performance.now();
    let differences: string[] = ['not asked yet'];
    while (differences.length > 0 && performance.now() - settleStart < settleMs) {
      const answers = await collectAnswers(warm, root, standardProbe, { semantic: false }).catch((error: Error) => error);
      differences = answers instanceof Error ? [`no answers: ${answers.message}`] : answerDifferences(comparable(answers), reference);
      if (differences.length > 0) await sleep(500);
    }
    const settledMs = performance.now() - settleStart;
    if (daemon.exit) problems.push(`the daemon exited: ${JSON.stringify(daemon.exit)} ${daemon.stderrTail()}`);
    for (const { client } of clients) problems.push(...client.violations);
    const counts = new Map<string, number>();
    for (const entry of log) {
      const kind = entry
        .split(' ')
        .slice(0, / folder /.test(` ${entry} `) ? 2 : 1)
        .join(' ');
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
    }
    const { median, max } = medianMax(latencies);
    t.diagnostic(
      `seed ${seed}: ${operations} changes in ${Math.round(churnMs)} ms (${JSON.stringify(Object.fromEntries(counts))}); ${queries} queries during the churn (median ${Math.round(median)} ms, max ${Math.round(max)} ms); ${differences.length === 0 ? `agreed with the fresh scan and ripgrep ${Math.round(settledMs)} ms after the churn` : `still differed after ${settleMs} ms`}; ${reference.files.length} files at the end`,
    );
    assert.deepEqual(problems.slice(0, 20), [], `seed ${seed}: ${problems.length} problems during the churn`);
    assert.deepEqual(differences, [], `seed ${seed}: ${settleMs} ms after the churn the daemon still answers differently from a fresh scan / ripgrep`);
  },
);
