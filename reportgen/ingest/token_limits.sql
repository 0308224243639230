-- token_limits: the first staged token count past what the archive stores safely ($limit):
-- one count (a step's, a run's, an iteration's) or a run's steps summed.
-- Grain: at most one row (source_file, source_line, run_id, field, value).
-- Needs: staged tables stage_runs, stage_steps, stage_iterations (reportgen.ingest.loader);
--   parameter $limit. Sums over many runs then stay far inside BIGINT: no metric wraps.
-- The steps are filtered and summed by run before the join to their runs: a join of every
-- staged step cost most of this query.
WITH step_over AS (
    SELECT run_id, idx, tokens_in, tokens_out
    FROM stage_steps WHERE tokens_in > $limit OR tokens_out > $limit
),
step_rows AS (
    SELECT r.source_file, r.source_line, s.run_id, s.idx, s.tokens_in, s.tokens_out
    FROM step_over AS s
    JOIN stage_runs AS r USING (run_id)
),
run_sums AS (
    SELECT run_id, sum(tokens_in) AS tokens_in, sum(tokens_out) AS tokens_out
    FROM stage_steps
    GROUP BY run_id
    HAVING sum(tokens_in) > $limit OR sum(tokens_out) > $limit
),
step_sums AS (
    SELECT r.source_file, r.source_line, s.run_id, s.tokens_in, s.tokens_out
    FROM run_sums AS s
    JOIN stage_runs AS r USING (run_id)
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
