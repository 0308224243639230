"""Shared helpers for the iteration tests: write records, load them, run the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import typer

from reportgen.archive import connect
from reportgen.cli.errors import exits_on_errors
from reportgen.cli.iterations import iterations
from reportgen.ingest import ingest

COLUMNS: dict[str, pa.DataType] = {
    "run_id": pa.string(),
    "iter": pa.int32(),
    "step": pa.string(),
    "attempt": pa.int32(),
    "check": pa.string(),
    "exit_code": pa.int32(),
    "failing": pa.list_(pa.string()),
    "patch": pa.string(),
    "patch_lines": pa.int32(),
    "tool_calls": pa.int32(),
    "tool_errors": pa.int32(),
    "tokens_in": pa.int64(),
    "tokens_out": pa.int64(),
    "usd": pa.float64(),
    "certified": pa.bool_(),
}


def write_records(path: Path, records: list[dict[str, Any]]) -> Path:
    """Write iteration records as JSONL."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def ingested(tmp_path: Path, records: list[dict[str, Any]]) -> duckdb.DuckDBPyConnection:
    """Ingest records through the real loader; a read-only connection to the archive."""
    db = tmp_path / "archive.duckdb"
    ingest([write_records(tmp_path / "records.jsonl", records)], db)
    return connect(db, read_only=True)


def in_memory(rows: list[dict[str, Any]]) -> duckdb.DuckDBPyConnection:
    """An in-memory archive whose `iterations` table holds ``rows`` (archive column names),
    inserted through one Arrow table: fast enough for property tests."""
    con = connect(None)
    table = pa.table(
        {name: pa.array([r.get(name) for r in rows], type=t) for name, t in COLUMNS.items()}
    )
    con.register("rows_in", table)
    con.execute(
        "INSERT INTO iterations BY NAME SELECT *, 'mem' AS source_file, 'h' AS content_hash"
        " FROM rows_in"
    )
    con.unregister("rows_in")
    return con


def make_app() -> typer.Typer:
    """A two-command app, so ``iterations`` parses as a real subcommand."""
    app = typer.Typer()
    app.command("iterations")(exits_on_errors(iterations))

    @app.command("other")
    def other() -> None:
        """Placeholder second command."""

    return app
