-- iteration_steps: each backlog step of a run, with its thrash evidence.
-- Grain: one row per (run_id, step), ordered by run_id, first_iter, step.
-- Needs: temp table iteration_attempts (iteration_attempts.sql); UDF rg_check_kind
--   (reportgen/iterations/udfs.py); parameters $min_stalled (k: stalled attempts that make a
--   thrash signal) and $low_patch_distance (a mean patch distance under it means attempts
--   rewrite rather than refine). reportgen.iterations.analysis.prepare makes the table,
--   registers the UDF and stores these rows as temp table iteration_steps.
--
-- An attempt *moves* when it is the step's first, is certified, has an unknown failing set, or
-- fails fewer checks than every earlier attempt of the step; otherwise it is *stalled* (the
-- failing set is unchanged, or churns without reaching a new low). A stretch is one moving
-- attempt (its anchor) and the stalled attempts after it. The step's thrash evidence is its
-- longest stretch (the latest on a tie); `thrash` is true when it has >= k stalled attempts.
-- It is evidence for a reader, never a decision to stop.
--   failing_set      'unchanged' (every stalled attempt fails exactly as the one before) or
--                    'churning'
--   core_failing     ids failing in every attempt of the stretch
--   churn_ids        distinct ids that appeared (new) during the stalled attempts
--   *_from, *_to     the value at the anchor and at the last stalled attempt
--   growing_diff     diff_to > diff_from;  rising_tool_errors  tool_error_rate_to > _from
--   low_patch_distance  mean patch distance of the stalled attempts < $low_patch_distance
--   certifying check the check of the first certified attempt, else of the last attempt;
--                    check_kind says whether it runs tests or only builds (rg_check_kind)
WITH marked AS (
    SELECT
        *,
        min(n_failing) OVER (
            PARTITION BY run_id, step ORDER BY step_seq
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ) AS best_before
    FROM iteration_attempts
),

moves AS (
    SELECT
        *,
        (step_seq = 1 OR certified OR n_failing IS NULL OR best_before IS NULL
            OR n_failing < best_before) AS moved
    FROM marked
),

stretched AS (
    SELECT
        *,
        sum(CASE WHEN moved THEN 1 ELSE 0 END) OVER (
            PARTITION BY run_id, step ORDER BY step_seq ROWS UNBOUNDED PRECEDING
        ) AS stretch
    FROM moves
),

ends AS (
    SELECT
        *,
        first_value(n_failing) OVER s AS n_failing_from,
        last_value(n_failing) OVER s AS n_failing_to,
        first_value(diff_volume) OVER s AS diff_from,
        last_value(diff_volume) OVER s AS diff_to,
        first_value(tool_error_rate) OVER s AS tool_error_rate_from,
        last_value(tool_error_rate) OVER s AS tool_error_rate_to
    FROM stretched
    WINDOW s AS (
        PARTITION BY run_id, step, stretch ORDER BY step_seq
        ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING
    )
),

stretches AS (
    SELECT
        run_id,
        step,
        stretch,
        count(*) AS size,
        count(*) FILTER (WHERE NOT moved) AS stalled,
        min(attempt) FILTER (WHERE moved) AS anchor_attempt,
        min(iter) FILTER (WHERE moved) AS anchor_iter,
        list(attempt ORDER BY step_seq) FILTER (WHERE NOT moved) AS attempts,
        list(iter ORDER BY step_seq) FILTER (WHERE NOT moved) AS iters,
        CASE WHEN bool_and(coalesce(failing = prev_failing, false)) FILTER (WHERE NOT moved)
            THEN 'unchanged' ELSE 'churning' END AS failing_set,
        any_value(n_failing_from) AS n_failing_from,
        any_value(n_failing_to) AS n_failing_to,
        any_value(diff_from) AS diff_from,
        any_value(diff_to) AS diff_to,
        any_value(tool_error_rate_from) AS tool_error_rate_from,
        any_value(tool_error_rate_to) AS tool_error_rate_to,
        avg(patch_distance) FILTER (WHERE NOT moved) AS mean_patch_distance,
        CAST(sum(tokens) FILTER (WHERE NOT moved) AS BIGINT) AS stalled_tokens,
        sum(usd) FILTER (WHERE NOT moved) AS stalled_usd
    FROM ends
    GROUP BY run_id, step, stretch
),

