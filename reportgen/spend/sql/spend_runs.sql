-- spend_runs: the runs the avoidable-spend findings are computed for (selected) and the
--   child runs their meta.children name (not selected: read for the sub-agents' costs only).
-- Grain: one row per run_id.
-- Needs: archive table runs; parameters $all_runs (every run), $run_ids (else these), $suite
--   (only the runs of this suite; NULL: any).
CREATE OR REPLACE TEMP TABLE spend_runs AS
WITH chosen AS (
    SELECT run_id, meta FROM runs
    WHERE ($all_runs OR run_id IN (SELECT unnest($run_ids))) AND ($suite IS NULL OR suite = $suite)
),

children AS (
    SELECT DISTINCT json_extract_string(c.value, '$.run_id') AS run_id
    FROM chosen, json_each(json_extract(chosen.meta, '$.children')) AS c
)

SELECT run_id, true AS selected FROM chosen
UNION ALL
SELECT ch.run_id, false AS selected
FROM children AS ch
WHERE ch.run_id IN (SELECT run_id FROM runs) AND ch.run_id NOT IN (SELECT run_id FROM chosen)
