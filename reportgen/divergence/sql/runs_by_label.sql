-- The runs of one label, optionally one suite and one batch. Grain: one row per run.
SELECT run_id
FROM runs
WHERE label = $label
  AND ($suite IS NULL OR suite = $suite)
  AND ($batch IS NULL OR batch = $batch)
