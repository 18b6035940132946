// Benchmark of the file set and its Merkle tree (the engine's Workspace, no daemon), against the
// floors a user could get from standard tools on the same tree, in one run, warm page cache:
//   a. first full index (scan + hash + persist, then close) vs `sha256sum` of every file (-P2, -P1),
//      of the files Fathom reads (at most maxFileBytes; -P2), and a plain Node stat walk;
//   b. restart with nothing changed vs the stat walk, and on the git copy (`<corpus>-git`, made by
//      bench/corpora.sh) vs `git status --porcelain` there;
//   c. latency from a write until `onChanges` reports the path with the new hash: appends to (and
//      truncations back of) existing files, and a new file in a new nested folder (and its removal);
//   d. process memory after the first build.
// Prints a table and one `BENCH_JSON` line; ratios are fathom / peer (below 1: Fathom is faster).
//
// Usage: node dist/bench/merkle-bench.js [corpus] [gitCopy]
//   corpus   default $FATHOM_BENCH_DIR/linux (FATHOM_BENCH_DIR defaults to /tmp/fathom-bench)
//   gitCopy  default <corpus>-git when it exists; the git comparison is skipped without one
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HashPool } from '../src/workspace/hash-pool.js';
import { Workspace, type FileSetChanges, type WorkspaceStatusInfo } from '../src/workspace/workspace.js';

const maxFileBytes = 1024 * 1024;
const cheapRuns = 3;
const changedFiles = 10;
const newFolderRuns = 5;
const eventTimeoutMs = 5_000;
const goals = { firstBuildVsSha256: 1.5, restartVsStatWalk: 2, changeMs: 50 };

// ---- measuring ----

function median(values: readonly number[]): number {
  return percentile(values, 50);
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function timed<T>(work: () => T | Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

async function medianMs(runs: number, work: () => unknown): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) times.push((await timed(work)).ms);
  return median(times);
}

function ratio(fathomMs: number, peerMs: number): number {
  return Math.round((fathomMs / peerMs) * 100) / 100;
}

// ---- peers ----

interface WalkCount {
  files: number;
  symlinks: number;
  others: number;
  bytes: number;
}

/** The floor for any scan: list every folder and lstat every entry (skipping .git, as Fathom does). */
function statWalk(root: string): WalkCount {
  const count: WalkCount = { files: 0, symlinks: 0, others: 0, bytes: 0 };
  const stack = [root];
  while (stack.length > 0) {
    const folder = stack.pop()!;
    for (const name of fs.readdirSync(folder)) {
      if (name === '.git') continue;
      const entry = path.join(folder, name);
      const stat = fs.lstatSync(entry);
      if (stat.isDirectory()) stack.push(entry);
      else if (stat.isSymbolicLink()) count.symlinks += 1;
      else if (!stat.isFile()) count.others += 1;
      else {
        count.files += 1;
        count.bytes += stat.size;
      }
    }
  }
  return count;
}

function shell(command: string, cwd?: string): Buffer {
  const result = spawnSync('sh', ['-c', command], { cwd, stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 30 });
  if (result.status !== 0) throw new Error(`\`${command}\` exited with ${result.status ?? result.signal}`);
  return result.stdout;
}

function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** sha256sum of every regular file, or of those of at most `maxBytes` (find rounds sizes up to KiB). */
function sha256Command(root: string, processes: number, maxBytes?: number): string {
  const size = maxBytes === undefined ? '' : ` -size -${Math.floor(maxBytes / 1024) + 1}k`;
  return `find ${quote(root)} -type f${size} -print0 | xargs -0 -P${processes} sha256sum > /dev/null`;
}

// ---- Fathom ----

interface Opened {
  workspace: Workspace;
  readyMs: number;
  status: WorkspaceStatusInfo;
  /** Closes the workspace (returns the ms that took), then stops its hash workers. */
  close(): Promise<number>;
}

function newCacheDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-bench-cache-'));
}

/** From constructing the Workspace until it is ready (a first build, or a restart from `cacheDir`). */
async function openWorkspace(root: string, cacheDir: string): Promise<Opened> {
  const pool = new HashPool();
  const { ms, value: workspace } = await timed(async () => {
    const opening = new Workspace({ root, cacheDir, maxFileBytes, reconcileIntervalMs: 0, pool });
    await opening.whenReady();
    return opening;
  });
  const close = async (): Promise<number> => {
    const closeMs = (await timed(() => workspace.close())).ms;
    pool.close();
    return closeMs;
  };
  return { workspace, readyMs: ms, status: workspace.status(), close };
}

