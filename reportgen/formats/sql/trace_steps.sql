-- Typed steps from staged traces (one row per step), in trajectory order, straight into the
-- generic stage table (no intermediate copy: this is the widest table of a load).
INSERT INTO stage_steps BY NAME
SELECT
    r.run_id,
    CAST(s.idx AS INTEGER) AS idx,
    s.type ->> '$' AS type,
    s.action ->> '$' AS action,
    CASE WHEN rg_absent(s.input) THEN NULL ELSE s.input END AS input,
    rg_keys(s.input) AS input_keys,
    CASE WHEN rg_absent(s.output) THEN NULL ELSE s.output END AS output,
    CASE WHEN (s.status ->> '$') = 'success' THEN 'ok' ELSE s.status ->> '$' END AS status,
    CAST(s.tokens_in AS BIGINT) AS tokens_in,
    CAST(s.tokens_out AS BIGINT) AS tokens_out,
    CAST(s.cost_usd AS DOUBLE) AS cost_usd,
    CAST(s.latency_ms AS DOUBLE) AS latency_ms,
    rg_time(s.started_at) AS started_at,
    CAST(s.parent AS INTEGER) AS parent
FROM stage_trace_steps_raw AS s
JOIN stage_trace_runs AS r ON r.rid = s.rid
