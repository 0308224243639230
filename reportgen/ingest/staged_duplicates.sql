-- staged_duplicates: the staged runs, iterations and outputs that the archive, or an earlier
-- file of this load with the same content, already holds (reportgen.ingest.duplicates).
-- Grain: none: creates temp table rg_dup (one row per staged row to drop: tbl, rg_round (0:
--   in stage_<tbl>, else in rg_hold_<tbl>), rid (its rowid there), run_id, source_file,
--   dup_of (the file that holds it), archived).
-- Needs: temp tables stage_runs, stage_iterations, stage_outputs (reportgen.ingest.loader._load),
--   rg_hold_runs, rg_hold_iterations, rg_hold_outputs (the same columns and rg_round: the
--   rows of the files staged apart, see duplicates.rounds) and rg_order (source_file, ord: the
--   load's files in path order), made by reportgen.ingest.duplicates; tables runs,
--   iterations, outputs.
-- A row's identity: a run its run_id, an iteration its (run_id, iter), an output of a run its
-- run's, any other output (suite, label, task_id, batch, trial, run_id). A row is a duplicate
-- when a row of the same identity comes from the same content (content_hash): archived, or
-- staged by an earlier file. An identity staged with two contents is left to the conflict
-- check (reportgen/ingest/conflicts.py), and so is one staged twice by the same file.
CREATE OR REPLACE TEMP TABLE rg_dup AS
WITH all_runs AS (
    SELECT 0 AS rg_round, rowid AS rid, run_id, source_file, content_hash FROM stage_runs
    UNION ALL
    SELECT rg_round, rowid, run_id, source_file, content_hash FROM rg_hold_runs
),
run_rows AS (
    SELECT s.*, o.ord FROM all_runs AS s JOIN rg_order AS o USING (source_file)
),
run_ids AS (
    SELECT run_id, arg_min(source_file, ord) AS first_file
    FROM run_rows GROUP BY run_id HAVING count(DISTINCT content_hash) = 1
),
dup_runs AS (
    SELECT s.rg_round, s.rid, s.run_id, s.source_file,
           coalesce(a.source_file, i.first_file) AS dup_of, a.run_id IS NOT NULL AS archived
    FROM run_rows AS s
    JOIN run_ids AS i USING (run_id)
    LEFT JOIN runs AS a ON a.run_id = s.run_id AND a.content_hash = s.content_hash
    WHERE a.run_id IS NOT NULL OR s.source_file <> i.first_file
),
all_iters AS (
    SELECT 0 AS rg_round, rowid AS rid, run_id, iter, source_file, content_hash
    FROM stage_iterations
    UNION ALL
    SELECT rg_round, rowid, run_id, iter, source_file, content_hash FROM rg_hold_iterations
),
iter_rows AS (
    SELECT s.*, o.ord FROM all_iters AS s JOIN rg_order AS o USING (source_file)
),
iter_keys AS (
    SELECT run_id, iter, arg_min(source_file, ord) AS first_file
    FROM iter_rows GROUP BY run_id, iter HAVING count(DISTINCT content_hash) = 1
),
dup_iters AS (
    SELECT s.rg_round, s.rid, s.run_id, s.source_file,
           coalesce(a.source_file, k.first_file) AS dup_of, a.run_id IS NOT NULL AS archived
    FROM iter_rows AS s
    JOIN iter_keys AS k USING (run_id, iter)
    LEFT JOIN iterations AS a
      ON a.run_id = s.run_id AND a.iter = s.iter AND a.content_hash = s.content_hash
    WHERE a.run_id IS NOT NULL OR s.source_file <> k.first_file
),
all_outs AS (
    SELECT 0 AS rg_round, rowid AS rid, run_id, suite, label, task_id, batch, trial,
           source_file, content_hash
    FROM stage_outputs
    UNION ALL
    SELECT rg_round, rowid, run_id, suite, label, task_id, batch, trial, source_file,
           content_hash
    FROM rg_hold_outputs
),
out_rows AS (
    SELECT s.rg_round, s.rid, s.run_id, s.suite, s.label, s.task_id,
           coalesce(s.batch, 'undated') AS batch, s.trial, s.source_file, s.content_hash, o.ord,
           EXISTS (
               SELECT 1 FROM all_runs AS r
               WHERE r.run_id = s.run_id AND r.source_file = s.source_file
           ) AS of_run
    FROM all_outs AS s JOIN rg_order AS o USING (source_file)
),
out_keys AS (
    SELECT run_id, suite, label, task_id, batch, trial, arg_min(source_file, ord) AS first_file
    FROM out_rows WHERE NOT of_run
    GROUP BY run_id, suite, label, task_id, batch, trial
    HAVING count(DISTINCT content_hash) = 1
),
out_loose AS (
    SELECT s.rg_round, s.rid, s.run_id, s.source_file, k.first_file,
           (SELECT min(a.source_file) FROM outputs AS a
            WHERE a.run_id IS NOT DISTINCT FROM s.run_id AND a.suite = s.suite
              AND a.label = s.label AND a.task_id = s.task_id AND a.batch = s.batch
              AND a.trial = s.trial AND a.content_hash = s.content_hash) AS archived_in
    FROM out_rows AS s
    JOIN out_keys AS k
      ON k.run_id IS NOT DISTINCT FROM s.run_id AND k.suite = s.suite AND k.label = s.label
     AND k.task_id = s.task_id AND k.batch = s.batch AND k.trial = s.trial
    WHERE NOT s.of_run
)
SELECT DISTINCT * FROM (
    SELECT 'runs' AS tbl, rg_round, rid, run_id, source_file, dup_of, archived FROM dup_runs
    UNION ALL
    SELECT 'iterations', rg_round, rid, run_id, source_file, dup_of, archived FROM dup_iters
    UNION ALL
    SELECT 'outputs', s.rg_round, s.rid, s.run_id, s.source_file, d.dup_of, d.archived
    FROM out_rows AS s
    JOIN dup_runs AS d ON d.run_id = s.run_id AND d.source_file = s.source_file
    WHERE s.of_run
    UNION ALL
    SELECT 'outputs', rg_round, rid, run_id, source_file, coalesce(archived_in, first_file),
           archived_in IS NOT NULL
    FROM out_loose WHERE archived_in IS NOT NULL OR source_file <> first_file
)