interface FirstBuild {
  readyMs: number;
  closeMs: number;
  status: WorkspaceStatusInfo;
  memory: { rssMB: number; heapUsedMB: number; peakRssMB: number };
}

async function firstBuild(root: string, cacheDir: string): Promise<FirstBuild> {
  const opened = await openWorkspace(root, cacheDir);
  const usage = process.memoryUsage();
  const memory = { rssMB: mb(usage.rss), heapUsedMB: mb(usage.heapUsed), peakRssMB: mb(process.resourceUsage().maxRSS * 1024) };
  return { readyMs: opened.readyMs, closeMs: await opened.close(), status: opened.status, memory };
}

interface Restart {
  readyMs: number;
  closeMs: number;
  status: WorkspaceStatusInfo;
}

/** Median of `cheapRuns` restarts on a valid cache; the last run's status. */
async function restarts(root: string, cacheDir: string): Promise<Restart> {
  const ready: number[] = [];
  const close: number[] = [];
  let status: WorkspaceStatusInfo | undefined;
  for (let run = 0; run < cheapRuns; run++) {
    const opened = await openWorkspace(root, cacheDir);
    ready.push(opened.readyMs);
    close.push(await opened.close());
    status = opened.status;
  }
  return { readyMs: median(ready), closeMs: median(close), status: status! };
}

/**
 * Runs `write` and resolves with the ms until `onChanges` reports `relativePath` in `list` and the
 * tree holds `expectedHash` there (null: the path is gone); undefined when that never happens.
 */
function changeLatency(
  workspace: Workspace,
  relativePath: string,
  list: keyof FileSetChanges,
  expectedHash: string | null,
  write: () => void,
): Promise<number | undefined> {
  return new Promise((resolve) => {
    const started = performance.now();
    const finish = (ms: number | undefined): void => {
      clearTimeout(timer);
      subscription.dispose();
      resolve(ms);
    };
    const subscription = workspace.onChanges((changes) => {
      if (changes[list].includes(relativePath) && workspace.merkleAt(relativePath).hash === expectedHash) finish(performance.now() - started);
    });
    const timer = setTimeout(() => finish(undefined), eventTimeoutMs);
    write();
  });
}

interface Latencies {
  times: number[];
  missed: number;
}

function record(latencies: Latencies, ms: number | undefined): void {
  if (ms === undefined) latencies.missed += 1;
  else latencies.times.push(ms);
}

/** Evenly spaced files of the set, so the edits land in different folders. */
function sampleFiles(workspace: Workspace, count: number): string[] {
  const files = workspace.files();
  return Array.from({ length: count }, (_, index) => files[Math.floor(((index + 0.5) * files.length) / count)]!);
}

function sha256(content: Buffer | string): string {
  return createHash('sha256').update(content).digest('hex');
}

/** Appends a line to each sample file, then truncates it back (restoring its mtime): two latencies per file. */
async function fileChangeLatencies(workspace: Workspace): Promise<Latencies> {
  const latencies: Latencies = { times: [], missed: 0 };
  for (const relativePath of sampleFiles(workspace, changedFiles)) {
    const absolutePath = path.join(workspace.root, relativePath);
    const original = fs.readFileSync(absolutePath);
    const { atime, mtime } = fs.statSync(absolutePath);
    const line = '\n/* fathom-bench */\n';
    const appendedHash = sha256(Buffer.concat([original, Buffer.from(line)]));
    record(latencies, await changeLatency(workspace, relativePath, 'changed', appendedHash, () => fs.appendFileSync(absolutePath, line)));
    record(latencies, await changeLatency(workspace, relativePath, 'changed', sha256(original), () => fs.truncateSync(absolutePath, original.length)));
    fs.utimesSync(absolutePath, atime, mtime);
    await workspace.settle();
  }
  return latencies;
}

/** Creates `<new folder>/a/b/c/new.c` (one mkdir -p, one write), then removes the folder: latency of each. */
async function newFolderLatencies(workspace: Workspace): Promise<{ added: Latencies; removed: Latencies }> {
  const added: Latencies = { times: [], missed: 0 };
  const removed: Latencies = { times: [], missed: 0 };
  for (let run = 0; run < newFolderRuns; run++) {
    const top = `fathom-bench-new-${process.pid}-${run}`;
    const relativePath = `${top}/a/b/c/new.c`;
    const absolutePath = path.join(workspace.root, relativePath);
    const content = `int fathom_bench_${run};\n`;
    record(
      added,
      await changeLatency(workspace, relativePath, 'added', sha256(content), () => {
        fs.mkdirSync(path.dirname(absolutePath), { recursive: true });
        fs.writeFileSync(absolutePath, content);
      }),
    );
    record(removed, await changeLatency(workspace, relativePath, 'removed', null, () => fs.rmSync(path.join(workspace.root, top), { recursive: true })));
  }
  return { added, removed };
}

