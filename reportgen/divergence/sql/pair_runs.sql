-- pair_runs: the runs that the pairs in the temp table pairs name, each numbered (rn).
-- Grain: one row per run_id (the baseline or candidate run of some pair).
-- Needs: temp table pairs (made by reportgen.divergence.metrics._read from the Arrow view
--   rg_pairs_input). The same function stores these rows as temp table pair_runs.
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
