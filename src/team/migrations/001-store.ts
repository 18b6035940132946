// Migration 1 of the team store's schema (src/team/migrations.ts lists them): the content-addressed
// tables and the functions a member calls. Applied by `fathom team init` inside one transaction
// with its row in fathom.schema_version; never edited once released (a change is a new migration).
//
// Tables (no member has any privilege on them; ARCHITECTURE.md, "Team store"):
//   embeddings   (team, model, chunk hash) → the chunk's vector (f32 little-endian)
//   files        (team, model, file hash) → how many chunks the file has: the file's records exist
//                exactly when this row does (its chunks are written in the same statement)
//   file_chunks  (team, model, file hash, ordinal) → line and byte range, chunk hash; each chunk's
//                embedding must exist (a foreign key: checked row by row, it stays an index probe
//                whatever the statistics say; a set-based check in put_files hashed every vector
//                of the team on each batch), so a record never names a vector the store lacks
//   file_paths   (team, file hash, masked path): where teammates hold that content, masked under the
//                team key (src/index/export/path-mask.ts)
//   snapshots    a pushed tree: Merkle root, 64-bit simhash of its leaves, model, counts, when
// The four content tables are partitioned by hash of (team, model) (file_paths: of team) into 8
// partitions each. Nothing here holds source text or a real path.
//
// Functions: SECURITY DEFINER, `search_path` fixed to pg_catalog and pg_temp (every name below is
// schema-qualified), EXECUTE revoked from PUBLIC; `fathom team init` grants them to the member
// role. Lists of hashes travel as one bytea of 32-byte hashes end to end (a binary parameter).
// The readers take the file hashes the caller holds and answer about those files only.
export const sql = String.raw`
CREATE TABLE fathom.embeddings (
  team_id text NOT NULL,
  model_id text NOT NULL,
  chunk_hash bytea NOT NULL CHECK (octet_length(chunk_hash) = 32),
  vector bytea NOT NULL CHECK (octet_length(vector) > 0 AND octet_length(vector) % 4 = 0),
  pushed_by text NOT NULL DEFAULT session_user,
  pushed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (team_id, model_id, chunk_hash)
) PARTITION BY HASH (team_id, model_id);

CREATE TABLE fathom.files (
  team_id text NOT NULL,
  model_id text NOT NULL,
  file_hash bytea NOT NULL CHECK (octet_length(file_hash) = 32),
  chunk_count integer NOT NULL CHECK (chunk_count >= 0),
  pushed_by text NOT NULL DEFAULT session_user,
  pushed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (team_id, model_id, file_hash)
) PARTITION BY HASH (team_id, model_id);

CREATE TABLE fathom.file_chunks (
  team_id text NOT NULL,
  model_id text NOT NULL,
  file_hash bytea NOT NULL,
  ordinal integer NOT NULL CHECK (ordinal >= 0),
  start_line integer NOT NULL CHECK (start_line >= 0),
  end_line integer NOT NULL CHECK (end_line >= start_line),
  start_byte bigint NOT NULL CHECK (start_byte >= 0),
  end_byte bigint NOT NULL CHECK (end_byte >= start_byte),
  chunk_hash bytea NOT NULL,
  PRIMARY KEY (team_id, model_id, file_hash, ordinal),
  FOREIGN KEY (team_id, model_id, file_hash) REFERENCES fathom.files ON DELETE CASCADE,
  FOREIGN KEY (team_id, model_id, chunk_hash) REFERENCES fathom.embeddings
) PARTITION BY HASH (team_id, model_id);

CREATE TABLE fathom.file_paths (
  team_id text NOT NULL,
  file_hash bytea NOT NULL CHECK (octet_length(file_hash) = 32),
  masked_path text NOT NULL,
  pushed_by text NOT NULL DEFAULT session_user,
  PRIMARY KEY (team_id, file_hash, masked_path)
) PARTITION BY HASH (team_id);

DO $$
BEGIN
  FOR remainder IN 0..7 LOOP
    EXECUTE format('CREATE TABLE fathom.embeddings_%s PARTITION OF fathom.embeddings FOR VALUES WITH (MODULUS 8, REMAINDER %s)', remainder, remainder);
    EXECUTE format('CREATE TABLE fathom.files_%s PARTITION OF fathom.files FOR VALUES WITH (MODULUS 8, REMAINDER %s)', remainder, remainder);
    EXECUTE format('CREATE TABLE fathom.file_chunks_%s PARTITION OF fathom.file_chunks FOR VALUES WITH (MODULUS 8, REMAINDER %s)', remainder, remainder);
    EXECUTE format('CREATE TABLE fathom.file_paths_%s PARTITION OF fathom.file_paths FOR VALUES WITH (MODULUS 8, REMAINDER %s)', remainder, remainder);
  END LOOP;
END $$;

CREATE SEQUENCE fathom.snapshot_ids;
CREATE TABLE fathom.snapshots (
  id bigint NOT NULL DEFAULT nextval('fathom.snapshot_ids') PRIMARY KEY,
  team_id text NOT NULL,
  model_id text NOT NULL,
  merkle_root bytea NOT NULL CHECK (octet_length(merkle_root) = 32),
  simhash bigint NOT NULL,
  file_count integer NOT NULL CHECK (file_count >= 0),
  chunk_count integer NOT NULL CHECK (chunk_count >= 0),
  pushed_by text NOT NULL DEFAULT session_user,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT snapshots_same_tree UNIQUE (team_id, model_id, merkle_root)
);
ALTER SEQUENCE fathom.snapshot_ids OWNED BY fathom.snapshots.id;

-- The 32-byte hashes packed in one bytea, one row each (ordinal from 0); a length that is not a
-- multiple of 32 is refused. Internal: not granted to members.
CREATE FUNCTION fathom.unpack_hashes(packed bytea) RETURNS TABLE (ordinal integer, hash bytea)
LANGUAGE plpgsql IMMUTABLE STRICT SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF octet_length(packed) % 32 <> 0 THEN
    RAISE EXCEPTION 'hashes must be 32 bytes each (got % bytes)', octet_length(packed) USING ERRCODE = '22023';
  END IF;
  RETURN QUERY SELECT i, substring(packed FROM i * 32 + 1 FOR 32) FROM generate_series(0, octet_length(packed) / 32 - 1) AS i;
END $$;

CREATE FUNCTION fathom.store_version() RETURNS integer
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT max(version) FROM fathom.schema_version
$$;

-- Of the (file hash, masked path) pairs given, the ordinals of those whose records or path the
-- store lacks (what a push must send).
CREATE FUNCTION fathom.missing_files(team text, model text, file_hashes bytea, masked_paths text[]) RETURNS integer[]
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT coalesce(array_agg(h.ordinal ORDER BY h.ordinal), '{}')
  FROM fathom.unpack_hashes(file_hashes) AS h
  WHERE NOT EXISTS (SELECT 1 FROM fathom.files AS f WHERE f.team_id = team AND f.model_id = model AND f.file_hash = h.hash)
     OR NOT EXISTS (SELECT 1 FROM fathom.file_paths AS p WHERE p.team_id = team AND p.file_hash = h.hash AND p.masked_path = masked_paths[h.ordinal + 1])
$$;

-- Of the chunk hashes given, those the store has no vector for, packed.
CREATE FUNCTION fathom.missing_chunks(team text, model text, chunk_hashes bytea) RETURNS bytea
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT coalesce(string_agg(h.hash, ''::bytea ORDER BY h.ordinal), ''::bytea)
  FROM fathom.unpack_hashes(chunk_hashes) AS h
  WHERE NOT EXISTS (SELECT 1 FROM fathom.embeddings AS e WHERE e.team_id = team AND e.model_id = model AND e.chunk_hash = h.hash)
$$;

-- Vectors of (dimensions) f32 each, packed in the order of their chunk hashes; a vector the store
-- has already is kept as it is. Answers how many were new.
CREATE FUNCTION fathom.put_embeddings(team text, model text, dimensions integer, chunk_hashes bytea, vectors bytea) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  inserted integer;
BEGIN
  IF dimensions < 1 OR octet_length(vectors) <> (octet_length(chunk_hashes) / 32) * dimensions * 4 THEN
    RAISE EXCEPTION 'put_embeddings: % bytes of vectors for % hashes of % dimensions', octet_length(vectors), octet_length(chunk_hashes) / 32, dimensions USING ERRCODE = '22023';
  END IF;
  INSERT INTO fathom.embeddings (team_id, model_id, chunk_hash, vector)
    SELECT team, model, h.hash, substring(vectors FROM h.ordinal * dimensions * 4 + 1 FOR dimensions * 4) FROM fathom.unpack_hashes(chunk_hashes) AS h
    ON CONFLICT DO NOTHING;
  GET DIAGNOSTICS inserted = ROW_COUNT;
  RETURN inserted;
END $$;

-- Files' records: per file (each hash once) its hash (packed) and chunk count; per chunk (files in
-- order, each file's chunks in order) its file's ordinal, ranges and hash (packed); per masked path
-- its file's ordinal and the path. A file the store holds already keeps its records; each new one
-- is written whole with its chunks, in this one statement (a foreign key holds each chunk's vector
-- to be there). Paths are added. Answers how many files were new.
CREATE FUNCTION fathom.put_files(team text, model text, file_hashes bytea, chunk_counts integer[],
  chunk_files integer[], start_lines integer[], end_lines integer[], start_bytes bigint[], end_bytes bigint[], chunk_hashes bytea,
  path_files integer[], masked_paths text[]) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  files integer := octet_length(file_hashes) / 32;
  chunks integer := octet_length(chunk_hashes) / 32;
  inserted integer;
BEGIN
  IF coalesce(array_length(chunk_counts, 1), 0) <> files
     OR coalesce(array_length(chunk_files, 1), 0) <> chunks OR coalesce(array_length(start_lines, 1), 0) <> chunks
     OR coalesce(array_length(end_lines, 1), 0) <> chunks OR coalesce(array_length(start_bytes, 1), 0) <> chunks
     OR coalesce(array_length(end_bytes, 1), 0) <> chunks OR coalesce(array_length(path_files, 1), 0) <> coalesce(array_length(masked_paths, 1), 0) THEN
    RAISE EXCEPTION 'put_files: arrays of different lengths (% files, % chunks)', files, chunks USING ERRCODE = '22023';
  END IF;
  IF (SELECT count(DISTINCT hash) FROM fathom.unpack_hashes(file_hashes)) <> files THEN
    RAISE EXCEPTION 'put_files: a file hash given twice' USING ERRCODE = '22023';
  END IF;
  IF EXISTS (SELECT 1 FROM generate_series(0, files - 1) AS i
             LEFT JOIN (SELECT c, count(*) AS n FROM unnest(chunk_files) AS c GROUP BY c) AS given ON given.c = i
             WHERE chunk_counts[i + 1] <> coalesce(given.n, 0))
     OR EXISTS (SELECT 1 FROM unnest(chunk_files || path_files) AS c WHERE c < 0 OR c >= files) THEN
    RAISE EXCEPTION 'put_files: chunks or paths that do not match the files given' USING ERRCODE = '22023';
  END IF;
  WITH fresh AS (
    INSERT INTO fathom.files (team_id, model_id, file_hash, chunk_count)
      SELECT team, model, h.hash, chunk_counts[h.ordinal + 1] FROM fathom.unpack_hashes(file_hashes) AS h
      ON CONFLICT DO NOTHING
      RETURNING file_hash
  ), given AS (
    SELECT substring(file_hashes FROM u.file * 32 + 1 FOR 32) AS file_hash, substring(chunk_hashes FROM (u.ord::integer - 1) * 32 + 1 FOR 32) AS chunk_hash,
           u.start_line, u.end_line, u.start_byte, u.end_byte, row_number() OVER (PARTITION BY u.file ORDER BY u.ord) - 1 AS within_file
    FROM unnest(chunk_files, start_lines, end_lines, start_bytes, end_bytes) WITH ORDINALITY AS u (file, start_line, end_line, start_byte, end_byte, ord)
  ), written AS (
    INSERT INTO fathom.file_chunks (team_id, model_id, file_hash, ordinal, start_line, end_line, start_byte, end_byte, chunk_hash)
      SELECT team, model, g.file_hash, g.within_file, g.start_line, g.end_line, g.start_byte, g.end_byte, g.chunk_hash
      FROM given AS g WHERE g.file_hash IN (SELECT file_hash FROM fresh)
  )
  SELECT count(*) INTO inserted FROM fresh;
  INSERT INTO fathom.file_paths (team_id, file_hash, masked_path)
    SELECT team, substring(file_hashes FROM p.file * 32 + 1 FOR 32), p.masked_path FROM unnest(path_files, masked_paths) AS p (file, masked_path)
    ON CONFLICT DO NOTHING;
  RETURN inserted;
END $$;

-- A pushed tree; the same tree (team, model, Merkle root) pushed again is the row already there.
-- Answers its id and whether it is new.
CREATE FUNCTION fathom.put_snapshot(team text, model text, merkle_root bytea, simhash bigint, file_count integer, chunk_count integer, OUT id bigint, OUT created boolean)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  INSERT INTO fathom.snapshots (team_id, model_id, merkle_root, simhash, file_count, chunk_count)
    VALUES (team, model, merkle_root, simhash, file_count, chunk_count)
    ON CONFLICT ON CONSTRAINT snapshots_same_tree DO NOTHING
    RETURNING snapshots.id INTO id;
  created := id IS NOT NULL;
  IF NOT created THEN
    SELECT s.id INTO id FROM fathom.snapshots AS s WHERE s.team_id = team AND s.model_id = model AND s.merkle_root = put_snapshot.merkle_root;
  END IF;
END $$;

-- How many of the files given (by hash) the store holds records of, and their chunks.
CREATE FUNCTION fathom.held_files(team text, model text, file_hashes bytea, OUT files bigint, OUT chunks bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT count(*), coalesce(sum(f.chunk_count), 0)
  FROM (SELECT DISTINCT hash FROM fathom.unpack_hashes(file_hashes)) AS h
  JOIN fathom.files AS f ON f.team_id = team AND f.model_id = model AND f.file_hash = h.hash
$$;

-- The records of the files given (by hash) that the store holds: per chunk its file, the file's
-- masked paths, ranges and chunk hash (a file without chunks: one row, ordinal null). Nothing about
-- any other file.
CREATE FUNCTION fathom.file_records(team text, model text, file_hashes bytea)
RETURNS TABLE (file_hash bytea, masked_paths text[], chunk_count integer, ordinal integer, start_line integer, end_line integer, start_byte bigint, end_byte bigint, chunk_hash bytea)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT f.file_hash,
         (SELECT array_agg(p.masked_path ORDER BY p.masked_path) FROM fathom.file_paths AS p WHERE p.team_id = team AND p.file_hash = f.file_hash),
         f.chunk_count, c.ordinal, c.start_line, c.end_line, c.start_byte, c.end_byte, c.chunk_hash
  FROM (SELECT DISTINCT hash FROM fathom.unpack_hashes(file_hashes)) AS h
  JOIN fathom.files AS f ON f.team_id = team AND f.model_id = model AND f.file_hash = h.hash
  LEFT JOIN fathom.file_chunks AS c ON c.team_id = team AND c.model_id = model AND c.file_hash = f.file_hash
  ORDER BY f.file_hash, c.ordinal
$$;

-- The vectors of the chunks of the files given (by hash) that the store holds, each once.
CREATE FUNCTION fathom.file_vectors(team text, model text, file_hashes bytea) RETURNS TABLE (chunk_hash bytea, vector bytea)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT e.chunk_hash, e.vector FROM fathom.embeddings AS e
  WHERE e.team_id = team AND e.model_id = model AND e.chunk_hash IN (
    SELECT c.chunk_hash FROM (SELECT DISTINCT hash FROM fathom.unpack_hashes(file_hashes)) AS h
    JOIN fathom.file_chunks AS c ON c.team_id = team AND c.model_id = model AND c.file_hash = h.hash)
$$;

-- The team's snapshots of a model nearest to a simhash (Hamming distance), nearest first, then newest.
CREATE FUNCTION fathom.nearest_snapshots(team text, model text, simhash bigint, k integer)
RETURNS TABLE (id bigint, merkle_root bytea, simhash bigint, distance integer, file_count integer, chunk_count integer, created_at timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT s.id, s.merkle_root, s.simhash, bit_count((s.simhash # nearest_snapshots.simhash)::bit(64))::integer AS distance, s.file_count, s.chunk_count, s.created_at
  FROM fathom.snapshots AS s WHERE s.team_id = team AND s.model_id = model
  ORDER BY distance, s.created_at DESC LIMIT least(greatest(k, 0), 100)
$$;

CREATE INDEX snapshots_by_team ON fathom.snapshots (team_id, model_id, created_at);
`;
