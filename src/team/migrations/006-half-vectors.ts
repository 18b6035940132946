// Migration 6 of the team store's schema (src/team/migrations.ts lists them): vectors pushed from
// now on are f16 (little-endian, 2 bytes a number), what the semantic index's HNSW graph keeps them
// as anyway, so nothing a join builds changes: half the bytes to push, store, read and send. On
// the kernel a join's read of 822k f32 vectors (1.26 GB, 2.5 GB as hex text on the wire) was most
// of its time. Vectors already stored stay f32 (converting them in SQL would hold the table for
// minutes on a large store); readers tell the two apart by length, a vector being `dimensions`
// numbers of one width (src/team/team-store.ts): a pack whose vectors mix both is left to local
// embedding. put_embeddings keeps its signature (and its grant) and now takes f16.
export const sql = `
ALTER TABLE fathom.embeddings DROP CONSTRAINT embeddings_vector_check;
ALTER TABLE fathom.embeddings ADD CONSTRAINT embeddings_vector_check CHECK (octet_length(vector) > 0 AND octet_length(vector) % 2 = 0);

CREATE OR REPLACE FUNCTION fathom.put_embeddings(team text, model text, dimensions integer, chunk_hashes bytea, vectors bytea) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  inserted integer;
BEGIN
  IF dimensions < 1 OR octet_length(vectors) <> (octet_length(chunk_hashes) / 32) * dimensions * 2 THEN
    RAISE EXCEPTION 'put_embeddings: % bytes of f16 vectors for % hashes of % dimensions', octet_length(vectors), octet_length(chunk_hashes) / 32, dimensions USING ERRCODE = '22023';
  END IF;
  INSERT INTO fathom.embeddings (team_id, model_id, chunk_hash, vector)
    SELECT team, model, h.hash, substring(vectors FROM h.ordinal * dimensions * 2 + 1 FOR dimensions * 2) FROM fathom.unpack_hashes(chunk_hashes) AS h
    ON CONFLICT DO NOTHING;
  GET DIAGNOSTICS inserted = ROW_COUNT;
  RETURN inserted;
END $$;
`;
