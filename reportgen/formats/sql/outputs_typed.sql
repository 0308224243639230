-- outputs_typed: creates the temp table stage_outputs_typed: a scorer-style list becomes
-- trials 0..N-1 of one task, a record is one output.
-- Grain: none: creates temp table stage_outputs_typed (one row per output).
-- Needs: temp tables stage_outputs_raw (outputs_read.sql rows, made by
--   reportgen.formats.duck.read_or_explain), stage_files (made by
--   reportgen.ingest.loader._stage_files); macro rg_text (macros.sql).
-- A list's task_id defaults to the file name without extensions (stage_files.default_task).
CREATE OR REPLACE TEMP TABLE stage_outputs_typed AS
WITH docs AS (
    SELECT r.rid, r.doc, f.display_path, f.content_hash, f.default_label, f.default_task,
           CASE WHEN json_type(r.doc) = 'ARRAY' THEN r.doc ELSE r.doc -> 'runs' END AS runs
    FROM stage_outputs_raw AS r
    JOIN stage_files AS f ON f.source_file = r.source_file
),
lists AS (
    SELECT d.*, CAST(json_transform(runs, '["VARCHAR"]') AS VARCHAR[]) AS texts
    FROM docs AS d WHERE runs IS NOT NULL
),
listed AS (
    SELECT rid, doc, display_path, content_hash, default_label, default_task,
           unnest(texts) AS output, generate_subscripts(texts, 1) - 1 AS trial
    FROM lists
)
SELECT
    NULL::VARCHAR AS run_id,
    coalesce(rg_text(doc -> 'suite'), 'default') AS suite,
    coalesce(rg_text(doc -> 'label'), default_label) AS label,
    coalesce(rg_text(doc -> 'task_id'), default_task) AS task_id,
    coalesce(rg_text(doc -> 'batch'), 'undated') AS batch,
    CAST(trial AS INTEGER) AS trial,
    output,
    display_path AS source_file,
    content_hash
FROM listed
UNION ALL
SELECT
    rg_text(d.doc -> 'run_id'),
    coalesce(rg_text(d.doc -> 'suite'), 'default'),
    coalesce(rg_text(d.doc -> 'label'), d.default_label),
    rg_text(d.doc -> 'task_id'),
    coalesce(rg_text(d.doc -> 'batch'), 'undated'),
    coalesce(CAST(d.doc -> 'trial' AS INTEGER), 0),
    d.doc ->> 'output',
    d.display_path,
    d.content_hash
FROM docs AS d WHERE d.runs IS NULL
