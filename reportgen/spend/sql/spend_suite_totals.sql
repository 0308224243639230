-- spend_suite_totals: avoidable spend per suite: the sums of its runs' (spend_run_totals).
-- Grain: one row per suite with a finding, ordered by suite.
-- Needs: archive table runs; temp table spend_run_totals (spend_totals.sql); parameters none.
SELECT
    r.suite,
    count(*) AS n_runs,
    CAST(sum(t.n_findings) AS BIGINT) AS n_findings,
    CAST(sum(t.tokens) AS BIGINT) AS tokens,
    sum(t.cost ORDER BY t.run_id) AS cost,
    CAST(sum(t.n_unknown) AS BIGINT) AS n_unknown
FROM spend_run_totals AS t
JOIN runs AS r ON r.run_id = t.run_id
GROUP BY r.suite
ORDER BY r.suite
