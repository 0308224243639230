-- iteration_runs: progress or only activity, per coding-loop run.
-- Grain: one row per run_id, ordered by run_id.
-- Needs: temp tables iteration_attempts (iteration_attempts.sql) and iteration_steps
--   (iteration_steps.sql), both made by reportgen.iterations.analysis.prepare.
-- Columns:
--   certified_steps             steps with a certified attempt
--   n_steps                     steps attempted
--   backlog_steps               the backlog size its records give (the largest), never fewer
--                               than the steps attempted; NULL when no record gives one
--   tokens, usd                 everything the run spent (tokens = in + out)
--   *_per_certified_step        tokens (usd) / certified_steps; NULL, with per_certified_reason,
--                               when no step is certified (never an infinity)
--   last_certified_iter         the iteration that certified the latest step (re-certifying a
--                               step that was already done is not progress)
--   marginal_*                  what the attempts after last_certified_iter spent; with no
--                               certification yet, everything since the start
--   tool_error_rate             errors / calls over the attempts that record their calls
--                               (absent errors count 0); NULL when no calls
--   thrash_steps                steps whose thrash evidence has >= k stalled attempts
WITH totals AS (
    SELECT
        run_id,
        count(*) AS attempts,
        min(iter) AS first_iter,
        max(iter) AS last_iter,
        CAST(sum(tokens) AS BIGINT) AS tokens,
        sum(usd) AS usd,
        CAST(sum(tool_calls) AS BIGINT) AS tool_calls,
        CAST(sum(tool_errors) AS BIGINT) AS tool_errors,
        CAST(sum(coalesce(tool_errors, 0)) FILTER (WHERE tool_calls IS NOT NULL) AS DOUBLE)
            AS rated_errors,
        max(backlog_steps) AS backlog_steps
    FROM iteration_attempts
    GROUP BY run_id
),

steps AS (
    SELECT
        run_id,
        count(*) AS n_steps,
        count(*) FILTER (WHERE certified) AS certified_steps,
        max(certified_iter) AS last_certified_iter,
        list(step ORDER BY first_iter, step) AS backlog,
        coalesce(list(step ORDER BY first_iter, step) FILTER (WHERE thrash), []) AS thrash_steps
    FROM iteration_steps
    GROUP BY run_id
),

marginal AS (
    SELECT
        a.run_id,
        count(*) AS marginal_attempts,
        CAST(sum(a.tokens) AS BIGINT) AS marginal_tokens,
        sum(a.usd) AS marginal_usd
    FROM iteration_attempts AS a
    JOIN steps AS s USING (run_id)
    WHERE a.iter > coalesce(s.last_certified_iter, -1)
    GROUP BY a.run_id
)

SELECT
    t.run_id,
    t.attempts,
    t.first_iter,
    t.last_iter,
    s.n_steps,
    CASE WHEN t.backlog_steps IS NOT NULL
         THEN greatest(t.backlog_steps, s.n_steps) END AS backlog_steps,
    s.certified_steps,
    s.backlog,
    t.tokens,
    t.usd,
    CAST(t.tokens AS DOUBLE) / nullif(s.certified_steps, 0) AS tokens_per_certified_step,
    t.usd / nullif(s.certified_steps, 0) AS usd_per_certified_step,
    CASE WHEN s.certified_steps = 0 THEN 'no step certified yet' END AS per_certified_reason,
    s.last_certified_iter,
    coalesce(m.marginal_attempts, 0) AS marginal_attempts,
    coalesce(m.marginal_tokens, 0) AS marginal_tokens,
    coalesce(m.marginal_usd, 0.0) AS marginal_usd,
    t.tool_calls,
    t.tool_errors,
    t.rated_errors / nullif(t.tool_calls, 0) AS tool_error_rate,
    s.thrash_steps
FROM totals AS t
JOIN steps AS s USING (run_id)
LEFT JOIN marginal AS m USING (run_id)
ORDER BY t.run_id
