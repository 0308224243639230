"""Load input files into the archive, all or nothing: one DuckDB transaction per invocation."""

from __future__ import annotations

import contextlib
import logging
import os
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from reportgen._sql import load_sql
from reportgen.archive import arrow
from reportgen.archive.connection import (
    bound_memory,
    connect,
    damaged,
    duckdb_path,
    first_row,
)
from reportgen.archive.outcomes import ERROR_KINDS, REASON_WIDTH
from reportgen.archive.parquet import parquet_location
from reportgen.archive.parquet_write import ingest_parquet
from reportgen.errors import InputError, UsageError
from reportgen.formats.base import STAGE_TABLES, Format, StageOptions
from reportgen.formats.diagnose import first_problem
from reportgen.formats.registry import detect_format, get_format
from reportgen.formats.source import SourceFile, discover, measure_all
from reportgen.ingest.conflicts import check_conflicts
from reportgen.ingest.duplicates import Known, drop_known, drop_staged, hold, open_holds
from reportgen.ingest.options import (
    Overrides,
    SessionOptions,
    apply_overrides,
    apply_session_defaults,
    check_max_record_mb,
)
from reportgen.ingest.reprice import reprice_staged
from reportgen.ingest.suite_notes import find_notes, stage_notes
from reportgen.limits import MAX_COUNT

ProgressHook = Callable[[str, int, int], None]
"""Called as ``hook(phase, done, total)`` while a load runs."""

COUNTED = ("runs", "steps", "iterations", "outputs")

INGEST_MEMORY_MB = 512
"""DuckDB's memory limit during a load, when the machine's share (connection.memory_limit) is
larger and REPORTGEN_DUCKDB_MEMORY_LIMIT is not set: staged rows past it spill to the temp
directory, so a load's peak memory is this plus a few record batches (records.CHUNK_BYTES),
whatever the input's size (docs/scale.md)."""

BATCH_GAP = timedelta(hours=6)
"""Runs without a batch are grouped into jobs by the gaps between their start times: a gap
of this much or more starts a new batch (see default_batches.sql and docs/formats.md)."""


@dataclass
class IngestReport:
    """What one ``ingest`` call did, for the terminal and for ``--json``."""

    db: str
    loaded: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    invalid: list[InputError] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COUNTED, 0))
    replaced_runs: int = 0
    notices: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "db": self.db,
            "loaded": self.loaded,
            "skipped": self.skipped,
            "invalid": [str(e) for e in self.invalid],
            "counts": self.counts,
            "replaced_runs": self.replaced_runs,
            "notices": self.notices,
            "seconds": round(self.seconds, 3),
        }


MAX_TOKENS = MAX_COUNT
"""Largest token count stored: one count, or a run's steps summed (see token_limits.sql)."""

Opener = Callable[[], duckdb.DuckDBPyConnection]


