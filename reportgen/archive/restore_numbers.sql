-- restore_numbers: the first value of a restored archive that ingest would have refused.
-- Grain: one row at most (table, the row's key, column, the value as text, the row's rowid:
--   its position in the table, which tells the snapshot file it came from).
--   Counts 0 to $max_count; amounts (USD, ms, seconds) finite, 0 to $max_amount; reward and
--   patch distance finite; a step's parent an earlier step of its run.
-- Needs: runs, steps, iterations of the restored archive.
WITH numbers AS (
    SELECT 'runs' AS tbl, run_id AS key, rowid AS row_id, unnest([
        {'name': 'tokens_in', 'value': tokens_in::DOUBLE, 'kind': 'count'},
        {'name': 'tokens_out', 'value': tokens_out::DOUBLE, 'kind': 'count'},
        {'name': 'cache_read_tokens', 'value': cache_read_tokens::DOUBLE, 'kind': 'count'},
        {'name': 'cache_write_tokens', 'value': cache_write_tokens::DOUBLE, 'kind': 'count'},
        {'name': 'reasoning_tokens', 'value': reasoning_tokens::DOUBLE, 'kind': 'count'},
        {'name': 'n_steps', 'value': n_steps::DOUBLE, 'kind': 'count'},
        {'name': 'cost_usd', 'value': cost_usd, 'kind': 'amount'},
        {'name': 'cost_recomputed_usd', 'value': cost_recomputed_usd, 'kind': 'amount'},
        {'name': 'latency_ms', 'value': latency_ms, 'kind': 'amount'},
        {'name': 'reward', 'value': reward, 'kind': 'finite'}
    ], recursive := true)
    FROM runs
    UNION ALL
    SELECT 'steps', run_id || ' step ' || idx, rowid, unnest([
        {'name': 'tokens_in', 'value': tokens_in::DOUBLE, 'kind': 'count'},
        {'name': 'tokens_out', 'value': tokens_out::DOUBLE, 'kind': 'count'},
        {'name': 'cache_read_tokens', 'value': cache_read_tokens::DOUBLE, 'kind': 'count'},
        {'name': 'cache_write_tokens', 'value': cache_write_tokens::DOUBLE, 'kind': 'count'},
        {'name': 'reasoning_tokens', 'value': reasoning_tokens::DOUBLE, 'kind': 'count'},
        {'name': 'cost_usd', 'value': cost_usd, 'kind': 'amount'},
        {'name': 'latency_ms', 'value': latency_ms, 'kind': 'amount'}
    ], recursive := true)
    FROM steps
    UNION ALL
    SELECT 'iterations', run_id || ' iteration ' || iter, rowid, unnest([
        {'name': 'tokens_in', 'value': tokens_in::DOUBLE, 'kind': 'count'},
        {'name': 'tokens_out', 'value': tokens_out::DOUBLE, 'kind': 'count'},
        {'name': 'usd', 'value': usd, 'kind': 'amount'},
        {'name': 'secs', 'value': secs, 'kind': 'amount'},
        {'name': 'patch_distance', 'value': patch_distance, 'kind': 'finite'}
    ], recursive := true)
    FROM iterations
),
bad AS (
    SELECT tbl, key, name, CAST(value AS VARCHAR) AS shown, row_id FROM numbers
    WHERE value IS NOT NULL AND NOT (isfinite(value) AND CASE kind
        WHEN 'count' THEN value BETWEEN 0 AND $max_count
        WHEN 'amount' THEN value BETWEEN 0 AND $max_amount
        ELSE true END)
    UNION ALL
    SELECT 'steps', run_id || ' step ' || idx, 'parent', parent || ', not an earlier step', rowid
    FROM steps WHERE parent >= idx OR parent < 0
)
SELECT tbl, key, name, shown, row_id FROM bad ORDER BY tbl, key, name LIMIT 1
