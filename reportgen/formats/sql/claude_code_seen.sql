-- claude_code_seen: what archived Claude Code runs of other files already counted, among the
--   messages and events a load stages (resumed or forked sessions repeat earlier records).
-- Grain: one row per archived key: kind 'message' (an API response's message.id) or 'event'
--   (an error or interrupt step: its type and start, epoch milliseconds).
-- Needs: archive tables runs, steps; registered table cc_candidates(id) (the staged files'
--   message ids); parameters $files (the staged files: their own earlier runs are replaced,
--   not repeated), $lo, $hi (the staged records' time range, TIMESTAMPTZ).
SELECT 'message' AS kind, k.id AS key
FROM steps AS s
JOIN runs AS r ON r.run_id = s.run_id
JOIN cc_candidates AS k ON k.id = json_extract_string(s.output, '$.message_id')
WHERE r.format = 'claude-code' AND s.type = 'llm' AND NOT list_contains($files, r.source_file)
UNION
SELECT 'event' AS kind, s.type || ':' || CAST(epoch_ms(s.started_at) AS VARCHAR) AS key
FROM steps AS s
JOIN runs AS r ON r.run_id = s.run_id
WHERE r.format = 'claude-code' AND s.type IN ('error', 'interrupt')
  AND s.started_at BETWEEN $lo AND $hi AND NOT list_contains($files, r.source_file)