def ingest(
    paths: Iterable[str | Path],
    db: str | Path | duckdb.DuckDBPyConnection,
    *,
    replace: bool = False,
    skip_invalid: bool = False,
    format_name: str | None = None,
    max_record_mb: float = 16,
    run_id_prefix: str = "",
    progress: ProgressHook | None = None,
    new_archive: bool = False,
    batch: str | None = None,
    sessions: SessionOptions | None = None,
    label: str | None = None,
    suite: str | None = None,
    identity: str = "",
    reprice: bool = True,
) -> IngestReport:
    """Load ``paths`` (files or folders) into the archive at ``db`` (a path, or an open
    connection, e.g. an in-memory archive for a one-off ``compare``).

    Raises InputError on the first bad file and leaves the archive exactly as it was. With
    ``skip_invalid`` it loads the good files and lists the bad ones in ``report.invalid``.
    A new archive is built in a private file beside ``db`` and published only when complete,
    with a hard link that fails if another process created ``db`` meanwhile (then this load goes
    into that archive), so a failed or killed first load never removes another's archive.
    ``new_archive`` refuses an existing ``db`` (the demo uses it). ``batch`` sets the batch of
    every run and output loaded, whatever the files say; without it, runs that carry no batch
    get the batch of their job (``BATCH_GAP``, docs/formats.md). ``sessions``: the label and
    batch-day defaults of session-log runs (:func:`reportgen.ingest.options.session_options`).
    ``label`` and ``suite`` set those of every run and output loaded, whatever the files say
    (a usage error for iteration records, which have neither); they do not change run ids, so
    runs already archived keep the label and suite they were loaded with.

    Content already loaded is skipped by run identity, not by bytes alone (see
    :mod:`reportgen.ingest.duplicates`): a file the archive holds from the same path is not read
    again, and runs the archive holds with the same content are not loaded twice, while the
    same bytes deriving other run ids (another submission folder, another ``run_id_prefix``)
    load. ``identity``: a caller that changes the runs a file derives in other ways than
    ``run_id_prefix`` (e.g. overriding their label or suite) names that change here, so that
    files the archive holds are read again instead of skipped unread. ``reprice=False`` leaves
    ``runs.cost_recomputed_usd`` NULL (a one-off ``compare`` never reads it)."""
    if batch is not None and not batch.strip():
        raise UsageError("--batch must be a non-empty string")
    options = StageOptions(
        max_record_bytes=int(check_max_record_mb(max_record_mb) * (1 << 20)), reprice=reprice
    )
    load = partial(
        _ingest,
        list(paths),
        replace=replace,
        skip_invalid=skip_invalid,
        format_name=format_name,
        options=options,
        run_id_prefix=run_id_prefix,
        identity=identity,
        hook=progress or (lambda phase, done, total: None),
        batch=batch,
        sessions=sessions or SessionOptions(),
        overrides=Overrides(label, suite),
    )
    if isinstance(db, duckdb.DuckDBPyConnection):  # the caller's session, its limit as set
        return load(lambda: db, ":memory:", own=False, bounded=False)
    display = str(db)
    location = parquet_location(db)
    if location is not None:  # a Parquet archive folder: published by a manifest swap
        return ingest_parquet(
            location,
            display,
            lambda opener: load(opener, display, own=False),
            lambda report: bool(report.loaded),
            refuse_existing=_EXISTS if new_archive else None,
        )
    target = duckdb_path(db)
    _remove_stale_drafts(target)
    if os.path.lexists(target):
        if new_archive:
            raise InputError(display, _EXISTS)
        return load(lambda: connect(db), display, own=True)
    draft = target.with_name(
        f"{_DRAFT_PREFIX.format(name=target.name)}{os.getpid()}-{uuid.uuid4().hex[:12]}"
    )
    try:
        report = load(lambda: connect(draft, display=display), display, own=True)
        if os.path.exists(f"{draft}.wal"):
            raise InputError(display, "could not finish writing the new archive; nothing was kept")
        if not report.loaded or _publish(draft, target):
            return report
    finally:
        _remove_archive(draft)
    if new_archive:
        raise InputError(display, _EXISTS)
    return load(lambda: connect(db), display, own=True)


_EXISTS = "already exists; this writes only a new archive (choose another file or folder)"
_DRAFT_PREFIX = ".{name}.new-"


def _publish(draft: Path, target: Path) -> bool:
    """Give the finished ``draft`` the name ``target`` unless something has it already (False).
    A hard link is atomic and never replaces; where links are unsupported, a rename after a
    check (a narrow race, only on such file systems)."""
    try:
        os.link(draft, target)
        return True
    except FileExistsError:
        return False
    except OSError:
        if os.path.lexists(target):
            return False
        os.rename(draft, target)
        return True


