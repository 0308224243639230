-- inspect_scout_attach_archived: archived runs an Inspect Scout scan of this load scanned (and
--   the load does not stage again) get its entries in meta.<$key>.<scanner>.
-- Grain: none: updates runs (one row per archived run a staged scan scanned).
-- Needs: archive table runs; temp tables rg_scout_entries (inspect_scout_entries.sql) and
--   stage_runs; parameters $prefix (the load's run id prefix), $key (the meta key: scanners).
-- As inspect_scout_attach.sql gives staged runs.
UPDATE runs SET meta = json_merge_patch(runs.meta, p.patch)
FROM (
    SELECT $prefix || transcript_id AS rg_run_id,
        json_object($key, to_json(map_from_entries(list((scanner, entry) ORDER BY scanner))))
            AS patch
    FROM rg_scout_entries
    GROUP BY transcript_id
) AS p
WHERE runs.run_id = p.rg_run_id
    AND runs.run_id NOT IN (SELECT run_id FROM stage_runs)
