-- insert_steps: append the steps of in-memory runs to the archive's steps table; input/output
-- arrive as canonical JSON text, and the step hashes are computed as ingest computes them.
-- Grain: none: inserts into steps (one row per (run_id, idx) of rg_steps_input).
-- Needs: archive table steps (schema.sql); Arrow view rg_steps_input (registered by
--   reportgen.divergence.metrics.insert_runs); macros rg_step_signature, rg_step_payload
--   (step_hashes.sql, defined there first by reportgen.archive.connection.define_step_hashes).
INSERT INTO steps (
    run_id, idx, type, action, input, input_keys, output, status,
    tokens_in, tokens_out, cost_usd, latency_ms, parent, error, signature, payload
)
SELECT
    run_id, idx, type, action, CAST(input AS JSON), input_keys, CAST(output AS JSON), status,
    tokens_in, tokens_out, cost_usd, latency_ms, parent, error,
    rg_step_signature(type, action, input_keys),
    rg_step_payload(CAST(input AS JSON), CAST(output AS JSON))
FROM rg_steps_input