longest AS (
    SELECT *
    FROM stretches
    QUALIFY row_number() OVER (PARTITION BY run_id, step ORDER BY stalled DESC, stretch DESC) = 1
),

core AS (
    SELECT e.run_id, e.step, list(f.id ORDER BY f.id) AS core_failing
    FROM (
        SELECT run_id, step, stretch, id, count(*) AS n
        FROM (SELECT run_id, step, stretch, unnest(failing) AS id FROM ends) AS u
        GROUP BY ALL
    ) AS f
    JOIN longest AS e USING (run_id, step, stretch)
    WHERE f.n = e.size
    GROUP BY e.run_id, e.step
),

churn AS (
    SELECT e.run_id, e.step, list(DISTINCT a.id ORDER BY a.id) AS churn_ids
    FROM (
        SELECT run_id, step, stretch, unnest(new) AS id
        FROM ends
        WHERE NOT moved
    ) AS a
    JOIN longest AS e USING (run_id, step, stretch)
    GROUP BY e.run_id, e.step
),

per_step AS (
    SELECT
        run_id,
        step,
        count(*) AS attempts,
        min(iter) AS first_iter,
        max(iter) AS last_iter,
        bool_or(certified) AS certified,
        min(attempt) FILTER (WHERE certified) AS certified_attempt,
        min(iter) FILTER (WHERE certified) AS certified_iter,
        coalesce(
            min_by("check", step_seq) FILTER (WHERE certified), max_by("check", step_seq)
        ) AS certifying_check,
        coalesce(
            min_by(normaliser, step_seq) FILTER (WHERE certified), max_by(normaliser, step_seq)
        ) AS normaliser,
        CAST(sum(tokens) AS BIGINT) AS tokens,
        sum(usd) AS usd,
        CAST(sum(tool_calls) AS BIGINT) AS tool_calls,
        CAST(sum(tool_errors) AS BIGINT) AS tool_errors
    FROM iteration_attempts
    GROUP BY run_id, step
)

SELECT
    p.run_id,
    p.step,
    p.attempts,
    p.first_iter,
    p.last_iter,
    p.certified,
    p.certified_attempt,
    p.certified_iter,
    p.certifying_check,
    p.normaliser,
    rg_check_kind(p.certifying_check, p.normaliser) AS check_kind,
    p.tokens,
    p.usd,
    p.tool_calls,
    p.tool_errors,
    coalesce(l.stalled, 0) >= $min_stalled AS thrash,
    coalesce(l.stalled, 0) AS stalled,
    l.anchor_attempt,
    l.anchor_iter,
    coalesce(l.attempts, CAST([] AS INTEGER[])) AS stalled_attempts,
    coalesce(l.iters, CAST([] AS INTEGER[])) AS stalled_iters,
    CASE WHEN l.stalled > 0 THEN l.failing_set END AS failing_set,
    coalesce(c.core_failing, CAST([] AS VARCHAR[])) AS core_failing,
    coalesce(h.churn_ids, CAST([] AS VARCHAR[])) AS churn_ids,
    l.n_failing_from,
    l.n_failing_to,
    l.diff_from,
    l.diff_to,
    coalesce(l.diff_to > l.diff_from, false) AS growing_diff,
    l.mean_patch_distance,
    coalesce(l.mean_patch_distance < $low_patch_distance, false) AS low_patch_distance,
    l.tool_error_rate_from,
    l.tool_error_rate_to,
    coalesce(l.tool_error_rate_to > l.tool_error_rate_from, false) AS rising_tool_errors,
    coalesce(l.stalled_tokens, 0) AS stalled_tokens,
    coalesce(l.stalled_usd, 0.0) AS stalled_usd
FROM per_step AS p
LEFT JOIN longest AS l ON l.run_id = p.run_id AND l.step = p.step AND l.stalled > 0
LEFT JOIN core AS c ON c.run_id = p.run_id AND c.step = p.step AND l.stalled > 0
LEFT JOIN churn AS h ON h.run_id = p.run_id AND h.step = p.step
ORDER BY p.run_id, p.first_iter, p.step
