-- run_outcomes: each given run's outcome (success, reward, or the infrastructure error that
-- ended it) and place (suite, task, batch, trial), for pair records and label statistics.
-- Grain: one row per run_id of $run_ids found in runs, ordered by run_id.
-- Needs: archive table runs; parameter $run_ids (a list of run ids, passed by
--   reportgen.divergence.compare.run_outcomes).
-- success and reward are NULL where the run does not say (unknown, never false or 0), and for
-- a run that errored (error_kind set: not scored).
SELECT
    run_id,
    success,
    reward,
    suite,
    task_id,
    batch,
    trial,
    error_kind,
    error_reason
FROM runs
WHERE run_id IN (SELECT unnest($run_ids))
ORDER BY run_id
