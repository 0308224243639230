-- Problems with step fields of staged traces: one row per (file, field) that breaks a rule.
-- One pass over the steps: each step yields the first field it breaks, if any.
WITH verdicts AS (
    SELECT source_file,
        CASE
            WHEN rg_absent(type) OR rg_bad_text(type) THEN 'steps[].type'
            WHEN rg_absent(action) OR rg_bad_text(action) THEN 'steps[].action'
            WHEN rg_absent(status) OR json_type(status) <> 'VARCHAR'
                 OR (status ->> '$') NOT IN ('ok', 'success', 'error', 'retry', 'abandoned')
                THEN 'steps[].status'
            WHEN rg_bad_count(tokens_in) THEN 'steps[].tokens_in'
            WHEN rg_bad_count(tokens_out) THEN 'steps[].tokens_out'
            WHEN rg_bad_amount(cost_usd) THEN 'steps[].cost_usd'
            WHEN rg_bad_amount(latency_ms) THEN 'steps[].latency_ms'
            WHEN rg_bad_time(started_at) THEN 'steps[].started_at'
            WHEN rg_bad_count(parent) OR (NOT rg_absent(parent) AND TRY_CAST(parent AS BIGINT) >= idx)
                THEN 'steps[].parent'
        END AS field
    FROM stage_trace_steps_raw
)
SELECT DISTINCT source_file, field,
    CASE field
        WHEN 'steps[].status' THEN 'required, one of ok, success, error, retry, abandoned'
        WHEN 'steps[].type' THEN 'required, a non-empty string'
        WHEN 'steps[].action' THEN 'required, a non-empty string'
        WHEN 'steps[].tokens_in' THEN 'must be a non-negative integer'
        WHEN 'steps[].tokens_out' THEN 'must be a non-negative integer'
        WHEN 'steps[].started_at' THEN 'must be an ISO 8601 timestamp'
        WHEN 'steps[].parent' THEN 'must be the index of an earlier step'
        ELSE 'must be a finite number >= 0'
    END AS problem
FROM verdicts
WHERE field IS NOT NULL
ORDER BY source_file, field
