-- outputs_check: problems with staged outputs documents, each field that breaks a rule.
-- Grain: one row per (document, field) that breaks a rule (columns source_file, field,
--   problem), ordered by source_file, field.
-- Needs: temp table stage_outputs_raw (outputs_read.sql rows, made by
--   reportgen.formats.duck.read_or_explain for NativeOutputs.stage); macros rg_bad_text_list,
--   rg_absent, rg_bad_text, rg_bad_any_text, rg_bad_count, rg_bad_int (macros.sql).
WITH docs AS (
    SELECT source_file, doc, json_type(doc) AS kind,
           CASE WHEN json_type(doc) = 'ARRAY' THEN doc ELSE doc -> 'runs' END AS runs
    FROM stage_outputs_raw
)
SELECT source_file, field, problem FROM (
    SELECT source_file, '(record)' AS field, 'expected a list of strings or an object' AS problem
        FROM docs WHERE kind NOT IN ('ARRAY', 'OBJECT')
    UNION ALL SELECT source_file, 'runs', 'must be a list of strings'
        FROM docs WHERE runs IS NOT NULL AND rg_bad_text_list(runs)
    UNION ALL SELECT source_file, 'output', 'required (a string) when there is no runs list'
        FROM docs WHERE kind = 'OBJECT' AND runs IS NULL
                    AND (rg_absent(doc -> 'output') OR json_type(doc -> 'output') <> 'VARCHAR')
    UNION ALL SELECT source_file, 'task_id', 'must be a non-empty string' FROM docs WHERE kind = 'OBJECT' AND rg_bad_text(doc -> 'task_id')
    UNION ALL SELECT source_file, 'task_id', 'required for an output record'
        FROM docs WHERE kind = 'OBJECT' AND runs IS NULL AND rg_absent(doc -> 'task_id')
    UNION ALL SELECT source_file, 'label', 'must be a non-empty string' FROM docs WHERE kind = 'OBJECT' AND rg_bad_text(doc -> 'label')
    UNION ALL SELECT source_file, 'suite', 'must be a non-empty string' FROM docs WHERE kind = 'OBJECT' AND rg_bad_text(doc -> 'suite')
    UNION ALL SELECT source_file, 'batch', 'must be a non-empty string' FROM docs WHERE kind = 'OBJECT' AND rg_bad_text(doc -> 'batch')
    UNION ALL SELECT source_file, 'run_id', 'must be a string' FROM docs WHERE kind = 'OBJECT' AND rg_bad_any_text(doc -> 'run_id')
    UNION ALL SELECT source_file, 'trial', 'must be a non-negative integer'
        FROM docs WHERE kind = 'OBJECT' AND (rg_bad_count(doc -> 'trial') OR rg_bad_int(doc -> 'trial'))
)
ORDER BY source_file, field
