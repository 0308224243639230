-- site_runs: one row per archived run (grain: run_id), for the site's run, task and index pages.
-- Resource totals follow run_totals.sql: the run's own total when the trace gives one, else
-- the sum of its steps; NULL (unknown) when neither gives the number.
--   n_steps, n_wasted   step counts (wasted = error, retry or abandoned); wei = n_wasted / n_steps
--   meta                JSON text of the run's meta (notes are rendered as Markdown)
-- Ordered by suite, task, batch, label, trial, run_id so pages list runs stably.
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
resolved AS (
    SELECT
        r.run_id, r.suite, r.label, r.task_id, r.batch, r.trial,
        strftime(r.started_at, '%Y-%m-%dT%H:%M:%SZ') AS started_at,
        CAST(r.meta AS VARCHAR) AS meta,
        r.success,
        r.reward,
        coalesce(ss.n_steps, 0) AS n_steps,
        coalesce(ss.n_wasted, 0) AS n_wasted,
        coalesce(r.tokens_in, ss.tokens_in) AS tokens_in,
        coalesce(r.tokens_out, ss.tokens_out) AS tokens_out,
        coalesce(r.cost_usd, ss.cost_usd) AS cost_usd,
        coalesce(r.latency_ms, ss.latency_ms) AS latency_ms
    FROM runs AS r
    LEFT JOIN step_sums AS ss USING (run_id)
)
SELECT
    run_id, suite, label, task_id, batch, trial, started_at, meta, success, reward,
    n_steps,
    n_wasted,
    CASE WHEN n_steps = 0 THEN 0.0 ELSE n_wasted / n_steps END AS wei,
    CASE
        WHEN tokens_in IS NULL AND tokens_out IS NULL THEN NULL
        ELSE coalesce(tokens_in, 0) + coalesce(tokens_out, 0)
    END AS tokens,
    cost_usd,
    latency_ms
FROM resolved
ORDER BY suite, task_id, batch, label, trial, run_id
