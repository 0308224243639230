-- spend_reread: the same unchanged file read again: a read-type tool step re-reading a path
--   with no write to it since its previous read (spend_steps' kinds).
-- Grain: one row per re-reading tool step (run_id, idx).
-- Needs: temp table spend_steps (spend_steps.sql); parameters none.
-- A write is a write tool on the path, or a shell or patch step whose input names it.
WITH paths AS (  -- the paths each run reads
    SELECT DISTINCT run_id, path FROM spend_steps WHERE kind = 'read' AND path IS NOT NULL
),

touches AS (  -- reads and writes of those paths, in step order
    SELECT run_id, idx, path, kind, attr_tokens, attr_cost, action
    FROM spend_steps
    WHERE kind IN ('read', 'write') AND path IS NOT NULL
    UNION ALL
    SELECT s.run_id, s.idx, p.path, 'write' AS kind, NULL, NULL, s.action
    FROM spend_steps AS s
    JOIN paths AS p ON p.run_id = s.run_id AND contains(s.input_text, p.path)
    WHERE s.kind = 'shell'
),

ordered AS (
    SELECT
        *,
        max(idx) FILTER (WHERE kind = 'read') OVER w AS last_read,
        max(idx) FILTER (WHERE kind = 'write') OVER w AS last_write
    FROM touches
    WINDOW w AS (
        PARTITION BY run_id, path ORDER BY idx ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
    )
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
WHERE kind = 'read' AND last_read IS NOT NULL AND (last_write IS NULL OR last_write < last_read)
