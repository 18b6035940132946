// Reference resolution on per-language fixture repos (test/fixtures/graph/<language>/): each has
// an `edges.txt` table of references and what they must resolve to, with the confidence:
//   src/app.ts:14 hello -> src/util.ts#greet exact
//   src/app.ts:17 require -> nothing
// (line 1-based; `name` is the first reference of that name on the line). Targets are written
// path#Container.name. FATHOM_GRAPH_DUMP=1 prints every reference of each fixture with its
// resolution, in the same format, to write a new table (review each line by hand).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import type { CodeGraph } from '../../../src/index/graph/code-graph.js';
import type { Target } from '../../../src/index/graph/resolver.js';
import { describeTarget, graphOf, pool } from '../../helpers/graph-fixture.js';

const fixtures = path.resolve(import.meta.dirname, '../../../../test/fixtures/graph');
after(() => pool.close());

function describeTargets(graph: CodeGraph, targets: Target[]): string {
  if (targets.length === 0) return 'nothing';
  const confidences = [...new Set(targets.map((target) => target.confidence))].join('/');
  return `${targets
    .map((target) => describeTarget(graph, target))
    .sort()
    .join(', ')} ${confidences}`;
}

for (const language of fs.readdirSync(fixtures).sort()) {
  describe(`graph edges: ${language}`, () => {
    let fixture: Awaited<ReturnType<typeof graphOf>>;
    after(async () => {
      await fixture?.graph.dispose();
      await fixture?.workspace.close();
    });

    test('every reference in edges.txt resolves as written', async () => {
      fixture = await graphOf(language);
      const { graph, queries } = fixture;
      if (process.env.FATHOM_GRAPH_DUMP) {
        for (const file of fixture.workspace.files().sort()) {
          const part = graph.file(file);
          if (!part) continue;
          for (let at = 0; at < part.referenceNames.length; at++) {
            const kind = graph.kinds.kind(part.referenceKinds[at]!);
            if (kind === 'module') continue;
            console.log(
              `${file}:${part.referenceLines[at]! + 1} ${graph.names.name(part.referenceNames[at]!)} -> ${describeTargets(graph, queries.resolver.resolve(part, at))}   (${kind})`,
            );
          }
        }
      }
      const table = fs
        .readFileSync(path.join(fixtures, language, 'edges.txt'), 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '' && !line.startsWith('#'));
      assert.ok(table.length >= 5, 'a table of edges');
      const failures: string[] = [];
      for (const line of table) {
        const parsed = /^(\S+):(\d+) (\S+) -> (.+)$/.exec(line.trim());
        assert.ok(parsed, `malformed line: ${line}`);
        const [, file, lineNumber, name, expected] = parsed;
        const part = graph.file(file!);
        assert.ok(part, `${file} is in the graph`);
        let reference = -1;
        for (let at = 0; at < part.referenceNames.length; at++) {
          if (
            part.referenceLines[at] === Number(lineNumber) - 1 &&
            graph.names.name(part.referenceNames[at]!) === name &&
            graph.kinds.kind(part.referenceKinds[at]!) !== 'module'
          ) {
            reference = at;
            break;
          }
        }
        if (reference < 0) {
          failures.push(`${file}:${lineNumber} ${name}: no such reference`);
          continue;
        }
        const actual = describeTargets(graph, queries.resolver.resolve(part, reference));
        if (actual !== expected!.trim()) failures.push(`${file}:${lineNumber} ${name} -> ${actual}   (expected ${expected})`);
      }
      assert.deepEqual(failures, []);
    });
  });
}
