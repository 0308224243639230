-- step_statuses: each step's status spelled out ('success' as 'ok'), for the runs in
-- `pair_runs` (grain: run_id, idx), in no particular order. pair_metrics reads it only when
-- step_facts.sql gives a status_code of 4 (a status other than ok, success, error, retry and
-- abandoned), so that two such steps are "matched" only when their statuses are equal.
SELECT
    pr.rn,
    s.idx,
    CASE WHEN s.status = 'success' THEN 'ok' ELSE s.status END AS status_text
FROM steps AS s
INNER JOIN pair_runs AS pr ON pr.run_id = s.run_id
