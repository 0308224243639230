-- sides_have_trials: whether both sides of a comparison hold repeated trials, so that two
-- explicit inputs pair by task and trial (else by task alone).
-- Grain: one row, one column: true when the baseline runs $b and the candidate runs $c each
--   hold more than one distinct trial number.
-- Needs: archive table runs; parameters $b, $c (run id lists; passed by
--   reportgen.divergence.pairing._has_trials).
SELECT
    (SELECT count(DISTINCT trial) FROM runs WHERE list_contains($b, run_id)) > 1
    AND (SELECT count(DISTINCT trial) FROM runs WHERE list_contains($c, run_id)) > 1
