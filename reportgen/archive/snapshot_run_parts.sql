-- snapshot_run_parts: each run's night as the build publishes it, numbered, for the
--   snapshot's night files (reportgen/archive/snapshot_write.py).
-- Grain: none: creates the temporary table snapshot_run_parts, one row per run id as stored
--   (raw_id; run_id and night: the run id and batch as published, redacted or not; part: 0
--   for no batch, else the night's rank among the published batches).
-- Needs: the temporary view snapshot_read_runs (the runs as published, with snapshot_raw_id:
--   the run id as stored). A run id published twice keeps its first night (one file a row).
CREATE OR REPLACE TEMP TABLE snapshot_run_parts AS
WITH nights AS (
    SELECT snapshot_raw_id AS raw_id, min(run_id) AS run_id, min(batch) AS night
    FROM snapshot_read_runs
    GROUP BY snapshot_raw_id
)
SELECT
    raw_id,
    run_id,
    night,
    CASE WHEN night IS NULL THEN 0 ELSE dense_rank() OVER (ORDER BY night) END AS part
FROM nights
