-- steps_for_runs: the steps of the given runs ($run_ids), for diff views and explanations.
-- Grain: one row per step, ordered by run and step. input/output are JSON text.
SELECT
    run_id,
    idx,
    type,
    action,
    status,
    CAST(input AS VARCHAR) AS input,
    CAST(output AS VARCHAR) AS output,
    tokens_in,
    tokens_out,
    cost_usd,
    latency_ms
FROM steps
WHERE run_id IN (SELECT unnest($run_ids))
ORDER BY run_id, idx
