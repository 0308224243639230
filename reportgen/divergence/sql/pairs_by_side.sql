-- pairs_by_side: pair baseline and candidate runs by task, and by suite and trial when asked.
-- Grain: one row per pair (baseline_run_id, candidate_run_id), or per unpaired run of either
--   side (its partner's run_id NULL); ordered by suite, task_id, batch, trial, run ids.
-- Needs: archive table runs; Arrow view pair_sides(run_id, side), side 'baseline' or
--   'candidate' (registered by reportgen.divergence.pairing._pair_by_key); parameters
--   $by_suite, $by_trial (the keys of reportgen.divergence.pairing.PAIR_KEYS besides the
--   task) and $same_batch (each night compared with itself).
-- Several runs of one side for one key pair up in run_id order. A key left out is taken from
-- the baseline run of a pair (its suite, its trial).
WITH sides AS (
    SELECT r.run_id, r.suite, r.task_id, r.batch, r.trial, s.side,
           row_number() OVER (PARTITION BY s.side, r.task_id,
                                           CASE WHEN $by_suite THEN r.suite END,
                                           CASE WHEN $by_trial THEN r.trial END,
                                           CASE WHEN $same_batch THEN r.batch END
                              ORDER BY r.run_id) AS nth
    FROM pair_sides AS s
    JOIN runs AS r USING (run_id)
),
b AS (SELECT * FROM sides WHERE side = 'baseline'),
c AS (SELECT * FROM sides WHERE side = 'candidate')
SELECT
    coalesce(b.suite, c.suite) AS suite,
    coalesce(b.task_id, c.task_id) AS task_id,
    coalesce(c.batch, b.batch) AS batch,
    coalesce(b.trial, c.trial) AS trial,
    b.run_id AS baseline_run_id,
    c.run_id AS candidate_run_id
FROM b
FULL OUTER JOIN c
  ON b.task_id = c.task_id AND b.nth = c.nth
 AND (NOT $by_suite OR b.suite = c.suite)
 AND (NOT $by_trial OR b.trial = c.trial)
 AND (NOT $same_batch OR b.batch = c.batch)
ORDER BY suite, task_id, batch, trial, baseline_run_id, candidate_run_id
