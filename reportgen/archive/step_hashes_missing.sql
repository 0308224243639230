-- step_hashes_missing: true when some step of the archive lacks its stored hashes (rows
-- written other than by ingest or insert_runs); step_facts.sql then computes them all.
-- Answered from column statistics, without a scan, when none is missing.
SELECT count(*) > 0 AS missing
FROM steps
WHERE signature IS NULL OR payload IS NULL
