-- restore_deep_payloads: JSON payloads of a restored archive that may nest too deep.
-- Grain: one row per payload with more opening brackets than $max_depth (necessary for
--   nesting deeper, not sufficient: the caller measures these few exactly); (table, the
--   row's key, column, text, the row's rowid).
-- Needs: steps, runs of the restored archive.
SELECT 'steps' AS tbl, run_id || ' step ' || idx AS key, 'input' AS col, input::VARCHAR AS text,
    rowid AS row_id
FROM steps
WHERE length(input::VARCHAR) - length(translate(input::VARCHAR, '[{', '')) > $max_depth
UNION ALL
SELECT 'steps', run_id || ' step ' || idx, 'output', output::VARCHAR, rowid
FROM steps
WHERE length(output::VARCHAR) - length(translate(output::VARCHAR, '[{', '')) > $max_depth
UNION ALL
SELECT 'runs', run_id, 'meta', meta::VARCHAR, rowid
FROM runs
WHERE length(meta::VARCHAR) - length(translate(meta::VARCHAR, '[{', '')) > $max_depth
