-- trace_check_runs: problems with run-level fields of staged traces.
-- Grain: one row per (run, field) that breaks a rule (columns source_file, field, problem),
--   ordered by source_file, field.
-- Needs: temp table stage_trace_raw (trace_read.sql rows, made by
--   reportgen.formats.duck.read_or_explain for NativeTrace.stage); macros rg_absent,
--   rg_bad_text, rg_bad_count, rg_bad_int, rg_bad_time, rg_bad_object, rg_bad_any_text,
--   rg_bad_bool, rg_bad_number, rg_bad_amount (macros.sql).
SELECT source_file, field, problem FROM (
    SELECT source_file, 'task_id' AS field, 'required, a non-empty string' AS problem
        FROM stage_trace_raw WHERE rg_absent(task_id) OR rg_bad_text(task_id)
    UNION ALL SELECT source_file, 'steps', 'required, a list of steps'
        FROM stage_trace_raw WHERE steps IS NULL AND NOT typed  -- (a typed record has them)
    UNION ALL SELECT source_file, 'run_id', 'must be a non-empty string'
        FROM stage_trace_raw WHERE rg_bad_text(run_id)
    UNION ALL SELECT source_file, 'label', 'must be a non-empty string'
        FROM stage_trace_raw WHERE rg_bad_text(label)
    UNION ALL SELECT source_file, 'suite', 'must be a non-empty string'
        FROM stage_trace_raw WHERE rg_bad_text(suite)
    UNION ALL SELECT source_file, 'batch', 'must be a non-empty string'
        FROM stage_trace_raw WHERE rg_bad_text(batch)
    UNION ALL SELECT source_file, 'trial', 'must be a non-negative integer'
        FROM stage_trace_raw WHERE rg_bad_count(trial) OR rg_bad_int(trial)
    UNION ALL SELECT source_file, 'started_at', 'must be an ISO 8601 timestamp up to the year 9000'
        FROM stage_trace_raw WHERE rg_bad_time(started_at)
    UNION ALL SELECT source_file, 'meta', 'must be an object'
        FROM stage_trace_raw WHERE rg_bad_object(meta)
    UNION ALL SELECT source_file, 'output', 'must be a string'
        FROM stage_trace_raw WHERE rg_bad_any_text(output)
    UNION ALL SELECT source_file, 'success', 'must be true or false'
        FROM stage_trace_raw WHERE rg_bad_bool(success)
    UNION ALL SELECT source_file, 'reward', 'must be a finite number'
        FROM stage_trace_raw WHERE rg_bad_number(reward)
    UNION ALL SELECT source_file, 'tokens_in', 'must be a non-negative integer'
        FROM stage_trace_raw WHERE rg_bad_count(tokens_in)
    UNION ALL SELECT source_file, 'tokens_out', 'must be a non-negative integer'
        FROM stage_trace_raw WHERE rg_bad_count(tokens_out)
    UNION ALL SELECT source_file, 'cost_usd', 'must be a finite number >= 0'
        FROM stage_trace_raw WHERE rg_bad_amount(cost_usd)
    UNION ALL SELECT source_file, 'latency_ms', 'must be a finite number >= 0'
        FROM stage_trace_raw WHERE rg_bad_amount(latency_ms)
    UNION ALL SELECT source_file, 'cache_read_tokens', 'must be a non-negative integer'
        FROM stage_trace_raw WHERE rg_bad_count(cache_read_tokens)
    UNION ALL SELECT source_file, 'cache_write_tokens', 'must be a non-negative integer'
        FROM stage_trace_raw WHERE rg_bad_count(cache_write_tokens)
    UNION ALL SELECT source_file, 'reasoning_tokens', 'must be a non-negative integer'
        FROM stage_trace_raw WHERE rg_bad_count(reasoning_tokens)
)
ORDER BY source_file, field
