// Migration 4 of the team store's schema (src/team/migrations.ts lists them): a snapshot says
// whether the push that wrote it stored every file of its index (`complete`), and
// `complete_snapshot` answers a tree's complete snapshot, so a push of a tree the store already
// holds whole ends after one call, without gathering and sending the index's hundreds of
// thousands of records to be checked (the kernel's repeated push: 7.1 s from the shell).
// put_snapshot takes the flag: a tree pushed again completes a snapshot an earlier, partial push
// made (its chunk count becomes the complete push's); a snapshot is never made incomplete again.
// SECURITY DEFINER with a fixed search_path as the others; complete_snapshot answers only about
// the tree named, which a member already sees of every snapshot (nearest_snapshots).
export const sql = `
ALTER TABLE fathom.snapshots ADD COLUMN complete boolean NOT NULL DEFAULT false;

DROP FUNCTION fathom.put_snapshot(text, text, bytea, bigint, integer, integer);
CREATE FUNCTION fathom.put_snapshot(team text, model text, merkle_root bytea, simhash bigint, file_count integer, chunk_count integer, complete boolean, OUT id bigint, OUT created boolean)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  INSERT INTO fathom.snapshots (team_id, model_id, merkle_root, simhash, file_count, chunk_count, complete)
    VALUES (team, model, merkle_root, simhash, file_count, chunk_count, complete)
    ON CONFLICT ON CONSTRAINT snapshots_same_tree DO NOTHING
    RETURNING snapshots.id INTO id;
  created := id IS NOT NULL;
  IF NOT created THEN
    UPDATE fathom.snapshots AS s
      SET complete = true, chunk_count = put_snapshot.chunk_count
      WHERE s.team_id = team AND s.model_id = model AND s.merkle_root = put_snapshot.merkle_root AND put_snapshot.complete AND NOT s.complete;
    SELECT s.id INTO id FROM fathom.snapshots AS s WHERE s.team_id = team AND s.model_id = model AND s.merkle_root = put_snapshot.merkle_root;
  END IF;
END $$;

-- The complete snapshot of a tree (team, model, Merkle root), if there is one: its id and chunks.
CREATE FUNCTION fathom.complete_snapshot(team text, model text, merkle_root bytea, OUT id bigint, OUT chunk_count integer)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT s.id, s.chunk_count FROM fathom.snapshots AS s
  WHERE s.team_id = team AND s.model_id = model AND s.merkle_root = complete_snapshot.merkle_root AND s.complete
$$;
`;
