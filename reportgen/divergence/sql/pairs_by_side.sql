-- Pair the runs of two sides (temp table pair_sides(run_id, side) with side 'baseline' or
-- 'candidate') by suite, task and trial, and by batch when $same_batch: each night compared
-- with itself. Several runs of one side for one key pair up in run_id order.
-- Grain: one row per run of either side, with its partner's run_id, NULL when unpaired.
WITH sides AS (
    SELECT r.run_id, r.suite, r.task_id, r.batch, r.trial, s.side,
           row_number() OVER (PARTITION BY s.side, r.suite, r.task_id, r.trial,
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
  ON b.suite = c.suite AND b.task_id = c.task_id AND b.trial = c.trial AND b.nth = c.nth
 AND (NOT $same_batch OR b.batch = c.batch)
ORDER BY suite, task_id, batch, trial, baseline_run_id, candidate_run_id
