-- insert_runs: append in-memory runs (Arrow view rg_runs_input) to the archive's runs table
-- (grain: run). Fields a Python caller does not hold get neutral values.
INSERT INTO runs (
    run_id, suite, label, task_id, batch, trial, tokens_in, tokens_out, cost_usd, latency_ms,
    n_steps, format, source_file, content_hash
)
SELECT
    run_id, suite, run_id, task_id, 'adhoc', 0, tokens_in, tokens_out, cost_usd, latency_ms,
    n_steps, 'python', '<memory>', md5(run_id)
FROM rg_runs_input
