"""Inspect Scout scan folders (``scans/scan_id=<id>/``): ``_scan.json`` (the scan spec: its id,
name, scanners and the table of transcripts it scanned), one ``<scanner>.parquet`` of results
per scanner and ``_errors.jsonl`` (one scanner error a line). Read with pyarrow, no
``inspect_scout`` install needed.

A scan holds no runs of its own: it annotates the runs of the transcripts it scanned. An
Inspect transcript's id is its sample's uuid, which is the run id the Inspect adapter gives the
sample (inspect_log.py), so each scanner's results on a transcript land in that run's
``meta.scanners.<scanner>`` (``value`` typed as the scanner gave it, ``results``, ``answer``,
``explanation``, ``error``, ``scan_id``; inspect_scout_attach.sql). Staging only reads the
files (``rg_scout_results``, ``rg_scout_scanned``); ``annotate`` attaches them once every
format of the load is staged, to the runs of the load and to the runs the archive holds
already, and tells in one notice per scan how many transcripts it found no run for."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.json as pa_json
import pyarrow.parquet as pq

from reportgen._sql import load_sql
from reportgen.errors import InputError
from reportgen.formats.adapters.rows import log, parse_document, require
from reportgen.formats.base import Marked, StageOptions
from reportgen.formats.source import SourceFile

WHAT = "Inspect Scout scan spec (_scan.json with scan_id and scanners)"
SCAN_FILE = "_scan.json"
ERRORS_FILE = "_errors.jsonl"
META_KEY = "scanners"
_SCAN_ID = Marked(rb'"scan_id"\s*:\s*"')

# What a result row keeps, as strings: the Parquet columns (by name) or null where a version
# of Scout writes none. ``scanner`` is the file's scanner key when the column is missing.
_RESULT_COLUMNS = ("transcript_id", "value", "value_type", "answer", "explanation", "scan_error")
_RESULTS = pa.schema(
    [("scan_id", pa.string()), ("scanner", pa.string()), ("ord", pa.int64())]
    + [(c, pa.string()) for c in _RESULT_COLUMNS]
)
_ERRORS = pa.schema(
    [(c, pa.string()) for c in ("scan_id", "scanner", "transcript_id", "error")]
    + [("ord", pa.int64())]
)
_SCANS = pa.schema(
    [("scan_id", pa.string()), ("scan_file", pa.string()), ("scanners", pa.list_(pa.string()))]
)
_SCANNED = pa.schema(
    [("scan_id", pa.string()), ("scan_file", pa.string()), ("transcript_id", pa.string()),
     ("log", pa.string())]
)  # fmt: skip


def scan_folder(folder: Path) -> bool:
    """True when ``folder`` holds a Scout scan's results beside its ``_scan.json``: a
    ``.parquet`` of results or the errors file."""
    try:
        return (folder / ERRORS_FILE).is_file() or any(folder.glob("*.parquet"))
    except OSError:
        return False


class InspectScout:
    name = "inspect-scout"
    description = "Inspect Scout scan folder (_scan.json, <scanner>.parquet, _errors.jsonl)"
    maps = (
        "a scanner's results on a transcript -> meta.scanners.<scanner> of the run of that "
        "transcript (its Inspect sample uuid); scanner errors -> its error; no runs of its own"
    )

    def detect(self, source: SourceFile) -> bool:
        return (
            source.path.name == SCAN_FILE
            and _SCAN_ID.search(source.head) is not None
            and scan_folder(source.path.parent)
        )

    def stage(
        self, con: duckdb.DuckDBPyConnection, sources: list[SourceFile], options: StageOptions
    ) -> None:
        results: list[pa.Table] = []
        errors: list[pa.Table] = []
        scanned: list[pa.Table] = []
        scans: list[_Scan] = []
        for source in sources:
            scan = _read_scan(source)
            scans.append(scan)
            results += [_results(scan, path) for path in scan.result_files]
            errors.append(_errors(scan, options.max_record_bytes))
            scanned.append(_scanned(scan))
        specs = pa.table(
            {
                "scan_id": [s.scan_id for s in scans],
                "scan_file": [s.source.display for s in scans],
                "scanners": [list(s.scanners) for s in scans],
            },
            schema=_SCANS,
        )
        for name, tables, schema in (
            ("rg_scout_scans", [specs], _SCANS),
            ("rg_scout_results", results, _RESULTS),
            ("rg_scout_errors", errors, _ERRORS),
            ("rg_scout_scanned", scanned, _SCANNED),
        ):
            table = pa.concat_tables(tables) if tables else schema.empty_table()
            con.register(f"{name}_arrow", table)
            try:
                con.execute(f"CREATE TEMP TABLE IF NOT EXISTS {name} AS FROM {name}_arrow LIMIT 0")
                con.execute(f"INSERT INTO {name} BY NAME FROM {name}_arrow")
            finally:
                con.unregister(f"{name}_arrow")

    def annotate(self, con: duckdb.DuckDBPyConnection, run_id_prefix: str) -> None:
        """Attach the staged scans' results to the runs they scanned (the load's staged runs,
        with their final ids, and the archive's), and tell per scan what found no run."""
        con.execute(load_sql("inspect_scout_entries"))
        given = {"prefix": run_id_prefix, "key": META_KEY}
        con.execute(load_sql("inspect_scout_attach"), given)
        con.execute(load_sql("inspect_scout_attach_archived"), given)
        for row in con.execute(
            load_sql("inspect_scout_notices"), {"prefix": run_id_prefix}
        ).fetchall():
            log.warning(_notice(*row))
        for name in _TEMP_TABLES:
            con.execute(f"DROP TABLE IF EXISTS {name}")


