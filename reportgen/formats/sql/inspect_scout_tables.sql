-- inspect_scout_tables: the temp tables an Inspect Scout scan is staged into, where missing.
-- Grain: none: creates rg_scout_scans (one row per _scan.json), rg_scout_results (one row per
--   result row of a scanner's Parquet file), rg_scout_errors (one row per _errors.jsonl line)
--   and rg_scout_scanned (one row per transcript a spec lists).
-- Needs: nothing (reportgen.formats.adapters.inspect_scout stages into them and drops them
--   once the results are attached). Every value is text, as Scout writes most of them; the
--   value is typed by its value_type in inspect_scout_entries.sql.
CREATE TEMP TABLE IF NOT EXISTS rg_scout_scans (
    scan_id VARCHAR, scan_file VARCHAR, scanners VARCHAR[]
);
CREATE TEMP TABLE IF NOT EXISTS rg_scout_results (
    scan_id VARCHAR, scanner VARCHAR, ord BIGINT, transcript_id VARCHAR, value VARCHAR,
    value_type VARCHAR, answer VARCHAR, explanation VARCHAR, scan_error VARCHAR
);
CREATE TEMP TABLE IF NOT EXISTS rg_scout_errors (
    scan_id VARCHAR, scanner VARCHAR, transcript_id VARCHAR, error VARCHAR, ord BIGINT
);
CREATE TEMP TABLE IF NOT EXISTS rg_scout_scanned (
    scan_id VARCHAR, scan_file VARCHAR, transcript_id VARCHAR, log VARCHAR
);