def _remove_stale_drafts(target: Path) -> None:
    """Delete drafts of ``target`` left by killed first loads (their process is gone)."""
    prefix = _DRAFT_PREFIX.format(name=target.name)
    try:
        names = [n for n in os.listdir(target.parent) if n.startswith(prefix)]
    except OSError:
        return
    for name in names:
        pid = name[len(prefix) :].split("-")[0].removesuffix(".wal")
        if pid.isdigit() and not _alive(int(pid)):
            (target.parent / name).unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    """True when process ``pid`` exists (on this machine)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _ingest(
    paths: list[str | Path],
    open_archive: Opener,
    display: str,
    *,
    own: bool,
    bounded: bool = True,
    replace: bool,
    skip_invalid: bool,
    format_name: str | None,
    options: StageOptions,
    run_id_prefix: str,
    identity: str,
    hook: ProgressHook,
    batch: str | None,
    sessions: SessionOptions,
    overrides: Overrides,
) -> IngestReport:
    """One load into the archive ``open_archive`` opens (closed after when ``own``)."""
    started = time.perf_counter()
    forced = get_format(format_name) if format_name else None
    report = IngestReport(db=display)
    bad: list[InputError] = []

    def fail(error: InputError) -> None:
        if not skip_invalid:
            raise error
        bad.append(error)

    found_notices: list[str] = []
    found = discover(paths, found_notices)
    notes = find_notes(paths)
    sources: list[SourceFile] = []
    with _Opening(open_archive, own) as opening:  # the archive opens while files are measured
        for done, measured in enumerate(measure_all(found, options.max_record_bytes), start=1):
            if isinstance(measured, InputError):
                fail(measured)
            else:
                sources.append(measured)
            hook("checking files", done, len(found))
    con = opening.result()
    if bounded:
        bound_memory(con, INGEST_MEMORY_MB)
    collector = _NoticeCollector(report.notices)
    logging.getLogger("reportgen.formats").addHandler(collector)
    try:
        fresh, report.skipped, known = drop_known(con, sources, run_id_prefix, identity)
        formats: dict[str, Format] = {}
        for source in list(fresh):
            try:
                formats[source.display] = forced or detect_format(source)
            except InputError as error:
                fail(error)
                fresh.remove(source)
        while fresh:
            report.notices.clear()
            try:
                _load(
                    con, fresh, formats, options, replace, run_id_prefix, report, hook, notes,
                    batch, sessions, overrides, known,
                )  # fmt: skip
                break
            except InputError as error:
                if not skip_invalid or error.path not in {s.display for s in fresh}:
                    raise
                bad.append(error)
                fresh = [s for s in fresh if s.display != error.path]
        stale = _stale_identity(con)
    except duckdb.Error as exc:
        raise damaged(display, exc) from None
    finally:
        logging.getLogger("reportgen.formats").removeHandler(collector)
        if own:
            _close(con)
    report.notices[:0] = found_notices + stale
    report.invalid = sorted(bad, key=lambda e: (e.path, e.line or 0))
    report.seconds = time.perf_counter() - started
    return report


def _stale_identity(con: duckdb.DuckDBPyConnection) -> list[str]:
    """A notice per format whose archived runs carry the suite and label an older reportgen
    gave them (stale_identity.sql): they pair with nothing loaded now until re-ingested."""
    return [
        f"{runs} {fmt} run(s) in this archive (e.g. from {example}) were loaded by an older"
        " reportgen, whose suite and label for this format differ from today's (see the"
        " identity table in docs/formats.md): they will not pair with runs loaded now;"
        " re-ingest their files into a new archive"
        for fmt, runs, example in con.execute(load_sql("stale_identity")).fetchall()
    ]


class _Opening:
    """``open_archive()`` on a thread of its own (DuckDB works without the GIL) while the
    ``with`` block runs; the connection is ``result()`` after. A block that fails waits for
    the opening and closes what it opened (when ``own``), so the block's error is the one told
    and nothing is left open."""

    def __init__(self, open_archive: Opener, own: bool) -> None:
        self._own = own
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="reportgen-open")
        self._future = self._pool.submit(open_archive)

    def __enter__(self) -> _Opening:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        self._pool.shutdown(wait=True)
        if kind is not None and self._own and self._future.exception() is None:
            _close(self._future.result())

    def result(self) -> duckdb.DuckDBPyConnection:
        return self._future.result()


def _close(con: duckdb.DuckDBPyConnection) -> None:
    """Close ``con``; a failure here (e.g. a full disk at the final checkpoint) is told as one
    line, the committed load being safe in DuckDB's write-ahead log."""
    with contextlib.suppress(duckdb.Error):
        con.close()


class _NoticeCollector(logging.Handler):
    """Keeps the notices adapters log (e.g. "holds zero simulations") for the report."""

    def __init__(self, sink: list[str]) -> None:
        super().__init__(logging.INFO)
        self.sink = sink

    def emit(self, record: logging.LogRecord) -> None:
        self.sink.append(record.getMessage())


