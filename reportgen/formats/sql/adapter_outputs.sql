-- adapter_outputs: the final output of each collected run that has one, into stage_outputs,
-- batch NULL when not given (the loader gives it the run's: default_output_batches.sql).
-- Grain: none: inserts into stage_outputs (one row per run of rg_adapter_runs with an output).
-- Needs: Arrow view rg_adapter_runs (registered by Collector.flush in
--   reportgen/formats/adapters/rows.py); temp table stage_outputs (made by
--   reportgen.ingest.loader._load).
INSERT INTO stage_outputs BY NAME
SELECT run_id, suite, label, task_id, batch, trial, output, source_file, content_hash
FROM rg_adapter_runs WHERE output IS NOT NULL
