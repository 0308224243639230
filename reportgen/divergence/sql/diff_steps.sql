-- diff_steps: the steps of a batch of compared runs as the JSON text of step_diffs rows.
-- Grain: one row per step of the runs in rg_diff_runs (rn, idx), in no particular order.
-- Needs: archive table steps; view rg_diff_runs (run_id, rn: the run's number in the batch),
--   registered by reportgen.divergence.step_json.
-- What compare --json writes as a row's baseline_step and candidate_step:
--   step      the step object, keys sorted as reportgen writes them (action, cost_usd, error,
--             input, latency_ms, output, status, tokens_in, tokens_out, type); input and output
--             are the stored JSON, written compact with their own key order; a non-finite
--             number is null, as in every --json
--   input     the stored input JSON text ('null': none), for the argument diffs of
--             modified rows (reportgen.divergence._kernels.argument_diffs)
--   unusual   the text may hold what strict JSON has no text for (NaN, Infinity, a number
--             too large for a float): reportgen.divergence.step_json encodes it again
WITH texts AS (
    SELECT
        r.rn,
        s.idx,
        to_json({
            action: s.action,
            cost_usd: CASE WHEN isfinite(s.cost_usd) THEN s.cost_usd END,
            error: s.error,
            input: CAST(s.input AS JSON),
            latency_ms: CASE WHEN isfinite(s.latency_ms) THEN s.latency_ms END,
            output: CAST(s.output AS JSON),
            status: s.status,
            tokens_in: s.tokens_in,
            tokens_out: s.tokens_out,
            type: s.type
        }) AS step,
        coalesce(CAST(s.input AS VARCHAR), 'null') AS input
    FROM steps AS s
    INNER JOIN rg_diff_runs AS r ON r.run_id = s.run_id
)
SELECT
    rn,
    idx,
    step,
    input,
    contains(step, 'NaN') OR contains(step, 'Infinity')
    OR regexp_matches(step, '[eE]\+?[0-9]{3}') AS unusual
FROM texts
