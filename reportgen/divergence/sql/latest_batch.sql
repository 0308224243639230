-- latest_batch: the newest batch holding runs of label $label (NULL when it has none).
-- Grain: one row.
-- Needs: archive table runs; parameter $label (passed by
--   reportgen.divergence.compare.latest_batch).
SELECT max(batch) FROM runs WHERE label = $label
