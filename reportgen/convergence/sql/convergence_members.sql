-- convergence_members: the outputs that convergence groups are made of.
-- Grain: one row per non-NULL output in outputs, optionally filtered by suite, label and
--   batch ($suite, $label, $batch; NULL = any).
-- Needs: archive table outputs; parameters $suite, $label, $batch (passed by
--   reportgen.convergence.members.read_members).
-- No ORDER BY: the caller orders rows by (suite, label, task_id, batch, trial, run_id,
-- output) in Arrow, after checking whether they already are (rows loaded night by night
-- usually come out that way, and the check costs far less than a sort of the output texts).
-- Groups of one output are dropped by the caller too (cheaper than a window count).
SELECT suite, label, task_id, batch, trial, run_id, output
FROM outputs
WHERE output IS NOT NULL
  AND ($suite IS NULL OR suite = $suite)
  AND ($label IS NULL OR label = $label)
  AND ($batch IS NULL OR batch = $batch)
