-- step_hashes_missing: true when some step of the archive lacks its stored hashes (rows
-- written other than by ingest or insert_runs); step_facts.sql then computes them all.
-- Grain: one row (column missing).
-- Needs: archive table steps (columns signature, payload).
-- Answered from column statistics, without a scan, when none is missing. Run by
-- reportgen.divergence.metrics._facts, which passes the answer to step_facts.sql as $computed.
SELECT count(*) > 0 AS missing
FROM steps
WHERE signature IS NULL OR payload IS NULL
