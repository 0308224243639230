"""The DuckDB archive: schema, connections, table counts."""

from reportgen.archive.connection import DEFAULT_DB, connect, table_counts

__all__ = ["DEFAULT_DB", "connect", "table_counts"]
