-- reliability_outcomes: outcome consistency per label and night: the mean over tasks of
--   1 - 4 p (1 - p), p the share of a task's scored clean trials that passed.
-- Grain: one row per (label, batch, scope) with at least one task of two or more scored clean
--   trials.
-- Needs: macro rg_reliability_runs() (reliability_runs.sql); parameters $labels, $by_suite.
-- Columns: label, batch, scope (the suite with $by_suite, else ''), measure, n_tasks, mean,
-- sd (over tasks, NULL for one task), trials (median trials per task counted). A task is its
-- (suite, task_id).
WITH tasks AS (
    SELECT
        label, batch, scope, suite, task_id,
        count(*) AS n,
        avg(CAST(success AS DOUBLE)) AS p
    FROM rg_reliability_runs($labels, $by_suite)
    WHERE NOT perturbed AND success IS NOT NULL
    GROUP BY label, batch, scope, suite, task_id
    HAVING count(*) >= 2
),

scored AS (
    SELECT label, batch, scope, suite, task_id, n, 1.0 - 4.0 * p * (1.0 - p) AS c FROM tasks
)

SELECT
    label, batch, scope,
    'outcome_consistency' AS measure,
    count(*) AS n_tasks,
    avg(c ORDER BY suite, task_id) AS mean,
    stddev_samp(c ORDER BY suite, task_id) AS sd,
    median(n) AS trials
FROM scored
GROUP BY label, batch, scope
ORDER BY label, batch, scope;
