// fathom/references against a language server on a real codebase: a deterministic sample of
// definitions (every k-th function, method and class of the tagged files under a folder), each
// one's references as the server reports them (textDocument/references, declaration excluded)
// compared with the graph's, for every edge and for exact edges only. Prints precision and
// recall, the time per query of each side, and one `BENCH_JSON` line.
//
// Usage: node dist/bench/graph-oracle-bench.js [django|PATH] [FOLDER] [SAMPLES]
//   (default: django, django/utils, 60 samples; the server is pyright for Python, else
//   typescript-language-server)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CodeGraph } from '../src/index/graph/code-graph.js';
import { GraphQueries } from '../src/index/graph/graph-queries.js';
import { ChunkPool } from '../src/index/syntax/chunk-pool.js';
import { LanguageTable } from '../src/index/syntax/languages.js';
import { LanguageServers } from '../src/lsp/language-servers.js';
import { ServerRegistry } from '../src/lsp/registry.js';
import { HashPool } from '../src/workspace/hash-pool.js';
import { Workspace } from '../src/workspace/workspace.js';

interface LspLocation {
  uri: string;
  range: { start: { line: number; character: number } };
}

async function main(): Promise<void> {
  const benchDir = process.env.FATHOM_BENCH_DIR ?? '/tmp/fathom-bench';
  const name = process.argv[2] ?? 'django';
  let root = fs.realpathSync(['linux', 'typescript', 'django'].includes(name) ? path.join(benchDir, name) : name);
  if (name === 'django') {
    // The corpus is the package folder itself; pyright wants a project around it (a marker above
    // the package, imports as `django.…`): a copy under a folder with a pyproject.toml.
    const project = path.join(benchDir, 'django-project');
    if (!fs.existsSync(path.join(project, 'pyproject.toml'))) {
      fs.cpSync(root, path.join(project, 'django'), { recursive: true, filter: (source) => !source.includes('__pycache__') });
      fs.writeFileSync(path.join(project, 'pyproject.toml'), '[project]\nname = "django"\nversion = "0"\n');
    }
    root = fs.realpathSync(project);
  }
  const folder = process.argv[3] ?? (name === 'django' ? 'django/utils' : '');
  const samples = Number(process.argv[4] ?? 60);
  const hashPool = new HashPool();
  const workspace = new Workspace({
    root,
    cacheDir: fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-oracle-bench-')),
    maxFileBytes: 4 * 1024 * 1024,
    reconcileIntervalMs: 0,
    pool: hashPool,
  });
  await workspace.whenReady();
  const table = new LanguageTable();
  const pool = new ChunkPool(2);
  const graph = new CodeGraph(workspace, pool, table);
  await graph.ensureBuilt();
  const queries = new GraphQueries(graph);

  const candidates: Array<{ path: string; index: number }> = [];
  for (const file of workspace.files().sort()) {
    if (folder !== '' && !file.startsWith(`${folder}/`)) continue;
    const part = graph.file(file);
    if (!part) continue;
    for (let index = 0; index < part.definitionNames.length; index++) {
      if (['function', 'method', 'class'].includes(graph.kinds.kind(part.definitionKinds[index]!))) candidates.push({ path: file, index });
    }
  }
  const step = Math.max(1, Math.floor(candidates.length / samples));
  const chosen = candidates.filter((_, at) => at % step === 0).slice(0, samples);
  const language = table.detect(chosen[0]!.path)!.id;
  const availability = new ServerRegistry().availability(path.join(root, chosen[0]!.path), language, root, { trusted: true });
  if (!availability.available) throw new Error(availability.reason);
  const servers = new LanguageServers({ idleMs: 0 });
  const { server } = await servers.get(availability.spec, availability.projectRoot, availability.command);
  const opened = new Set<string>();
  // exactDirect: exact edges, uses through an import alias (`_` for gettext) set aside: pyright
  // does not count those as references of the definition; Fathom does (they are uses).
  const tally = { all: { agreed: 0, ours: 0, theirs: 0 }, exact: { agreed: 0, ours: 0, theirs: 0 }, exactDirect: { agreed: 0, ours: 0, theirs: 0 } };
  let serverMs = 0;
  let fathomMs = 0;
  const worst: Array<{ symbol: string; missed: number; extra: number }> = [];
  for (const place of chosen) {
    const part = graph.file(place.path)!;
    const uri = pathToFileURL(path.join(root, place.path)).href;
    if (!opened.has(uri)) {
      server.sync(uri, availability.languageId, fs.readFileSync(path.join(root, place.path), 'utf8'));
      opened.add(uri);
    }
    const at = place.index * 8;
    let started = performance.now();
    const answer = await server.request<LspLocation[] | null>(
      'textDocument/references',
      {
        textDocument: { uri },
        position: { line: part.definitionPositions[at + 4], character: part.definitionPositions[at + 5] },
        context: { includeDeclaration: false },
      },
      300_000,
    );
    serverMs += performance.now() - started;
    const expected = new Set(
      (answer ?? []).map((location) => `${path.relative(root, fileURLToPath(location.uri))}:${location.range.start.line}:${location.range.start.character}`),
    );
    started = performance.now();
    const all = await queries.referencesTo(place);
    fathomMs += performance.now() - started;
    const nameLength = graph.names.name(part.definitionNames[place.index]!).length;
    for (const level of ['all', 'exact', 'exactDirect'] as const) {
      const kept = all.filter(
        (site) => level === 'all' || (site.confidence === 'exact' && (level === 'exact' || site.endCharacter - site.character === nameLength)),
      );
      const actual = new Set(kept.map((site) => `${site.path}:${site.line}:${site.character}`));
      tally[level].ours += actual.size;
      tally[level].theirs += expected.size;
      let agreed = 0;
      for (const site of actual) if (expected.has(site)) agreed++;
      tally[level].agreed += agreed;
      if (level === 'all')
        worst.push({
          symbol: `${place.path}#${[...graph.kinds.chain(part.definitionChains[place.index]!), graph.names.name(part.definitionNames[place.index]!)].join('.')}`,
          missed: expected.size - agreed,
          extra: actual.size - agreed,
        });
    }
  }
  const ratio = (part: number, whole: number) => (whole === 0 ? 1 : part / whole);
  const result = {
    corpus: name,
    folder,
    server: availability.spec.id,
    samples: chosen.length,
    all: { precision: ratio(tally.all.agreed, tally.all.ours), recall: ratio(tally.all.agreed, tally.all.theirs), ...tally.all },
    exact: { precision: ratio(tally.exact.agreed, tally.exact.ours), recall: ratio(tally.exact.agreed, tally.exact.theirs), ...tally.exact },
    exactDirect: {
      precision: ratio(tally.exactDirect.agreed, tally.exactDirect.ours),
      recall: ratio(tally.exactDirect.agreed, tally.exactDirect.theirs),
      ...tally.exactDirect,
    },
    serverMsPerQuery: serverMs / chosen.length,
    fathomMsPerQuery: fathomMs / chosen.length,
  };
  console.log(`\n## ${name} (${folder || 'all'}): ${chosen.length} definitions, references vs ${availability.spec.id}`);
  console.log('| edges | precision | recall | agreed | Fathom | server |');
  console.log('|---|---|---|---|---|---|');
  console.log(
    `| every edge | ${result.all.precision.toFixed(3)} | ${result.all.recall.toFixed(3)} | ${tally.all.agreed} | ${tally.all.ours} | ${tally.all.theirs} |`,
  );
  console.log(
    `| exact only | ${result.exact.precision.toFixed(3)} | ${result.exact.recall.toFixed(3)} | ${tally.exact.agreed} | ${tally.exact.ours} | ${tally.exact.theirs} |`,
  );
  console.log(
    `| exact, uses through an import alias set aside | ${result.exactDirect.precision.toFixed(3)} | ${result.exactDirect.recall.toFixed(3)} | ${tally.exactDirect.agreed} | ${tally.exactDirect.ours} | ${tally.exactDirect.theirs} |`,
  );
  console.log(
    `per query: Fathom ${result.fathomMsPerQuery.toFixed(1)} ms, ${availability.spec.id} ${result.serverMsPerQuery.toFixed(0)} ms (${(result.serverMsPerQuery / result.fathomMsPerQuery).toFixed(0)}×)`,
  );
  console.log('largest differences (missed by Fathom / extra in Fathom):');
  for (const entry of worst.sort((a, b) => b.missed + b.extra - (a.missed + a.extra)).slice(0, 8))
    console.log(`  ${entry.symbol}: ${entry.missed} / ${entry.extra}`);
  await servers.stopAll();
  await graph.dispose();
  await workspace.close();
  pool.close();
  hashPool.close();
  console.log(`\nBENCH_JSON ${JSON.stringify(result)}`);
}

await main();
