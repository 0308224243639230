-- iteration_attempts: every attempt of a coding-loop run, with its derived signals.
-- Grain: one row per attempt (run_id, iter), ordered by run_id, iter.
-- Needs: archive table iterations; UDFs rg_patch_ratio, rg_patch_lines
--   (reportgen/iterations/udfs.py, registered by reportgen.iterations.analysis.prepare, which
--   stores these rows as temp table iteration_attempts); parameter $run_ids (a VARCHAR[] of
--   runs, or NULL for all).
-- Attempts of a step are ordered by (attempt, iter); step_seq numbers them from 1.
--   failing          the failure ids as a sorted set; NULL when unknown (no failing, no output)
--   prev_failing     the previous attempt's set; [] before the first attempt of a step
--                    (NULL when the previous attempt's set is unknown)
--   resolved         as given, else prev_failing - failing      (gone since the last attempt)
--   persisting       as given, else prev_failing ∩ failing      (unmoved)
--   new              as given, else failing - prev_failing      (introduced by this attempt);
--                    NULL when either set is unknown
--   patch_distance   as given, else the line-level similarity of this and the previous patch
--                    of the step (rg_patch_ratio: Indel similarity of their changed lines):
--                    1.0 = same patch (refining), near 0 = rewritten
--   diff_volume      lines changed against the last certified state: patch_lines, else counted
--                    from the patch (the record's patch is the diff since the last certification)
--   tool_error_rate  tool_errors / tool_calls (absent errors count 0); NULL without calls
--   tokens           tokens_in + tokens_out, an absent count as 0; usd likewise
--   certified        as given, else exit_code = 0
--   backlog_steps    the run's backlog size as this record gives it (NULL: not given)
WITH base AS (
    SELECT
        run_id,
        iter,
        step,
        attempt,
        "check",
        exit_code,
        secs,
        CASE WHEN failing IS NOT NULL THEN list_sort(list_distinct(failing)) END AS failing,
        CASE WHEN resolved IS NOT NULL THEN list_sort(list_distinct(resolved)) END AS given_resolved,
        CASE WHEN persisting IS NOT NULL THEN list_sort(list_distinct(persisting)) END
            AS given_persisting,
        CASE WHEN new IS NOT NULL THEN list_sort(list_distinct(new)) END AS given_new,
        normaliser,
        patch_lines,
        patch_distance AS given_patch_distance,
        patch,
        tool_calls,
        tool_errors,
        tokens_in,
        tokens_out,
        usd,
        coalesce(certified, exit_code = 0, false) AS certified,
        backlog_steps,
        row_number() OVER (PARTITION BY run_id, step ORDER BY attempt, iter) AS step_seq,
        lag(patch) OVER (PARTITION BY run_id, step ORDER BY attempt, iter) AS prev_patch
    FROM iterations
    WHERE CAST($run_ids AS VARCHAR[]) IS NULL OR list_contains(CAST($run_ids AS VARCHAR[]), run_id)
),

with_prev AS (
    SELECT
        *,
        CASE
            WHEN step_seq = 1 THEN CAST([] AS VARCHAR[])
            ELSE lag(failing) OVER (PARTITION BY run_id, step ORDER BY step_seq)
        END AS prev_failing
    FROM base
)

SELECT
    run_id,
    iter,
    step,
    attempt,
    step_seq,
    "check",
    exit_code,
    secs,
    normaliser,
    certified,
    failing,
    len(failing) AS n_failing,
    prev_failing,
    coalesce(
        given_resolved,
        CASE WHEN failing IS NOT NULL
            THEN list_filter(prev_failing, lambda x: NOT list_contains(failing, x)) END
    ) AS resolved,
    coalesce(
        given_persisting,
        CASE WHEN failing IS NOT NULL
            THEN list_filter(prev_failing, lambda x: list_contains(failing, x)) END
    ) AS persisting,
    coalesce(
        given_new,
        CASE WHEN prev_failing IS NOT NULL
            THEN list_filter(failing, lambda x: NOT list_contains(prev_failing, x)) END
    ) AS new,
    patch_lines,
    coalesce(
        given_patch_distance,
        rg_patch_ratio(CASE WHEN given_patch_distance IS NULL THEN prev_patch END, patch)
    ) AS patch_distance,
    coalesce(patch_lines, rg_patch_lines(patch)) AS diff_volume,
    tool_calls,
    tool_errors,
    CAST(coalesce(tool_errors, 0) AS DOUBLE) / nullif(tool_calls, 0) AS tool_error_rate,
    coalesce(tokens_in, 0) + coalesce(tokens_out, 0) AS tokens,
    coalesce(usd, 0.0) AS usd,
    backlog_steps
FROM with_prev
ORDER BY run_id, iter
