-- site_step_hashes: one row per run that has steps (grain: run_id): an MD5 of every field of
-- its steps in trajectory order. The site keys run and comparison pages by it, so a rebuild
-- renders only the pages whose steps changed.
SELECT
    run_id,
    md5(string_agg(
        CAST(ROW(idx, type, action, CAST(input AS VARCHAR), input_keys, CAST(output AS VARCHAR),
                 status, tokens_in, tokens_out, cost_usd, latency_ms) AS VARCHAR),
        chr(30) ORDER BY idx
    )) AS steps_hash
FROM steps
GROUP BY run_id
ORDER BY run_id
