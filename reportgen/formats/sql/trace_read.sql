-- trace_read: the raw runs of native trace records, every field still JSON so that types
-- can be checked exactly (a cast would turn "12" into 12 and 1.5 into 2).
-- Grain: one row per run, in file order (a document that is an array gives a run per item).
-- Needs: the Arrow table stage_trace_records (source_file, many, typed, content: one JSON
--   record per row; head: a typed document with its steps list emptied, else NULL; from
--   reportgen.formats.records.record_batches, registered by NativeTrace.stage, which stores
--   these rows in temp table stage_trace_raw; its rowid is the run's rid). typed: the byte
--   scan found the record's steps typed; its run fields are read from head when there is one.
-- Each branch reads stage_trace_records itself: a CTE read by both would be materialised,
-- a copy of every record's text (about half this statement's time on 1,000 typed files).
-- Steps stay a list of JSON values, each step's fields checked one by one by trace_steps.sql.
-- A typed record's steps are not read here (steps is NULL): trace_typed_steps.sql reads them
-- straight from the record as typed structs, which saves writing each step out as JSON and
-- parsing it again.
SELECT unnest(json_transform(content, '{
    "run_id": "JSON", "task_id": "JSON", "label": "JSON", "suite": "JSON", "batch": "JSON",
    "trial": "JSON", "started_at": "JSON", "meta": "JSON", "output": "JSON",
    "success": "JSON", "reward": "JSON", "tokens_in": "JSON", "tokens_out": "JSON",
    "cost_usd": "JSON", "latency_ms": "JSON", "cache_read_tokens": "JSON",
    "cache_write_tokens": "JSON", "reasoning_tokens": "JSON",
    "steps": "JSON[]"
}')), source_file, typed
FROM (
    SELECT source_file, typed, content FROM stage_trace_records WHERE NOT many AND NOT typed
    UNION ALL
    SELECT source_file, false, unnest(json_extract(content, '$[*]'))
    FROM stage_trace_records WHERE many
)
UNION ALL BY NAME
SELECT unnest(json_transform(content, '{
    "run_id": "JSON", "task_id": "JSON", "label": "JSON", "suite": "JSON", "batch": "JSON",
    "trial": "JSON", "started_at": "JSON", "meta": "JSON", "output": "JSON",
    "success": "JSON", "reward": "JSON", "tokens_in": "JSON", "tokens_out": "JSON",
    "cost_usd": "JSON", "latency_ms": "JSON", "cache_read_tokens": "JSON",
    "cache_write_tokens": "JSON", "reasoning_tokens": "JSON"
}')), source_file, typed
FROM (
    SELECT source_file, typed, coalesce(head, content) AS content
    FROM stage_trace_records WHERE typed AND NOT many
)
