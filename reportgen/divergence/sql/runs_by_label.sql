-- runs_by_label: the run ids of one label, optionally of one suite and one batch.
-- Grain: one row per run (column run_id), in no particular order.
-- Needs: archive table runs; parameters $label, $suite, $batch (NULL = any; passed by
--   reportgen.divergence.pairing.runs_of_label).
SELECT run_id
FROM runs
WHERE label = $label
  AND ($suite IS NULL OR suite = $suite)
  AND ($batch IS NULL OR batch = $batch)
