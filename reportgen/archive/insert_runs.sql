-- insert_runs: append in-memory runs to the archive's runs table; fields a Python caller does
-- not hold get neutral values (label = run_id, batch 'adhoc', trial 0, format 'python').
-- Grain: none: inserts into runs (one row per row of rg_runs_input).
-- Needs: archive table runs (schema.sql); Arrow view rg_runs_input (registered by
--   reportgen.divergence.metrics.insert_runs).
INSERT INTO runs (
    run_id, suite, label, task_id, batch, trial, tokens_in, tokens_out, cost_usd, latency_ms,
    n_steps, format, source_file, content_hash
)
SELECT
    run_id, suite, run_id, task_id, 'adhoc', 0, tokens_in, tokens_out, cost_usd, latency_ms,
    n_steps, 'python', '<memory>', md5(run_id)
FROM rg_runs_input
