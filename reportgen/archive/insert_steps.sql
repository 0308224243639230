-- insert_steps: append the steps of in-memory runs (Arrow view rg_steps_input) to the
-- archive's steps table (grain: run_id, idx). input/output arrive as canonical JSON text; the
-- step hashes are computed as ingest computes them (reportgen/archive/step_hashes.sql).
INSERT INTO steps (
    run_id, idx, type, action, input, input_keys, output, status,
    tokens_in, tokens_out, cost_usd, latency_ms, signature, payload
)
SELECT
    run_id, idx, type, action, CAST(input AS JSON), input_keys, CAST(output AS JSON), status,
    tokens_in, tokens_out, cost_usd, latency_ms,
    rg_step_signature(type, action, input_keys),
    rg_step_payload(CAST(input AS JSON), CAST(output AS JSON))
FROM rg_steps_input