// ---- reporting ----

function mb(bytes: number): number {
  return Math.round(bytes / (1024 * 1024));
}

function summarize(latencies: Latencies): { medianMs: number; p90Ms: number; maxMs: number; runs: number; missed: number } {
  const round = (ms: number): number => Math.round(ms * 10) / 10;
  const { times, missed } = latencies;
  return { medianMs: round(median(times)), p90Ms: round(percentile(times, 90)), maxMs: round(Math.max(...times)), runs: times.length + missed, missed };
}

interface Row {
  step: string;
  fathomMs: number;
  peer: string;
  peerMs: number;
  goal?: number;
}

function goalText(row: Row): string {
  if (row.goal === undefined) return '';
  return `≤ ${row.goal}×  ${ratio(row.fathomMs, row.peerMs) <= row.goal ? 'met' : 'MISSED'}`;
}

function printTable(rows: readonly Row[]): void {
  const line = (step: string, fathom: string, peer: string, peerMs: string, ratioText: string, goal: string): string =>
    `${step.padEnd(32)} ${fathom.padStart(9)}   ${peer.padEnd(28)} ${peerMs.padStart(8)} ${ratioText.padStart(11)}   ${goal}`;
  console.log(line('step', 'fathom ms', 'peer', 'peer ms', 'fathom/peer', 'goal'));
  for (const row of rows) {
    console.log(line(row.step, row.fathomMs.toFixed(0), row.peer, row.peerMs.toFixed(0), ratio(row.fathomMs, row.peerMs).toFixed(2), goalText(row)));
  }
}

function printLatency(label: string, latencies: Latencies, goalMs?: number): void {
  const s = summarize(latencies);
  const verdict =
    goalMs === undefined
      ? ''
      : `   goal ≤ ${goalMs} ms: ${s.maxMs <= goalMs && s.missed === 0 ? 'met' : s.medianMs <= goalMs && s.missed === 0 ? 'met at the median' : 'MISSED'}`;
  console.log(`${label.padEnd(44)} median ${s.medianMs} ms  p90 ${s.p90Ms} ms  max ${s.maxMs} ms  (${s.runs} runs, ${s.missed} missed)${verdict}`);
}

function describe(status: WorkspaceStatusInfo): string {
  return `${status.files} files, ${mb(status.bytes)} MB in the set; skipped ${JSON.stringify(status.skipped)}; git ${status.git}`;
}

function describeScan(status: WorkspaceStatusInfo): string {
  const scan = status.lastScan;
  return scan ? `${scan.kind}: scan ${scan.durationMs} ms, ${scan.hashed} hashed, ${scan.reused} reused` : 'no scan';
}

/** How many paths the set accounts for (in it or skipped for a reason other than ignore rules). */
function accounted(status: WorkspaceStatusInfo): number {
  const { ignored: _ignored, ...skipped } = status.skipped;
  return status.files + Object.values(skipped).reduce((sum, count) => sum + (count ?? 0), 0);
}

function checkRestart(label: string, status: WorkspaceStatusInfo, anomalies: string[]): void {
  const scan = status.lastScan;
  if (scan?.kind !== 'restart' || scan.hashed !== 0) anomalies.push(`${label}: expected a restart with 0 hashed, got ${describeScan(status)}`);
}

// ---- the run ----

interface Peers {
  walk: WalkCount;
  statWalkMs: number;
  sha256P2Ms: number;
  sha256P1Ms: number;
  sha256ReadP2Ms: number;
}

/** The standard tools on the corpus, after warming the page cache (metadata and content). */
async function measurePeers(root: string): Promise<Peers> {
  const walk = statWalk(root);
  shell(sha256Command(root, 2));
  return {
    walk,
    statWalkMs: await medianMs(cheapRuns, () => statWalk(root)),
    sha256P2Ms: await medianMs(cheapRuns, () => shell(sha256Command(root, 2))),
    sha256P1Ms: await medianMs(cheapRuns, () => shell(sha256Command(root, 1))),
    sha256ReadP2Ms: await medianMs(cheapRuns, () => shell(sha256Command(root, 2, maxFileBytes))),
  };
}

interface FathomSide {
  build: FirstBuild;
  restart: Restart;
  change: Latencies;
  folder: { added: Latencies; removed: Latencies };
}

