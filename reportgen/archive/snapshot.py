"""The archive as a snapshot of Parquet files, and back: a site's ``data/`` folder.

``write_snapshot`` writes every archive table to ``<table>.parquet`` in a fixed row order (the
same archive gives the same files) plus ``manifest.json``: a format version, the archive schema
version, and each file's size, SHA-256 and row count. ``restore_snapshot`` reads such a folder,
or the same files from an http(s) URL of a published site, checks every file against the
manifest before anything is written, and builds a new archive holding the same tables and rows;
the archive appears only when it is complete (docs/site.md, "Restoring the archive")."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from reportgen import __version__
from reportgen.archive.connection import (
    SCHEMA_VERSION,
    bound_memory,
    connect,
    duckdb_path,
    recompute_step_hashes,
)
from reportgen.archive.parquet import parquet_location
from reportgen.archive.parquet_convert import convert
from reportgen.archive.restore_checks import check_restored
from reportgen.archive.snapshot_fetch import (
    MANIFEST,
    MANIFEST_BYTES,
    deadline_from_env,
    fetcher,
    is_url,
    public_url,
)
from reportgen.errors import InputError

FORMAT = "reportgen-archive-snapshot"
FORMAT_VERSION = 1
#: Table and the columns that order its rows (a unique key where the schema has one).
TABLES = (
    ("runs", "run_id"),
    ("steps", "run_id, idx"),
    ("iterations", "run_id, iter"),
    ("outputs", "run_id, suite, label, task_id, batch, trial, content_hash, output"),
    ("files", "content_hash"),
    ("loads", "load_id"),
    ("suite_notes", "suite, path, content_hash"),
)
_CHUNK = 1 << 20
BATCH_ROWS = 16
"""Rows pyarrow decodes at a time from a snapshot file: a compressed-text bomb (a value of
a MB repeated, a few KB on disk) inflates only this many values at once."""
RESTORE_MEMORY_MB = 1024
"""DuckDB's memory limit during a restore (see connection.bound_memory): more than
ingest's 512 MB, as checkpointing values of a MB each needs the room (at 512 MB a snapshot of
1,200 such values failed to restore)."""
BATCH_BYTES = 32 << 20
"""About how many bytes of decoded rows one INSERT into the new archive takes."""
MAX_INFLATION = 4096
"""How many times its size a snapshot file may inflate to once decoded (past INFLATION_FLOOR):
more is a compressed-text bomb, refused before it is in the archive. DuckDB holds a table's
text of a row group about twice while it writes it (a checkpoint), whatever its memory limit:
1,200 values of a MB from a 7 KB file peaked at 2.3 GB. Real snapshots inflate far less (a
snapshot of a million tiny runs, repeating the same fields in every row: 450 times)."""
INFLATION_FLOOR = 64 << 20
"""Decoded bytes any snapshot file may hold, however small the file (MAX_INFLATION)."""


def _quoted(path: Path) -> str:
    """A file path as a SQL string literal (COPY takes no parameters for its target)."""
    return "'" + str(duckdb_path(path)).replace("'", "''") + "'"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


#: zstd's level for the published Parquet: on a year of a 40-task nightly (bench/year.py),
#: steps.parquet is 28.1 MB in 1.1 s of CPU at DuckDB's default (3), 23.7 MB in 1.7 s at 7,
#: 23.8 MB in 2.2 s at 9 and 20.0 MB in 18 s at 15.
SNAPSHOT_ZSTD_LEVEL = 7


def write_snapshot(
    con: duckdb.DuckDBPyConnection, folder: Path, *, published: dict[str, Any] | None = None
) -> list[str]:
    """Write every archive table to ``folder/<table>.parquet`` and the manifest that lets
    ``restore_snapshot`` check them; return the file names. ``published`` says what was
    hidden from the snapshot (redaction), recorded in the manifest."""
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, dict[str, Any]] = {}
    for table, order in TABLES:
        target = folder / f"{table}.parquet"
        con.execute(
            f"COPY (SELECT * FROM {table} ORDER BY {order}) TO {_quoted(target)} "
            f"(FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL {SNAPSHOT_ZSTD_LEVEL})"
        )
        row = con.execute(f"SELECT count(*) FROM {table}").fetchone()
        files[target.name] = {
            "table": table,
            "rows": int(row[0]) if row else 0,
            "bytes": target.stat().st_size,
            "sha256": _sha256(target),
        }
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "schema_version": SCHEMA_VERSION,
        "written_by": f"reportgen {__version__}",
        "files": files,
        "published": published or {"redacted": False, "payloads": True},
    }
    (folder / MANIFEST).write_bytes(
        orjson.dumps(manifest, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"
    )
    return [*files, MANIFEST]


@dataclass
class RestoreReport:
    """What ``restore_snapshot`` wrote: the archive and the rows of each table."""

    db: Path
    source: str
    rows: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"db": str(self.db), "source": self.source, "rows": self.rows}


def _check_manifest(where: str, raw: bytes) -> dict[str, Any]:
    """The manifest, or an InputError saying why it cannot be used."""
    name = f"{where.rstrip('/')}/{MANIFEST}"
    try:
        manifest = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InputError(name, f"not valid JSON ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise InputError(name, f"not a reportgen snapshot manifest (format is not {FORMAT!r})")
    if manifest.get("format_version") != FORMAT_VERSION:
        raise InputError(
            name,
            f"snapshot format version {manifest.get('format_version')!r}; this reportgen reads "
            f"version {FORMAT_VERSION}",
            field="format_version",
        )
    if str(manifest.get("schema_version")) != SCHEMA_VERSION:
        raise InputError(
            name,
            f"archive schema version {manifest.get('schema_version')!r}; this reportgen "
            f"restores version {SCHEMA_VERSION}",
            field="schema_version",
        )
    files = manifest.get("files")
    wanted = {f"{table}.parquet": table for table, _ in TABLES}
    if not isinstance(files, dict) or set(files) != set(wanted):
        raise InputError(name, "the files listed are not the archive's tables", field="files")
    for file, entry in files.items():
        ok = (
            isinstance(entry, dict)
            and entry.get("table") == wanted[file]
            and all(
                isinstance(entry.get(k), int)
                and not isinstance(entry.get(k), bool)
                and entry[k] >= 0
                for k in ("rows", "bytes")
            )
            and isinstance(entry.get("sha256"), str)
        )
        if not ok:
            raise InputError(name, "entry malformed", field=f"files.{file}")
    return manifest


def restore_snapshot(source: str, db: Path, *, display: str | None = None) -> RestoreReport:
    """Build a new archive at ``db`` from the snapshot at ``source`` (a site folder, its
    ``data/`` folder, or an http(s) URL of either). Every file is checked against the manifest
    first; on any error nothing is left at ``db``. An existing ``db`` is never replaced."""
    name = display or str(db)
    if parquet_location(db) is not None:  # a Parquet archive folder: restored via a DuckDB file
        with tempfile.TemporaryDirectory(prefix=".reportgen-restore-") as tmp:
            report = restore_snapshot(source, Path(tmp) / "archive.duckdb", display=name)
            convert(report.db, os.fspath(db))
        return RestoreReport(Path(db), source, report.rows)
    target = duckdb_path(db)
    if os.path.lexists(target):
        raise InputError(name, "something is already here; restore writes a new archive only")
    if not target.parent.is_dir():
        raise InputError(name, f"folder {target.parent} does not exist")
    source_shown = public_url(source) if is_url(source) else source
    fetch = fetcher(source, deadline_from_env())
    where = fetch.where
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".reportgen-restore-") as tmp:
        scratch = Path(tmp)
        fetch.copy(MANIFEST, scratch / MANIFEST, MANIFEST_BYTES)
        manifest = _check_manifest(where, (scratch / MANIFEST).read_bytes())
        _check_room(manifest, target.parent, name)
        for file, entry in manifest["files"].items():
            fetch.copy(file, scratch / file, entry["bytes"])
            shown = f"{where.rstrip('/')}/{file}"
            size = (scratch / file).stat().st_size
            if size != entry["bytes"]:
                raise InputError(
                    shown, f"{size} bytes where the manifest says {entry['bytes']} (truncated?)"
                )
            if _sha256(scratch / file) != entry["sha256"]:
                raise InputError(shown, "checksum differs from the manifest (changed or damaged)")
        built = scratch / "archive.duckdb"
        rows = _load(built, scratch, manifest, where)
        try:  # no-clobber and atomic: the archive appears complete or not at all
            os.link(built, target)
        except FileExistsError:  # another restore to the same --db finished first
            raise InputError(name, "another restore wrote this archive first") from None
    return RestoreReport(Path(db), source_shown, rows)


def _check_room(manifest: dict[str, Any], folder: Path, name: str) -> None:
    """Refuse up front a snapshot whose files would not fit on the disk (twice: the files, and
    the archive built from them)."""
    needed = 2 * sum(int(entry["bytes"]) for entry in manifest["files"].values())
    free = shutil.disk_usage(folder).free
    if needed > free:
        raise InputError(name, f"the snapshot needs about {needed:,} bytes; {free:,} are free")


def _insert_batches(con: duckdb.DuckDBPyConnection, table: str, path: Path) -> None:
    """Insert the rows of the Parquet file at ``path`` into ``table``, decoded BATCH_ROWS at a
    time and inserted about BATCH_BYTES at a time: memory stays bounded however far the
    file's text inflates (DuckDB's read_parquet decodes 2,048 rows at once: 1,200 values of a
    MB each were 5 GB)."""
    parquet = pq.ParquetFile(path)
    allowed = max(INFLATION_FLOOR, MAX_INFLATION * path.stat().st_size)
    group: list[pa.RecordBatch] = []
    size = decoded = 0
    for batch in parquet.iter_batches(batch_size=BATCH_ROWS, use_threads=False):
        group.append(batch)
        size += batch.nbytes
        decoded += batch.nbytes
        if decoded > allowed:  # checked before the rows are inserted
            raise Inflated(
                f"inflates to more than {decoded / 1e6:,.0f} MB from {path.stat().st_size:,} bytes"
                f" (over {MAX_INFLATION:,} times its size): a compressed-text bomb, not restored"
            )
        if size >= BATCH_BYTES:
            _insert(con, table, group, parquet.schema_arrow)
            group, size = [], 0
    _insert(con, table, group, parquet.schema_arrow)


class Inflated(ValueError):
    """A snapshot file that decodes to more than MAX_INFLATION times its size."""


def _insert(
    con: duckdb.DuckDBPyConnection, table: str, group: list[pa.RecordBatch], schema: pa.Schema
) -> None:
    """One INSERT of ``group``, read by DuckDB's replacement scan of a local variable (a
    registered object would stay alive until the session ends)."""
    if not group:
        return
    # one chunk: DuckDB appends each Arrow batch as it comes, and appends of BATCH_ROWS rows
    # of small values held about 20 times their size (a 300 MB archive's snapshot: 1.6 GB)
    rg_batches = pa.Table.from_batches(group, schema).combine_chunks()  # noqa: F841 (by name)
    con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM rg_batches")


def _load(built: Path, scratch: Path, manifest: dict[str, Any], where: str) -> dict[str, int]:
    """Insert every table's rows into a new archive at ``built``; return the row counts."""

    con = connect(built)
    bound_memory(con, RESTORE_MEMORY_MB)
    rows: dict[str, int] = {}
    try:
        for file, entry in manifest["files"].items():
            table = entry["table"]
            try:
                _insert_batches(con, table, scratch / file)
            except Inflated as exc:
                raise InputError(f"{where.rstrip('/')}/{file}", str(exc)) from None
            except (duckdb.Error, pa.ArrowException, OSError) as exc:
                first = str(exc).splitlines()[0]
                raise InputError(f"{where.rstrip('/')}/{file}", f"cannot load: {first}") from None
            row = con.execute(f"SELECT count(*) FROM {table}").fetchone()
            rows[table] = int(row[0]) if row else 0
            if rows[table] != entry["rows"]:
                raise InputError(
                    f"{where.rstrip('/')}/{file}",
                    f"{rows[table]} rows where the manifest says {entry['rows']}",
                )
        check_restored(con, where)
        recompute_step_hashes(con)
        con.execute("CHECKPOINT")
    finally:
        con.close()
    return rows
