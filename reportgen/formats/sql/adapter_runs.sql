-- adapter_runs: move the runs an adapter collected into stage_runs; timestamps and meta typed,
-- batch NULL when not given (the loader assigns it: reportgen/ingest/default_batches.sql).
-- Grain: none: inserts into stage_runs (one row per row of rg_adapter_runs).
-- Needs: Arrow view rg_adapter_runs (registered by Collector.flush in
--   reportgen/formats/adapters/rows.py); temp table stage_runs (made by
--   reportgen.ingest.loader._load).
INSERT INTO stage_runs BY NAME
SELECT * EXCLUDE (started_at, meta),
       TRY_CAST(started_at AS TIMESTAMPTZ) AS started_at,
       CAST(meta AS JSON) AS meta
FROM rg_adapter_runs