async function measureFathom(root: string, anomalies: string[]): Promise<FathomSide> {
  const cacheDir = newCacheDir();
  try {
    const build = await firstBuild(root, cacheDir);
    const restart = await restarts(root, cacheDir);
    checkRestart('restart', restart.status, anomalies);
    const live = await openWorkspace(root, cacheDir);
    try {
      return { build, restart, change: await fileChangeLatencies(live.workspace), folder: await newFolderLatencies(live.workspace) };
    } finally {
      await live.close();
    }
  } finally {
    fs.rmSync(cacheDir, { recursive: true, force: true });
  }
}

interface GitSide {
  root: string;
  statWalkMs: number;
  gitStatusMs: number;
  trackedPaths: number;
  build: FirstBuild;
  restart: Restart;
}

async function measureGitCopy(gitRoot: string, anomalies: string[]): Promise<GitSide> {
  statWalk(gitRoot);
  shell(sha256Command(gitRoot, 2));
  shell('git status --porcelain', gitRoot);
  const statWalkMs = await medianMs(cheapRuns, () => statWalk(gitRoot));
  const gitStatusMs = await medianMs(cheapRuns, () => shell('git status --porcelain', gitRoot));
  const trackedPaths = shell('git ls-files -z', gitRoot).toString('latin1').split('\0').length - 1;
  const cacheDir = newCacheDir();
  try {
    const build = await firstBuild(gitRoot, cacheDir);
    const restart = await restarts(gitRoot, cacheDir);
    checkRestart('git copy restart', restart.status, anomalies);
    if (accounted(build.status) !== trackedPaths)
      anomalies.push(`git copy: ${accounted(build.status)} paths in the set or skipped, git tracks ${trackedPaths}`);
    return { root: gitRoot, statWalkMs, gitStatusMs, trackedPaths, build, restart };
  } finally {
    fs.rmSync(cacheDir, { recursive: true, force: true });
  }
}

/** Outside git, every non-folder entry the stat walk finds must be in the set or skipped. */
function checkCounts(walk: WalkCount, status: WorkspaceStatusInfo, anomalies: string[]): void {
  const entries = walk.files + walk.symlinks + walk.others;
  if (!status.git && status.skipped.ignored === undefined && accounted(status) !== entries) {
    anomalies.push(`${accounted(status)} paths in the set or skipped, the stat walk found ${entries} non-folder entries`);
  }
}

function printReport(peers: Peers, fathom: FathomSide, git: GitSide | undefined, anomalies: readonly string[]): void {
  const { build, restart } = fathom;
  const buildMs = build.readyMs + build.closeMs;
  console.log(`set: ${describe(build.status)}`);
  console.log(`stat walk: ${peers.walk.files} files (${mb(peers.walk.bytes)} MB), ${peers.walk.symlinks} symlinks, ${peers.walk.others} others`);
  console.log(`first build: ready ${build.readyMs.toFixed(0)} ms (${describeScan(build.status)}) + close ${build.closeMs.toFixed(0)} ms`);
  console.log(
    `restart (median of ${cheapRuns}): ready ${restart.readyMs.toFixed(0)} ms (${describeScan(restart.status)}) + close ${restart.closeMs.toFixed(0)} ms`,
  );
  if (git) {
    console.log(`git copy: ${describe(git.build.status)}; git tracks ${git.trackedPaths} paths`);
    console.log(
      `git copy first build: ready ${git.build.readyMs.toFixed(0)} ms (${describeScan(git.build.status)}); restart ready ${git.restart.readyMs.toFixed(0)} ms (${describeScan(git.restart.status)})`,
    );
  }
  console.log('');
  const rows: Row[] = [
    { step: 'a. first build (ready + close)', fathomMs: buildMs, peer: 'sha256sum every file, -P2', peerMs: peers.sha256P2Ms, goal: goals.firstBuildVsSha256 },
    { step: '', fathomMs: buildMs, peer: 'sha256sum every file, -P1', peerMs: peers.sha256P1Ms },
    { step: '', fathomMs: buildMs, peer: 'sha256sum files ≤ 1 MiB, -P2', peerMs: peers.sha256ReadP2Ms, goal: goals.firstBuildVsSha256 },
    { step: '', fathomMs: buildMs, peer: 'node stat walk', peerMs: peers.statWalkMs },
    { step: 'b. restart, nothing changed', fathomMs: restart.readyMs, peer: 'node stat walk', peerMs: peers.statWalkMs, goal: goals.restartVsStatWalk },
  ];
  if (git) {
    rows.push(
      { step: 'b. restart on the git copy', fathomMs: git.restart.readyMs, peer: 'git status --porcelain', peerMs: git.gitStatusMs },
      { step: '', fathomMs: git.restart.readyMs, peer: 'node stat walk (git copy)', peerMs: git.statWalkMs, goal: goals.restartVsStatWalk },
    );
  }
  printTable(rows);
  console.log('');
  printLatency('c. file changed → onChanges with new hash', fathom.change, goals.changeMs);
  printLatency('c. new file in new a/b/c folder → added', fathom.folder.added, goals.changeMs);
  printLatency('c. that folder removed → removed', fathom.folder.removed);
  console.log(
    `d. memory after the first build: RSS ${build.memory.rssMB} MB, heap used ${build.memory.heapUsedMB} MB, peak RSS so far ${build.memory.peakRssMB} MB`,
  );
  for (const anomaly of anomalies) console.log(`ANOMALY: ${anomaly}`);
}

