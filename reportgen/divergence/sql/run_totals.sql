-- run_totals: the resource totals each run in pair_runs gives itself (NULL = not given).
-- Grain: one row per run_id of pair_runs, ordered by rn.
-- Needs: archive table runs; temp table pair_runs (pair_runs.sql, made by
--   reportgen.divergence.metrics._read).
-- Where a total is NULL, pair_metrics uses the sum of the run's steps (integers summed, cost
-- and latency folded left to right in step order, as the Python reference does), and NULL
-- again when no step gives the number either.
SELECT
    pr.run_id,
    pr.rn,
    r.tokens_in,
    r.tokens_out,
    r.cost_usd,
    r.latency_ms
FROM pair_runs AS pr
LEFT JOIN runs AS r ON r.run_id = pr.run_id
ORDER BY pr.rn
