-- pair_runs_missing: runs named by `pairs` that the archive does not hold (grain: run_id).
-- pair_metrics refuses such pairs rather than scoring an absent run as an empty one.
SELECT pr.run_id
FROM pair_runs AS pr
WHERE pr.run_id NOT IN (SELECT r.run_id FROM runs AS r)
ORDER BY pr.run_id
