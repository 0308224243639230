-- site_steps: every step of every run, for the run and comparison pages; input/output are
-- JSON text, numbers stay NULL when not given.
-- Grain: one row per step (run_id, idx), in trajectory order (ordered by run_id, idx).
-- Needs: archive table steps (read by reportgen.site.data.load_site_data).
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
    latency_ms
FROM steps
ORDER BY run_id, idx
