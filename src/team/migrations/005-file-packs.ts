// Migration 5 of the team store's schema (src/team/migrations.ts lists them): `file_packs`, what a
// join reads, one row per file presented: its chunks' ranges, chunk hashes and vectors each packed
// into one bytea in chunk order. The kernel's join read 822k vectors as one row each
// (file_vectors) beside 822k record rows (file_records): 200,000 synthetic chunks took 17 s, most
// of it the client parsing rows, and each round's hash join scanned the team's whole file_chunks
// partition. Here the client parses a row per file, and each file's chunks and vectors are found
// through the primary keys, the plan fixed by its shape whatever the statistics say (a fresh push
// has none; a plan chosen from them once read the team's whole files partition every round):
// each presented hash looks up its file, each file aggregates its own chunks (no group spills to
// disk), each chunk looks up its vector (no memoizing: each file comes once).
//   ranges        per chunk: start line, end line (int4), start byte, end byte (int8), big-endian
//   chunk_hashes  per chunk: 32 bytes
//   vectors       per chunk: the stored vector's bytes; NULL when a chunk's vector is missing
// Only the files whose hashes were presented, as file_records and file_vectors (which stay for
// older clients); SECURITY DEFINER with a fixed search_path as the others.
export const sql = `
CREATE FUNCTION fathom.file_packs(team text, model text, file_hashes bytea)
RETURNS TABLE (file_hash bytea, chunk_count integer, ranges bytea, chunk_hashes bytea, vectors bytea)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET enable_memoize = off AS $$
BEGIN
  RETURN QUERY EXECUTE
    'SELECT f.file_hash, f.chunk_count, p.ranges, p.chunk_hashes, p.vectors
     FROM (SELECT DISTINCT hash FROM fathom.unpack_hashes($3)) AS h
     CROSS JOIN LATERAL (
       SELECT f.file_hash, f.chunk_count FROM fathom.files AS f
       WHERE f.team_id = $1 AND f.model_id = $2 AND f.file_hash = h.hash OFFSET 0) AS f
     CROSS JOIN LATERAL (
       SELECT string_agg(int4send(c.start_line) || int4send(c.end_line) || int8send(c.start_byte) || int8send(c.end_byte), ''''::bytea ORDER BY c.ordinal) AS ranges,
              string_agg(c.chunk_hash, ''''::bytea ORDER BY c.ordinal) AS chunk_hashes,
              CASE WHEN count(c.vector) = count(*) THEN string_agg(c.vector, ''''::bytea ORDER BY c.ordinal) END AS vectors
       FROM (
         SELECT c.ordinal, c.start_line, c.end_line, c.start_byte, c.end_byte, c.chunk_hash,
                (SELECT e.vector FROM fathom.embeddings AS e WHERE e.team_id = $1 AND e.model_id = $2 AND e.chunk_hash = c.chunk_hash) AS vector
         FROM fathom.file_chunks AS c
         WHERE c.team_id = $1 AND c.model_id = $2 AND c.file_hash = f.file_hash OFFSET 0) AS c) AS p'
    USING team, model, file_hashes;
END $$;
`;
