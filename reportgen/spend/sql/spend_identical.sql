-- spend_identical: identical tool calls repeated (P9): a tool step with the signature and the
--   payload (input and output) of an earlier tool step of its run; the repeats after the first.
-- Grain: one row per repeating tool step (run_id, idx).
-- Needs: temp table spend_steps (spend_steps.sql); parameters none.
SELECT
    run_id,
    'identical_call' AS kind,
    idx,
    first_idx AS ref_idx,
    attr_tokens AS tokens,
    attr_cost AS cost,
    action AS detail,
    CAST(n AS DOUBLE) AS amount
FROM (
    SELECT
        *,
        row_number() OVER w AS n,
        min(idx) OVER w AS first_idx
    FROM spend_steps
    WHERE type = 'tool'
    WINDOW w AS (PARTITION BY run_id, signature, payload ORDER BY idx)
)
WHERE n > 1
