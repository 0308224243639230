-- restore_numbers: the first value of a restored archive that ingest would have refused.
-- Grain: one row at most (table, the row's key, column, the value as text).
--   Counts 0 to $max_count; amounts (USD, ms, seconds) finite, 0 to $max_amount; reward and
--   patch distance finite; a step's parent an earlier step of its run.
-- Needs: runs, steps, iterations of the restored archive.
WITH numbers AS (
    SELECT 'runs' AS tbl, run_id AS key, c.name, c.value, c.kind
    FROM runs, LATERAL (VALUES
        ('tokens_in', tokens_in::DOUBLE, 'count'), ('tokens_out', tokens_out::DOUBLE, 'count'),
        ('cache_read_tokens', cache_read_tokens::DOUBLE, 'count'),
        ('cache_write_tokens', cache_write_tokens::DOUBLE, 'count'),
        ('reasoning_tokens', reasoning_tokens::DOUBLE, 'count'),
        ('n_steps', n_steps::DOUBLE, 'count'),
        ('cost_usd', cost_usd, 'amount'), ('cost_recomputed_usd', cost_recomputed_usd, 'amount'),
        ('latency_ms', latency_ms, 'amount'), ('reward', reward, 'finite')
    ) AS c(name, value, kind)
    UNION ALL
    SELECT 'steps', run_id || ' step ' || idx, c.name, c.value, c.kind
    FROM steps, LATERAL (VALUES
        ('tokens_in', tokens_in::DOUBLE, 'count'), ('tokens_out', tokens_out::DOUBLE, 'count'),
        ('cache_read_tokens', cache_read_tokens::DOUBLE, 'count'),
        ('cache_write_tokens', cache_write_tokens::DOUBLE, 'count'),
        ('reasoning_tokens', reasoning_tokens::DOUBLE, 'count'),
        ('cost_usd', cost_usd, 'amount'), ('latency_ms', latency_ms, 'amount')
    ) AS c(name, value, kind)
    UNION ALL
    SELECT 'iterations', run_id || ' iteration ' || iter, c.name, c.value, c.kind
    FROM iterations, LATERAL (VALUES
        ('tokens_in', tokens_in::DOUBLE, 'count'), ('tokens_out', tokens_out::DOUBLE, 'count'),
        ('usd', usd, 'amount'), ('secs', secs, 'amount'),
        ('patch_distance', patch_distance, 'finite')
    ) AS c(name, value, kind)
),
bad AS (
    SELECT tbl, key, name, CAST(value AS VARCHAR) AS shown FROM numbers
    WHERE value IS NOT NULL AND NOT (isfinite(value) AND CASE kind
        WHEN 'count' THEN value BETWEEN 0 AND $max_count
        WHEN 'amount' THEN value BETWEEN 0 AND $max_amount
        ELSE true END)
    UNION ALL
    SELECT 'steps', run_id || ' step ' || idx, 'parent', parent || ', not an earlier step'
    FROM steps WHERE parent >= idx OR parent < 0
)
SELECT tbl, key, name, shown FROM bad ORDER BY tbl, key, name LIMIT 1
