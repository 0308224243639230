-- site_runs: every archived run, for the site's run, task and index pages; totals as
-- rg_run_resolved() gives them, wei = n_wasted / n_steps (0.0 without steps).
-- Grain: one row per run_id, ordered by suite, task_id, batch, label, trial, run_id so pages
--   list runs stably.
-- Needs: macros rg_run_resolved and rg_wei (run_resolved.sql, executed first by
--   reportgen.site.data.load_site_data), which reads archive tables runs, steps; table runs.
-- Columns:
--   meta    JSON text of the run's meta (notes are rendered as Markdown; goal and title name it)
--   output  the run's final answer (the pair pages' why panel)
SELECT
    run_id, suite, label, task_id, batch, trial,
    strftime(started_at, '%Y-%m-%dT%H:%M:%SZ') AS started_at,
    CAST(meta AS VARCHAR) AS meta,
    (SELECT r.output FROM runs AS r WHERE r.run_id = rr.run_id) AS output,
    success,
    reward,
    n_steps,
    n_wasted,
    rg_wei(n_wasted, n_steps) AS wei,
    tokens,
    cost_usd,
    latency_ms
FROM rg_run_resolved() AS rr
ORDER BY suite, task_id, batch, label, trial, run_id