_TEMP_TABLES = (
    "rg_scout_scans", "rg_scout_results", "rg_scout_errors", "rg_scout_scanned",
    "rg_scout_entries",
)  # fmt: skip


@dataclass(frozen=True)
class _Scan:
    """One ``_scan.json``, read: what the result files and the notice need."""

    source: SourceFile
    scan_id: str
    scanners: tuple[str, ...]
    result_files: tuple[Path, ...]
    transcripts: Any  # the spec's transcripts table (fields + CSV data), when it has one


def _read_scan(source: SourceFile) -> _Scan:
    spec = parse_document(source, WHAT)
    require(source, isinstance(spec, dict), f"expected {WHAT}")
    scan_id = spec.get("scan_id")
    require(source, isinstance(scan_id, str) and bool(scan_id), "required string", "scan_id")
    named = spec.get("scanners")
    folder = source.path.parent
    if isinstance(named, dict) and named:
        scanners = tuple(str(k) for k in named)
        files = tuple(
            folder / f"{k}.parquet" for k in scanners if (folder / f"{k}.parquet").is_file()
        )
    else:  # no scanner list: every Parquet file of the folder is one scanner's results
        files = tuple(sorted(folder.glob("*.parquet")))
        scanners = tuple(p.stem for p in files)
    return _Scan(source, str(scan_id), scanners, files, spec.get("transcripts"))


def _results(scan: _Scan, path: Path) -> pa.Table:
    """A scanner's result rows, as strings (the value typed later by its ``value_type``)."""
    try:
        parquet = pq.ParquetFile(path)
        names = set(parquet.schema_arrow.names)
        wanted = [c for c in (*_RESULT_COLUMNS, "scanner_key") if c in names]
        table = parquet.read(columns=wanted)
    except (OSError, pa.ArrowException) as exc:
        raise InputError(
            str(path), f"not a readable Parquet file of Scout results ({exc})"
        ) from None
    if "transcript_id" not in names:
        raise InputError(str(path), "required column is missing", field="transcript_id")
    rows = table.num_rows
    scanner = (
        pc.cast(table["scanner_key"], pa.string())
        if "scanner_key" in names
        else pa.array([path.stem] * rows, pa.string())
    )
    columns: dict[str, pa.Array | pa.ChunkedArray] = {
        "scan_id": pa.array([scan.scan_id] * rows, pa.string()),
        "scanner": scanner,
        "ord": pa.array(range(rows), pa.int64()),
    }
    for column in _RESULT_COLUMNS:
        columns[column] = _text(table[column]) if column in names else pa.nulls(rows, pa.string())
    return pa.table(columns, schema=_RESULTS)


