-- spend_reread: the same unchanged file read again: a read step whose lines an earlier read
--   of the path covers, with no write to the path between them (spend_steps' kinds, lo, hi).
-- Grain: one row per re-reading tool step (run_id, idx).
-- Needs: temp table spend_steps (spend_steps.sql); parameters none.
-- A write is a write tool on the path, or a shell or patch step whose input names it.
WITH paths AS (  -- the paths each run reads
    SELECT DISTINCT run_id, path FROM spend_steps WHERE kind = 'read' AND path IS NOT NULL
),

touches AS (  -- reads and writes of those paths, in step order
    SELECT run_id, idx, path, lo, hi, kind, attr_tokens, attr_cost
    FROM spend_steps
    WHERE kind IN ('read', 'write') AND path IS NOT NULL
    UNION ALL
    SELECT s.run_id, s.idx, p.path, NULL, NULL, 'write' AS kind, NULL, NULL
    FROM spend_steps AS s
    JOIN paths AS p ON p.run_id = s.run_id AND contains(s.input_text, p.path)
    WHERE s.kind = 'shell'
),

reads AS (  -- each read with the last write to its path before it
    SELECT *
    FROM (
        SELECT
            *,
            max(idx) FILTER (WHERE kind = 'write') OVER (
                PARTITION BY run_id, path ORDER BY idx
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
            ) AS last_write
        FROM touches
    )
    WHERE kind = 'read'
),

ordered AS (  -- each read with the latest earlier read since that write covering its lines
    SELECT r.run_id, r.idx, any_value(r.path) AS path, any_value(r.attr_tokens) AS attr_tokens,
           any_value(r.attr_cost) AS attr_cost, max(p.idx) AS last_read
    FROM reads AS r
    JOIN reads AS p
      ON p.run_id = r.run_id AND p.path = r.path AND p.idx < r.idx
     AND p.idx > coalesce(r.last_write, -1) AND p.lo <= r.lo AND p.hi >= r.hi
    GROUP BY r.run_id, r.idx
)

SELECT
    run_id,
    'reread' AS kind,
    idx,
    last_read AS ref_idx,
    attr_tokens AS tokens,
    attr_cost AS cost,
    path AS detail,
    CAST(NULL AS DOUBLE) AS amount
FROM ordered
ORDER BY run_id, idx
