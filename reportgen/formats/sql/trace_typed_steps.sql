-- trace_typed_steps: the steps of typed trace records, read straight from the records, typed,
-- into the generic stage table stage_steps.
-- Grain: none: inserts into stage_steps (one row per step of a typed record, in trajectory
--   order).
-- Needs: the Arrow table stage_trace_records (as for trace_read.sql; run by
--   reportgen.formats.duck.parse_records on each batch), temp table stage_steps (made, with
--   its extra problem column, by reportgen.ingest.loader._load).
-- Typed: the file's byte scan found every run an object with a string run_id and every step
-- field of the schema's JSON type and value (reportgen.formats._scan.Scan.typed).
-- A run's run_id is given as a string (the scan says so), so it is the run's run_id as
-- trace_runs.sql makes it; trace_runs.sql counts these steps for n_steps. Only the rules
-- the scan cannot see are checked, in the order trace_steps.sql checks them (started_at a time,
-- parent an earlier step, the cache and reasoning counts, which the scan does not know,
-- non-negative integers); `problem` names the field, as trace_steps.sql does.
INSERT INTO stage_steps BY NAME
WITH runs AS (
    SELECT json_transform(content, '{"run_id": "VARCHAR", "steps": [{
        "type": "VARCHAR", "action": "VARCHAR", "status": "VARCHAR", "input": "JSON",
        "output": "JSON", "tokens_in": "BIGINT", "tokens_out": "BIGINT",
        "cost_usd": "DOUBLE", "latency_ms": "DOUBLE", "started_at": "VARCHAR",
        "parent": "BIGINT", "error": "VARCHAR", "cache_read_tokens": "JSON",
        "cache_write_tokens": "JSON", "reasoning_tokens": "JSON"
    }]}') AS run
    FROM stage_trace_records
    WHERE typed AND NOT many
),
items AS (
    SELECT run.run_id, unnest(run.steps) AS v, generate_subscripts(run.steps, 1) - 1 AS idx
    FROM runs
)
SELECT
    run_id,
    CAST(idx AS INTEGER) AS idx,
    v.type,
    v.action,
    v.input,
    CASE WHEN starts_with(CAST(v.input AS VARCHAR), '{') THEN list_sort(json_keys(v.input))
        ELSE []::VARCHAR[]
    END AS input_keys,
    v.output,
    CASE WHEN v.status = 'success' THEN 'ok' ELSE v.status END AS status,
    v.tokens_in,
    v.tokens_out,
    v.cost_usd,
    v.latency_ms,
    TRY_CAST(v.started_at AS TIMESTAMPTZ) AS started_at,
    TRY_CAST(v.parent AS INTEGER) AS parent,
    v.error,
    TRY_CAST(v.cache_read_tokens AS BIGINT) AS cache_read_tokens,
    TRY_CAST(v.cache_write_tokens AS BIGINT) AS cache_write_tokens,
    TRY_CAST(v.reasoning_tokens AS BIGINT) AS reasoning_tokens,
    CASE
        WHEN v.started_at IS NOT NULL
            AND coalesce(year(TRY_CAST(v.started_at AS TIMESTAMPTZ)) > 9000, true)
            THEN 'started_at'
        WHEN v.parent >= idx THEN 'parent'
        WHEN rg_bad_count(v.cache_read_tokens) THEN 'cache_read_tokens'
        WHEN rg_bad_count(v.cache_write_tokens) THEN 'cache_write_tokens'
        WHEN rg_bad_count(v.reasoning_tokens) THEN 'reasoning_tokens'
    END AS problem
FROM items
