-- The newest batch that holds runs of both labels $b and $c. Grain: one row.
SELECT max(batch)
FROM (
    SELECT batch FROM runs WHERE label = $b
    INTERSECT
    SELECT batch FROM runs WHERE label = $c
)
