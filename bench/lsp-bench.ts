// Benchmark of edits through Fathom (src/lsp) against the language server alone, per server, on
// the same edits in one run: the server's own latency (didChange → its last publishDiagnostics of
// the burst, or its pull answer) vs Fathom's `editFile` answer (write + sync + wait + ledger),
// median of 10 edits alternating between introducing and fixing an error; and the memory of the
// idle servers (the process tree's RSS) before and after reaping. For typescript-language-server
// Fathom asks its tsserver directly, so its answer comes before the server's own publish (a
// negative overhead).
// Prints a table and one `BENCH_JSON` line.
//
// Usage: node dist/bench/lsp-bench.js
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DiagnosticsService } from '../src/lsp/diagnostics-service.js';
import { LanguageServer } from '../src/lsp/language-server.js';
import { LanguageServers } from '../src/lsp/language-servers.js';
import { DiagnosticLedger } from '../src/lsp/ledger.js';
import { resolveBinary, ServerRegistry, knownServers } from '../src/lsp/registry.js';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** RSS in kB of a process and all its descendants (Linux /proc). */
function treeRss(pid: number): number {
  let total = 0;
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // gone
    }
  }
  const visit = (id: number): void => {
    try {
      total += Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${id}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // gone
    }
    for (const child of children.get(id) ?? []) visit(child);
  };
  visit(pid);
  return total;
}

interface Fixture {
  server: string;
  language: string;
  files: Record<string, string>;
  file: string;
  good: string;
  bad: string;
}

const fixtures: Fixture[] = [
  {
    server: 'typescript',
    language: 'typescript',
    files: {
      'tsconfig.json': '{"compilerOptions":{"strict":true,"noEmit":true}}',
      'src/lib.ts': Array.from({ length: 200 }, (_, index) => `export function f${index}(a: number): number {\n  return a + ${index};\n}\n`).join(''),
    },
    file: 'src/main.ts',
    good: 'import { f1, f2 } from "./lib";\nexport const total: number = f1(1) + f2(2);\n',
    bad: 'import { f1, f2 } from "./lib";\nexport const total: string = f1(1) + f2(2);\n',
  },
  {
    server: 'pyright',
    language: 'python',
    files: {
      'pyproject.toml': '[project]\nname = "bench"\n',
      'pkg/__init__.py': '',
      'pkg/lib.py': Array.from({ length: 200 }, (_, index) => `def f${index}(a: int) -> int:\n    return a + ${index}\n\n`).join(''),
    },
    file: 'pkg/main.py',
    good: 'from pkg.lib import f1, f2\n\ntotal: int = f1(1) + f2(2)\n',
    bad: 'from pkg.lib import f1, f2\n\ntotal: str = f1(1) + f2(2)\n',
  },
];

async function main(): Promise<void> {
  const rows: Record<string, unknown>[] = [];
  for (const fixture of fixtures) {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `fathom-lsp-bench-${fixture.server}-`)));
    for (const [name, text] of Object.entries({ ...fixture.files, [fixture.file]: fixture.good })) {
      fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
      fs.writeFileSync(path.join(root, name), text);
    }
    const spec = knownServers.find((server) => server.id === fixture.server)!;
    const command = resolveBinary(spec.binary, root, { trusted: true })!;
    const file = path.join(root, fixture.file);
    const uri = pathToFileURL(file).href;
    const languageId = spec.languages[fixture.language]!;

    // The server alone: time from the change to its answer for that text.
    const alone = new LanguageServer(spec, root, command);
    await alone.ready;
    await alone.diagnostics(uri, alone.sync(uri, languageId, fixture.good));
    const serverMs: number[] = [];
    for (let round = 0; round < 10; round++) {
      const text = round % 2 === 0 ? fixture.bad : fixture.good;
      // The server's latency: its last publish for the document within 2 s of the change (the end
      // of its burst), or its pull answer. No settle window here: that is Fathom's cost.
      let lastPublish = 0;
      let seen = alone.publishedFor(uri)?.sequence ?? -1;
      const stop = alone.watch(() => {
        const entry = alone.publishedFor(uri);
        if (entry && entry.sequence !== seen) {
          seen = entry.sequence;
          lastPublish = performance.now();
        }
      });
      const started = performance.now();
      const version = alone.sync(uri, languageId, text);
      const answer = await alone.diagnostics(uri, version);
      if (answer.status !== 'ok') throw new Error(`${spec.name}: ${answer.status}`);
      const answeredAt = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      stop();
      serverMs.push((lastPublish > 0 ? lastPublish : answeredAt) - started);
    }
    await alone.stop();

    // Fathom: the same edits through editFile.
    const servers = new LanguageServers({ idleMs: 60_000 });
    const service = new DiagnosticsService(new ServerRegistry(), servers, new DiagnosticLedger());
    await service.edit({ workspaceRoot: root, absolutePath: file, language: fixture.language, newText: fixture.good, ledgerKey: 'bench' });
    const fathomMs: number[] = [];
    for (let round = 0; round < 10; round++) {
      const text = round % 2 === 0 ? fixture.bad : fixture.good;
      const started = performance.now();
      const answer = await service.edit({ workspaceRoot: root, absolutePath: file, language: fixture.language, newText: text, ledgerKey: 'bench' });
      if (answer.status !== 'ok') throw new Error(`fathom: ${answer.status} ${answer.reason}`);
      const expected = round % 2 === 0 ? 1 : 0;
      const got = answer.newDiagnostics.reduce((sum, entry) => sum + entry.diagnostics.length, 0);
      if (got !== expected) throw new Error(`round ${round}: ${got} new diagnostics, expected ${expected}`);
      fathomMs.push(performance.now() - started);
    }
    const pid = servers.status()[0]!.pid!;
    const idleKb = treeRss(pid);
    await servers.reap(Date.now() + 61_000);
    const afterKb = servers.status().length === 0 ? 0 : treeRss(pid);
    await servers.stopAll();
    const row = {
      server: spec.name,
      serverMedianMs: Math.round(median(serverMs)),
      fathomMedianMs: Math.round(median(fathomMs)),
      overheadMs: Math.round(median(fathomMs) - median(serverMs)),
      idleRssMb: Math.round(idleKb / 1024),
      afterReapRssMb: Math.round(afterKb / 1024),
    };
    rows.push(row);
    console.log(
      `${row.server.padEnd(28)} server ${String(row.serverMedianMs).padStart(5)} ms   fathom ${String(row.fathomMedianMs).padStart(5)} ms   overhead ${String(row.overheadMs).padStart(4)} ms   idle RSS ${row.idleRssMb} MB → ${row.afterReapRssMb} MB after reaping`,
    );
  }
  console.log(`BENCH_JSON ${JSON.stringify({ bench: 'lsp', rows })}`);
}

await main();
