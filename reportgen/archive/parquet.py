"""The archive as a folder of hive-partitioned Parquet files, read through DuckDB views.

A Parquet archive is a folder (``--db DIR`` for an existing folder, or ``--db parquet:DIR``)
holding ``manifest.json`` and one folder per table: ``runs``, ``steps``, ``iterations`` and
``outputs`` split into ``suite=…/batch=…`` partitions (the run's suite and batch; percent-encoded
as DuckDB and Spark write them), the small tables as plain files. Only the files the manifest
lists are the archive: writers add files beside them and publish by swapping the manifest
(:mod:`reportgen.archive.parquet_write`). Reading opens an in-memory DuckDB whose tables are
views over the listed files, typed as ``schema.sql`` types them, so every query of the
DuckDB-file archive runs unchanged (docs/scale.md)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import orjson

from reportgen.errors import InputError

PREFIX = "parquet:"
MANIFEST = "manifest.json"
FORMAT = "reportgen-parquet-archive"
FORMAT_VERSION = 1
PARTITIONED = ("runs", "steps", "iterations", "outputs")
SMALL = ("files", "loads", "suite_notes", "archive_info")
NO_PARTITION = "__HIVE_DEFAULT_PARTITION__"
"""Suite and batch of rows whose run is not in the archive (iteration records of other runs)."""


def parquet_location(path: str | os.PathLike[str]) -> str | None:
    """Where the Parquet archive named by ``--db`` is (a folder or a URL), or None for a DuckDB
    file: ``parquet:WHERE``, an ``s3://`` (or other ``scheme://``) URL, or an existing folder."""
    text = os.fspath(path)
    if text.startswith(PREFIX):
        return _url(text[len(PREFIX) :])
    if _is_remote(_url(text)):
        return _url(text)
    return text if os.path.isdir(text) else None


def _url(text: str) -> str:
    """``s3:/bucket`` (what ``Path`` makes of ``s3://bucket``) back to the URL."""
    scheme, sep, rest = text.partition(":/")
    if sep and scheme.isalnum() and len(scheme) > 1 and not rest.startswith("/"):
        return f"{scheme}://{rest}"
    return text


def _is_remote(location: str) -> bool:
    scheme, sep, _ = location.partition("://")
    return bool(sep) and scheme.isalnum() and len(scheme) > 1


def file_url(location: str, relative: str) -> str:
    """The path or URL of a file of the archive, from its manifest entry."""
    if _is_remote(location):
        return location.rstrip("/") + "/" + relative
    return os.path.join(os.path.abspath(location), relative)


def empty_manifest() -> dict[str, Any]:
    """The manifest of an archive with no rows yet."""
    from reportgen.archive.connection import SCHEMA_VERSION

    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "schema_version": SCHEMA_VERSION,
        "generation": 0,
        "tables": {table: [] for table in (*PARTITIONED, *SMALL)},
    }


