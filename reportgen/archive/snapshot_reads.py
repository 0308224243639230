"""How a snapshot reads the night-partitioned tables: the rows as stored, to find and key
each night cheaply, and the rows as the session publishes them, to write the files.

A build reads the archive through redaction views (reportgen/site/redaction.py): each table
is shadowed by a temporary view ``SELECT * REPLACE (<redacted columns>) FROM <archive
table>``. Going through such a view for every row costs its regular expressions on every
row's text, a second or more on a year of steps, though a rebuild writes one night. So
when a table's view has that shape, the snapshot splits it: ``snapshot_src_<table>`` is the
archive table under it (rows found, numbered and hashed by their stored values, which
filters DuckDB applies as it scans) and ``snapshot_read_<table>`` applies the view's
expressions to those rows, with ``snapshot_raw_id`` beside them, the run id as stored; the
view's expressions key every file. A table with no view, or a view of another shape, is
read as the session names it (then stored and published are the same rows)."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import duckdb

from reportgen._sql import load_sql
from reportgen.archive.connection import SCHEMA_VERSION
from reportgen.archive.snapshot_layout import (
    FORMAT,
    FORMAT_VERSION,
    PARTITIONED,
    SNAPSHOT_ZSTD_LEVEL,
    TABLES,
)

_VIEW = re.compile(
    r'CREATE TEMP VIEW (?:"(?P<quoted>[a-z_]+)"|(?P<name>[a-z_]+)) AS '
    r"(?P<head>SELECT \*(?: REPLACE \(.*\))?)"
    r' FROM (?P<source>(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_]*)\.main\.(?P<table>"[a-z_]+"|[a-z_]+))'
    r";?\s*",
    re.DOTALL,
)


def reads(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[str, str]]:
    """Each partitioned table's (select list, source): ``{select} FROM {source}`` gives its
    rows as the session reads them (see the module's docstring)."""
    views = dict(
        con.execute(
            "SELECT view_name, sql FROM duckdb_views() WHERE temporary AND list_contains($t, "
            "view_name)",
            {"t": list(PARTITIONED)},
        ).fetchall()
    )
    found = {}
    for table in PARTITIONED:
        match = _VIEW.fullmatch(str(views.get(table, "")))
        if (
            match
            and table in (match["quoted"], match["name"])
            and match["table"].strip('"') == table
        ):
            found[table] = (match["head"], match["source"])
        else:
            found[table] = ("SELECT *", table)
    return found


def prepare_reads(con: duckdb.DuckDBPyConnection) -> str:
    """Create ``snapshot_src_<table>`` for every partitioned table, ``snapshot_read_runs``
    and the run's nights (snapshot_run_parts.sql); return the salt of every night file's
    key: the format, the row orders, the zstd level, DuckDB's version (it hashes the rows and
    writes the files), the columns of the tables as stored and as published, and the
    expressions the published rows are made with."""
    said: list[Any] = [FORMAT, FORMAT_VERSION, SCHEMA_VERSION, TABLES, SNAPSHOT_ZSTD_LEVEL]
    said.append(duckdb.__version__)
    for table, (head, source) in reads(con).items():
        con.execute(f"CREATE OR REPLACE TEMP VIEW snapshot_src_{table} AS SELECT * FROM {source}")
        said.append([table, head])
    said.append(
        con.execute(
            "SELECT table_name, database_name = 'temp', column_index, column_name, data_type, "
            "is_nullable "
            "FROM duckdb_columns() WHERE list_contains($t, table_name) ORDER BY ALL",
            {"t": list(PARTITIONED)},
        ).fetchall()
    )
    read_view(con, "runs")
    con.execute(load_sql("snapshot_run_parts"))
    return hashlib.sha256(json.dumps(said, default=str).encode()).hexdigest()


def read_view(con: duckdb.DuckDBPyConnection, table: str) -> str:
    """Create (once) and name ``snapshot_read_<table>``: the rows as published, with
    ``snapshot_raw_id`` (``prepare_reads`` first)."""
    name = f"snapshot_read_{table}"
    known = con.execute(
        "SELECT count(*) FROM duckdb_views() WHERE temporary AND view_name = ?", [name]
    ).fetchone()
    if not (known and known[0]):
        head, _source = reads(con)[table]
        select = "SELECT run_id AS snapshot_raw_id, " + head.removeprefix("SELECT ")
        con.execute(f"CREATE TEMP VIEW {name} AS {select} FROM snapshot_src_{table}")
    return name


def drop_reads(con: duckdb.DuckDBPyConnection) -> None:
    """Drop what ``prepare_reads`` and ``read_view`` made."""
    con.execute("DROP TABLE IF EXISTS snapshot_run_parts")
    for table in PARTITIONED:
        con.execute(f"DROP VIEW IF EXISTS snapshot_read_{table}")
        con.execute(f"DROP VIEW IF EXISTS snapshot_src_{table}")
