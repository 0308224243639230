-- trace_steps: typed steps from staged traces, checked and typed in one pass straight into
-- the generic stage table stage_steps.
-- Grain: none: inserts into stage_steps (one row per step, in trajectory order).
-- Needs: temp tables stage_trace_raw (trace_read.sql rows), stage_trace_runs (trace_runs.sql)
--   and stage_steps (made, with its extra problem column, by reportgen.ingest.loader._load);
--   macros rg_absent, rg_keys, rg_text, rg_bad_text, rg_bad_any_text, rg_bad_count,
--   rg_bad_amount, rg_bad_time (macros.sql).
-- `problem` names the first field a step breaks (NULL when it breaks none), and
-- trace_check_steps.sql reports those. Bad values are read with TRY_CAST so that a bad step
-- is reported, never a cast error.
INSERT INTO stage_steps BY NAME
WITH items AS (
    SELECT rid, unnest(steps) AS step, generate_subscripts(steps, 1) - 1 AS idx
    FROM stage_trace_raw
),
raw AS (
    SELECT rid, idx, json_type(step) AS kind, unnest(json_transform(step, '{
        "type": "JSON", "action": "JSON", "status": "JSON", "input": "JSON", "output": "JSON",
        "tokens_in": "JSON", "tokens_out": "JSON", "cost_usd": "JSON", "latency_ms": "JSON",
        "started_at": "JSON", "parent": "JSON", "error": "JSON"
    }'))
    FROM items
)
SELECT
    r.run_id,
    CAST(s.idx AS INTEGER) AS idx,
    s.type ->> '$' AS type,
    s.action ->> '$' AS action,
    CASE WHEN rg_absent(s.input) THEN NULL ELSE s.input END AS input,
    rg_keys(s.input) AS input_keys,
    CASE WHEN rg_absent(s.output) THEN NULL ELSE s.output END AS output,
    CASE WHEN (s.status ->> '$') = 'success' THEN 'ok' ELSE s.status ->> '$' END AS status,
    TRY_CAST(s.tokens_in AS BIGINT) AS tokens_in,
    TRY_CAST(s.tokens_out AS BIGINT) AS tokens_out,
    TRY_CAST(s.cost_usd AS DOUBLE) AS cost_usd,
    TRY_CAST(s.latency_ms AS DOUBLE) AS latency_ms,
    TRY_CAST(s.started_at ->> '$' AS TIMESTAMPTZ) AS started_at,
    TRY_CAST(s.parent AS INTEGER) AS parent,
    rg_text(s.error) AS error,
    CASE
        WHEN s.kind IS DISTINCT FROM 'OBJECT' THEN 'object'
        WHEN rg_absent(s.type) OR rg_bad_text(s.type) THEN 'type'
        WHEN rg_absent(s.action) OR rg_bad_text(s.action) THEN 'action'
        WHEN rg_absent(s.status) OR json_type(s.status) <> 'VARCHAR'
             OR (s.status ->> '$') NOT IN ('ok', 'success', 'error', 'retry', 'abandoned')
            THEN 'status'
        WHEN rg_bad_count(s.tokens_in) THEN 'tokens_in'
        WHEN rg_bad_count(s.tokens_out) THEN 'tokens_out'
        WHEN rg_bad_amount(s.cost_usd) THEN 'cost_usd'
        WHEN rg_bad_amount(s.latency_ms) THEN 'latency_ms'
        WHEN rg_bad_time(s.started_at) THEN 'started_at'
        WHEN rg_bad_count(s.parent) OR (NOT rg_absent(s.parent) AND TRY_CAST(s.parent AS BIGINT) >= s.idx)
            THEN 'parent'
        WHEN rg_bad_any_text(s.error) THEN 'error'
    END AS problem
FROM raw AS s
JOIN stage_trace_runs AS r ON r.rid = s.rid
