"""Writing a snapshot: the archive as Parquet files in a site's ``data/`` folder, night by
night, taking from the previous site every night file whose rows have not changed.

Each night file gets a key: a hash of what its bytes are made of, computed in SQL without
reading the free text (snapshot_part_keys.sql: the night's rows as stored, with the stored
step hashes standing for step text), plus what turns them into the published rows and bytes
(snapshot_reads.py: the build's redaction, the columns, the row order, the format version,
the zstd level, DuckDB's version). A file of the previous snapshot whose key is the same and
whose size is what its manifest says is hard-linked (else copied) into the new folder; only
the other nights are read and written. Every file is written by one ordered COPY of its
night's rows, so a folder written in one go and one grown night by night are byte-identical."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import orjson

from reportgen import __version__
from reportgen._sql import load_sql
from reportgen.archive.connection import SCHEMA_VERSION, duckdb_path
from reportgen.archive.snapshot_fetch import MANIFEST
from reportgen.archive.snapshot_layout import (
    FORMAT,
    FORMAT_VERSION,
    ORDER,
    PARTITIONED,
    SMALL,
    SNAPSHOT_ZSTD_LEVEL,
    is_part_file,
    part_name,
)
from reportgen.archive.snapshot_reads import drop_reads, prepare_reads, read_view

_CHUNK = 1 << 20
CHUNK_ROWS = 1_000_000
"""About how many rows of one table are read into a temporary table at a time to be written
night by night (a first build writes every night: a year of a 40-task nightly is 670,000
steps, 130 MB of text)."""
_PARQUET = f"FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL {SNAPSHOT_ZSTD_LEVEL}"


def quoted_path(path: str | Path) -> str:
    """A file path as a SQL string literal (COPY takes no parameters for its target)."""
    return "'" + str(duckdb_path(path)).replace("'", "''") + "'"


def sha256_file(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def write_snapshot(
    con: duckdb.DuckDBPyConnection,
    folder: Path,
    *,
    published: dict[str, Any] | None = None,
    previous: Path | None = None,
) -> list[str]:
    """Write every archive table under ``folder`` (the small tables as ``<table>.parquet``,
    the others as ``<table>/<night>.parquet``) and the manifest that lets
    ``restore_snapshot`` check them; return the file names. ``previous``: the snapshot folder
    being replaced (the old site's ``data/``), whose unchanged night files are linked instead
    of written. ``published`` says what was hidden from the snapshot (redaction), recorded in
    the manifest. Night files already in ``folder`` are replaced."""
    if previous is not None and os.path.abspath(previous) == os.path.abspath(folder):
        raise ValueError(f"{folder}: a snapshot cannot be written over the one it reuses")
    folder.mkdir(parents=True, exist_ok=True)
    for table in PARTITIONED:
        shutil.rmtree(folder / table, ignore_errors=True)
    files: dict[str, dict[str, Any]] = {}
    for table in SMALL:
        target = folder / f"{table}.parquet"
        con.execute(
            f"COPY (SELECT * FROM {table} ORDER BY {ORDER[table]}) "
            f"TO {quoted_path(target)} ({_PARQUET})"
        )
        row = con.execute(f"SELECT count(*) FROM {table}").fetchone()
        files[target.name] = {
            "table": table,
            "rows": int(row[0]) if row else 0,
            "bytes": target.stat().st_size,
            "sha256": sha256_file(target),
        }
    files.update(_write_nights(con, os.fspath(folder), _previous_files(previous)))
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
    return [*sorted(files), MANIFEST]


def _previous_files(previous: Path | None) -> dict[str, dict[str, Any]]:
    """The night files of the snapshot at ``previous`` that may be reused: listed in its
    manifest (format version 2) with a key and a checksum, present as regular files of the
    size listed (``source``: the file). Anything else, or no manifest, is no file (those
    nights are written)."""
    if previous is None:
        return {}
    try:
        manifest = orjson.loads((previous / MANIFEST).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    if not isinstance(manifest, dict) or (
        manifest.get("format"),
        manifest.get("format_version"),
    ) != (FORMAT, FORMAT_VERSION):
        return {}
    files = manifest.get("files")
    found: dict[str, dict[str, Any]] = {}
    root = os.fspath(previous)
    for rel, entry in files.items() if isinstance(files, dict) else ():
        if not (
            isinstance(rel, str)
            and is_part_file(rel)
            and isinstance(entry, dict)
            and isinstance(entry.get("key"), str)
            and isinstance(entry.get("sha256"), str)
            and isinstance(entry.get("bytes"), int)
            and isinstance(entry.get("rows"), int)
        ):
            continue
        source = os.path.join(root, rel)
        try:
            info = os.lstat(source)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and info.st_size == entry["bytes"]:
            found[rel] = {**entry, "source": source}
    return found


def _write_nights(
    con: duckdb.DuckDBPyConnection, folder: str, previous: dict[str, dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """Write or link every night file of the partitioned tables; return their entries."""
    try:
        salt = prepare_reads(con)
        nights: dict[int, str | None] = {0: None}
        nights.update(con.execute("SELECT DISTINCT part, night FROM snapshot_run_parts").fetchall())
        names = {part: part_name(night) for part, night in nights.items()}
        entries: dict[str, dict[str, Any]] = {}
        todo: dict[str, list[tuple[int, int]]] = defaultdict(list)  # table -> (part, rows)
        for table in PARTITIONED:
            os.mkdir(os.path.join(folder, table))
        keys = con.execute(load_sql("snapshot_part_keys")).fetchall()
        for table, part, rows_hash, n_rows in keys:
            night = nights[part]
            rel = f"{table}/{names[part]}.parquet"
            if rel in entries:  # two batches with one name: 64 bits of SHA-256 alike
                raise RuntimeError(f"two nights of {table} share the file {rel}")
            key = hashlib.sha256(
                json.dumps([salt, table, night, str(rows_hash), n_rows]).encode()
            ).hexdigest()
            entries[rel] = {"table": table, "night": night, "key": key, "rows": int(n_rows)}
            old = previous.get(rel)
            if old is not None and old["key"] == key and old["rows"] == n_rows:
                _link(old["source"], os.path.join(folder, rel))
                entries[rel].update(bytes=old["bytes"], sha256=old["sha256"])
            else:
                todo[table].append((part, int(n_rows)))
        row = con.execute("SELECT count(*) FROM snapshot_run_parts").fetchone()
        runs = int(row[0]) if row else 0
        for table, parts in todo.items():
            for chunk in _chunks(parts):
                targets = {p: os.path.join(folder, f"{table}/{names[p]}.parquet") for p in chunk}
                _write_chunk(con, table, targets, runs)
                for part, path in targets.items():
                    rel = f"{table}/{names[part]}.parquet"
                    entries[rel].update(bytes=os.stat(path).st_size, sha256=sha256_file(path))
        for table in PARTITIONED:  # a table without rows has no folder
            if not any(entry["table"] == table for entry in entries.values()):
                os.rmdir(os.path.join(folder, table))
        return entries
    finally:
        con.execute("DROP TABLE IF EXISTS snapshot_rows")
        drop_reads(con)


def _link(source: str, target: str) -> None:
    """``target`` as a hard link of ``source``, else a copy (another file system)."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def _chunks(parts: list[tuple[int, int]]) -> Iterator[list[int]]:
    """The parts in groups of about CHUNK_ROWS rows (a night larger than that alone)."""
    group: list[int] = []
    size = 0
    for part, rows in sorted(parts):
        if group and size + rows > CHUNK_ROWS:
            yield group
            group, size = [], 0
        group.append(part)
        size += rows
    if group:
        yield group


def _write_chunk(
    con: duckdb.DuckDBPyConnection, table: str, targets: dict[int, str], runs: int
) -> None:
    """Write the night files ``targets`` (part -> path) of ``table``: their rows read once
    into a temporary table, then one COPY per night. The rows are found by their stored run
    ids (a filter DuckDB applies as it scans, before any redaction) unless the chunk holds
    the rows of no run (part 0) or of half the runs or more (then every row is read)."""
    order = ORDER[table]
    parts = sorted(targets)
    row = con.execute(
        "SELECT list(raw_id) FROM snapshot_run_parts WHERE list_contains($parts, part)",
        {"parts": parts},
    ).fetchone()
    raw_ids = (row[0] if row else None) or []
    by_id = 0 not in targets and len(raw_ids) * 2 < runs
    found = "WHERE list_contains($ids, r.snapshot_raw_id)" if by_id else ""
    con.execute(
        "CREATE OR REPLACE TEMP TABLE snapshot_rows AS "
        "SELECT coalesce(p.part, 0) AS snapshot_part, r.* EXCLUDE (snapshot_raw_id) "
        f"FROM (SELECT * FROM {read_view(con, table)} AS r {found}) AS r "
        "LEFT JOIN snapshot_run_parts AS p ON p.raw_id = r.snapshot_raw_id "
        f"WHERE list_contains($parts, coalesce(p.part, 0)) ORDER BY snapshot_part, {order}",
        {"parts": parts, **({"ids": raw_ids} if by_id else {})},
    )
    for part, target in targets.items():
        con.execute(
            f"COPY (SELECT * EXCLUDE (snapshot_part) FROM snapshot_rows "
            f"WHERE snapshot_part = {int(part)} ORDER BY {order}) "
            f"TO {quoted_path(target)} ({_PARQUET})"
        )
