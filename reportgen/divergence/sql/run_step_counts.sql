-- run_step_counts: how many steps each given run has, so that pair_metrics cuts its pairs into
--   chunks of about CHUNK_STEPS steps (reportgen.divergence.metrics.chunk_bounds).
-- Grain: one row per run_id of $run_ids found in runs, in no particular order.
-- Needs: archive table runs; parameter $run_ids (a list of run ids, passed by
--   reportgen.divergence.metrics.chunk_bounds).
SELECT run_id, n_steps
FROM runs
WHERE run_id IN (SELECT unnest($run_ids))
