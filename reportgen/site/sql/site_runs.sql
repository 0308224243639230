-- site_runs: every archived run, for the site's run, task and index pages; totals as
-- rg_run_resolved() gives them, wei = n_wasted / n_steps (0.0 without steps).
-- Grain: one row per run_id, ordered by suite, task_id, batch, label, trial, run_id so pages
--   list runs stably.
-- Needs: macros rg_run_resolved and rg_wei (run_resolved.sql, executed first by
--   reportgen.site.data.load_site_data), which reads archive tables runs, steps; table runs.
-- Columns:
--   meta    JSON text of the run's meta (notes are rendered as Markdown; goal and title name it)
--   output  the run's final answer (the pair pages' why panel)
--   cache_read_tokens, cache_write_tokens, reasoning_tokens   the run's, else its steps' sum
--           (NULL when neither gives them); the run page's token breakdown
--   cost_recomputed_usd   the cost recomputed at ingest (reportgen/ingest/reprice.py)
WITH step_cache AS (
    SELECT
        run_id,
        CAST(sum(cache_read_tokens) AS BIGINT) AS cache_read_tokens,
        CAST(sum(cache_write_tokens) AS BIGINT) AS cache_write_tokens,
        CAST(sum(reasoning_tokens) AS BIGINT) AS reasoning_tokens
    FROM steps
    GROUP BY run_id
)
SELECT
    rr.run_id, rr.suite, rr.label, rr.task_id, rr.batch, rr.trial,
    strftime(rr.started_at, '%Y-%m-%dT%H:%M:%SZ') AS started_at,
    CAST(rr.meta AS VARCHAR) AS meta,
    r.output,
    rr.success,
    rr.reward,
    rr.n_steps,
    rr.n_wasted,
    rg_wei(rr.n_wasted, rr.n_steps) AS wei,
    rr.tokens,
    rr.cost_usd,
    rr.latency_ms,
    rr.tokens_in,
    rr.tokens_out,
    coalesce(r.cache_read_tokens, sc.cache_read_tokens) AS cache_read_tokens,
    coalesce(r.cache_write_tokens, sc.cache_write_tokens) AS cache_write_tokens,
    coalesce(r.reasoning_tokens, sc.reasoning_tokens) AS reasoning_tokens,
    r.cost_recomputed_usd
FROM rg_run_resolved() AS rr
JOIN runs AS r USING (run_id)
LEFT JOIN step_cache AS sc USING (run_id)
ORDER BY rr.suite, rr.task_id, rr.batch, rr.label, rr.trial, rr.run_id
