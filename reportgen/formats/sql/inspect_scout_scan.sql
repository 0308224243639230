-- inspect_scout_scan: one scan's spec into rg_scout_scans.
-- Grain: none: inserts one row (the scan).
-- Needs: temp table rg_scout_scans (inspect_scout_tables.sql); parameters $scan_id,
--   $scan_file (the spec's display path), $scanners (the scanners it names, in its order).
INSERT INTO rg_scout_scans VALUES ($scan_id, $scan_file, $scanners)
