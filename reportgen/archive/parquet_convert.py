"""``reportgen archive convert``: an archive moved between a DuckDB file and a Parquet folder,
every table and row kept (types too: the Parquet views cast to the schema's types)."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from reportgen.archive.connection import TABLES, connect, damaged, duckdb_path, table_counts
from reportgen.archive.parquet import PREFIX, empty_manifest, parquet_location, quoted
from reportgen.archive.parquet_write import publish, writing
from reportgen.errors import InputError

DUCKDB_SUFFIXES = (".duckdb", ".db")


@dataclass
class ConvertReport:
    """What ``convert`` wrote: the target, its form and the rows of each table."""

    source: str
    target: str
    form: str
    rows: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "target": self.target, "form": self.form, "rows": self.rows}


def is_parquet_target(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` names a Parquet archive to write: ``parquet:…``, an existing folder,
    or a name not ending in .duckdb or .db."""
    text = os.fspath(path)
    if parquet_location(text) is not None:
        return True
    return not text.endswith(DUCKDB_SUFFIXES)


def convert(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> ConvertReport:
    """Copy the archive at ``source`` into a new archive at ``target`` of the other form (or
    the same). The target must not hold an archive; it appears complete or not at all."""
    con = connect(os.fspath(source), read_only=True)
    try:
        counts = table_counts(con)
        if is_parquet_target(target):
            _to_parquet(con, target)
            form = "parquet"
        else:
            _to_duckdb(con, Path(target))
            form = "duckdb"
    finally:
        con.close()
    return ConvertReport(os.fspath(source), os.fspath(target), form, counts)


def _to_parquet(con: duckdb.DuckDBPyConnection, target: str | os.PathLike[str]) -> None:
    """Write every table of ``con`` as a new Parquet archive at ``target``."""
    text = os.fspath(target)
    location = text[len(PREFIX) :] if text.startswith(PREFIX) else text
    name = text
    if os.path.isdir(location) and os.listdir(location):
        raise InputError(name, "not empty; convert writes a new archive only")

    with writing(location, name, refuse_existing=_NOT_NEW) as (root, _):
        publish(con, root, empty_manifest(), changed_only=False)


_NOT_NEW = "already holds an archive; convert writes a new archive only"


def _to_duckdb(con: duckdb.DuckDBPyConnection, target: Path) -> None:
    """Write every table of ``con`` into a new DuckDB file at ``target`` (built as a draft
    beside it, then linked into place, never replacing anything)."""
    final = duckdb_path(target)
    name = str(target)
    if os.path.lexists(final):
        raise InputError(name, "something is already here; convert writes a new archive only")
    if not final.parent.is_dir():
        raise InputError(name, f"folder {final.parent} does not exist")
    with tempfile.TemporaryDirectory(dir=final.parent, prefix=".reportgen-convert-") as tmp:
        draft = Path(tmp) / "archive.duckdb"
        connect(draft, display=name).close()  # the schema, as this reportgen makes it
        try:
            con.execute(f"ATTACH {quoted(str(draft))} AS rg_target")
            try:
                for table in (*TABLES, "archive_info"):
                    con.execute(f"DELETE FROM rg_target.main.{table}")
                    con.execute(f"INSERT INTO rg_target.main.{table} BY NAME SELECT * FROM {table}")
            finally:
                con.execute("DETACH rg_target")
        except duckdb.Error as exc:
            raise damaged(name, exc) from None
        connect(draft, read_only=True, display=name).close()  # checks the hashes and blocks
        os.link(draft, final)
