-- iterations_to_normalise: the staged attempts whose failing set must come from raw check
-- output: output given, failing absent. The ids are computed in Python (reportgen.failures).
-- Grain: one row per such attempt (rid, check_output, "check"), ordered by rid.
-- Needs: temp table stage_iter_typed (iterations_typed.sql, executed by NativeIterations.stage
--   in reportgen/formats/native/iterations.py; read by normalise_staged_outputs there).
SELECT rid, check_output, "check"
FROM stage_iter_typed
WHERE failing IS NULL AND check_output IS NOT NULL
ORDER BY rid
