-- default_output_batches: a staged output that carries no batch takes its run's (after
-- default_batches.sql), else 'undated'.
-- Grain: none: updates stage_outputs.batch where it is NULL (one row per staged output).
-- Needs: temp tables stage_outputs and stage_runs (reportgen.ingest.loader._load), their
--   run batches already assigned by default_batches.sql.
UPDATE stage_outputs
SET batch = coalesce(
    (SELECT min(r.batch) FROM stage_runs AS r WHERE r.run_id = stage_outputs.run_id), 'undated')
WHERE batch IS NULL
