// What the CLI and the MCP tools say when an answer came from an index still building (the
// daemon answered after its wait from what the index held): which index, how far, and how to
// wait for all of them. One wording for every client command.
import type { IndexBuilding } from '../protocol/methods.js';

const names: Record<IndexBuilding['index'], string> = { ranking: 'the chunk ranking', graph: 'the code graph', semantic: 'the semantic index' };

/** One sentence, or undefined when nothing was building. */
export function buildingNote(building: IndexBuilding[] | undefined): string | undefined {
  if (!building || building.length === 0) return undefined;
  const parts = building.map((entry) =>
    entry.loading
      ? `${names[entry.index]} (loading from disk: ${entry.done} of ${entry.total || '?'} files read)`
      : `${names[entry.index]} (${entry.done} of ${entry.total || '?'} files)`,
  );
  const loadingOnly = building.every((entry) => entry.loading);
  return `${loadingOnly ? 'still loading' : 'still building'}: ${parts.join(', ')}; this answer covers only what ${building.length === 1 ? 'it' : 'they'} held (\`fathom index\` waits for every index)`;
}
