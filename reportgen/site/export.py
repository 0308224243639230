"""Publish the archive's tables as Parquet under the site's ``data/`` folder.

Rows are written in a fixed order so the same archive gives the same files; anyone can then
query the site's data offline with DuckDB (see docs/site.md)."""

from __future__ import annotations

from pathlib import Path

import duckdb

from reportgen.archive.connection import duckdb_path

#: Table and the columns that order its rows (a unique key where the schema has one).
TABLES = (
    ("runs", "run_id"),
    ("steps", "run_id, idx"),
    ("iterations", "run_id, iter"),
    ("outputs", "run_id, suite, label, task_id, batch, trial, content_hash, output"),
    ("files", "content_hash"),
    ("loads", "load_id"),
)


def _quoted(path: Path) -> str:
    """A file path as a SQL string literal (COPY takes no parameters for its target)."""
    return "'" + str(duckdb_path(path)).replace("'", "''") + "'"


def export_parquet(con: duckdb.DuckDBPyConnection, folder: Path) -> list[str]:
    """Write every archive table to ``folder/<table>.parquet``; return the file names."""
    folder.mkdir(parents=True, exist_ok=True)
    names = []
    for table, order in TABLES:
        target = folder / f"{table}.parquet"
        con.execute(
            f"COPY (SELECT * FROM {table} ORDER BY {order}) TO {_quoted(target)} "
            "(FORMAT parquet, COMPRESSION zstd)"
        )
        names.append(target.name)
    return names
