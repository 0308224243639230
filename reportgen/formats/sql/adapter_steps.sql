-- adapter_steps: move the steps an adapter collected (Arrow view rg_adapter_steps) into
-- stage_steps; input and output are JSON text, or plain text stored as a JSON string.
INSERT INTO stage_steps BY NAME
SELECT * EXCLUDE (started_at, input, output),
       TRY_CAST(started_at AS TIMESTAMPTZ) AS started_at,
       coalesce(TRY_CAST(input AS JSON), to_json(input)) AS input,
       coalesce(TRY_CAST(output AS JSON), to_json(output)) AS output
FROM rg_adapter_steps
