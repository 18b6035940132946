// Migration 2 of the team store's schema (src/team/migrations.ts lists them): file_vectors, the
// reader a join spends its time in, rewritten in PL/pgSQL with its query run by EXECUTE … USING.
// As an SQL function under SECURITY DEFINER (never inlined) its statement was planned with the
// team and model as unknown parameters: no partition pruning, and 2.5 s for Django's 11,902
// vectors where the same query planned with its values takes 140 ms. EXECUTE plans each call with
// the values given. (file_records stays as it was: planned that way it chose a correlated scan of
// the masked paths per file, 4-8 s against 0.2-0.3 s.) Same signature, result and grant (CREATE OR
// REPLACE keeps them); still SECURITY DEFINER with a fixed search_path, still answering only about
// the file hashes presented.
export const sql = `
CREATE OR REPLACE FUNCTION fathom.file_vectors(team text, model text, file_hashes bytea) RETURNS TABLE (chunk_hash bytea, vector bytea)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  RETURN QUERY EXECUTE
    'SELECT e.chunk_hash, e.vector FROM fathom.embeddings AS e
     WHERE e.team_id = $1 AND e.model_id = $2 AND e.chunk_hash IN (
       SELECT c.chunk_hash FROM (SELECT DISTINCT hash FROM fathom.unpack_hashes($3)) AS h
       JOIN fathom.file_chunks AS c ON c.team_id = $1 AND c.model_id = $2 AND c.file_hash = h.hash)'
    USING team, model, file_hashes;
END $$;
`;
