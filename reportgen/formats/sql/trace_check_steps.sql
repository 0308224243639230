-- Problems with step fields of staged traces: one row per (file, field) that breaks a rule.
SELECT source_file, field, problem FROM (
    SELECT source_file, 'steps[].type' AS field, 'required, a non-empty string' AS problem
        FROM stage_trace_steps_raw WHERE rg_absent(type) OR rg_bad_text(type)
    UNION ALL SELECT source_file, 'steps[].action', 'required, a non-empty string'
        FROM stage_trace_steps_raw WHERE (rg_absent(action) OR rg_bad_text(action))
    UNION ALL SELECT source_file, 'steps[].status', 'required, one of ok, success, error, retry, abandoned'
        FROM stage_trace_steps_raw WHERE (rg_absent(status)
            OR json_type(status) <> 'VARCHAR'
            OR (status ->> '$') NOT IN ('ok', 'success', 'error', 'retry', 'abandoned'))
    UNION ALL SELECT source_file, 'steps[].tokens_in', 'must be a non-negative integer'
        FROM stage_trace_steps_raw WHERE rg_bad_count(tokens_in)
    UNION ALL SELECT source_file, 'steps[].tokens_out', 'must be a non-negative integer'
        FROM stage_trace_steps_raw WHERE rg_bad_count(tokens_out)
    UNION ALL SELECT source_file, 'steps[].cost_usd', 'must be a finite number >= 0'
        FROM stage_trace_steps_raw WHERE rg_bad_amount(cost_usd)
    UNION ALL SELECT source_file, 'steps[].latency_ms', 'must be a finite number >= 0'
        FROM stage_trace_steps_raw WHERE rg_bad_amount(latency_ms)
    UNION ALL SELECT source_file, 'steps[].started_at', 'must be an ISO 8601 timestamp'
        FROM stage_trace_steps_raw WHERE rg_bad_time(started_at)
    UNION ALL SELECT source_file, 'steps[].parent', 'must be the index of an earlier step'
        FROM stage_trace_steps_raw WHERE rg_bad_count(parent) OR (NOT rg_absent(parent) AND TRY_CAST(parent AS BIGINT) >= idx)
)
ORDER BY source_file, field
