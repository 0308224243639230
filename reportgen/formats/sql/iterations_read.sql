-- iterations_read: the raw iteration records of the files $files, every field still JSON so
-- types can be checked.
-- Grain: one row per attempt (record), with rid = its row number + $offset.
-- Needs: no table; parameters $files, $format, $max_object_size, $offset (passed by
--   reportgen.formats.duck.read_or_explain, which stores the rows as temp table
--   stage_iter_raw for NativeIterations.stage).
SELECT row_number() OVER () + $offset AS rid, *
FROM read_json(
    $files,
    format = $format,
    filename = 'source_file',
    maximum_object_size = $max_object_size,
    columns = {
        'run': 'JSON', 'iter': 'JSON', 'step': 'JSON', 'attempt': 'JSON', 'check': 'JSON',
        'exit': 'JSON', 'secs': 'JSON', 'failing': 'JSON', 'n_failing': 'JSON',
        'resolved': 'JSON', 'persisting': 'JSON', 'new': 'JSON', 'output': 'JSON',
        'patch_lines': 'JSON', 'patch_distance': 'JSON', 'patch': 'JSON',
        'tool_calls': 'JSON', 'tool_errors': 'JSON', 'tokens_in': 'JSON', 'tokens_out': 'JSON',
        'usd': 'JSON', 'certified': 'JSON', 'normaliser': 'JSON', 'backlog_steps': 'JSON'
    }
)
