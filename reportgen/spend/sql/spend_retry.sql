-- spend_retry: retries of a failing call with the same input: a tool step whose previous call
--   of the same action with the same input (in its run) ended in error.
-- Grain: one row per retrying tool step (run_id, idx).
-- Needs: temp table spend_steps (spend_steps.sql); parameters none.
SELECT
    run_id,
    'failed_retry' AS kind,
    idx,
    prev_idx AS ref_idx,
    attr_tokens AS tokens,
    attr_cost AS cost,
    action AS detail,
    CAST(NULL AS DOUBLE) AS amount
FROM (
    SELECT
        *,
        lag(status) OVER w AS prev_status,
        lag(idx) OVER w AS prev_idx
    FROM spend_steps
    WHERE type = 'tool'
    WINDOW w AS (PARTITION BY run_id, input_hash ORDER BY idx)
)
WHERE prev_status = 'error'
