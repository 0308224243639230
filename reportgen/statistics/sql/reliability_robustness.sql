-- reliability_robustness: robustness per label and night: the mean over tasks of the paired
--   change in success, perturbed runs' pass share minus clean runs' pass share of the task.
-- Grain: one row per (label, batch, scope) with at least one task that has both a scored perturbed
--   and a scored clean run.
-- Needs: macro rg_reliability_runs() (reliability_runs.sql); parameters $labels, $by_suite.
-- Columns as in reliability_outcomes.sql; trials is the median over tasks of the smaller of the
-- task's perturbed and clean run counts.
WITH tasks AS (
    SELECT
        label, batch, scope, suite, task_id,
        count(*) FILTER (WHERE perturbed) AS n_perturbed,
        count(*) FILTER (WHERE NOT perturbed) AS n_clean,
        avg(CAST(success AS DOUBLE)) FILTER (WHERE perturbed)
        - avg(CAST(success AS DOUBLE)) FILTER (WHERE NOT perturbed) AS c
    FROM rg_reliability_runs($labels, $by_suite)
    WHERE success IS NOT NULL
    GROUP BY label, batch, scope, suite, task_id
    HAVING count(*) FILTER (WHERE perturbed) > 0 AND count(*) FILTER (WHERE NOT perturbed) > 0
)

SELECT
    label, batch, scope,
    'robustness' AS measure,
    count(*) AS n_tasks,
    avg(c ORDER BY suite, task_id) AS mean,
    stddev_samp(c ORDER BY suite, task_id) AS sd,
    median(least(n_perturbed, n_clean)) AS trials
FROM tasks
GROUP BY label, batch, scope
ORDER BY label, batch, scope;
