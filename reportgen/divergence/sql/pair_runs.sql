-- pair_runs: the runs that the pairs in `pairs` name, one row per run_id (grain: run).
-- Scopes the step and total queries to the runs being compared, so an archive of many nights
-- is not scanned for one night's pairs.
--   rn  dense 0-based number of the run (by run_id): its row in the arrays pair_metrics builds
SELECT
    run_id,
    CAST(row_number() OVER (ORDER BY run_id) - 1 AS INTEGER) AS rn
FROM (
    SELECT baseline_run_id AS run_id FROM pairs
    UNION
    SELECT candidate_run_id AS run_id FROM pairs
) AS named
