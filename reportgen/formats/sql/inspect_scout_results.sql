-- inspect_scout_results: one scanner's Parquet result rows into rg_scout_results.
-- Grain: none: inserts one row per row of the registered Arrow table rg_scout_file.
-- Needs: temp table rg_scout_results (inspect_scout_tables.sql); registered Arrow table
--   rg_scout_file (the file's transcript_id, value, value_type, answer, explanation,
--   scan_error and scanner_key as text, NULL where the file has no such column; ord, the row's
--   position); parameters $scan_id, $scanner (the file's name: the scanner without a key).
INSERT INTO rg_scout_results
SELECT
    $scan_id, coalesce(scanner_key, $scanner), ord, transcript_id, value, value_type, answer,
    explanation, scan_error
FROM rg_scout_file
