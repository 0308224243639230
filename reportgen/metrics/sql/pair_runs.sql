-- pair_runs: the runs that the pairs in `pairs` name, one row per run_id (grain: run).
-- Scopes step_signatures and run_totals to the runs being compared, so an archive of many
-- nights is not re-ranked for one night's pairs.
SELECT baseline_run_id AS run_id FROM pairs
UNION
SELECT candidate_run_id AS run_id FROM pairs