function reportJson(root: string, peers: Peers, fathom: FathomSide, git: GitSide | undefined, anomalies: readonly string[]): object {
  const { build, restart } = fathom;
  const buildMs = build.readyMs + build.closeMs;
  return {
    corpus: root,
    files: build.status.files,
    bytes: build.status.bytes,
    skipped: build.status.skipped,
    firstBuild: { readyMs: Math.round(build.readyMs), closeMs: Math.round(build.closeMs), lastScan: build.status.lastScan, memory: build.memory },
    restart: { readyMs: Math.round(restart.readyMs), closeMs: Math.round(restart.closeMs), lastScan: restart.status.lastScan },
    peers: {
      statWalkMs: Math.round(peers.statWalkMs),
      sha256P2Ms: Math.round(peers.sha256P2Ms),
      sha256P1Ms: Math.round(peers.sha256P1Ms),
      sha256AtMost1MiBP2Ms: Math.round(peers.sha256ReadP2Ms),
    },
    ratios: {
      firstBuildVsSha256P2: ratio(buildMs, peers.sha256P2Ms),
      firstBuildVsSha256P1: ratio(buildMs, peers.sha256P1Ms),
      firstBuildVsSha256AtMost1MiBP2: ratio(buildMs, peers.sha256ReadP2Ms),
      firstBuildVsStatWalk: ratio(buildMs, peers.statWalkMs),
      restartVsStatWalk: ratio(restart.readyMs, peers.statWalkMs),
      ...(git && {
        gitCopyRestartVsGitStatus: ratio(git.restart.readyMs, git.gitStatusMs),
        gitCopyRestartVsStatWalk: ratio(git.restart.readyMs, git.statWalkMs),
      }),
    },
    git: git && {
      root: git.root,
      files: git.build.status.files,
      trackedPaths: git.trackedPaths,
      statWalkMs: Math.round(git.statWalkMs),
      gitStatusMs: Math.round(git.gitStatusMs),
      firstBuildReadyMs: Math.round(git.build.readyMs),
      restartReadyMs: Math.round(git.restart.readyMs),
    },
    change: summarize(fathom.change),
    newNestedFile: summarize(fathom.folder.added),
    removedNestedFolder: summarize(fathom.folder.removed),
    goals,
    anomalies,
  };
}

function defaultGitCopy(root: string): string | undefined {
  const candidate = `${root}-git`;
  return fs.existsSync(path.join(candidate, '.git')) ? candidate : undefined;
}

async function main(): Promise<void> {
  const benchDir = process.env.FATHOM_BENCH_DIR ?? '/tmp/fathom-bench';
  const root = fs.realpathSync(process.argv[2] ?? path.join(benchDir, 'linux'));
  const gitArgument = process.argv[3] ?? defaultGitCopy(root);
  const gitRoot = gitArgument === undefined ? undefined : fs.realpathSync(gitArgument);
  console.log(`corpus ${root}${gitRoot ? `, git copy ${gitRoot}` : ', no git copy'}; ${os.availableParallelism()} CPUs, Node ${process.version}`);
  const anomalies: string[] = [];
  const peers = await measurePeers(root);
  const fathom = await measureFathom(root, anomalies);
  checkCounts(peers.walk, fathom.build.status, anomalies);
  const git = gitRoot ? await measureGitCopy(gitRoot, anomalies) : undefined;
  printReport(peers, fathom, git, anomalies);
  console.log(`BENCH_JSON ${JSON.stringify(reportJson(root, peers, fathom, git, anomalies))}`);
}

await main();
