"""Open the archive (an embedded DuckDB file) with the schema in place."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from reportgen._sql import load_sql
from reportgen.errors import InputError

DEFAULT_DB = "reportgen.duckdb"
SCHEMA_VERSION = "2"  # 2: steps.signature and steps.payload (step_hashes.sql)
TABLES = ("runs", "steps", "iterations", "outputs", "files", "loads", "suite_notes")


def connect(
    path: str | Path | None = None, *, read_only: bool = False
) -> duckdb.DuckDBPyConnection:
    """Connect to the archive at ``path`` (``None``: in memory), creating the schema if needed.

    Sessions run in UTC so that dates (batches) never depend on the machine's zone. An archive
    whose stored step hashes are missing or were computed by a different hash function is
    brought up to date first, also when opened read-only (through a short writable session)."""
    target = ":memory:" if path is None else str(path)
    if read_only and path is not None and not Path(path).exists():
        raise InputError(str(path), "no archive here; run `reportgen ingest` first")
    con = _open(target, read_only)
    if not read_only:
        con.execute(load_sql("schema"))
        con.execute(
            "INSERT OR IGNORE INTO archive_info VALUES ('schema_version', ?)", [SCHEMA_VERSION]
        )
        _refresh_step_hashes(con)
    elif not _step_hashes_current(con):
        con.close()
        try:
            connect(path).close()
        except InputError as exc:
            raise InputError(
                target,
                "the archive's step hashes must be computed for this version of reportgen and "
                f"DuckDB, which needs it writable once: {exc.message}",
            ) from None
        con = _open(target, read_only)
    return con


def _open(target: str, read_only: bool) -> duckdb.DuckDBPyConnection:
    """A session on ``target`` in UTC, with the step hash macros defined."""
    try:
        con = duckdb.connect(target, read_only=read_only)
    except duckdb.Error as exc:
        raise InputError(
            target, f"cannot open as a DuckDB archive: {str(exc).splitlines()[0]}"
        ) from None
    con.execute("SET TimeZone = 'UTC'")
    define_step_hashes(con)
    return con


def define_step_hashes(con: duckdb.DuckDBPyConnection) -> None:
    """Define the step hash macros (step_hashes.sql) on ``con``; harmless to repeat."""
    con.execute(load_sql("step_hashes"))


def _probe(con: duckdb.DuckDBPyConnection) -> str:
    """The step hashes of fixed values under this DuckDB (step_hashes_probe.sql)."""
    row = first_row(con, load_sql("step_hashes_probe"))
    return str(row[0]) if row else ""


def _step_hashes_current(con: duckdb.DuckDBPyConnection) -> bool:
    """False when a reportgen archive lacks the stored step hashes or they were computed by a
    different hash function; True otherwise (also for a file that is no archive at all)."""
    if first_row(con, "SELECT 1 FROM duckdb_tables() WHERE table_name = 'archive_info'") is None:
        return True
    stored = first_row(con, "SELECT value FROM archive_info WHERE key = 'step_hashes'")
    return stored is not None and stored[0] == _probe(con)


def _refresh_step_hashes(con: duckdb.DuckDBPyConnection) -> None:
    """Add and compute the stored step hashes where they are missing or stale."""
    if _step_hashes_current(con):
        return
    for column in ("signature", "payload"):
        con.execute(f"ALTER TABLE steps ADD COLUMN IF NOT EXISTS {column} UBIGINT")
    con.execute(load_sql("step_hashes_update"))
    con.execute(
        "INSERT OR REPLACE INTO archive_info VALUES ('step_hashes', ?), ('schema_version', ?)",
        [_probe(con), SCHEMA_VERSION],
    )


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
