-- spend_cost_check: per suite, the cost the traces report beside the cost recomputed at ingest
--   from tokens and model prices (runs.cost_recomputed_usd, reportgen/ingest/reprice.py).
-- Grain: one row per suite of the selected runs, ordered by suite.
-- Needs: archive tables runs, steps; temp table spend_runs (spend_runs.sql); parameters none.
-- reported: runs.cost_usd, else the sum of the run's steps' cost_usd (NULL when neither is
-- given). The sums are over the runs where both costs are known (n_compared of n_runs), so
-- that they compare the same runs; recomputed_all sums every run's recomputed cost.
WITH chosen AS (
    SELECT run_id FROM spend_runs WHERE selected
),
step_costs AS (
    SELECT s.run_id, sum(s.cost_usd) AS cost
    FROM steps AS s
    JOIN chosen USING (run_id)
    GROUP BY s.run_id
),
costs AS (
    SELECT r.suite, coalesce(r.cost_usd, sc.cost) AS reported,
        r.cost_recomputed_usd AS recomputed
    FROM runs AS r
    JOIN chosen USING (run_id)
    LEFT JOIN step_costs AS sc USING (run_id)
)
SELECT
    suite,
    count(*) AS n_runs,
    count(*) FILTER (reported IS NOT NULL AND recomputed IS NOT NULL) AS n_compared,
    coalesce(sum(reported) FILTER (reported IS NOT NULL AND recomputed IS NOT NULL), 0)
        AS reported,
    coalesce(sum(recomputed) FILTER (reported IS NOT NULL AND recomputed IS NOT NULL), 0)
        AS recomputed,
    count(recomputed) AS n_recomputed,
    coalesce(sum(recomputed), 0) AS recomputed_all
FROM costs
GROUP BY suite
ORDER BY suite
