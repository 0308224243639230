-- Unnest staged runs into raw steps (one row per step), keeping each step's 0-based index.
CREATE OR REPLACE TEMP TABLE stage_trace_steps_raw AS
SELECT rid, source_file, unnest(steps, recursive := true), generate_subscripts(steps, 1) - 1 AS idx
FROM stage_trace_raw
