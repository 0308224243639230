-- latest_shared_batch: the newest batch that holds runs of both labels $b and $c (NULL when
-- no batch does).
-- Grain: one row.
-- Needs: archive table runs; parameters $b, $c (the baseline and candidate labels, passed by
--   reportgen.divergence.compare.latest_shared_batch).
SELECT max(batch)
FROM (
    SELECT batch FROM runs WHERE label = $b
    INTERSECT
    SELECT batch FROM runs WHERE label = $c
)
