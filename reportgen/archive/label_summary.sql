-- label_summary: per suite and label, how many runs, tasks, batches and steps, how many steps
-- were wasted (error, retry, abandoned), and total tokens and cost (unknown totals count 0).
-- Grain: one row per (suite, label), ordered by suite, label.
-- Needs: macro rg_run_resolved (run_resolved.sql, executed first by
--   reportgen.reports.summary.archive_summary), which reads archive tables runs, steps.
SELECT
    suite,
    label,
    count(*) AS runs,
    count(DISTINCT task_id) AS tasks,
    count(DISTINCT batch) AS batches,
    min(batch) AS first_batch,
    max(batch) AS last_batch,
    CAST(coalesce(sum(n_steps), 0) AS BIGINT) AS steps,
    CAST(coalesce(sum(n_wasted), 0) AS BIGINT) AS wasted_steps,
    CAST(coalesce(sum(tokens), 0) AS BIGINT) AS tokens,
    round(coalesce(sum(cost_usd), 0), 6) AS cost_usd
FROM rg_run_resolved()
GROUP BY suite, label
ORDER BY suite, label
