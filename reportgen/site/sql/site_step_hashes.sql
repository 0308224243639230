-- site_step_hashes: an MD5 of every field of each run's steps in trajectory order. The site
-- keys run and comparison pages by it, so a rebuild renders only the pages whose steps changed.
-- Grain: one row per run that has steps (run_id), ordered by run_id; only the runs of the nights
--   with step pages (older nights' runs get small stand-ins, keyed without their steps).
-- Needs: archive table steps (read by reportgen.site.data.load_site_data); parameters
--   $all_runs: every run, else $run_ids: the runs of the nights with step pages, as a list (a
--   filter that reaches the table: the site's redaction views would otherwise redact every
--   step of the archive first).
SELECT
    run_id,
    md5(string_agg(
        CAST(ROW(idx, type, action, CAST(input AS VARCHAR), input_keys, CAST(output AS VARCHAR),
                 status, tokens_in, tokens_out, cost_usd, latency_ms, parent, started_at, error)
                 AS VARCHAR),
        chr(30) ORDER BY idx
    )) AS steps_hash
FROM steps
WHERE $all_runs OR list_contains($run_ids, run_id)
GROUP BY run_id
ORDER BY run_id