def read_manifest(location: str, name: str, *, missing_ok: bool = False) -> dict[str, Any]:
    """The archive's manifest, checked; an InputError naming the manifest when unusable.
    ``missing_ok``: an empty manifest for a folder without one (a new archive)."""
    shown = f"{name.rstrip('/')}/{MANIFEST}"
    try:
        raw = _read_bytes(location)
    except FileNotFoundError:
        if missing_ok:
            return empty_manifest()
        raise InputError(
            name, "no archive here (no manifest.json); run `reportgen ingest`"
        ) from None
    try:
        manifest = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InputError(shown, f"not valid JSON ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise InputError(shown, f"not a reportgen Parquet archive (format is not {FORMAT!r})")
    _check_versions(manifest, shown)
    tables = manifest.get("tables")
    if not isinstance(tables, dict) or set(tables) != {*PARTITIONED, *SMALL}:
        raise InputError(shown, "the tables listed are not the archive's tables", field="tables")
    for table, entries in tables.items():
        if not isinstance(entries, list) or not all(
            isinstance(e, dict) and isinstance(e.get("path"), str) for e in entries
        ):
            raise InputError(shown, "entry malformed", field=f"tables.{table}")
    return manifest


def _check_versions(manifest: dict[str, Any], shown: str) -> None:
    from reportgen.archive.connection import SCHEMA_VERSION

    if manifest.get("format_version") != FORMAT_VERSION:
        raise InputError(
            shown,
            f"Parquet archive format version {manifest.get('format_version')!r}; this "
            f"reportgen reads version {FORMAT_VERSION}",
            field="format_version",
        )
    version = str(manifest.get("schema_version"))
    if not version.isdigit() or int(version) > int(SCHEMA_VERSION):
        raise InputError(
            shown,
            f"written by a newer reportgen (archive schema version {version[:20]}, this version "
            f"knows up to {SCHEMA_VERSION}); upgrade reportgen; the archive is left untouched",
            field="schema_version",
        )


def _read_bytes(location: str) -> bytes:
    """The manifest's bytes, from a folder or (through DuckDB's httpfs) a URL."""
    if not _is_remote(location):
        return Path(location, MANIFEST).read_bytes()
    con = duckdb.connect(":memory:")
    try:
        con.execute("LOAD httpfs")
        rows = con.execute("SELECT content FROM read_blob(?)", [file_url(location, MANIFEST)])
        found = rows.fetchall()
    except duckdb.Error as exc:
        if "No files found" in str(exc) or "404" in str(exc):
            raise FileNotFoundError(location) from None
        raise InputError(
            location, f"cannot read the manifest: {str(exc).splitlines()[0]}"
        ) from None
    finally:
        con.close()
    return bytes(found[0][0])


def open_parquet(
    path: str | os.PathLike[str], *, display: str | None = None
) -> duckdb.DuckDBPyConnection:
    """A read-only view of the Parquet archive at ``path``: an in-memory DuckDB connection
    whose archive tables are views over the files the manifest lists (see the module doc)."""
    location = parquet_location(path) or os.fspath(path)
    name = display or os.fspath(path)
    manifest = read_manifest(location, name)
    with prepared_session(name) as con:
        if _is_remote(location):
            con.execute("LOAD httpfs")
        attach_tables(con, location, manifest, name)
        check_step_hashes(con, name)
    return con


@contextmanager
def prepared_session(name: str) -> Iterator[duckdb.DuckDBPyConnection]:
    """A new session for the archive ``name``, left open when the block succeeds and closed
    when it fails; a DuckDB error in the block reads as the archive's one-line error."""
    from reportgen.archive.connection import damaged, new_session

    con = new_session(name)
    try:
        yield con
    except duckdb.Error as exc:
        con.close()
        raise damaged(name, exc) from None
    except BaseException:
        con.close()
        raise


def check_step_hashes(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """Refuse an archive whose stored step hashes another DuckDB's ``hash()`` computed (they
    would not match the hashes of new steps)."""
    from reportgen.archive.connection import first_row, step_hash_probe

    row = first_row(con, "SELECT value FROM archive_info WHERE key = 'step_hashes'")
    if row is not None and row[0] != step_hash_probe(con):
        raise InputError(
            name,
            "its step hashes were computed by another DuckDB release; convert it to a DuckDB "
            "file and back (`reportgen archive convert`) to recompute them",
        )


def attach_tables(
    con: duckdb.DuckDBPyConnection,
    location: str,
    manifest: dict[str, Any],
    name: str,
    *,
    tables: tuple[str, ...] = (*PARTITIONED, *SMALL),
    materialise: bool = False,
) -> None:
    """Replace each of ``tables`` (created empty by the schema) by a view over its files, or
    (``materialise``) fill it with their rows. Columns are read by name and cast to the schema's
    types; a column the files lack (added to the schema later) reads as NULL."""
    for table in tables:
        entries = manifest["tables"][table]
        if not entries:
            continue
        files = [file_url(location, e["path"]) for e in entries]
        if not _is_remote(location):
            for entry, file in zip(entries, files, strict=True):
                if not os.path.isfile(file):
                    raise InputError(
                        name, f"damaged: {entry['path']}, listed in {MANIFEST}, is missing"
                    )
        source = f"read_parquet({_sql_list(files)}, union_by_name = true)"
        present = {r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()}
        select = ", ".join(
            f'CAST("{c}" AS {kind}) AS "{c}"' if c in present else f'CAST(NULL AS {kind}) AS "{c}"'
            for c, kind in table_columns(con, table)
        )
        if materialise:
            con.execute(f"INSERT INTO {table} SELECT {select} FROM {source}")
            continue
        con.execute(f"DROP TABLE {table}")
        con.execute(f"CREATE VIEW {table} AS SELECT {select} FROM {source}")


def table_columns(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple[str, str]]:
    """(name, SQL type) of each column of ``table`` in ``con``, in order."""
    rows = con.execute(
        "SELECT column_name, data_type FROM duckdb_columns() WHERE schema_name = 'main'"
        " AND table_name = ? ORDER BY column_index",
        [table],
    ).fetchall()
    return [(str(c), str(t)) for c, t in rows]


def quoted(text: str) -> str:
    """A SQL string literal (COPY and read_parquet take no parameters for their paths)."""
    return "'" + text.replace("'", "''") + "'"


def _sql_list(items: list[str]) -> str:
    return "[" + ", ".join(quoted(i) for i in items) + "]"
