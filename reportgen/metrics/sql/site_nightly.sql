-- site_nightly: one row per (suite, label, batch): the nightly series the history page plots
-- and scans for change points. Per-run figures are means over the batch's runs (trials too).
--   wei          wasted steps / steps over the whole batch (0 when there are no steps)
--   cost_usd, tokens, latency_ms   mean per run of the resolved run totals; NULL when no run
--                knows the number
--   success_rate share of runs with success = true, over runs that report success
WITH step_sums AS (
    SELECT
        run_id,
        count(*) AS n_steps,
        count(*) FILTER (WHERE status IN ('error', 'retry', 'abandoned')) AS n_wasted,
        CAST(sum(tokens_in) AS BIGINT) AS tokens_in,
        CAST(sum(tokens_out) AS BIGINT) AS tokens_out,
        sum(cost_usd) AS cost_usd,
        sum(latency_ms) AS latency_ms
    FROM steps
    GROUP BY run_id
),
per_run AS (
    SELECT
        r.suite, r.label, r.batch, r.success,
        coalesce(ss.n_steps, 0) AS n_steps,
        coalesce(ss.n_wasted, 0) AS n_wasted,
        CASE
            WHEN coalesce(r.tokens_in, ss.tokens_in) IS NULL
                AND coalesce(r.tokens_out, ss.tokens_out) IS NULL THEN NULL
            ELSE coalesce(r.tokens_in, ss.tokens_in, 0) + coalesce(r.tokens_out, ss.tokens_out, 0)
        END AS tokens,
        coalesce(r.cost_usd, ss.cost_usd) AS cost_usd,
        coalesce(r.latency_ms, ss.latency_ms) AS latency_ms
    FROM runs AS r
    LEFT JOIN step_sums AS ss USING (run_id)
)
SELECT
    suite,
    label,
    batch,
    count(*) AS runs,
    CAST(sum(n_steps) AS BIGINT) AS steps,
    CAST(sum(n_wasted) AS BIGINT) AS wasted_steps,
    CASE WHEN sum(n_steps) = 0 THEN 0.0 ELSE sum(n_wasted) / sum(n_steps) END AS wei,
    avg(n_steps) AS steps_per_run,
    avg(tokens) AS tokens,
    avg(cost_usd) AS cost_usd,
    avg(latency_ms) AS latency_ms,
    avg(CASE WHEN success THEN 1.0 WHEN NOT success THEN 0.0 END) AS success_rate
FROM per_run
GROUP BY suite, label, batch
ORDER BY suite, label, batch
