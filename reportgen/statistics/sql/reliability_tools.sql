-- reliability_tools: distributional trajectory consistency per label and night (tool use).
-- Grain: one row per (label, batch, scope) with at least one task of two or more clean runs.
-- Needs: macro rg_reliability_runs() (reliability_runs.sql); parameters $labels, $by_suite;
--   archive table steps (type 'tool', action the tool's name).
-- The mean over tasks of 1 - the mean Jensen-Shannon distance (base 2) between its clean runs'
-- tool-call frequency distributions, over every pair of those runs.
-- Two runs without tool calls are at distance 0, one with and one without at 1. Columns as in
-- reliability_outcomes.sql.
WITH clean AS (
    SELECT run_id, label, batch, scope, suite, task_id
    FROM rg_reliability_runs($labels, $by_suite)
    WHERE NOT perturbed
),

counts AS (
    SELECT s.run_id, s.action AS tool, count(*) AS k
    FROM steps AS s
    SEMI JOIN clean AS c ON c.run_id = s.run_id
    WHERE s.type = 'tool'
    GROUP BY s.run_id, s.action
),

dist AS (
    SELECT run_id, tool, k / sum(k) OVER (PARTITION BY run_id) AS p FROM counts
),

flagged AS (
    SELECT c.*, t.run_id IS NOT NULL AS has_tools
    FROM clean AS c
    LEFT JOIN (SELECT DISTINCT run_id FROM counts) AS t USING (run_id)
),

pairs AS (
    SELECT
        a.label, a.batch, a.scope, a.suite, a.task_id,
        a.run_id AS run_a, b.run_id AS run_b,
        a.has_tools AS tools_a, b.has_tools AS tools_b
    FROM flagged AS a
    JOIN flagged AS b
        ON a.label = b.label AND a.batch = b.batch AND a.suite = b.suite
        AND a.task_id = b.task_id AND a.run_id < b.run_id
),

stacked AS (
    SELECT pr.run_a, pr.run_b, d.tool, d.p, 0.0 AS q
    FROM pairs AS pr JOIN dist AS d ON d.run_id = pr.run_a
    UNION ALL
    SELECT pr.run_a, pr.run_b, d.tool, 0.0 AS p, d.p AS q
    FROM pairs AS pr JOIN dist AS d ON d.run_id = pr.run_b
),

terms AS (
    SELECT run_a, run_b, tool, sum(p) AS p, sum(q) AS q
    FROM stacked
    GROUP BY run_a, run_b, tool
),

js AS (
    SELECT
        run_a, run_b,
        sum(
            CASE WHEN p > 0 THEN 0.5 * p * log2(2.0 * p / (p + q)) ELSE 0.0 END
            + CASE WHEN q > 0 THEN 0.5 * q * log2(2.0 * q / (p + q)) ELSE 0.0 END
            ORDER BY tool
        ) AS divergence
    FROM terms
    GROUP BY run_a, run_b
),

distances AS (
    SELECT
        pr.label, pr.batch, pr.scope, pr.suite, pr.task_id, pr.run_a, pr.run_b,
        CASE
            WHEN NOT pr.tools_a AND NOT pr.tools_b THEN 0.0
            WHEN NOT pr.tools_a OR NOT pr.tools_b THEN 1.0
            ELSE least(1.0, sqrt(greatest(js.divergence, 0.0)))
        END AS distance
    FROM pairs AS pr
    LEFT JOIN js USING (run_a, run_b)
),

tasks AS (
    SELECT
        label, batch, scope, suite, task_id,
        -- n runs give n (n - 1) / 2 pairs: n from the pair count
        CAST(round((1.0 + sqrt(1.0 + 8.0 * count(*))) / 2.0) AS BIGINT) AS n,
        1.0 - avg(distance ORDER BY run_a, run_b) AS c
    FROM distances
    GROUP BY label, batch, scope, suite, task_id
)

SELECT
    label, batch, scope,
    'tool_consistency' AS measure,
    count(*) AS n_tasks,
    avg(c ORDER BY suite, task_id) AS mean,
    stddev_samp(c ORDER BY suite, task_id) AS sd,
    median(n) AS trials
FROM tasks
GROUP BY label, batch, scope
ORDER BY label, batch, scope;
