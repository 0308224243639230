"""What a snapshot (a site's ``data/`` folder) holds, file by file, and the check of its
manifest.

Version 2 (written since reportgen 0.1 snapshots became incremental): the four tables whose
rows belong to a run (``runs``, ``steps``, ``iterations``, ``outputs``) are split by night, the
``batch`` of the run as the build read it, into ``<table>/<night file>.parquet``; the small
tables stay one file each (``files.parquet``, ``loads.parquet``, ``suite_notes.parquet``).
A night's file name is safe whatever the batch holds (batches are untrusted text):
``part_name``. Version 1 (one ``<table>.parquet`` per table) is still read."""

from __future__ import annotations

import hashlib
import re
from typing import Any

import orjson

from reportgen.archive.connection import SCHEMA_VERSION
from reportgen.archive.snapshot_fetch import MANIFEST
from reportgen.errors import InputError

FORMAT = "reportgen-archive-snapshot"
FORMAT_VERSION = 2
READS = (1, 2)
"""The snapshot format versions ``restore`` reads."""
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
ORDER = dict(TABLES)
#: Tables written one file per night (every row belongs to a run, a run to a night).
PARTITIONED = ("runs", "steps", "iterations", "outputs")
#: Tables written whole, one file each.
SMALL = ("files", "loads", "suite_notes")
#: zstd's level for the published Parquet: on a year of a 40-task nightly (bench/year.py),
#: steps.parquet is 28.1 MB in 1.1 s of CPU at DuckDB's default (3), 23.7 MB in 1.7 s at 7,
#: 23.8 MB in 2.2 s at 9 and 20.0 MB in 18 s at 15.
SNAPSHOT_ZSTD_LEVEL = 7

NULL_NIGHT = "null"
"""The file stem of the runs without a batch (and of rows whose run is not in the archive)."""
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
_STEM_CHARS = 40
_DIGEST_CHARS = 16
_PART_FILE = re.compile(
    rf"(?P<table>{'|'.join(PARTITIONED)})/"
    rf"(?P<stem>{NULL_NIGHT}|(?:[A-Za-z0-9][A-Za-z0-9_-]{{0,{_STEM_CHARS - 1}}}-)?"
    rf"[0-9a-f]{{{_DIGEST_CHARS}}})\.parquet"
)


def part_name(night: str | None) -> str:
    """The file stem of a night: the batch with every run of characters other than ASCII
    letters, digits, ``-`` and ``_`` made one ``_`` (leading ones dropped), cut to 40
    characters, then ``-`` and 16 hex digits of the SHA-256 of the whole batch, so two
    batches never share a file and no batch names a path, a hidden file or a device
    (``2026-11-28`` -> ``2026-11-28-1f0c…``; ``../../x`` -> ``x-…``; ``""`` -> the digits
    alone). ``None`` (no batch) -> ``null``."""
    if night is None:
        return NULL_NIGHT
    digest = hashlib.sha256(night.encode("utf-8", "surrogatepass")).hexdigest()
    stem = _UNSAFE.sub("_", night).lstrip("_-")[:_STEM_CHARS]
    return f"{stem}-{digest[:_DIGEST_CHARS]}" if stem else digest[:_DIGEST_CHARS]


def part_file(table: str, night: str | None) -> str:
    """A night's file of ``table``, relative to the snapshot folder."""
    return f"{table}/{part_name(night)}.parquet"


def is_part_file(rel: str) -> bool:
    """Whether ``rel`` has the shape of a night file (``part_file``)."""
    return _PART_FILE.fullmatch(rel) is not None


def check_manifest(where: str, raw: bytes) -> dict[str, Any]:
    """The manifest (version 1 or 2), or an InputError saying why it cannot be used. Every
    file it lists is a name this module makes (no other path can be fetched or written)."""
    name = f"{where.rstrip('/')}/{MANIFEST}"
    try:
        manifest = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InputError(name, f"not valid JSON ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise InputError(name, f"not a reportgen snapshot manifest (format is not {FORMAT!r})")
    version = manifest.get("format_version")
    if isinstance(version, bool) or version not in READS:
        raise InputError(
            name,
            f"snapshot format version {version!r}; this reportgen reads versions "
            f"{', '.join(map(str, READS))}",
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
    whole = PARTITIONED + SMALL if version == 1 else SMALL
    wanted = {f"{table}.parquet": table for table in whole}
    if not isinstance(files, dict) or not set(wanted) <= set(files):
        raise InputError(name, "the files listed are not the archive's tables", field="files")
    for file, entry in files.items():
        if not _entry_ok(file, entry, wanted, version):
            if file not in wanted and (version == 1 or not _PART_FILE.fullmatch(str(file))):
                raise InputError(
                    name, f"lists {str(file)[:80]!r}, not a file of a snapshot", field="files"
                )
            raise InputError(name, "entry malformed", field=f"files.{str(file)[:80]}")
    return manifest


def _entry_ok(file: Any, entry: Any, wanted: dict[str, str], version: int) -> bool:
    """Whether ``entry`` describes ``file`` as this module writes it."""
    if not isinstance(entry, dict) or not all(
        isinstance(entry.get(k), int) and not isinstance(entry.get(k), bool) and entry[k] >= 0
        for k in ("rows", "bytes")
    ):
        return False
    if not isinstance(entry.get("sha256"), str):
        return False
    if file in wanted:
        return entry.get("table") == wanted[file]
    if version == 1:
        return False
    match = _PART_FILE.fullmatch(file)
    night = entry.get("night")
    return (
        match is not None
        and entry.get("table") == match["table"]
        and (night is None or isinstance(night, str))
        and isinstance(entry.get("key"), str)
        and part_file(match["table"], night) == file
    )
