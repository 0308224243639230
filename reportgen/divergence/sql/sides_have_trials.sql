-- sides_have_trials: what two explicit inputs share, to choose the keys they pair by.
-- Grain: one row: (1) true when the baseline runs $b and the candidate runs $c each hold more
--   than one distinct trial number; (2) true when both sides hold the same set of suites.
-- Needs: archive table runs; parameters $b, $c (run id lists; passed by
--   reportgen.divergence.pairing.pair_runs).
WITH b AS (SELECT suite, trial FROM runs WHERE list_contains($b, run_id)),
c AS (SELECT suite, trial FROM runs WHERE list_contains($c, run_id))
SELECT
    (SELECT count(DISTINCT trial) FROM b) > 1 AND (SELECT count(DISTINCT trial) FROM c) > 1,
    (SELECT list(DISTINCT suite ORDER BY suite) FROM b)
        = (SELECT list(DISTINCT suite ORDER BY suite) FROM c)
