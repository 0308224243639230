-- Write normalised failure ids back into the staged attempts, in one statement. Reads the
-- Arrow table `stage_iter_norm(rid, failing, normaliser)`, one row per normalised attempt.
UPDATE stage_iter_typed AS t
SET failing = n.failing, normaliser = n.normaliser
FROM stage_iter_norm AS n
WHERE t.rid = n.rid
