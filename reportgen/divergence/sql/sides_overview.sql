-- sides_overview: what each side of a comparison that paired nothing holds, for its error.
-- Grain: one row: baseline task count, suites (sorted) and first 3 task ids; the same for the
--   candidate; the number of task ids both hold and the first 3 of them.
-- Needs: archive table runs; parameters $b, $c (run id lists; passed by
--   reportgen.divergence.pairing.nothing_paired).
WITH b AS (SELECT DISTINCT suite, task_id FROM runs WHERE list_contains($b, run_id)),
c AS (SELECT DISTINCT suite, task_id FROM runs WHERE list_contains($c, run_id)),
shared AS (SELECT task_id FROM b INTERSECT SELECT task_id FROM c)
SELECT
    (SELECT count(DISTINCT task_id) FROM b),
    (SELECT coalesce(list(DISTINCT suite ORDER BY suite), []) FROM b),
    (SELECT coalesce(list(task_id ORDER BY task_id)[1:3], [])
     FROM (SELECT DISTINCT task_id FROM b)),
    (SELECT count(DISTINCT task_id) FROM c),
    (SELECT coalesce(list(DISTINCT suite ORDER BY suite), []) FROM c),
    (SELECT coalesce(list(task_id ORDER BY task_id)[1:3], [])
     FROM (SELECT DISTINCT task_id FROM c)),
    (SELECT count(*) FROM shared),
    (SELECT coalesce(list(task_id ORDER BY task_id)[1:3], []) FROM shared)
