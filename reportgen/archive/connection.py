"""Open the archive (an embedded DuckDB file) with the schema in place."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from reportgen._sql import read_sql
from reportgen.errors import InputError

DEFAULT_DB = "reportgen.duckdb"
SCHEMA_VERSION = "1"
TABLES = ("runs", "steps", "iterations", "outputs", "files", "loads", "suite_notes")


def connect(
    path: str | Path | None = None, *, read_only: bool = False
) -> duckdb.DuckDBPyConnection:
    """Connect to the archive at ``path`` (``None``: in memory), creating the schema if needed.

    Sessions run in UTC so that dates (batches) never depend on the machine's zone."""
    target = ":memory:" if path is None else str(path)
    if read_only and path is not None and not Path(path).exists():
        raise InputError(str(path), "no archive here; run `reportgen ingest` first")
    try:
        con = duckdb.connect(target, read_only=read_only)
    except duckdb.Error as exc:
        raise InputError(
            target, f"cannot open as a DuckDB archive: {str(exc).splitlines()[0]}"
        ) from None
    con.execute("SET TimeZone = 'UTC'")
    if not read_only:
        con.execute(read_sql("reportgen.archive", "schema"))
        con.execute(
            "INSERT OR IGNORE INTO archive_info VALUES ('schema_version', ?)", [SCHEMA_VERSION]
        )
    return con


def first_row(
    con: duckdb.DuckDBPyConnection, sql: str, params: object = None
) -> tuple[Any, ...] | None:
    """The first row of a query, reading the result to its end: DuckDB refuses some calls
    (registering a UDF) while a result is left half-read, as ``fetchone`` leaves it."""
    rows = (
        con.execute(sql, params).fetchall() if params is not None else con.execute(sql).fetchall()
    )
    return rows[0] if rows else None


def table_counts(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """Row count of every archive table, for summaries and for tests that the archive is intact."""
    counts: dict[str, int] = {}
    for table in TABLES:
        row = first_row(con, f"SELECT count(*) FROM {table}")
        counts[table] = int(row[0]) if row else 0
    return counts
