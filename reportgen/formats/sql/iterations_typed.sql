-- iterations_typed: creates the temp table stage_iter_typed: the typed iteration records from
-- the checked raw stage.
-- Grain: none: creates temp table stage_iter_typed (one row per attempt).
-- Needs: temp tables stage_iter_raw (iterations_read.sql rows, made by
--   reportgen.formats.duck.read_or_explain), stage_files (made by
--   reportgen.ingest.loader._stage_files); macros rg_text, rg_text_list, rg_absent
--   (macros.sql).
-- `rid` (the raw row id) lets raw `output` be normalised into `failing` afterwards
-- (iterations_normalise.sql); until then `normaliser` is the record's own (a recorder names
-- the normaliser it ran), else 'given' when the record lists `failing`, else NULL.
CREATE OR REPLACE TEMP TABLE stage_iter_typed AS
SELECT
    r.rid,
    rg_text(r.run) AS run_id,
    CAST(r.iter AS INTEGER) AS iter,
    rg_text(r.step) AS step,
    CAST(r.attempt AS INTEGER) AS attempt,
    rg_text(r."check") AS "check",
    CAST(r.exit AS INTEGER) AS exit_code,
    CAST(r.secs AS DOUBLE) AS secs,
    rg_text_list(r.failing) AS failing,
    rg_text_list(r.resolved) AS resolved,
    rg_text_list(r.persisting) AS persisting,
    rg_text_list(r.new) AS new,
    rg_text(r.output) AS check_output,
    CASE WHEN rg_absent(r.failing) THEN NULL
         ELSE coalesce(nullif(rg_text(r.normaliser), ''), 'given') END AS normaliser,
    CAST(r.patch_lines AS INTEGER) AS patch_lines,
    CAST(r.patch_distance AS DOUBLE) AS patch_distance,
    rg_text(r.patch) AS patch,
    CAST(r.tool_calls AS INTEGER) AS tool_calls,
    CAST(r.tool_errors AS INTEGER) AS tool_errors,
    CAST(r.tokens_in AS BIGINT) AS tokens_in,
    CAST(r.tokens_out AS BIGINT) AS tokens_out,
    CAST(r.usd AS DOUBLE) AS usd,
    CAST(r.certified AS BOOLEAN) AS certified,
    CAST(r.backlog_steps AS INTEGER) AS backlog_steps,
    f.display_path AS source_file,
    f.content_hash
FROM stage_iter_raw AS r
JOIN stage_files AS f ON f.source_file = r.source_file
