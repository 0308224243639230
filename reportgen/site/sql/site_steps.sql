-- site_steps: one row per step of every run (grain: run_id, idx), in trajectory order, for the
-- run and comparison pages. input/output are JSON text; numbers stay NULL when not given.
SELECT
    run_id,
    idx,
    type,
    action,
    CAST(input AS VARCHAR) AS input,
    input_keys,
    CAST(output AS VARCHAR) AS output,
    status,
    tokens_in,
    tokens_out,
    cost_usd,
    latency_ms
FROM steps
ORDER BY run_id, idx
