-- run_resolved: defines rg_run_resolved(): every archived run with its resource totals resolved
-- (its own total, else the sum of its steps); and rg_wei(wasted, steps), the WEI.
-- Grain: none: defines macros (rg_run_resolved(), whose rows are one per run_id; rg_wei).
-- Needs: archive tables runs, steps.
-- Totals are resolved as run_totals.sql says; NULL (unknown) when neither the run nor a step
-- gives one. Executed by reportgen.site.data.load_site_data for the site's run rows
-- (site_runs.sql) and nightly series (site_nightly.sql), and by
-- reportgen.reports.summary.archive_summary for the archive summary (label_summary.sql).
-- Columns:
--   n_steps, n_wasted   step counts (wasted = error, retry or abandoned)
--   tokens              tokens_in + tokens_out (a missing side counts 0; NULL when both are)
-- Floating-point sums run in step order, so a total never depends on the rows' storage order
-- (an archive restored from a snapshot gives the same digits as the one it was taken from).
CREATE OR REPLACE TEMP MACRO rg_run_resolved() AS TABLE
WITH step_sums AS (
    SELECT
        run_id,
        count(*) AS n_steps,
        count(*) FILTER (WHERE status IN ('error', 'retry', 'abandoned')) AS n_wasted,
        CAST(sum(tokens_in) AS BIGINT) AS tokens_in,
        CAST(sum(tokens_out) AS BIGINT) AS tokens_out,
        sum(cost_usd ORDER BY idx) AS cost_usd,
        sum(latency_ms ORDER BY idx) AS latency_ms
    FROM steps
    GROUP BY run_id
),

resolved AS (
    SELECT
        r.run_id, r.suite, r.label, r.task_id, r.batch, r.trial, r.started_at, r.meta,
        r.success, r.reward,
        coalesce(ss.n_steps, 0) AS n_steps_counted,
        coalesce(ss.n_wasted, 0) AS n_wasted,
        coalesce(r.tokens_in, ss.tokens_in) AS tokens_in_resolved,
        coalesce(r.tokens_out, ss.tokens_out) AS tokens_out_resolved,
        coalesce(r.cost_usd, ss.cost_usd) AS cost_usd_resolved,
        coalesce(r.latency_ms, ss.latency_ms) AS latency_ms_resolved
    FROM runs AS r
    LEFT JOIN step_sums AS ss USING (run_id)
)

SELECT
    run_id, suite, label, task_id, batch, trial, started_at, meta, success, reward,
    n_steps_counted AS n_steps,
    n_wasted,
    tokens_in_resolved AS tokens_in,
    tokens_out_resolved AS tokens_out,
    CASE
        WHEN tokens_in_resolved IS NULL AND tokens_out_resolved IS NULL THEN NULL
        ELSE coalesce(tokens_in_resolved, 0) + coalesce(tokens_out_resolved, 0)
    END AS tokens,
    cost_usd_resolved AS cost_usd,
    latency_ms_resolved AS latency_ms
FROM resolved;

-- The Wasted Effort Index, 0.0 without steps: the SQL twin of divergence/formulas.py wei().
CREATE OR REPLACE TEMP MACRO rg_wei(wasted, steps) AS
    CASE WHEN steps = 0 THEN 0.0 ELSE wasted / steps END;
