-- Staged attempts whose failing set must come from raw check output: `output` given, `failing`
-- absent (one row per such attempt). The ids are computed in Python (reportgen.failures).
SELECT rid, check_output, "check"
FROM stage_iter_typed
WHERE failing IS NULL AND check_output IS NOT NULL
ORDER BY rid
