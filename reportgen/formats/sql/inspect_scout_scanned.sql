-- inspect_scout_scanned: the transcripts a scan's spec lists into rg_scout_scanned.
-- Grain: none: inserts one row per row of the registered Arrow table rg_scout_file.
-- Needs: temp table rg_scout_scanned (inspect_scout_tables.sql); registered Arrow table
--   rg_scout_file (the spec's transcripts table: transcript_id and log, text); parameters
--   $scan_id, $scan_file (the spec's display path).
INSERT INTO rg_scout_scanned
SELECT $scan_id, $scan_file, transcript_id, log
FROM rg_scout_file
