-- outputs_read: the raw output documents of the files $files: each top-level JSON value.
-- Grain: one row per top-level JSON value (rid = its row number + $offset, source_file, doc).
-- Needs: no table; parameters $files, $format, $max_object_size, $offset (passed by
--   reportgen.formats.duck.read_or_explain, which stores the rows as temp table
--   stage_outputs_raw for NativeOutputs.stage).
SELECT row_number() OVER () + $offset AS rid, filename AS source_file, json AS doc
FROM read_json_objects($files, format = $format, filename = true, maximum_object_size = $max_object_size)
