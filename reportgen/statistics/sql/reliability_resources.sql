-- reliability_resources: resource consistency per label and night, of cost, tokens, latency.
-- Grain: one row per (label, batch, scope, measure) with at least one task of two or more
--   clean runs that give the resource, their mean above 0.
-- Needs: macro rg_reliability_runs() (reliability_runs.sql); parameters $labels, $by_suite.
-- Each the mean over tasks of 1 - min(CV, 1), CV the coefficient of variation (sample standard
-- deviation / mean) of the resource over a task's clean runs.
-- Columns as in reliability_outcomes.sql; measure is cost_consistency, token_consistency or
-- latency_consistency.
WITH clean AS (
    SELECT * FROM rg_reliability_runs($labels, $by_suite) WHERE NOT perturbed
),

long AS (
    SELECT label, batch, scope, suite, task_id, 'cost_consistency' AS measure, run_id,
        cost_usd AS v
    FROM clean
    UNION ALL
    SELECT label, batch, scope, suite, task_id, 'token_consistency' AS measure, run_id,
        tokens AS v
    FROM clean
    UNION ALL
    SELECT label, batch, scope, suite, task_id, 'latency_consistency' AS measure, run_id,
        latency_ms AS v
    FROM clean
),

tasks AS (
    SELECT
        label, batch, scope, suite, task_id, measure,
        count(v) AS n,
        1.0 - least(1.0, stddev_samp(v ORDER BY run_id) / avg(v ORDER BY run_id)) AS c
    FROM long
    WHERE v IS NOT NULL
    GROUP BY label, batch, scope, suite, task_id, measure
    HAVING count(v) >= 2 AND avg(v ORDER BY run_id) > 0
)

SELECT
    label, batch, scope, measure,
    count(*) AS n_tasks,
    avg(c ORDER BY suite, task_id) AS mean,
    stddev_samp(c ORDER BY suite, task_id) AS sd,
    median(n) AS trials
FROM tasks
GROUP BY label, batch, scope, measure
ORDER BY label, batch, scope, measure;
