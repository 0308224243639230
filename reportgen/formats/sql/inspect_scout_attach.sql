-- inspect_scout_attach: the staged runs of the transcripts an Inspect Scout scan of this load
--   scanned get its scanners' entries in meta.<$key>.<scanner>.
-- Grain: none: updates stage_runs (one row per staged run a staged scan scanned).
-- Needs: temp tables rg_scout_entries (inspect_scout_entries.sql) and stage_runs (run ids
--   final); parameters $prefix (the load's run id prefix), $key (the meta key: scanners).
UPDATE stage_runs SET meta = json_merge_patch(stage_runs.meta, p.patch)
FROM (
    SELECT $prefix || transcript_id AS rg_run_id,
        json_object($key, to_json(map_from_entries(list((scanner, entry) ORDER BY scanner))))
            AS patch
    FROM rg_scout_entries
    GROUP BY transcript_id
) AS p
WHERE stage_runs.run_id = p.rg_run_id
