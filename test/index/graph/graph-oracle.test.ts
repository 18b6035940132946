// fathom/references against the language servers: on the TypeScript and Python graph fixtures,
// every definition's references as typescript-language-server and pyright report them
// (textDocument/references, declaration excluded) compared with the graph's exact edges.
// Precision and recall are printed and held to floors.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import type { Place } from '../../../src/index/graph/graph-queries.js';
import { LanguageServers } from '../../../src/lsp/language-servers.js';
import { ServerRegistry } from '../../../src/lsp/registry.js';
import { describeTarget, graphOf, pool } from '../../helpers/graph-fixture.js';

interface LspLocation {
  uri: string;
  range: { start: { line: number; character: number } };
}

after(() => pool.close());

const cases = [
  { fixture: 'ts', language: 'typescript', extension: '.ts', floors: { precision: 0.9, recall: 0.9, exactPrecision: 0.95 } },
  { fixture: 'python', language: 'python', extension: '.py', floors: { precision: 0.9, recall: 0.9, exactPrecision: 0.9 } },
];

for (const { fixture, language, extension, floors } of cases) {
  describe(`graph references vs the language server: ${fixture}`, () => {
    const servers = new LanguageServers({ idleMs: 0 });
    let close: (() => Promise<void>) | undefined;
    after(async () => {
      await servers.stopAll();
      await close?.();
    });

    test(`precision ≥ ${floors.precision} and recall ≥ ${floors.recall}; exact edges precision ≥ ${floors.exactPrecision}`, async () => {
      const { root, workspace, graph, queries } = await graphOf(fixture);
      close = async () => {
        await graph.dispose();
        await workspace.close();
      };
      const files = workspace
        .files()
        .filter((file) => file.endsWith(extension))
        .sort();
      const availability = new ServerRegistry().availability(path.join(root, files[0]!), language, root, { trusted: true });
      assert.ok(availability.available, availability.available ? '' : availability.reason);
      const { server } = await servers.get(availability.spec, availability.projectRoot, availability.command);
      for (const file of files) server.sync(pathToFileURL(path.join(root, file)).href, availability.languageId, fs.readFileSync(path.join(root, file), 'utf8'));
      // Every edge, and exact edges only.
      const tally = { all: { agreed: 0, ours: 0, theirs: 0 }, exact: { agreed: 0, ours: 0, theirs: 0 } };
      const differences: string[] = [];
      for (const file of files) {
        const part = graph.file(file)!;
        for (let index = 0; index < part.definitionNames.length; index++) {
          if (graph.kinds.kind(part.definitionKinds[index]!) === 'impl') continue;
          const place: Place = { path: file, index };
          const name = part.definitionPositions.subarray(index * 8 + 4, index * 8 + 6);
          const answer = await server.request<LspLocation[] | null>('textDocument/references', {
            textDocument: { uri: pathToFileURL(path.join(root, file)).href },
            position: { line: name[0], character: name[1] },
            context: { includeDeclaration: false },
          });
          const expected = new Set(
            (answer ?? []).map(
              (location) => `${path.relative(root, fileURLToPath(location.uri))}:${location.range.start.line + 1}:${location.range.start.character + 1}`,
            ),
          );
          for (const level of ['all', 'exact'] as const) {
            const sites = await queries.referencesTo(place, level === 'exact' ? { minConfidence: 'exact' } : {});
            const actual = new Set(sites.map((site) => `${site.path}:${site.line + 1}:${site.character + 1}`));
            tally[level].ours += actual.size;
            tally[level].theirs += expected.size;
            for (const site of actual) if (expected.has(site)) tally[level].agreed++;
            if (level !== 'all') continue;
            for (const site of sites) {
              const key = `${site.path}:${site.line + 1}:${site.character + 1}`;
              if (!expected.has(key)) differences.push(`${describeTarget(graph, place)}: only Fathom (${site.confidence}): ${key}`);
            }
            for (const site of expected) if (!actual.has(site)) differences.push(`${describeTarget(graph, place)}: only ${availability.spec.id}: ${site}`);
          }
        }
      }
      const ratio = (part: number, whole: number) => (whole === 0 ? 1 : part / whole);
      const all = { precision: ratio(tally.all.agreed, tally.all.ours), recall: ratio(tally.all.agreed, tally.all.theirs) };
      const exact = { precision: ratio(tally.exact.agreed, tally.exact.ours), recall: ratio(tally.exact.agreed, tally.exact.theirs) };
      console.log(
        `${fixture} vs ${availability.spec.id} (${tally.all.theirs} references): every edge: precision ${all.precision.toFixed(3)}, recall ${all.recall.toFixed(3)}; exact edges only: precision ${exact.precision.toFixed(3)}, recall ${exact.recall.toFixed(3)}`,
      );
      for (const difference of differences) console.log(`  ${difference}`);
      assert.ok(tally.all.theirs >= 10, `the server found references (${tally.all.theirs})`);
      assert.ok(all.precision >= floors.precision, `precision ${all.precision.toFixed(3)} ≥ ${floors.precision}`);
      assert.ok(all.recall >= floors.recall, `recall ${all.recall.toFixed(3)} ≥ ${floors.recall}`);
      assert.ok(exact.precision >= floors.exactPrecision, `exact edges: precision ${exact.precision.toFixed(3)} ≥ ${floors.exactPrecision}`);
    });
  });
}
