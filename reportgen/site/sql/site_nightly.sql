-- site_nightly: the nightly series the history page plots and scans for change points.
-- Grain: one row per (suite, label, batch), ordered by suite, label, batch.
-- Needs: macros rg_run_resolved and rg_wei (run_resolved.sql, executed first by
--   reportgen.site.data.load_site_data), which reads archive tables runs, steps.
-- Per-run figures are means over the batch's runs (trials too).
--   wei          wasted steps / steps over the whole batch (0 when there are no steps)
--   cost_usd, tokens, latency_ms   mean per run of the resolved run totals (rg_run_resolved(),
--                run_resolved.sql); NULL when no run knows the number
--   (float means run in run_id order: the digits never depend on the rows' storage order)
--   success_rate share of runs with success = true, over runs that report success
SELECT
    suite,
    label,
    batch,
    count(*) AS runs,
    CAST(sum(n_steps) AS BIGINT) AS steps,
    CAST(sum(n_wasted) AS BIGINT) AS wasted_steps,
    rg_wei(sum(n_wasted), sum(n_steps)) AS wei,
    avg(n_steps) AS steps_per_run,
    avg(tokens) AS tokens,
    avg(cost_usd ORDER BY run_id) AS cost_usd,
    avg(latency_ms ORDER BY run_id) AS latency_ms,
    avg(CASE WHEN success THEN 1.0 WHEN NOT success THEN 0.0 END) AS success_rate
FROM rg_run_resolved()
GROUP BY suite, label, batch
ORDER BY suite, label, batch
