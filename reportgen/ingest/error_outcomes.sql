-- error_outcomes: promote the infrastructure error an adapter put in a staged run's meta
-- (meta.error_kind, meta.error_reason) to the columns error_kind and error_reason.
-- Grain: none: updates stage_runs (one row per staged run whose meta has an error_kind).
-- Needs: temp table stage_runs (reportgen.ingest.loader._load); parameters $kinds (the
--   vocabulary, reportgen.ingest.outcomes.ERROR_KINDS), $width (the longest reason kept).
-- The contract of every adapter: an errored run carries meta.error_kind (one of $kinds) and
-- meta.error_reason (the tool's words). Here, in one step for the whole load: the kind is
-- lower-cased ('-' and ' ' read as '_'), an unknown one becomes 'other' with the word kept at
-- the head of the reason; the reason is made one line and cut to $width characters; both
-- keys leave meta (NULL when nothing else is in it); success and reward become NULL (an
-- errored run is not scored). A run with no error_kind keeps its meta as it is.
UPDATE stage_runs SET
    error_kind = CASE WHEN list_contains($kinds, e.kind) THEN e.kind ELSE 'other' END,
    error_reason = nullif(left(regexp_replace(trim(
        CASE WHEN list_contains($kinds, e.kind) THEN coalesce(e.reason, '')
             ELSE e.word || CASE WHEN e.reason IS NULL THEN '' ELSE ': ' || e.reason END END
    ), '\s+', ' ', 'g'), $width), ''),
    success = NULL,
    reward = NULL,
    meta = CASE WHEN e.rest = '{}' THEN NULL ELSE e.rest END
FROM (
    SELECT
        run_id AS rg_run_id,
        json_extract_string(meta, '$.error_kind') AS word,
        regexp_replace(lower(trim(json_extract_string(meta, '$.error_kind'))), '[- ]+', '_', 'g')
            AS kind,
        json_extract_string(meta, '$.error_reason') AS reason,
        CAST(json_merge_patch(meta, '{"error_kind": null, "error_reason": null}') AS JSON)
            AS rest
    FROM stage_runs
    WHERE nullif(trim(json_extract_string(meta, '$.error_kind')), '') IS NOT NULL
) AS e
WHERE stage_runs.run_id = e.rg_run_id
