"""Run a format's read and check SQL, and turn DuckDB's errors into one-line InputErrors."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

import duckdb
import pyarrow as pa

from reportgen.archive.arrow import text_buffers
from reportgen.errors import InputError
from reportgen.formats.base import StageOptions
from reportgen.formats.diagnose import ExtraCheck, first_problem
from reportgen.formats.records import empty_records, record_batches
from reportgen.formats.source import SourceFile

_DUCK_WHERE = re.compile(
    r'in file "(?P<file>[^"]+)",(?: at byte \d+)? in (?:line|record/value) (?P<line>\d+): (?P<msg>.*)'
)


def read_or_explain(
    con: duckdb.DuckDBPyConnection,
    table: str,
    select_sql: str,
    sources: list[SourceFile],
    options: StageOptions,
    schema: str,
    extra: ExtraCheck | None = None,
    document_format: str = "auto",
) -> None:
    """Create temp ``table`` from ``select_sql`` (a read_json over ``$files``) for all sources,
    one read_json per layout (.json vs .jsonl); on a parse error, explain it by file and line."""
    groups: dict[str, list[SourceFile]] = defaultdict(list)
    for source in sources:
        groups["newline_delimited" if source.lines else document_format].append(source)
    created = False
    for layout, group in sorted(groups.items()):
        offset = con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0] if created else 0
        params = {
            "files": [str(s.path) for s in group],
            "format": layout,
            "max_object_size": options.max_record_bytes,
            "offset": offset,
        }
        verb = f"INSERT INTO {table} " if created else f"CREATE OR REPLACE TEMP TABLE {table} AS "
        try:
            con.execute(verb + select_sql, params)
        except duckdb.Error as exc:
            raise explain(exc, group, schema, extra) from None
        created = True


def parse_records(
    con: duckdb.DuckDBPyConnection,
    table: str,
    select_sql: str,
    sources: list[SourceFile],
    schema: str,
    extra: ExtraCheck | None = None,
    also: Sequence[str] = (),
) -> None:
    """Create temp ``table`` from ``select_sql`` over the Arrow table ``stage_<...>_records``
    it names (see reportgen.formats.records), fed batch by batch with the records of all
    sources, and run each statement of ``also`` (e.g. an INSERT reading the same records)
    on every batch; on a parse error, explain it by file and line."""
    registered = _records_name(select_sql)
    execute_over(
        con, f"CREATE OR REPLACE TEMP TABLE {table} AS {select_sql}", registered, empty_records()
    )
    for batch in record_batches(sources):
        try:
            _valid_text(batch)
            execute_over(con, f"INSERT INTO {table} BY NAME {select_sql}", registered, batch)
            for statement in also:
                execute_over(con, statement, registered, batch)
        except (duckdb.Error, pa.ArrowInvalid) as exc:
            raise explain(exc, _bad_files(batch, sources), schema, extra) from None
        del batch  # freed before the next batch is read, not after


def execute_over(
    con: duckdb.DuckDBPyConnection,
    sql: str,
    name: str,
    table: pa.Table,
    params: dict[str, object] | None = None,
) -> None:
    """Run ``sql``, which reads the Arrow ``table`` as ``name``, through DuckDB's replacement
    scan of a local variable, not ``con.register``: inside a transaction DuckDB keeps every
    registered object alive until the transaction ends (the dropped view stays in its
    catalog), so registering each batch of a load would hold the whole input in memory."""
    rg_arrow_scan = table  # noqa: F841 (read by DuckDB's replacement scan, by name)
    con.execute(re.sub(rf"\b{re.escape(name)}\b", "rg_arrow_scan", sql), params)


def _valid_text(batch: pa.Table) -> None:
    """Raise ArrowInvalid when a record is not UTF-8 (DuckDB expects valid text)."""
    batch["content"].validate(full=True)


def _bad_files(batch: pa.Table, sources: list[SourceFile]) -> list[SourceFile]:
    """The sources of ``batch`` whose records DuckDB cannot parse as JSON, in load order (all
    of the batch's sources when none is found so). Asked of a connection of its own: the
    load's transaction is void after the error."""
    by_path = {str(s.path): s for s in sources}
    files = list(dict.fromkeys(batch["source_file"].to_pylist()))
    try:
        _valid_text(batch)
    except pa.ArrowInvalid:
        bad = {f for f, text in _texts(batch) if not _utf8(text)}
    else:
        with duckdb.connect() as check:
            check.register("records", batch)
            rows = check.execute(
                "SELECT DISTINCT source_file FROM records WHERE NOT json_valid(content)"
            ).fetchall()
        bad = {r[0] for r in rows}
    named = [by_path[f] for f in files if f in bad and f in by_path]
    return named or [by_path[f] for f in files if f in by_path]


def _texts(batch: pa.Table) -> list[tuple[str, bytes]]:
    """Each record's file and raw bytes (text that may not be UTF-8 cannot be read as str)."""
    off, raw = text_buffers(batch["content"])
    files = batch["source_file"].to_pylist()
    return [(f, raw[off[i] : off[i + 1]].tobytes()) for i, f in enumerate(files)]


def _utf8(text: bytes) -> bool:
    try:
        text.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _records_name(select_sql: str) -> str:
    """The records table a parse query reads (one name, ``stage_<format>_records``)."""
    names = set(re.findall(r"\bstage_\w+_records\b", select_sql))
    if len(names) != 1:
        raise ValueError(f"a parse query reads one stage_<format>_records table, not {names}")
    return str(names.pop())


def explain(
    exc: duckdb.Error, group: list[SourceFile], schema: str, extra: ExtraCheck | None
) -> InputError:
    """The clearest one-line error for a DuckDB failure while reading ``group``."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    match = _DUCK_WHERE.search(text)
    named = [s for s in group if match and str(s.path) == match["file"]]
    for source in named or group:
        problem = first_problem(source.path, source.display, source.lines, schema, extra)
        if problem:
            return problem
    if match and named:
        return InputError(named[0].display, match["msg"].strip(), line=int(match["line"]))
    where = named[0].display if named else ", ".join(s.display for s in group[:3])
    return InputError(where, re.sub(r"^[A-Za-z ]+Error: ", "", text))


def run_checks(
    con: duckdb.DuckDBPyConnection,
    check_sql: str,
    sources: list[SourceFile],
    schema: str,
    extra: ExtraCheck | None = None,
) -> None:
    """Run a check query (rows of file, field, problem); raise for the first bad file, pinned to
    its line by the Python diagnostic pass."""
    rows = con.execute(check_sql).fetchall()
    if not rows:
        return
    # checks name a file by its path (raw stage tables) or as shown (typed ones)
    by_path = {s.display: s for s in sources} | {str(s.path): s for s in sources}
    bad = [by_path[r[0]] for r in rows if r[0] in by_path]
    order = {id(s): i for i, s in enumerate(sources)}
    first = min(bad, key=lambda s: order[id(s)]) if bad else None
    if first is None:
        raise InputError(rows[0][0], rows[0][2], field=rows[0][1])
    problem = first_problem(first.path, first.display, first.lines, schema, extra)
    if problem:
        raise problem
    row = next(r for r in rows if by_path.get(r[0]) is first)
    raise InputError(first.display, row[2], field=row[1])
