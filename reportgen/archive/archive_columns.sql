-- archive_columns: the tables and columns of the open archive's main schema, to recognise a
-- reportgen archive (and one written by a newer reportgen) before anything is written to it.
-- Grain: one row per column (table_name, column_name), in table and column order.
-- Needs: DuckDB's duckdb_columns() of the open database (read by reportgen.archive.connection).
SELECT table_name, column_name, is_nullable, column_default IS NOT NULL AS has_default
FROM duckdb_columns()
WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal
ORDER BY table_name, column_index
