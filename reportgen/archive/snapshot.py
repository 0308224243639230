"""The archive as a snapshot of Parquet files, and back: a site's ``data/`` folder.

``write_snapshot`` (reportgen/archive/snapshot_write.py) writes the small archive tables to
``<table>.parquet`` and the others night by night to ``<table>/<night>.parquet``
(reportgen/archive/snapshot_layout.py), each in a fixed row order (the same archive gives the
same files), plus ``manifest.json``: a format version, the archive schema version, and each
file's size, SHA-256 and row count (and a night file's night and key). A rebuild links the
unchanged nights' files from the previous site. ``restore_snapshot`` reads such a folder (or
one of format version 1, a file per table), or the same files from an http(s) URL of a
published site, checks every file against the manifest before anything is written, and
builds a new archive holding the same tables and rows; the archive appears only when it is
complete (docs/site.md, "Restoring the archive")."""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from reportgen.archive.connection import (
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
from reportgen.archive.snapshot_layout import (
    FORMAT,
    FORMAT_VERSION,
    SNAPSHOT_ZSTD_LEVEL,
    TABLES,
    check_manifest,
)
from reportgen.archive.snapshot_write import sha256_file, write_snapshot
from reportgen.errors import InputError

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "MANIFEST",
    "SNAPSHOT_ZSTD_LEVEL",
    "TABLES",
    "RestoreReport",
    "restore_snapshot",
    "write_snapshot",
]

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
"""How many times its size a snapshot file may inflate to once decoded (past INFLATION_FLOOR),
and the whole snapshot too (its files' sizes added up): more is a compressed-text bomb,
refused before it is in the archive. DuckDB holds a table's text of a row group about twice
while it writes it (a checkpoint), whatever its memory limit: 1,200 values of a MB from a
7 KB file peaked at 2.3 GB. Real snapshots inflate far less (a snapshot of a million tiny
runs, repeating the same fields in every row: 450 times)."""
INFLATION_FLOOR = 64 << 20
"""Decoded bytes any snapshot file may hold, however small the file, and the whole snapshot,
however small its files (MAX_INFLATION): a snapshot of many small night files gets no more
room than one file of their total size."""


@dataclass
class RestoreReport:
    """What ``restore_snapshot`` wrote: the archive and the rows of each table."""

    db: Path
    source: str
    rows: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"db": str(self.db), "source": self.source, "rows": self.rows}


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
        manifest = check_manifest(where, (scratch / MANIFEST).read_bytes())
        _check_room(manifest, target.parent, name)
        for file, entry in manifest["files"].items():
            shown = f"{where.rstrip('/')}/{file}"
            (scratch / file).parent.mkdir(exist_ok=True)
            fetch.copy(file, scratch / file, entry["bytes"])
            size = (scratch / file).stat().st_size
            if size != entry["bytes"]:
                raise InputError(
                    shown, f"{size} bytes where the manifest says {entry['bytes']} (truncated?)"
                )
            if sha256_file(scratch / file) != entry["sha256"]:
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


@dataclass
class _Budget:
    """Decoded bytes the whole snapshot may still hold (MAX_INFLATION, INFLATION_FLOOR)."""

    left: int


def _insert_batches(con: duckdb.DuckDBPyConnection, table: str, path: Path, budget: _Budget) -> int:
    """Insert the rows of the Parquet file at ``path`` into ``table``, decoded BATCH_ROWS at a
    time and inserted about BATCH_BYTES at a time: memory stays bounded however far the
    file's text inflates (DuckDB's read_parquet decodes 2,048 rows at once: 1,200 values of a
    MB each were 5 GB). Return the rows inserted."""
    parquet = pq.ParquetFile(path)
    on_disk = path.stat().st_size
    allowed = max(INFLATION_FLOOR, MAX_INFLATION * on_disk)
    group: list[pa.RecordBatch] = []
    size = decoded = rows = 0
    for batch in parquet.iter_batches(batch_size=BATCH_ROWS, use_threads=False):
        group.append(batch)
        size += batch.nbytes
        decoded += batch.nbytes
        budget.left -= batch.nbytes
        rows += batch.num_rows
        if decoded > allowed:  # checked before the rows are inserted
            raise Inflated(
                f"inflates to more than {decoded / 1e6:,.0f} MB from {on_disk:,} bytes"
                f" (over {MAX_INFLATION:,} times its size): a compressed-text bomb, not restored"
            )
        if budget.left < 0:
            raise Inflated(
                f"the snapshot inflates to more than {MAX_INFLATION:,} times its size with this"
                " file: a compressed-text bomb, not restored"
            )
        if size >= BATCH_BYTES:
            _insert(con, table, group, parquet.schema_arrow)
            group, size = [], 0
    _insert(con, table, group, parquet.schema_arrow)
    return rows


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
    """Insert every file's rows into a new archive at ``built``; return each table's row
    count. Rows are appended file after file, so a row's position in its table (its rowid)
    tells the file it came from (``check_restored`` names it)."""
    con = connect(built)
    bound_memory(con, RESTORE_MEMORY_MB)
    rows = {table: 0 for table, _order in TABLES}
    origins: dict[str, list[tuple[int, str]]] = {table: [] for table in rows}
    total = sum(int(entry["bytes"]) for entry in manifest["files"].values())
    budget = _Budget(max(INFLATION_FLOOR, MAX_INFLATION * total))
    try:
        for file, entry in manifest["files"].items():
            table = entry["table"]
            shown = f"{where.rstrip('/')}/{file}"
            origins[table].append((rows[table], file))
            try:
                _insert_batches(con, table, scratch / file, budget)
            except Inflated as exc:
                raise InputError(shown, str(exc)) from None
            except (duckdb.Error, pa.ArrowException, OSError) as exc:
                first = str(exc).splitlines()[0]
                raise InputError(shown, f"cannot load: {first}") from None
            row = con.execute(f"SELECT count(*) FROM {table}").fetchone()
            count = int(row[0]) if row else 0
            if count - rows[table] != entry["rows"]:
                raise InputError(
                    shown, f"{count - rows[table]} rows where the manifest says {entry['rows']}"
                )
            rows[table] = count
        check_restored(con, where, origins)
        recompute_step_hashes(con)
        con.execute("CHECKPOINT")
    finally:
        con.close()
    return rows
