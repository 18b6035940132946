// 50 socket clients, 100 mixed requests each (status, grep, files, symbols, chunks), all in flight at
// once: every request is answered exactly once, on its own connection, with the answer the same
// request gets when asked alone (and, for grep, ripgrep's), so no answer crosses to another request.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, test } from 'node:test';
import type { ChunksResult, FilesResult, GrepResult, StatusResult, SymbolsResult } from '../../src/protocol/methods.js';
import { collectAnswers, reliabilityCorpus, ripgrep, ripgrepInstalled, standardProbe } from '../helpers/oracle-answers.js';
import { runSeed, SeededRandom } from '../helpers/seeded-random.js';
import { cleanupReliability, medianMax, startDaemon, type StrictClient, type WireMessage } from '../helpers/strict-client.js';

if (!ripgrepInstalled && process.env.CI) throw new Error('ripgrep is required in CI (apt-get install ripgrep)');

const seed = runSeed(5_050);
const clients = 50;
const requestsPerClient = 100;

after(cleanupReliability);

interface Question {
  method: string;
  params: Record<string, unknown>;
  /** The answer as a comparable string. */
  answer: (message: WireMessage) => string;
}

const failed = (message: WireMessage): string => `error ${message.error!.code}: ${message.error!.message}`;

test(
  `${clients} socket clients × ${requestsPerClient} mixed requests at once: every one answered, each with its own answer`,
  { skip: !ripgrepInstalled, timeout: 600_000 },
  async (t) => {
    const corpus = reliabilityCorpus('fathom-rel-concurrency-');
    const root = corpus.root;
    const random = new SeededRandom(seed);
    const daemon = await startDaemon({ transport: 'socket', label: 'concurrency daemon' });
    const { client: warm } = await daemon.connect('warm-up');
    const baseline = await collectAnswers(warm, root, standardProbe, { semantic: false });
    const files = baseline.files;

    // Distinct questions: words of the corpus for grep (checked against ripgrep), globs, symbol queries, files to chunk.
    const words = [
      ...new Set(
        spawnSync('rg', ['-o', '-N', '--no-filename', '--no-config', '\\b[A-Za-z][A-Za-z0-9_]{5,}\\b', '--', ...files], {
          cwd: root,
          encoding: 'utf8',
          maxBuffer: 64 << 20,
        })
          .stdout.split('\n')
          .filter(Boolean),
      ),
    ].sort();
    const questions: Question[] = [
      {
        method: 'fathom/status',
        params: { root },
        answer: (message) =>
          message.error
            ? failed(message)
            : ((workspace) => `${workspace.root} ${workspace.state} ${workspace.files} ${workspace.merkleRoot}`)(
                (message.result as StatusResult).workspaces[0]!,
              ),
      },
      ...random.sample(words, 40).map((word) => ({
        method: 'fathom/grep',
        params: { root, pattern: `\\b${word}\\b`, maxResults: 100_000 },
        answer: (message: WireMessage) =>
          message.error
            ? failed(message)
            : (message.result as GrepResult).matches
                .map((match) => `${match.path}:${match.line}`)
                .sort()
                .join(' '),
      })),
      ...['**/*.ts', 'src/**', '*.py', '!**/*.ts', 'app/**', 'samples/**/*.{c,go}', '**/sample.*', '*.md'].map((glob) => ({
        method: 'fathom/files',
        params: { root, glob },
        answer: (message: WireMessage) =>
          message.error ? failed(message) : `${(message.result as FilesResult).total} ${(message.result as FilesResult).files.join(' ')}`,
      })),
      ...['parse', 'Workspace', 'rR', 'walk', 'read', 'cache', 'Session', 'expire', 'hash', 'merkle'].map((query) => ({
        method: 'fathom/symbols',
        params: { root, query, limit: 40 },
        answer: (message: WireMessage) =>
          message.error
            ? failed(message)
            : (message.result as SymbolsResult).symbols.map((symbol) => `${symbol.name}@${symbol.path}:${symbol.range.start.line}`).join(' '),
      })),
      ...random
        .sample(
          files.filter((file) => /\.(ts|py|go|c|js|rs)$/.test(file)),
          12,
        )
        .map((path) => ({
          method: 'fathom/chunks',
          params: { root, path, includeText: false },
          answer: (message: WireMessage) =>
            message.error
              ? failed(message)
              : `${(message.result as ChunksResult).path} ${(message.result as ChunksResult).chunks.map((chunk) => `${chunk.startByte}-${chunk.endByte}`).join(',')}`,
        })),
    ];

    // Each question asked alone first: its answer is the expected one; grep's must also be ripgrep's.
    const expected = new Map<Question, string>();
    const problems: string[] = [];
    for (const question of questions) {
      const alone = question.answer(await warm.request(question.method, question.params, 120_000));
      expected.set(question, alone);
      if (question.method === 'fathom/grep' && alone !== ripgrep(root, files, question.params.pattern as string).join(' '))
        problems.push(`grep ${question.params.pattern as string} asked alone differs from ripgrep`);
    }

    const connections = await Promise.all(Array.from({ length: clients }, (_, index) => daemon.connect(`client ${index}`)));
    const latencies: number[] = [];
    const started = performance.now();
    await Promise.all(
      connections.map(async ({ client }: { client: StrictClient }, index) => {
        const mine = new SeededRandom(seed * 100 + index);
        const asked = Array.from({ length: requestsPerClient }, () => mine.pick(questions));
        await Promise.all(
          asked.map(async (question, turn) => {
            const sent = performance.now();
            const response = await client.request(question.method, question.params, 300_000).catch((error: Error) => error);
            if (response instanceof Error) {
              problems.push(`client ${index} request ${turn} (${question.method}): ${response.message}`);
              return;
            }
            latencies.push(performance.now() - sent);
            const answer = question.answer(response);
            if (answer !== expected.get(question))
              problems.push(
                `client ${index} request ${turn} (${question.method} ${JSON.stringify(question.params).slice(0, 120)}): answered ${answer.slice(0, 160)}, alone it answers ${expected.get(question)!.slice(0, 160)}`,
              );
          }),
        );
      }),
    );
    const elapsed = performance.now() - started;
    // Exactly one answer per request on each connection, none for another connection's ids.
    for (const [index, { client }] of connections.entries()) {
      const answers = client.received.filter((message) => message.method === undefined);
      const ids = answers.map((message) => message.id);
      if (answers.length !== requestsPerClient || new Set(ids).size !== requestsPerClient)
        problems.push(`client ${index}: ${answers.length} answers for ${requestsPerClient} requests (${new Set(ids).size} distinct ids)`);
      problems.push(...client.violations);
    }
    if (daemon.exit) problems.push(`the daemon exited: ${JSON.stringify(daemon.exit)} ${daemon.stderrTail()}`);
    const { median, max } = medianMax(latencies);
    t.diagnostic(
      `seed ${seed}: ${clients * requestsPerClient} requests (${questions.length} distinct) from ${clients} clients in ${Math.round(elapsed)} ms; ${latencies.length} answered; latency median ${Math.round(median)} ms, max ${Math.round(max)} ms; ${problems.length} problems`,
    );
    assert.deepEqual(problems.slice(0, 20), [], `seed ${seed}: ${problems.length} problems`);
  },
);
