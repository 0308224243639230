-- snapshot_part_keys: what each night file of the snapshot is made of, hashed, to find the
--   files a rebuild can take from the previous site unchanged.
-- Grain: one row per (table, part) with rows: tbl, part (snapshot_run_parts.part; 0 for rows
--   of a run without a batch or not in the archive), rows_hash, n_rows.
-- Needs: the temporary views snapshot_src_runs, snapshot_src_steps, snapshot_src_iterations,
--   snapshot_src_outputs (the rows the published ones are made from: the archive tables
--   under the build's redaction views, whose SQL keys every file besides) and the temporary
--   table snapshot_run_parts (snapshot_run_parts.sql).
-- Hashed: every column of runs and outputs; of a step every column but its input keys and
-- input and output text, which its stored hashes (signature, payload) and its run's row
-- (content_hash: the source file's hash) stand for; of an iteration every column but its
-- check output and patch, which its content_hash and source_line (the record it was read
-- from) stand for. Leaving the text out keeps this cheap on a Parquet archive too (its text
-- columns are not read). DuckDB's hash of each row, combined with bit_xor, so the order rows
-- are stored in does not matter.
SELECT 'runs' AS tbl, coalesce(p.part, 0) AS part, bit_xor(hash(r)) AS rows_hash,
    count(*) AS n_rows
FROM snapshot_src_runs AS r
LEFT JOIN snapshot_run_parts AS p ON p.raw_id = r.run_id
GROUP BY ALL
UNION ALL
SELECT 'steps', coalesce(p.part, 0), bit_xor(hash(s)), count(*)
FROM (SELECT * EXCLUDE (input, output, input_keys) FROM snapshot_src_steps) AS s
LEFT JOIN snapshot_run_parts AS p ON p.raw_id = s.run_id
GROUP BY ALL
UNION ALL
SELECT 'iterations', coalesce(p.part, 0), bit_xor(hash(i)), count(*)
FROM (SELECT * EXCLUDE (check_output, patch) FROM snapshot_src_iterations) AS i
LEFT JOIN snapshot_run_parts AS p ON p.raw_id = i.run_id
GROUP BY ALL
UNION ALL
SELECT 'outputs', coalesce(p.part, 0), bit_xor(hash(o)), count(*)
FROM snapshot_src_outputs AS o
LEFT JOIN snapshot_run_parts AS p ON p.raw_id = o.run_id
GROUP BY ALL
