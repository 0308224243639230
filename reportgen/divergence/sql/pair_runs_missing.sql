-- pair_runs_missing: the runs named by the pairs that the archive does not hold;
-- pair_metrics refuses such pairs rather than scoring an absent run as an empty one.
-- Grain: one row per run_id, ordered by run_id.
-- Needs: archive table runs; temp table pair_runs (pair_runs.sql, made by
--   reportgen.divergence.metrics._read).
SELECT pr.run_id
FROM pair_runs AS pr
WHERE pr.run_id NOT IN (SELECT r.run_id FROM runs AS r)
ORDER BY pr.run_id
