-- steps_for_runs: the steps of the given runs ($run_ids), for diff views and explanations;
-- input/output are JSON text.
-- Grain: one row per step (run_id, idx), ordered by run and step.
-- Needs: archive table steps; parameter $run_ids (a list of run ids, passed by
--   reportgen.divergence.compare._attach_steps).
SELECT
    run_id,
    idx,
    type,
    action,
    status,
    CAST(input AS VARCHAR) AS input,
    CAST(output AS VARCHAR) AS output,
    tokens_in,
    tokens_out,
    cost_usd,
    latency_ms,
    error
FROM steps
WHERE run_id IN (SELECT unnest($run_ids))
ORDER BY run_id, idx
