-- inspect_scout_notices: what each staged Inspect Scout scan attached, for its one notice line.
-- Grain: one row per staged scan (scan_id), ordered by its _scan.json.
-- Needs: temp tables rg_scout_scans (scan_id, scan_file, scanners), rg_scout_scanned (the
--   transcripts each spec lists, with their log), rg_scout_entries (inspect_scout_entries.sql),
--   stage_runs; archive table runs; parameter $prefix (the load's run id prefix).
-- Columns: scan_file, scan_id, scanners (as the spec lists them), runs (runs given entries),
--   results and errors (counted on those runs), missing (transcripts scanned, by the spec or
--   the results, that are no run of the load or the archive), logs (their log files' names,
--   sorted).
WITH present AS (
    SELECT run_id FROM stage_runs
    UNION
    SELECT run_id FROM runs
),
scanned AS (
    SELECT scan_id, transcript_id, any_value(log) AS log
    FROM (
        SELECT scan_id, transcript_id, log FROM rg_scout_scanned
        UNION ALL
        SELECT scan_id, transcript_id, NULL FROM rg_scout_entries
    )
    GROUP BY ALL
),
per_scan AS (
    SELECT
        s.scan_id,
        count(*) FILTER (WHERE p.run_id IS NULL) AS missing,
        list(DISTINCT regexp_extract(s.log, '[^/\\]*$') ORDER BY 1)
            FILTER (WHERE p.run_id IS NULL AND s.log IS NOT NULL) AS logs
    FROM scanned AS s
    LEFT JOIN present AS p ON p.run_id = $prefix || s.transcript_id
    GROUP BY ALL
),
attached AS (
    SELECT
        e.scan_id,
        count(DISTINCT e.transcript_id) FILTER (WHERE p.run_id IS NOT NULL) AS runs,
        coalesce(sum(e.results) FILTER (WHERE p.run_id IS NOT NULL), 0) AS results,
        coalesce(sum(e.n_errors) FILTER (WHERE p.run_id IS NOT NULL), 0) AS errors
    FROM rg_scout_entries AS e
    LEFT JOIN present AS p ON p.run_id = $prefix || e.transcript_id
    GROUP BY ALL
)
SELECT
    f.scan_file,
    f.scan_id,
    f.scanners,
    coalesce(a.runs, 0) AS runs,
    CAST(coalesce(a.results, 0) AS BIGINT) AS results,
    CAST(coalesce(a.errors, 0) AS BIGINT) AS errors,
    coalesce(s.missing, 0) AS missing,
    coalesce(s.logs, []) AS logs
FROM rg_scout_scans AS f
LEFT JOIN per_scan AS s USING (scan_id)
LEFT JOIN attached AS a USING (scan_id)
ORDER BY f.scan_file, f.scan_id
