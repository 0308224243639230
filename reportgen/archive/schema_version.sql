-- The schema version an archive was written with (NULL when not recorded).
SELECT max(value) FROM archive_info WHERE key = 'schema_version'
