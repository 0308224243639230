-- site_steps: the steps of one night's runs, for the run and comparison pages; input/output are
-- JSON text, numbers stay NULL when not given; signature and payload: the loop detector's hashes.
-- Grain: one row per step (run_id, idx), in trajectory order (ordered by run_id, idx).
-- Needs: archive table steps (read by reportgen.site.data.NightSteps, a night when a page
--   first needs it); parameter $run_ids: the night's runs, as a list (a filter that reaches
--   the table: the site's redaction views would otherwise redact every step first); macros
--   rg_step_signature, rg_step_payload (reportgen/archive/step_hashes.sql).
-- For the trace tree: parent (the enclosing step's idx) and started_ms (start, ms since 1970).
SELECT
    run_id,
    idx,
    type,
    action,
    CAST(input AS VARCHAR) AS input,
    input_keys,
    CAST(output AS VARCHAR) AS output,
    status,
    tokens_in,
    tokens_out,
    cost_usd,
    latency_ms,
    parent,
    epoch_us(started_at) / 1000.0 AS started_ms,
    error,
    coalesce(signature, rg_step_signature(type, action, input_keys)) AS signature,
    coalesce(payload, rg_step_payload(input, output)) AS payload
FROM steps
WHERE list_contains($run_ids, run_id)
ORDER BY run_id, idx
