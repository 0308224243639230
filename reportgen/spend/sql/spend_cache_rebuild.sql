-- spend_cache_rebuild: the prompt cache rebuilt after a pause: a model call that wrote cache
--   tokens more than $ttl_s seconds after the previous model call of its run ended.
-- Grain: one row per such model call (run_id, idx).
-- Needs: temp table spend_steps (spend_steps.sql); parameter $ttl_s (the cache TTL, seconds).
-- tokens: the cache-write tokens; cost: what writing them cost over reading them from a warm
-- cache (cache-write rate minus cache-read rate; NULL when the model has no price).
SELECT
    run_id,
    'cache_rebuild' AS kind,
    idx,
    prev_idx AS ref_idx,
    cache_write AS tokens,
    cache_write * (cache_write_rate - cache_read_rate) / 1e6 AS cost,
    action AS detail,
    gap_s AS amount
FROM (
    SELECT
        *,
        lag(idx) OVER w AS prev_idx,
        epoch(started_at) - epoch(lag(ended_at) OVER w) AS gap_s
    FROM spend_steps
    WHERE type = 'llm'
    WINDOW w AS (PARTITION BY run_id ORDER BY idx)
)
WHERE cache_write > 0 AND gap_s > $ttl_s
