-- schema_version: the schema version an archive was written with (NULL when not recorded).
-- Grain: one row.
-- Needs: archive table archive_info (read by reportgen.archive.connection).
SELECT max(value) FROM archive_info WHERE key = 'schema_version'
