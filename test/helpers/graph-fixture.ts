// Graph fixture repos (test/fixtures/graph/<language>/) copied to fresh git repositories with
// their code graph built, and a readable name for a definition (path#Container.name).
import fs from 'node:fs';
import path from 'node:path';
import { CodeGraph } from '../../src/index/graph/code-graph.js';
import { definitionAt } from '../../src/index/graph/file-graph.js';
import { GraphQueries } from '../../src/index/graph/graph-queries.js';
import { ChunkPool } from '../../src/index/syntax/chunk-pool.js';
import { LanguageTable } from '../../src/index/syntax/languages.js';
import type { Workspace } from '../../src/workspace/workspace.js';
import { gitInit, tempDir } from './fixture.js';
import { readyWorkspace } from './workspace-harness.js';

const fixtures = path.resolve(import.meta.dirname, '../../../test/fixtures/graph');
/** Shared by a test file's fixtures; the test closes it. */
export const pool = new ChunkPool(2);

/** Copies a fixture repo to a fresh git repository and builds its graph. */
export async function graphOf(name: string): Promise<{ root: string; workspace: Workspace; graph: CodeGraph; queries: GraphQueries }> {
  const root = tempDir(`fathom-graph-${name}-`);
  fs.cpSync(path.join(fixtures, name), root, { recursive: true });
  gitInit(root);
  const workspace = await readyWorkspace(root);
  const graph = new CodeGraph(workspace, pool, new LanguageTable());
  await graph.ensureBuilt();
  return { root, workspace, graph, queries: new GraphQueries(graph) };
}

export function describeTarget(graph: CodeGraph, target: { path: string; index: number }): string {
  const definition = definitionAt(graph.file(target.path)!, target.index, graph.names, graph.kinds);
  return `${target.path}#${[...definition.container, definition.name].join('.')}`;
}
