-- trace_read: the raw runs of native trace files $files, every field still JSON so that types
-- can be checked exactly (read_json would turn "12" into 12 and 1.5 into 2).
-- Grain: one row per run, with rid = its row number + $offset.
-- Needs: no table; parameters $files, $format, $max_object_size, $offset (passed by
--   reportgen.formats.duck.read_or_explain, which stores the rows as temp table
--   stage_trace_raw for NativeTrace.stage).
-- Steps stay a list of JSON values, split into fields by trace_steps.sql: twice as fast as
-- reading them as a list of structs, which DuckDB materialises field by field.
SELECT row_number() OVER () + $offset AS rid, *
FROM read_json(
    $files,
    format = $format,
    filename = 'source_file',
    maximum_object_size = $max_object_size,
    columns = {
        'run_id': 'JSON', 'task_id': 'JSON', 'label': 'JSON', 'suite': 'JSON', 'batch': 'JSON',
        'trial': 'JSON', 'started_at': 'JSON', 'meta': 'JSON', 'output': 'JSON',
        'success': 'JSON', 'reward': 'JSON', 'tokens_in': 'JSON', 'tokens_out': 'JSON',
        'cost_usd': 'JSON', 'latency_ms': 'JSON',
        'steps': 'JSON[]'
    }
)
