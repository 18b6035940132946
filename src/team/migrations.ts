// The team store's schema migrations, in order; `schemaVersion` is the version this Fathom speaks
// (the last one). Each migration is SQL in its own file under migrations/, applied once by
// `fathom team init` (schema.ts) and recorded in fathom.schema_version. A released migration is
// never edited: a change is a new one, with a line here.
// Versions (one line per migration):
//   1  the content-addressed tables (embeddings, files, file_chunks, file_paths), snapshots, and
//      the member's functions
//   2  file_vectors planned per call (EXECUTE … USING): a join's reads pruned to the team's
//      partition (Django's vectors: 2.5 s → 0.1-0.16 s on the server)
//   3  missing_files joins the masked paths by ordinal instead of subscripting the array (50,000
//      paths: 4.1-5.0 s → 0.8-1.1 s)
//   4  snapshots say whether their push stored every file (complete); complete_snapshot answers a
//      tree's, so a push of a tree the store holds whole ends after one call
//   5  file_packs: a join reads one row per file (its chunks' ranges, hashes and vectors packed),
//      not a row per chunk and per vector
//   6  vectors pushed as f16 (the HNSW graph's precision): half the bytes to push, store and read;
//      vectors stored before stay f32, told apart by length
import { sql as store } from './migrations/001-store.js';
import { sql as plannedVectors } from './migrations/002-planned-vectors.js';
import { sql as missingFilesByOrdinal } from './migrations/003-missing-files-by-ordinal.js';
import { sql as completeSnapshots } from './migrations/004-complete-snapshots.js';
import { sql as filePacks } from './migrations/005-file-packs.js';
import { sql as halfVectors } from './migrations/006-half-vectors.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: readonly Migration[] = [
  { version: 1, name: 'store', sql: store },
  { version: 2, name: 'planned-vectors', sql: plannedVectors },
  { version: 3, name: 'missing-files-by-ordinal', sql: missingFilesByOrdinal },
  { version: 4, name: 'complete-snapshots', sql: completeSnapshots },
  { version: 5, name: 'file-packs', sql: filePacks },
  { version: 6, name: 'half-vectors', sql: halfVectors },
];

export const schemaVersion = migrations[migrations.length - 1]!.version;

/**
 * The functions a member may call (signatures as GRANT EXECUTE names them); every other function
 * of the schema stays the owner's. Keep in step with the migrations.
 */
export const memberFunctions: readonly string[] = [
  'fathom.store_version()',
  'fathom.missing_files(text, text, bytea, text[])',
  'fathom.missing_chunks(text, text, bytea)',
  'fathom.put_embeddings(text, text, integer, bytea, bytea)',
  'fathom.put_files(text, text, bytea, integer[], integer[], integer[], integer[], bigint[], bigint[], bytea, integer[], text[])',
  'fathom.put_snapshot(text, text, bytea, bigint, integer, integer, boolean)',
  'fathom.complete_snapshot(text, text, bytea)',
  'fathom.held_files(text, text, bytea)',
  'fathom.file_records(text, text, bytea)',
  'fathom.file_vectors(text, text, bytea)',
  'fathom.file_packs(text, text, bytea)',
  'fathom.nearest_snapshots(text, text, bigint, integer)',
];
