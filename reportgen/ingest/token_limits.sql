-- token_limits: the first staged token count past what the archive stores safely ($limit):
-- one count (a step's, a run's, an iteration's) or a run's steps summed.
-- Grain: at most one row (source_file, source_line, run_id, field, value).
-- Needs: staged tables stage_runs, stage_steps, stage_iterations (reportgen.ingest.loader);
--   parameter $limit. Sums over many runs then stay far inside BIGINT: no metric wraps.
WITH step_rows AS (
    SELECT r.source_file, r.source_line, s.run_id, s.idx, s.tokens_in, s.tokens_out
    FROM stage_steps AS s
    JOIN stage_runs AS r USING (run_id)
),
step_sums AS (
    SELECT source_file, source_line, run_id,
           sum(tokens_in) AS tokens_in, sum(tokens_out) AS tokens_out
    FROM step_rows
    GROUP BY ALL
),
over AS (
    SELECT source_file, source_line, run_id, 'steps[' || idx || '].tokens_in' AS field,
           CAST(tokens_in AS HUGEINT) AS value
    FROM step_rows WHERE tokens_in > $limit
    UNION ALL
    SELECT source_file, source_line, run_id, 'steps[' || idx || '].tokens_out', tokens_out
    FROM step_rows WHERE tokens_out > $limit
    UNION ALL
    SELECT source_file, source_line, run_id, 'tokens_in (sum of the steps)', tokens_in
    FROM step_sums WHERE tokens_in > $limit
    UNION ALL
    SELECT source_file, source_line, run_id, 'tokens_out (sum of the steps)', tokens_out
    FROM step_sums WHERE tokens_out > $limit
    UNION ALL
    SELECT source_file, source_line, run_id, 'tokens_in', tokens_in
    FROM stage_runs WHERE tokens_in > $limit
    UNION ALL
    SELECT source_file, source_line, run_id, 'tokens_out', tokens_out
    FROM stage_runs WHERE tokens_out > $limit
    UNION ALL
    SELECT source_file, source_line, run_id, 'tokens_in', tokens_in
    FROM stage_iterations WHERE tokens_in > $limit
    UNION ALL
    SELECT source_file, source_line, run_id, 'tokens_out', tokens_out
    FROM stage_iterations WHERE tokens_out > $limit
)
SELECT source_file, source_line, run_id, field, CAST(value AS VARCHAR)
FROM over
ORDER BY source_file, source_line NULLS FIRST, field
LIMIT 1
