-- trace_check_steps: problems with step fields of staged traces, read off the `problem`
-- column trace_steps.sql filled in.
-- Grain: one row per (source_file, field) that breaks a rule, ordered by source_file, field.
-- Needs: temp tables stage_steps (its problem column added by reportgen.ingest.loader._load,
--   filled by trace_steps.sql) and stage_trace_runs (trace_runs.sql).
SELECT DISTINCT r.source_file,
    CASE s.problem WHEN 'object' THEN 'steps[]' ELSE 'steps[].' || s.problem END AS field,
    CASE s.problem
        WHEN 'object' THEN 'each step must be a JSON object'
        WHEN 'status' THEN 'required, one of ok, success, error, retry, abandoned'
        WHEN 'type' THEN 'required, a non-empty string'
        WHEN 'action' THEN 'required, a non-empty string'
        WHEN 'tokens_in' THEN 'must be a non-negative integer'
        WHEN 'tokens_out' THEN 'must be a non-negative integer'
        WHEN 'cache_read_tokens' THEN 'must be a non-negative integer'
        WHEN 'cache_write_tokens' THEN 'must be a non-negative integer'
        WHEN 'reasoning_tokens' THEN 'must be a non-negative integer'
        WHEN 'started_at' THEN 'must be an ISO 8601 timestamp up to the year 9000'
        WHEN 'parent' THEN 'must be the index of an earlier step'
        WHEN 'error' THEN 'must be a string (the error message)'
        ELSE 'must be a finite number >= 0'
    END AS problem
FROM stage_steps AS s
JOIN stage_trace_runs AS r USING (run_id)
WHERE s.problem IS NOT NULL
ORDER BY 1, 2
