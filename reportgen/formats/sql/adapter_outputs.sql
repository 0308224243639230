-- adapter_outputs: the final output of each collected run that has one (rg_adapter_runs) into
-- stage_outputs, with the same batch rule as adapter_runs.sql.
INSERT INTO stage_outputs BY NAME
SELECT run_id, suite, label, task_id,
       coalesce(batch, strftime(TRY_CAST(started_at AS TIMESTAMPTZ), '%Y-%m-%d'), 'undated')
           AS batch,
       trial, output, source_file, content_hash
FROM rg_adapter_runs WHERE output IS NOT NULL
