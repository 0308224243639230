-- iterations_check: problems with staged iteration records, each field that breaks a rule.
-- Grain: one row per (record, field) that breaks a rule (columns source_file, field,
--   problem), ordered by source_file, field.
-- Needs: temp table stage_iter_raw (iterations_read.sql rows, made by
--   reportgen.formats.duck.read_or_explain for NativeIterations.stage); macros rg_absent,
--   rg_bad_text, rg_bad_count, rg_bad_int, rg_bad_any_text, rg_bad_amount, rg_bad_text_list,
--   rg_bad_bool (macros.sql, executed by reportgen.ingest.loader._load).
SELECT source_file, field, problem FROM (
    SELECT source_file, 'run' AS field, 'required, a non-empty string' AS problem
        FROM stage_iter_raw WHERE rg_absent(run) OR rg_bad_text(run)
    UNION ALL SELECT source_file, 'step', 'required, a non-empty string'
        FROM stage_iter_raw WHERE rg_absent(step) OR rg_bad_text(step)
    UNION ALL SELECT source_file, 'iter', 'required, a non-negative integer'
        FROM stage_iter_raw WHERE rg_absent(iter) OR rg_bad_count(iter) OR rg_bad_int(iter)
    UNION ALL SELECT source_file, 'attempt', 'required, a non-negative integer'
        FROM stage_iter_raw WHERE rg_absent(attempt) OR rg_bad_count(attempt) OR rg_bad_int(attempt)
    UNION ALL SELECT source_file, 'check', 'must be a string' FROM stage_iter_raw WHERE rg_bad_any_text("check")
    UNION ALL SELECT source_file, 'exit', 'must be an integer' FROM stage_iter_raw WHERE rg_bad_int(exit)
    UNION ALL SELECT source_file, 'secs', 'must be a finite number >= 0' FROM stage_iter_raw WHERE rg_bad_amount(secs)
    UNION ALL SELECT source_file, 'failing', 'must be a list of strings' FROM stage_iter_raw WHERE rg_bad_text_list(failing)
    UNION ALL SELECT source_file, 'resolved', 'must be a list of strings' FROM stage_iter_raw WHERE rg_bad_text_list(resolved)
    UNION ALL SELECT source_file, 'persisting', 'must be a list of strings' FROM stage_iter_raw WHERE rg_bad_text_list(persisting)
    UNION ALL SELECT source_file, 'new', 'must be a list of strings' FROM stage_iter_raw WHERE rg_bad_text_list(new)
    UNION ALL SELECT source_file, 'n_failing', 'must be a non-negative integer' FROM stage_iter_raw WHERE rg_bad_count(n_failing)
    UNION ALL SELECT source_file, 'output', 'must be a string' FROM stage_iter_raw WHERE rg_bad_any_text(output)
    UNION ALL SELECT source_file, 'normaliser', 'must be a string' FROM stage_iter_raw WHERE rg_bad_any_text(normaliser)
    UNION ALL SELECT source_file, 'patch', 'must be a string' FROM stage_iter_raw WHERE rg_bad_any_text(patch)
    UNION ALL SELECT source_file, 'patch_lines', 'must be a non-negative integer' FROM stage_iter_raw WHERE rg_bad_count(patch_lines) OR rg_bad_int(patch_lines)
    UNION ALL SELECT source_file, 'patch_distance', 'must be a number from 0 to 1'
        FROM stage_iter_raw WHERE rg_bad_amount(patch_distance) OR TRY_CAST(patch_distance AS DOUBLE) > 1
    UNION ALL SELECT source_file, 'tool_calls', 'must be a non-negative integer' FROM stage_iter_raw WHERE rg_bad_count(tool_calls) OR rg_bad_int(tool_calls)
    UNION ALL SELECT source_file, 'tool_errors', 'must be a non-negative integer' FROM stage_iter_raw WHERE rg_bad_count(tool_errors) OR rg_bad_int(tool_errors)
    UNION ALL SELECT source_file, 'tokens_in', 'must be a non-negative integer' FROM stage_iter_raw WHERE rg_bad_count(tokens_in)
    UNION ALL SELECT source_file, 'tokens_out', 'must be a non-negative integer' FROM stage_iter_raw WHERE rg_bad_count(tokens_out)
    UNION ALL SELECT source_file, 'usd', 'must be a finite number >= 0' FROM stage_iter_raw WHERE rg_bad_amount(usd)
    UNION ALL SELECT source_file, 'certified', 'must be true or false' FROM stage_iter_raw WHERE rg_bad_bool(certified)
    UNION ALL SELECT source_file, 'backlog_steps', 'must be a positive integer'
        FROM stage_iter_raw
        WHERE rg_bad_count(backlog_steps) OR rg_bad_int(backlog_steps)
           OR TRY_CAST(backlog_steps AS DOUBLE) < 1
)
ORDER BY source_file, field
