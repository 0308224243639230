-- site_runs: one row per archived run (grain: run_id), for the site's run, task and index pages.
-- Totals as rg_run_resolved() gives them (run_resolved.sql); wei = n_wasted / n_steps.
--   meta  JSON text of the run's meta (notes are rendered as Markdown)
-- Ordered by suite, task, batch, label, trial, run_id so pages list runs stably.
SELECT
    run_id, suite, label, task_id, batch, trial,
    strftime(started_at, '%Y-%m-%dT%H:%M:%SZ') AS started_at,
    CAST(meta AS VARCHAR) AS meta,
    success,
    reward,
    n_steps,
    n_wasted,
    CASE WHEN n_steps = 0 THEN 0.0 ELSE n_wasted / n_steps END AS wei,
    tokens,
    cost_usd,
    latency_ms
FROM rg_run_resolved()
ORDER BY suite, task_id, batch, label, trial, run_id
