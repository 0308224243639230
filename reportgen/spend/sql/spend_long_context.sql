-- spend_long_context: very long context turns: a model call whose prompt (tokens_in, cached
--   tokens included) is above $long_context tokens.
-- Grain: one row per such model call (run_id, idx).
-- Needs: temp table spend_steps (spend_steps.sql); parameter $long_context (tokens).
-- tokens: the prompt tokens above the threshold; cost: the call's cost in proportion
-- (excess / (tokens_in + tokens_out)).
SELECT
    run_id,
    'long_context' AS kind,
    idx,
    CAST(NULL AS INTEGER) AS ref_idx,
    tokens_in - $long_context AS tokens,
    cost * (tokens_in - $long_context) / (tokens_in + coalesce(tokens_out, 0)) AS cost,
    action AS detail,
    CAST(tokens_in AS DOUBLE) AS amount
FROM spend_steps
WHERE type = 'llm' AND tokens_in > $long_context
