-- adapter_steps: move the steps an adapter collected into stage_steps; started_at typed, input
-- and output are JSON text, or plain text stored as a JSON string.
-- Grain: none: inserts into stage_steps (one row per row of rg_adapter_steps).
-- Needs: Arrow view rg_adapter_steps (registered by Collector.flush in
--   reportgen/formats/adapters/rows.py); temp table stage_steps (made by
--   reportgen.ingest.loader._load).
INSERT INTO stage_steps BY NAME
SELECT * EXCLUDE (started_at, input, output),
       TRY_CAST(started_at AS TIMESTAMPTZ) AS started_at,
       coalesce(TRY_CAST(input AS JSON), to_json(input)) AS input,
       coalesce(TRY_CAST(output AS JSON), to_json(output)) AS output
FROM rg_adapter_steps