def _text(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """A column as strings: numbers and booleans as Scout would print them, nested values as
    JSON text (by DuckDB, column-wise)."""
    kind = column.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return pc.cast(column, pa.string())
    if pa.types.is_boolean(kind):
        return pc.if_else(column, "true", "false")
    if pa.types.is_integer(kind) or pa.types.is_floating(kind):
        return pc.cast(column, pa.string())
    with duckdb.connect() as con:
        con.register("rg_column", pa.table({"c": column}))
        return con.sql("SELECT CAST(to_json(c) AS VARCHAR) AS c FROM rg_column").arrow()["c"]


def _errors(scan: _Scan, limit: int) -> pa.Table:
    """``_errors.jsonl`` beside the spec: one scanner error a line (transcript_id, scanner,
    error, traceback); an empty or absent file holds none."""
    path = scan.source.path.parent / ERRORS_FILE
    empty = _ERRORS.empty_table()
    try:
        data = path.read_bytes() if path.is_file() else b""
    except OSError as exc:
        raise InputError(str(path), f"cannot read: {exc.strerror}") from None
    if not data.strip():
        return empty
    try:
        table = pa_json.read_json(
            io.BytesIO(data), read_options=pa_json.ReadOptions(block_size=max(limit, 1 << 20))
        )
    except pa.ArrowException as exc:
        raise InputError(str(path), f"not Scout scanner errors (JSON lines): {exc}") from None
    names = set(table.column_names)
    for column in ("transcript_id", "scanner", "error"):
        if column not in names:
            raise InputError(str(path), "required field is missing", field=column)
    rows = table.num_rows
    return pa.table(
        {
            "scan_id": pa.array([scan.scan_id] * rows, pa.string()),
            "scanner": _text(table["scanner"]),
            "transcript_id": _text(table["transcript_id"]),
            "error": _text(table["error"]),
            "ord": pa.array(range(rows), pa.int64()),
        },
        schema=_ERRORS,
    )


def _scanned(scan: _Scan) -> pa.Table:
    """The transcripts the spec says were scanned (id and log), from its ``transcripts``
    table (``fields`` + CSV ``data``); none when the spec has no such table (the results
    then tell which transcripts were scanned)."""
    table = scan.transcripts
    data = table.get("data") if isinstance(table, dict) else None
    empty = _SCANNED.empty_table()
    if not isinstance(data, str) or not data.strip():
        return empty
    try:
        rows = pa_csv.read_csv(
            io.BytesIO(data.encode("utf-8")),
            convert_options=pa_csv.ConvertOptions(
                column_types={
                    "sample_id": pa.string(),
                    "transcript_id": pa.string(),
                    "log": pa.string(),
                },
            ),
        )
    except pa.ArrowException as exc:
        raise InputError(
            scan.source.display, f"transcripts table is not CSV ({exc})", field="transcripts.data"
        ) from None
    names = set(rows.column_names)
    key = "transcript_id" if "transcript_id" in names else "sample_id"
    if key not in names:
        return empty
    count = rows.num_rows
    return pa.table(
        {
            "scan_id": pa.array([scan.scan_id] * count, pa.string()),
            "scan_file": pa.array([scan.source.display] * count, pa.string()),
            "transcript_id": pc.cast(rows[key], pa.string()),
            "log": pc.cast(rows["log"], pa.string()) if "log" in names else pa.nulls(count),
        },
        schema=_SCANNED,
    )


def _notice(
    scan_file: str, scan_id: str, scanners: list[str], runs: int, results: int, errors: int,
    missing: int, logs: list[str],
) -> str:  # fmt: skip
    """One line per scan: what it attached, and the transcripts it found no run for."""
    said = (
        f"{scan_file}: notice: Inspect Scout scan {scan_id} ({', '.join(scanners) or 'no scanners'}):"
        f" {results} result(s) and {errors} scanner error(s) attached to {runs} run(s)"
        f" (meta.{META_KEY})"
    )
    if missing:
        names = ", ".join(json.dumps(n) for n in logs[:3]) + (" …" if len(logs) > 3 else "")
        said += (
            f"; {missing} scanned transcript(s) are not runs of this load or archive"
            f" (logs {names}): their results were not kept (ingest the scan with its logs)"
        )
    return said
