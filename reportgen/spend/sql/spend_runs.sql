-- spend_runs: the runs the avoidable-spend findings are computed for (selected) and the
--   child runs their meta.children name (not selected: read for the sub-agents' costs only).
-- Grain: one row per run_id; linked: the run names children or is named as one
--   (spend_subagents.sql sums every step of such a run; spend_steps.sql keeps only the tool
--   and llm steps of the others).
-- Needs: archive table runs; parameters $all_runs (every run), $run_ids (else these), $suite
--   (only the runs of this suite; NULL: any).
CREATE OR REPLACE TEMP TABLE spend_runs AS
WITH chosen AS (
    SELECT run_id, meta FROM runs
    WHERE ($all_runs OR run_id IN (SELECT unnest($run_ids))) AND ($suite IS NULL OR suite = $suite)
),

links AS (
    SELECT chosen.run_id AS parent_id, json_extract_string(c.value, '$.run_id') AS child_id
    FROM chosen, json_each(json_extract(chosen.meta, '$.children')) AS c
),

children AS (
    SELECT DISTINCT child_id AS run_id FROM links WHERE child_id IS NOT NULL
)

SELECT
    run_id,
    true AS selected,
    run_id IN (SELECT parent_id FROM links) OR run_id IN (SELECT run_id FROM children) AS linked
FROM chosen
UNION ALL
SELECT ch.run_id, false AS selected, true AS linked
FROM children AS ch
WHERE ch.run_id IN (SELECT run_id FROM runs) AND ch.run_id NOT IN (SELECT run_id FROM chosen)
