-- reliability_runs: defines rg_reliability_runs(), the runs the reliability profile reads: every
--   run the infrastructure did not end, with its resolved totals and whether it is perturbed.
-- Grain: none: defines a table macro whose rows are one per run_id (errored runs left out).
-- Needs: archive table runs; macro rg_run_resolved() (run_resolved.sql, executed first).
-- rg_reliability_runs(labels, by_suite): only the runs of those labels (a VARCHAR list; NULL:
-- all); scope is the run's suite when by_suite, else '' (one profile over every suite).
-- A run is perturbed when meta.perturbation is present and not null, "", false, "none" or
-- "clean" (any case); the consistency measures read the clean runs only, robustness both.
CREATE OR REPLACE TEMP MACRO rg_reliability_runs(labels, by_suite) AS TABLE
SELECT
    r.run_id, r.label, r.batch, CASE WHEN by_suite THEN r.suite ELSE '' END AS scope,
    r.suite, r.task_id, r.trial, r.success,
    r.cost_usd, CAST(r.tokens AS DOUBLE) AS tokens, r.latency_ms,
    coalesce(lower(json_extract_string(r.meta, '$.perturbation')), '')
        NOT IN ('', 'false', 'none', 'clean') AS perturbed
FROM rg_run_resolved() AS r
JOIN runs AS x USING (run_id)
WHERE x.error_kind IS NULL AND (labels IS NULL OR list_contains(labels, x.label));
