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
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.json as pa_json
import pyarrow.parquet as pq

from reportgen._sql import load_sql
from reportgen.archive import arrow
from reportgen.errors import InputError
from reportgen.formats.adapters.rows import log, parse_document, require
from reportgen.formats.base import Marked, StageOptions
from reportgen.formats.source import SourceFile

WHAT = "Inspect Scout scan spec (_scan.json with scan_id and scanners)"
SCAN_FILE = "_scan.json"
ERRORS_FILE = "_errors.jsonl"
META_KEY = "scanners"
_SCAN_ID = Marked(rb'"scan_id"\s*:\s*"')

# The columns of a scanner's Parquet file a result keeps (as text; NULL where a version of Scout
# writes none). ``scanner_key`` names the scanner, else the file's name does.
_RESULT_COLUMNS = (
    "transcript_id", "value", "value_type", "answer", "explanation", "scan_error", "scanner_key",
)  # fmt: skip
_FILE = "rg_scout_file"  # the Arrow table each file is registered as while it is inserted


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
        """Read every scan's files into the rg_scout_* temp tables (inspect_scout_tables.sql):
        each file is one Arrow table, inserted by DuckDB with the scan's constants."""
        con.execute(load_sql("inspect_scout_tables"))
        for source in sources:
            scan = _read_scan(source)
            con.execute(
                load_sql("inspect_scout_scan"),
                {
                    "scan_id": scan.scan_id,
                    "scan_file": source.display,
                    "scanners": list(scan.scanners),
                },
            )
            for path in scan.result_files:
                _insert(
                    con,
                    "inspect_scout_results",
                    _results(scan, path),
                    scan_id=scan.scan_id,
                    scanner=path.stem,
                )
            errors = _errors(scan, options.max_record_bytes)
            if errors is not None:
                _insert(con, "inspect_scout_errors", errors, scan_id=scan.scan_id)
            scanned = _scanned(scan)
            if scanned is not None:
                _insert(
                    con,
                    "inspect_scout_scanned",
                    scanned,
                    scan_id=scan.scan_id,
                    scan_file=source.display,
                )

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


def _insert(con: duckdb.DuckDBPyConnection, sql: str, table: pa.Table, **given: str) -> None:
    """Insert one file's rows (``table``, registered as ``rg_scout_file``) with ``sql``."""
    con.register(_FILE, table)
    try:
        con.execute(load_sql(sql), given)
    finally:
        con.unregister(_FILE)


def _results(scan: _Scan, path: Path) -> pa.Table:
    """A scanner's result rows, as text (the value typed later by its ``value_type``), with
    their position (``ord``). A bad file is an error of the scan (its ``_scan.json``, the
    file ingest loads, so that ``--skip-invalid`` skips the scan)."""
    try:
        parquet = pq.ParquetFile(path)
        names = set(parquet.schema_arrow.names)
        table = parquet.read(columns=[c for c in _RESULT_COLUMNS if c in names])
    except (OSError, pa.ArrowException) as exc:
        raise InputError(
            scan.source.display, f"{path.name}: not a readable Parquet file of results ({exc})"
        ) from None
    if "transcript_id" not in names:
        raise InputError(
            scan.source.display, f"{path.name}: required column is missing", field="transcript_id"
        )
    rows = table.num_rows
    columns = [
        _text(table[c]) if c in names else pa.nulls(rows, pa.string()) for c in _RESULT_COLUMNS
    ]
    return pa.Table.from_arrays(
        [*columns, arrow.numbers(np.arange(rows), pa.int64())], names=[*_RESULT_COLUMNS, "ord"]
    )


def _text(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """A column as text: strings as they are, numbers and booleans as Arrow prints them
    (``true``), nested values as JSON (by DuckDB, column-wise)."""
    kind = column.type
    if (
        pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
        or pa.types.is_boolean(kind)
        or pa.types.is_integer(kind)
        or pa.types.is_floating(kind)
    ):
        return pc.cast(column, pa.string())
    with duckdb.connect() as con:
        con.register("rg_column", pa.Table.from_arrays([column], names=["c"]))
        return con.sql("SELECT CAST(to_json(c) AS VARCHAR) AS c FROM rg_column").arrow()["c"]


def _errors(scan: _Scan, limit: int) -> pa.Table | None:
    """``_errors.jsonl`` beside the spec: one scanner error a line (transcript_id, scanner,
    error, traceback); None when the file is absent or empty (no scanner failed)."""
    path = scan.source.path.parent / ERRORS_FILE
    try:
        data = path.read_bytes() if path.is_file() else b""
    except OSError as exc:
        raise InputError(scan.source.display, f"{path.name}: cannot read: {exc.strerror}") from None
    if not data.strip():
        return None
    try:
        table = pa_json.read_json(
            io.BytesIO(data), read_options=pa_json.ReadOptions(block_size=max(limit, 1 << 20))
        )
    except pa.ArrowException as exc:
        raise InputError(
            scan.source.display, f"{path.name}: not Scout scanner errors (JSON lines): {exc}"
        ) from None
    names = ("scanner", "transcript_id", "error")
    for column in names:
        if column not in table.column_names:
            raise InputError(
                scan.source.display, f"{path.name}: required field is missing", field=column
            )
    return pa.Table.from_arrays(
        [*(_text(table[c]) for c in names), arrow.numbers(np.arange(table.num_rows), pa.int64())],
        names=[*names, "ord"],
    )


def _scanned(scan: _Scan) -> pa.Table | None:
    """The transcripts the spec says were scanned (id and log), from its ``transcripts``
    table (``fields`` + CSV ``data``); None when the spec has no such table (the results
    then tell which transcripts were scanned)."""
    table = scan.transcripts
    data = table.get("data") if isinstance(table, dict) else None
    if not isinstance(data, str) or not data.strip():
        return None
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
        return None
    logs = rows["log"] if "log" in names else pa.nulls(rows.num_rows, pa.string())
    return pa.Table.from_arrays([rows[key], logs], names=["transcript_id", "log"])


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
