// Migration 3 of the team store's schema (src/team/migrations.ts lists them): missing_files reads
// each masked path by joining `unnest(masked_paths) WITH ORDINALITY` on the hash's ordinal, where
// it subscripted the array (`masked_paths[h.ordinal + 1]`). An array of variable-width elements is
// walked from its start on each subscript, so a call's cost grew with the square of its paths:
// 4.1-5.0 s for 50,000 (a repeated push of the kernel spent most of its 7-10 s there) against
// 0.8-1.1 s now, the same answers. Same signature, result and grant (CREATE OR REPLACE keeps
// them); still SECURITY DEFINER with a fixed search_path, answering only about the hashes given.
export const sql = `
CREATE OR REPLACE FUNCTION fathom.missing_files(team text, model text, file_hashes bytea, masked_paths text[]) RETURNS integer[]
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT coalesce(array_agg(h.ordinal ORDER BY h.ordinal), '{}')
  FROM fathom.unpack_hashes(file_hashes) AS h
  LEFT JOIN unnest(masked_paths) WITH ORDINALITY AS p (masked_path, ordinal) ON p.ordinal = h.ordinal + 1
  WHERE NOT EXISTS (SELECT 1 FROM fathom.files AS f WHERE f.team_id = team AND f.model_id = model AND f.file_hash = h.hash)
     OR NOT EXISTS (SELECT 1 FROM fathom.file_paths AS fp WHERE fp.team_id = team AND fp.file_hash = h.hash AND fp.masked_path = p.masked_path)
$$;
`;
