-- run_totals: one row per run in `pair_runs` (grain: run_id).
-- Resource totals for the deltas: the run's own total when the trace gives one, else the sum
-- of its steps; NULL (unknown) when neither the run nor any step gives the number.
--   tokens      tokens_in + tokens_out (each side resolved separately; an unknown side counts 0
--               unless both are unknown)
--   cost_usd, latency_ms  DOUBLE; step sums are folded left to right in step order, so the
--               result is reproducible to the last bit (the Python reference folds alike)
--   n_steps, n_wasted     step counts for WEI (wasted = error, retry or abandoned)
WITH step_sums AS (
    SELECT
        s.run_id,
        count(*) AS n_steps,
        count(*) FILTER (WHERE s.status IN ('error', 'retry', 'abandoned')) AS n_wasted,
        CAST(sum(s.tokens_in) AS BIGINT) AS tokens_in,
        CAST(sum(s.tokens_out) AS BIGINT) AS tokens_out,
        count(s.cost_usd) AS n_cost,
        list_reduce(
            list(coalesce(s.cost_usd, CAST(0 AS DOUBLE)) ORDER BY s.idx),
            lambda acc, x: acc + x,
            CAST(0 AS DOUBLE)
        ) AS cost_usd,
        count(s.latency_ms) AS n_latency,
        list_reduce(
            list(coalesce(s.latency_ms, CAST(0 AS DOUBLE)) ORDER BY s.idx),
            lambda acc, x: acc + x,
            CAST(0 AS DOUBLE)
        ) AS latency_ms
    FROM steps AS s
    INNER JOIN pair_runs AS pr ON pr.run_id = s.run_id
    GROUP BY s.run_id
),
resolved AS (
    SELECT
        pr.run_id,
        coalesce(ss.n_steps, 0) AS n_steps,
        coalesce(ss.n_wasted, 0) AS n_wasted,
        coalesce(r.tokens_in, ss.tokens_in) AS tokens_in,
        coalesce(r.tokens_out, ss.tokens_out) AS tokens_out,
        coalesce(r.cost_usd, CASE WHEN ss.n_cost > 0 THEN ss.cost_usd END) AS cost_usd,
        coalesce(r.latency_ms, CASE WHEN ss.n_latency > 0 THEN ss.latency_ms END) AS latency_ms
    FROM pair_runs AS pr
    LEFT JOIN runs AS r ON r.run_id = pr.run_id
    LEFT JOIN step_sums AS ss ON ss.run_id = pr.run_id
)
SELECT
    run_id,
    n_steps,
    n_wasted,
    CASE
        WHEN tokens_in IS NULL AND tokens_out IS NULL THEN NULL
        ELSE coalesce(tokens_in, 0) + coalesce(tokens_out, 0)
    END AS tokens,
    cost_usd,
    latency_ms
FROM resolved
