-- site_steps: every step of every run, for the run and comparison pages; input/output are
-- JSON text, numbers stay NULL when not given; signature and payload: the loop detector's hashes.
-- Grain: one row per step (run_id, idx), in trajectory order (ordered by run_id, idx).
-- Needs: archive tables steps, runs (read by reportgen.site.data.load_site_data); parameters
--   $every_night, $nights: the steps of every run, or only of the runs of these batches (the
--   nights whose step pages the site keeps, retention.py); macros
--   rg_step_signature, rg_step_payload (reportgen/archive/step_hashes.sql).
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
    error,
    coalesce(signature, rg_step_signature(type, action, input_keys)) AS signature,
    coalesce(payload, rg_step_payload(input, output)) AS payload
FROM steps
WHERE $every_night OR run_id IN (SELECT run_id FROM runs WHERE list_contains($nights, batch))
ORDER BY run_id, idx
