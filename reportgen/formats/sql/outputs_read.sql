-- Raw output documents: each top-level JSON value of an outputs file (one row per value).
SELECT row_number() OVER () + $offset AS rid, filename AS source_file, json AS doc
FROM read_json_objects($files, format = $format, filename = true, maximum_object_size = $max_object_size)
