-- inspect_scout_errors: a scan's _errors.jsonl lines into rg_scout_errors.
-- Grain: none: inserts one row per row of the registered Arrow table rg_scout_file.
-- Needs: temp table rg_scout_errors (inspect_scout_tables.sql); registered Arrow table
--   rg_scout_file (scanner, transcript_id, error as text; ord, the line's position);
--   parameter $scan_id.
INSERT INTO rg_scout_errors
SELECT $scan_id, scanner, transcript_id, error, ord
FROM rg_scout_file
