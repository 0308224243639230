-- trace_steps: steps of staged traces the byte scan did not find typed (trace_typed_steps.sql
-- reads those), checked and typed in one pass straight into the generic table stage_steps.
-- Grain: none: inserts into stage_steps (one row per step, in trajectory order).
-- Needs: the Arrow table stage_trace_items (rid, steps: stage_trace_raw's rowid and steps, for
--   the records that are not typed, in small record batches so that DuckDB's threads share
--   the work: a temp table of a few thousand runs is one row group, which one thread scans;
--   registered by NativeTrace.stage a slice of trace_item_slices.sql at a time),
--   temp table stage_trace_runs (trace_runs.sql)
--   and stage_steps (made, with its extra problem column, by reportgen.ingest.loader._load);
--   macros rg_absent, rg_keys, rg_text, rg_bad_text, rg_bad_any_text, rg_bad_count,
--   rg_bad_amount, rg_bad_time (macros.sql).
-- `problem` names the first field a step breaks (NULL when it breaks none), and
-- trace_check_steps.sql reports those. Each step is parsed into typed values once, with the
-- JSON type of every field (one json_type call over a list of paths): a step whose types and
-- values are all as the schema wants is fine as it stands; only the others go through the
-- field-by-field rules (the rg_bad_* macros), which name the first field broken. Values of a
-- bad step are never stored: the load stops (or, with --skip-invalid, drops its file).
INSERT INTO stage_steps BY NAME
WITH items AS (
    SELECT rid, unnest(steps) AS step, generate_subscripts(steps, 1) - 1 AS idx
    FROM stage_trace_items
),
parsed AS (
    SELECT rid, idx, step,
        json_type(step) AS kind,
        json_type(step, [
            '$.type', '$.action', '$.status', '$.tokens_in', '$.tokens_out', '$.cost_usd',
            '$.latency_ms', '$.started_at', '$.parent', '$.error', '$.input', '$.output',
            '$.cache_read_tokens', '$.cache_write_tokens', '$.reasoning_tokens'
        ]) AS t,
        json_transform(step, '{
            "type": "VARCHAR", "action": "VARCHAR", "status": "VARCHAR", "input": "JSON",
            "output": "JSON", "tokens_in": "BIGINT", "tokens_out": "BIGINT",
            "cost_usd": "DOUBLE", "latency_ms": "DOUBLE", "started_at": "VARCHAR",
            "parent": "BIGINT", "error": "VARCHAR", "cache_read_tokens": "BIGINT",
            "cache_write_tokens": "BIGINT", "reasoning_tokens": "BIGINT"
        }') AS v
    FROM items
)
SELECT
    r.run_id,
    CAST(s.idx AS INTEGER) AS idx,
    v.type,
    v.action,
    CASE WHEN coalesce(t[11], 'NULL') = 'NULL' THEN NULL ELSE v.input END AS input,
    CASE WHEN t[11] = 'OBJECT' THEN list_sort(json_keys(v.input)) ELSE []::VARCHAR[]
    END AS input_keys,
    CASE WHEN coalesce(t[12], 'NULL') = 'NULL' THEN NULL ELSE v.output END AS output,
    CASE WHEN v.status = 'success' THEN 'ok' ELSE v.status END AS status,
    v.tokens_in,
    v.tokens_out,
    v.cost_usd,
    v.latency_ms,
    TRY_CAST(v.started_at AS TIMESTAMPTZ) AS started_at,
    TRY_CAST(v.parent AS INTEGER) AS parent,
    v.error,
    v.cache_read_tokens,
    v.cache_write_tokens,
    v.reasoning_tokens,
    CASE
        WHEN coalesce(
            kind = 'OBJECT'
            AND t[1] = 'VARCHAR' AND v.type <> ''
            AND t[2] = 'VARCHAR' AND v.action <> ''
            AND t[3] = 'VARCHAR' AND v.status IN ('ok', 'success', 'error', 'retry', 'abandoned')
            AND (coalesce(t[4], 'NULL') = 'NULL' OR (t[4] = 'UBIGINT' AND v.tokens_in IS NOT NULL))
            AND (coalesce(t[5], 'NULL') = 'NULL' OR (t[5] = 'UBIGINT' AND v.tokens_out IS NOT NULL))
            AND (coalesce(t[6], 'NULL') = 'NULL'
                 OR (t[6] IN ('UBIGINT', 'DOUBLE') AND isfinite(v.cost_usd) AND v.cost_usd >= 0))
            AND (coalesce(t[7], 'NULL') = 'NULL'
                 OR (t[7] IN ('UBIGINT', 'DOUBLE') AND isfinite(v.latency_ms) AND v.latency_ms >= 0))
            AND (coalesce(t[8], 'NULL') = 'NULL'
                 OR (t[8] = 'VARCHAR'
                     AND year(TRY_CAST(v.started_at AS TIMESTAMPTZ)) <= 9000))
            AND (coalesce(t[9], 'NULL') = 'NULL' OR (t[9] = 'UBIGINT' AND v.parent < s.idx))
            AND coalesce(t[10], 'NULL') IN ('NULL', 'VARCHAR')
            AND (coalesce(t[13], 'NULL') = 'NULL'
                 OR (t[13] = 'UBIGINT' AND v.cache_read_tokens IS NOT NULL))
            AND (coalesce(t[14], 'NULL') = 'NULL'
                 OR (t[14] = 'UBIGINT' AND v.cache_write_tokens IS NOT NULL))
            AND (coalesce(t[15], 'NULL') = 'NULL'
                 OR (t[15] = 'UBIGINT' AND v.reasoning_tokens IS NOT NULL)),
            false
        ) THEN NULL
        ELSE CASE  -- the first field broken, by the field-by-field rules
            WHEN kind IS DISTINCT FROM 'OBJECT' THEN 'object'
            WHEN rg_absent(step -> '$.type') OR rg_bad_text(step -> '$.type') THEN 'type'
            WHEN rg_absent(step -> '$.action') OR rg_bad_text(step -> '$.action') THEN 'action'
            WHEN rg_absent(step -> '$.status') OR json_type(step -> '$.status') <> 'VARCHAR'
                 OR (step ->> '$.status') NOT IN ('ok', 'success', 'error', 'retry', 'abandoned')
                THEN 'status'
            WHEN rg_bad_count(step -> '$.tokens_in') THEN 'tokens_in'
            WHEN rg_bad_count(step -> '$.tokens_out') THEN 'tokens_out'
            WHEN rg_bad_amount(step -> '$.cost_usd') THEN 'cost_usd'
            WHEN rg_bad_amount(step -> '$.latency_ms') THEN 'latency_ms'
            WHEN rg_bad_time(step -> '$.started_at') THEN 'started_at'
            WHEN rg_bad_count(step -> '$.parent')
                 OR (NOT rg_absent(step -> '$.parent')
                     AND TRY_CAST(step -> '$.parent' AS BIGINT) >= idx)
                THEN 'parent'
            WHEN rg_bad_any_text(step -> '$.error') THEN 'error'
            WHEN rg_bad_count(step -> '$.cache_read_tokens') THEN 'cache_read_tokens'
            WHEN rg_bad_count(step -> '$.cache_write_tokens') THEN 'cache_write_tokens'
            WHEN rg_bad_count(step -> '$.reasoning_tokens') THEN 'reasoning_tokens'
        END
    END AS problem
FROM parsed AS s
JOIN stage_trace_runs AS r ON r.rid = s.rid
