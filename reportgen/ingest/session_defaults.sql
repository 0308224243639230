-- session_defaults: the label and batch of the staged runs of session-log formats (Claude
--   Code, Codex CLI, Gemini CLI), from the ingest options (reportgen.ingest.options).
-- Grain: none: updates stage_runs (one row per staged run of $formats).
-- Needs: temp table stage_runs (reportgen.ingest.loader._load); parameters $formats (the
--   growing formats), $label (a fixed label, or NULL), $by_branch (label by git branch), $tz
--   (IANA zone of the batch day). Runs before default_batches.sql, so --batch still wins.
-- label: $label, else (by branch) meta.gitBranch (Claude Code) or meta.git_branch (Codex),
-- else the adapter's (the model most calls used). batch, when the run carries none: the date
-- of its start in $tz (sessions started one evening in Paris belong to that evening's day).
UPDATE stage_runs SET
    label = coalesce(
        $label,
        CASE WHEN $by_branch THEN coalesce(
            nullif(json_extract_string(meta, '$.gitBranch'), ''),
            nullif(json_extract_string(meta, '$.git_branch'), '')
        ) END,
        label
    ),
    batch = coalesce(batch, strftime(timezone($tz, started_at), '%Y-%m-%d'))
WHERE list_contains($formats, format)
