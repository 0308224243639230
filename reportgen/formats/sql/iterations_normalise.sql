-- iterations_normalise: write normalised failure ids back into the staged attempts, in one
-- statement.
-- Grain: none: updates stage_iter_typed (failing and normaliser of the rows stage_iter_norm
--   names).
-- Needs: temp table stage_iter_typed (iterations_typed.sql); Arrow view
--   stage_iter_norm(rid, failing, normaliser), one row per normalised attempt (registered by
--   normalise_staged_outputs in reportgen/formats/native/iterations.py).
UPDATE stage_iter_typed AS t
SET failing = n.failing, normaliser = n.normaliser
FROM stage_iter_norm AS n
WHERE t.rid = n.rid
