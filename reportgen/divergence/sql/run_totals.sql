-- run_totals: the resource totals each run in `pair_runs` gives itself (grain: run_id).
-- NULL = not given by the run; pair_metrics then uses the sum of the run's steps (integers
-- summed, cost and latency folded left to right in step order, as the Python reference does),
-- and NULL again when no step gives the number either.
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
