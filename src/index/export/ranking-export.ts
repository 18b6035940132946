// An exported chunk ranking: what may leave the machine to be shared (a team store) and searched
// elsewhere. It is chunks.bin's format (ranking/chunk-ranking-store.ts) under the magic
// "FTHMXRK1", with every path masked and every term hashed by a PathMask, and `root` replaced by
// `key:<keyId>`: no real path, folder or identifier is written. Line and byte ranges and content
// hashes stay (a holder of the same content can check it holds it). Opening an export with the
// same key answers queries (the query's terms hashed alike) over the files this machine holds,
// each shown by its real path; files it does not hold, or holds with other content, are left out.
import { FathomError } from '../../base/errors.js';
import { ChunkRanking, rankingVersion } from '../ranking/chunk-ranking.js';
import { type RankingSnapshot, loadRanking, saveRanking } from '../ranking/chunk-ranking-store.js';
import { type PathMask, PathUnmasker } from './path-mask.js';

export const exportMagic = 'FTHMXRK1';

export interface ExportSummary {
  file: string;
  keyId: string;
  files: number;
  chunks: number;
  terms: number;
}

/** Writes the ranking's snapshot, masked, to `file` (atomically). */
export async function exportRanking(ranking: ChunkRanking, mask: PathMask, file: string): Promise<ExportSummary> {
  const snapshot = await ranking.snapshot();
  const masked: RankingSnapshot = {
    ...snapshot,
    root: `key:${mask.keyId}`,
    terms: snapshot.terms.map((term) => mask.term(term)),
    files: snapshot.files.map((entry) => ({ ...entry, path: mask.mask(entry.path) })),
  };
  await saveRanking(file, masked, exportMagic);
  return { file, keyId: mask.keyId, files: masked.files.length, chunks: masked.chunkFile.length, terms: masked.terms.length };
}

export interface OpenedExport {
  ranking: ChunkRanking;
  /** Query terms as the export holds them. */
  terms(queryTerms: string[]): string[];
  /** How many of the export's files this machine holds with the same content. */
  held: number;
  files: number;
}

/**
 * Opens an export with the key it was made with, over the files this machine holds
 * (`localHash`: the SHA-256 of a local file, undefined when it has none).
 */
export async function openExport(
  file: string,
  mask: PathMask,
  localPaths: Iterable<string>,
  localHash: (path: string) => string | undefined,
): Promise<OpenedExport> {
  const read = await loadRanking(file, exportMagic);
  if (read.status === 'missing') throw new FathomError('invalidParams', `no export at ${file}`, { path: file });
  if (read.status === 'corrupt') throw new FathomError('invalidParams', `${file} is not a usable Fathom export (${read.reason})`, { path: file });
  const snapshot = read.snapshot;
  if (snapshot.version !== rankingVersion)
    throw new FathomError(
      'invalidParams',
      `${file} was made by a Fathom whose terms differ (ranking version ${snapshot.version}, this one ${rankingVersion}): export it again`,
      { path: file },
    );
  if (snapshot.root !== `key:${mask.keyId}`)
    throw new FathomError('invalidParams', `${file} was made with another key (${snapshot.root.replace(/^key:/, '')}, not ${mask.keyId})`, { path: file });
  const unmasker = new PathUnmasker(mask, localPaths);
  const real: RankingSnapshot = {
    ...snapshot,
    files: snapshot.files.map((entry) => ({ ...entry, path: unmasker.unmask(entry.path) ?? `\0${entry.path}` })),
  };
  let held = 0;
  const ranking = ChunkRanking.fromSnapshot(real, (path, hash) => {
    const ok = !path.startsWith('\0') && localHash(path) === hash;
    if (ok) held++;
    return ok;
  });
  return { ranking, terms: (queryTerms) => queryTerms.map((term) => mask.term(term)), held, files: snapshot.files.length };
}
