-- step_statuses: each step's status spelled out ('success' as 'ok'), for the runs in pair_runs.
-- Grain: one row per step (run_id, idx; given as rn, idx), in no particular order.
-- Needs: archive table steps; temp table pair_runs (pair_runs.sql, made by
--   reportgen.divergence.metrics._read).
-- pair_metrics reads it (reportgen.divergence.metrics._spell) only when step_facts.sql gives a
-- status_code of 4 (a status other than ok, success, error, retry and abandoned), so that two
-- such steps are "matched" only when their statuses are equal.
SELECT
    pr.rn,
    s.idx,
    CASE WHEN s.status = 'success' THEN 'ok' ELSE s.status END AS status_text
FROM steps AS s
INNER JOIN pair_runs AS pr ON pr.run_id = s.run_id