def _load(
    con: duckdb.DuckDBPyConnection,
    sources: list[SourceFile],
    formats: dict[str, Format],
    options: StageOptions,
    replace: bool,
    run_id_prefix: str,
    report: IngestReport,
    hook: ProgressHook,
    notes: list[Path],
    batch: str | None,
    sessions: SessionOptions,
    overrides: Overrides,
    known: Known,
) -> None:
    """Stage every source by format, drop what the archive already has (duplicates.py),
    check, and write everything in one transaction."""
    con.execute("BEGIN TRANSACTION")
    try:
        con.execute(load_sql("macros"))
        for table in STAGE_TABLES:
            con.execute(
                f"CREATE OR REPLACE TEMP TABLE stage_{table} AS SELECT * FROM {table} LIMIT 0"
            )
        # a format may flag bad steps while typing them (see trace_steps.sql)
        con.execute("ALTER TABLE stage_steps ADD COLUMN problem VARCHAR")
        _stage_files(con, sources)
        open_holds(con)
        rounds = known.rounds(sources)  # copies staged apart, the later rounds first
        plan = [(n, _by_format(group, formats)) for n, group in enumerate(rounds)][::-1]
        total = sum(len(groups) for _, groups in plan)
        done = 0
        for round_no, groups in plan:
            for fmt, group in groups:
                fmt.stage(con, group, options)
                done += 1
                hook("parsing and checking", done, total)
            if run_id_prefix:
                for table in STAGE_TABLES:
                    con.execute(
                        f"UPDATE stage_{table} SET run_id = $p || run_id", {"p": run_id_prefix}
                    )
            if round_no:
                hold(con, round_no)
        by_name = {fmt.name: fmt for _, groups in plan for fmt, _ in groups}
        dropped = drop_staged(con, sources, known)
        kept = [s for s in sources if s.display not in dropped]
        if not kept:
            con.execute("ROLLBACK")
            report.skipped.extend(dropped.values())
            return
        for fmt in by_name.values():  # formats that annotate other formats' runs (a scan)
            annotate = getattr(fmt, "annotate", None)
            if annotate is not None:
                annotate(con, run_id_prefix)
        con.execute(load_sql("error_outcomes"), {"kinds": list(ERROR_KINDS), "width": REASON_WIDTH})
        apply_session_defaults(con, sessions, by_name.values())
        apply_overrides(con, overrides)
        if options.reprice:
            reprice_staged(con)
        _assign_batches(con, batch)
        _check_token_limits(con, sources, formats)
        replaced = check_conflicts(con, sources, replace, by_name.values())
        stage_notes(con, notes, kept)
        hook("writing", 0, 1)
        load_id = uuid.uuid4().hex
        per_file = _write(con, load_id, kept, formats, replaced, known.files_keys(kept))
        con.execute("COMMIT")
        hook("writing", 1, 1)
    except BaseException:
        # the transaction may already be void (e.g. DuckDB aborted it on a write error)
        with contextlib.suppress(duckdb.Error):
            con.execute("ROLLBACK")
        raise
    report.replaced_runs = replaced
    report.skipped.extend(dropped.values())
    for source in kept:
        counts = per_file[source.display]
        report.loaded.append(
            {
                "file": source.display,
                "format": formats[source.display].name,
                "content_hash": source.content_hash,
                **counts,
            }
        )
        for key in COUNTED:
            report.counts[key] += counts[key]


def _by_format(
    sources: list[SourceFile], formats: dict[str, Format]
) -> list[tuple[Format, list[SourceFile]]]:
    """``sources`` grouped by their format, in the order of the format names."""
    groups: dict[str, list[SourceFile]] = defaultdict(list)
    by_name: dict[str, Format] = {}
    for source in sources:
        fmt = formats[source.display]
        groups[fmt.name].append(source)
        by_name[fmt.name] = fmt
    return [(by_name[name], group) for name, group in sorted(groups.items())]


def _assign_batches(con: duckdb.DuckDBPyConnection, batch: str | None) -> None:
    """Set every staged run's and output's batch to ``batch``; without one, give the runs that
    carry none the batch of their job, and each output its run's."""
    if batch is not None:
        for table in ("runs", "outputs"):
            con.execute(f"UPDATE stage_{table} SET batch = $b", {"b": batch})
        return
    con.execute(load_sql("default_batches"), {"gap": BATCH_GAP})
    con.execute(load_sql("default_output_batches"))


def _stage_files(con: duckdb.DuckDBPyConnection, sources: list[SourceFile]) -> None:
    table = arrow.table(
        {
            "source_file": arrow.strings([str(s.path) for s in sources]),
            "display_path": arrow.strings([s.display for s in sources]),
            "content_hash": arrow.strings([s.content_hash for s in sources]),
            "default_label": arrow.strings(_folder_names([s.path for s in sources])),
            "default_task": arrow.strings([s.path.name.split(".")[0] for s in sources]),
        }
    )
    con.register("stage_files_arrow", table)
    con.execute("CREATE OR REPLACE TEMP TABLE stage_files AS SELECT * FROM stage_files_arrow")
    con.unregister("stage_files_arrow")


