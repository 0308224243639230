-- Per suite and label: how many runs, tasks, batches and steps, how many steps were wasted
-- (error, retry, abandoned), and total tokens and cost. Grain: one row per (suite, label).
WITH step_totals AS (
    SELECT run_id,
           count(*) AS steps,
           count(*) FILTER (WHERE status IN ('error', 'retry', 'abandoned')) AS wasted,
           sum(coalesce(tokens_in, 0) + coalesce(tokens_out, 0)) AS tokens,
           sum(coalesce(cost_usd, 0)) AS cost_usd
    FROM steps
    GROUP BY run_id
)
SELECT r.suite,
       r.label,
       count(*) AS runs,
       count(DISTINCT r.task_id) AS tasks,
       count(DISTINCT r.batch) AS batches,
       min(r.batch) AS first_batch,
       max(r.batch) AS last_batch,
       CAST(coalesce(sum(t.steps), 0) AS BIGINT) AS steps,
       CAST(coalesce(sum(t.wasted), 0) AS BIGINT) AS wasted_steps,
       CAST(sum(coalesce(r.tokens_in + r.tokens_out, t.tokens, 0)) AS BIGINT) AS tokens,
       round(sum(coalesce(r.cost_usd, t.cost_usd, 0)), 6) AS cost_usd
FROM runs AS r
LEFT JOIN step_totals AS t USING (run_id)
GROUP BY r.suite, r.label
ORDER BY r.suite, r.label