def _folder_names(paths: list[Path]) -> list[str]:
    """The name of the folder each file really is in (symlinks resolved; "default" at the
    root), each folder resolved once: resolving every path costs a syscall per component."""
    folders: dict[Path, str] = {}
    names = []
    for path in paths:
        if path.is_symlink():
            names.append(path.resolve().parent.name or "default")
            continue
        if path.parent not in folders:
            folders[path.parent] = path.parent.resolve().name or "default"
        names.append(folders[path.parent])
    return names


def _write(
    con: duckdb.DuckDBPyConnection,
    load_id: str,
    sources: list[SourceFile],
    formats: dict[str, Format],
    replaced: int,
    keys: dict[str, str],
) -> dict[str, dict[str, int]]:
    """Move staged rows into the archive tables and record the files (by their ``keys``,
    duplicates.Known.files_keys) and the load."""
    for table in STAGE_TABLES:
        extra = ""
        if table == "steps":  # the step hashes of the pair metrics (archive/step_hashes.sql)
            extra = (
                " EXCLUDE (problem, signature, payload),"
                " rg_step_signature(type, action, input_keys) AS signature,"
                " rg_step_payload(input, output) AS payload"
            )
        con.execute(f"INSERT INTO {table} BY NAME SELECT *{extra} FROM stage_{table}")
    per_file: dict[str, dict[str, int]] = {s.display: dict.fromkeys(COUNTED, 0) for s in sources}
    for table in ("runs", "iterations", "outputs"):
        for display, n in con.execute(
            f"SELECT source_file, count(*) FROM stage_{table} GROUP BY ALL"
        ).fetchall():
            per_file[display][table] = int(n)
    for display, n in con.execute(
        "SELECT r.source_file, sum(n) FROM (SELECT run_id, count(*) AS n FROM stage_steps"
        " GROUP BY run_id) JOIN stage_runs r USING (run_id) GROUP BY ALL"
    ).fetchall():
        per_file[display]["steps"] = int(n)
    # one INSERT of Arrow columns: executemany runs one statement per file (~1 ms each)
    files = arrow.table(
        {
            "content_hash": arrow.strings([keys[s.display] for s in sources]),
            "path": arrow.strings([s.display for s in sources]),
            "format": arrow.strings([formats[s.display].name for s in sources]),
            "size_bytes": arrow.numbers([s.size_bytes for s in sources], pa.int64()),
            **{
                f"n_{k}": arrow.numbers([per_file[s.display][k] for s in sources], pa.int64())
                for k in COUNTED
            },
        }
    )
    con.register("files_arrow", files)
    try:
        con.execute(
            "INSERT INTO files SELECT content_hash, path, format, size_bytes, $load, now(),"
            " n_runs, n_steps, n_iterations, n_outputs FROM files_arrow",
            {"load": load_id},
        )
    finally:
        con.unregister("files_arrow")
    totals = [sum(c[k] for c in per_file.values()) for k in COUNTED]
    con.execute(
        "INSERT INTO loads VALUES (?, now(), now(), ?, ?, ?, ?, ?, ?)",
        [load_id, len(sources), *totals, replaced],
    )
    for table in STAGE_TABLES:
        con.execute(f"DROP TABLE stage_{table}")
    return per_file


def _check_token_limits(
    con: duckdb.DuckDBPyConnection, sources: list[SourceFile], formats: dict[str, Format]
) -> None:
    """Refuse token counts past ``MAX_TOKENS``: summed in 64 bits they could wrap around. A
    native file gets its schema's message with the line; others the staged run's line."""
    row = first_row(con, load_sql("token_limits"), {"limit": MAX_TOKENS})
    if not row:
        return
    source_file, line, run_id, field_name, value = row
    source = next((s for s in sources if s.display == source_file), None)
    schema = getattr(formats.get(source_file), "schema", None)
    if source is not None and isinstance(schema, str):
        problem = first_problem(source.path, source.display, source.lines, schema)
        if problem is not None:
            raise problem
    raise InputError(
        source_file,
        f"{value} is over the {MAX_TOKENS:,} tokens reportgen stores per count and per run"
        f" (run {run_id})",
        line=line,
        field=field_name,
    )


def _remove_archive(path: Path) -> None:
    """Delete a draft archive this call alone created (its name is unique to this process)."""
    for leftover in (path, path.with_name(path.name + ".wal")):
        leftover.unlink(missing_ok=True)
