"""Open the archive (an embedded DuckDB file) with the schema in place."""

from __future__ import annotations

import os
import re
import stat
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import duckdb

from reportgen._sql import load_sql
from reportgen.archive.canonical import register_canonical
from reportgen.archive.parquet import open_parquet, parquet_location
from reportgen.errors import InputError

DEFAULT_DB = "reportgen.duckdb"
SCHEMA_VERSION = "2"  # 2: steps.signature and steps.payload (step_hashes.sql)
# A DuckDB file has "DUCK" at bytes 8-11 (after the header checksum).
DUCKDB_MAGIC = b"DUCK"
DUCKDB_MAGIC_END = 12
LEFT = "the file is left untouched"
_VERSIONED = re.compile(
    r"(runs|steps|iterations|outputs|files|loads|suite_notes|archive_info)_v\d+"
)
TABLES = ("runs", "steps", "iterations", "outputs", "files", "loads", "suite_notes")


def duckdb_path(path: str | Path) -> Path:
    """The absolute path DuckDB is given for ``path`` (an archive, or a file COPY writes). A
    ``~`` is not expanded (a quoted ``--db '~/x'`` means a folder named ``~``, as in the
    shell): DuckDB would expand a leading one itself, so it never sees a relative path."""
    return Path(os.path.abspath(os.fspath(path)))


def connect(
    path: str | Path | None = None, *, read_only: bool = False, display: str | None = None
) -> duckdb.DuckDBPyConnection:
    """Connect to the archive at ``path`` (``None``: in memory), creating the schema if needed.

    This is the one place archives are opened, so it is where a file is refused, untouched,
    when it is not a DuckDB file, is a DuckDB file with other tables, was written by a newer
    reportgen, is in use by another writer, or is damaged (every block of an existing archive is read
    and checked). ``display`` names the file in errors (default: ``path`` as given).

    Sessions run in UTC so that dates (batches) never depend on the machine's zone. An archive
    whose stored step hashes are missing or were computed by a different hash function is
    brought up to date first, also when opened read-only (through a short writable session)."""
    if path is None:
        return new_session(":memory:")
    name = str(path) if display is None else display
    if parquet_location(path) is not None:  # a Parquet archive folder (archive/parquet.py)
        if not read_only:
            raise InputError(name, "a Parquet archive is written by `reportgen ingest` only")
        return open_parquet(path, display=name)
    file = duckdb_path(path)
    exists = _check_file(file, name)
    if read_only and not exists:
        raise InputError(name, "no archive here; run `reportgen ingest` first")
    if not exists and not file.parent.is_dir():
        raise InputError(name, f"folder {file.parent} does not exist")
    con = _open(str(file), read_only, name)
    try:
        if not exists:  # a new file: the schema as this version writes it, nothing to check
            _create_schema(con, fresh=True)
            return con
        empty = _check_layout(con, name)
        if read_only and empty:
            raise InputError(name, "an empty DuckDB file, not an archive; run `reportgen ingest`")
        if not read_only:
            verify_blocks(con, name)  # never add to a damaged archive
            _create_schema(con)
            return con
        stale = not _step_hashes_current(con) or not _has_added_columns(con)
        if not stale:
            verify_blocks(con, name)
            return con
    except duckdb.Error as exc:
        con.close()
        raise damaged(name, exc) from None
    except BaseException:
        con.close()
        raise
    con.close()
    try:
        connect(path, display=name).close()
    except InputError as exc:
        raise InputError(
            name,
            "the archive's step hashes must be computed for this version of reportgen and "
            f"DuckDB, which needs it writable once: {exc.message}",
        ) from None
    return connect(path, read_only=True, display=name)


def new_session(name: str) -> duckdb.DuckDBPyConnection:
    """An in-memory session in UTC holding the (empty) archive schema: a one-off archive, or
    the tables a Parquet archive's views replace."""
    con = _open(":memory:", False, name)
    _create_schema(con, fresh=True)
    return con


def _create_schema(con: duckdb.DuckDBPyConnection, *, fresh: bool = False) -> None:
    """Create the archive tables where missing and bring the step hashes up to date;
    ``fresh``: in a new, empty database, whose schema.sql tables have every column and no
    step yet (so only the schema version and the hash probe are to record)."""
    con.execute(load_sql("schema"))
    if fresh:
        con.execute(
            "INSERT INTO archive_info VALUES ('schema_version', ?), ('step_hashes', ?)",
            [SCHEMA_VERSION, step_hash_probe(con)],
        )
        return
    for table, column, kind in ADDED_COLUMNS:  # archives made before the column existed
        con.execute(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {column} {kind}")
    con.execute("INSERT OR IGNORE INTO archive_info VALUES ('schema_version', ?)", [SCHEMA_VERSION])
    _refresh_step_hashes(con)


ADDED_COLUMNS = (
    ("iterations", "backlog_steps", "INTEGER"),
    ("steps", "error", "VARCHAR"),
    ("runs", "error_kind", "VARCHAR"),
    ("runs", "error_reason", "VARCHAR"),
    ("runs", "cache_read_tokens", "BIGINT"),
    ("runs", "cache_write_tokens", "BIGINT"),
    ("runs", "reasoning_tokens", "BIGINT"),
    ("runs", "cost_recomputed_usd", "DOUBLE"),
    ("steps", "cache_read_tokens", "BIGINT"),
    ("steps", "cache_write_tokens", "BIGINT"),
    ("steps", "reasoning_tokens", "BIGINT"),
)
"""Nullable columns added to the schema after version 2; connect adds them to older archives
(writable once, as for the step hashes)."""


def _has_added_columns(con: duckdb.DuckDBPyConnection) -> bool:
    """False when a reportgen archive lacks one of ``ADDED_COLUMNS``."""
    present = {(t, c) for t, c, _, _ in con.execute(load_sql("archive_columns")).fetchall()}
    tables = {t for t, _ in present}
    return all((t, c) in present for t, c, _ in ADDED_COLUMNS if t in tables)


def _check_file(file: Path, name: str) -> bool:
    """False when nothing is at ``file``; True for a regular file that starts like a DuckDB
    database; an InputError for anything else (which is then never opened, so never changed)."""
    try:
        info = file.stat()
    except FileNotFoundError:
        if file.is_symlink():
            raise InputError(name, "a dangling symlink, not an archive") from None
        return False
    except OSError as exc:
        raise InputError(name, f"cannot use as an archive: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError(name, "not a regular file, so not an archive; the file is left untouched")
    try:
        with file.open("rb") as handle:
            header = handle.read(DUCKDB_MAGIC_END)
    except OSError as exc:
        raise InputError(name, f"cannot read: {exc.strerror}") from None
    if header[DUCKDB_MAGIC_END - len(DUCKDB_MAGIC) :] != DUCKDB_MAGIC:
        raise InputError(
            name, "not a DuckDB archive (an existing file of another kind); it is left untouched"
        )
    return True


def _check_layout(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    """True for an empty DuckDB file, False for a reportgen archive this version can use; an
    InputError for other DuckDB files and for archives of a newer schema (never written to)."""
    columns: dict[str, dict[str, tuple[bool, bool]]] = {}
    for table, column, nullable, has_default in con.execute(load_sql("archive_columns")).fetchall():
        columns.setdefault(table, {})[column] = (bool(nullable), bool(has_default))
    if not columns:
        return True
    if "archive_info" not in columns:
        shown = ", ".join(sorted(columns)[:5])
        raise InputError(
            name,
            f"a DuckDB file that is not a reportgen archive (tables: {shown}); it is left untouched",
        )
    row = first_row(con, load_sql("schema_version"))
    version = row[0] if row else None
    newer = "written by a newer reportgen"
    if version is not None and not str(version).isdigit():
        raise InputError(name, f"unknown archive schema_version {str(version)[:40]!r}; {LEFT}")
    if version is not None and int(version) > int(SCHEMA_VERSION):
        raise InputError(
            name,
            f"{newer} (archive schema version {int(version)}, this version knows up to "
            f"{SCHEMA_VERSION}); upgrade reportgen; {LEFT}",
        )
    known = _known_columns()
    for table in sorted(columns):
        if table not in known and _VERSIONED.fullmatch(table):
            raise InputError(name, f"{newer} (it has table {table}); upgrade reportgen; {LEFT}")
        for column, (nullable, has_default) in columns[table].items():
            if table in known and column not in known[table] and not nullable and not has_default:
                raise InputError(
                    name,
                    f"{newer} (column {table}.{column} is required and unknown here); "
                    f"upgrade reportgen; {LEFT}",
                )
    return False


@cache
def _known_columns() -> dict[str, frozenset[str]]:
    """The columns of every table of this version's schema (schema.sql in a scratch database)."""
    con = duckdb.connect(":memory:")
    try:
        con.execute(load_sql("schema"))
        known: dict[str, set[str]] = {}
        for table, column, _, _ in con.execute(load_sql("archive_columns")).fetchall():
            known.setdefault(table, set()).add(column)
    finally:
        con.close()
    known["steps"] |= {"signature", "payload"}
    return {table: frozenset(cols) for table, cols in known.items()}


def verify_blocks(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """Read every value of every archive table, so a damaged (truncated, bit-flipped) archive
    is one clear error now rather than a DuckDB exception deep inside a report."""
    try:
        present = {r[0] for r in con.execute(load_sql("archive_columns")).fetchall()}
        for table in TABLES:
            if table in present:
                con.execute(load_sql("verify_table"), {"name": table}).fetchall()
    except duckdb.Error as exc:
        raise damaged(name, exc) from None


def damaged(name: str, exc: BaseException) -> InputError:
    """The one-line error for a DuckDB failure on an archive file: damaged, full disk, busy."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    text = re.sub(r"^[A-Za-z ]*Error: ", "", text)
    if "Could not set lock" in text:
        pid = re.search(r"\(PID (\d+)\)", text)
        return in_use(name, pid[1] if pid else None)
    if "No space left" in text or "ENOSPC" in text:
        return InputError(
            name, f"no space left on the device; the archive is unchanged ({text[:160]})"
        )
    if (
        "Corrupt database" in text
        or "Could not read enough bytes" in text
        or "not a valid DuckDB" in text
    ):
        return InputError(name, f"the archive file is damaged (truncated or corrupt): {text[:160]}")
    return InputError(name, f"cannot use the archive: {text[:200]}")


def in_use(name: str, pid: str | None) -> InputError:
    """The error for an archive another process is writing (``pid``: that process, if known)."""
    held = f" (process {pid})" if pid else ""
    return InputError(
        name,
        f"the archive is in use by another writer{held}; DuckDB allows one at a time, "
        "try again when it is done",
    )


MEMORY_LIMIT_ENV = "REPORTGEN_DUCKDB_MEMORY_LIMIT"
TEMP_DIRECTORY_ENV = "REPORTGEN_DUCKDB_TEMP_DIRECTORY"
MEMORY_FRACTION = 0.5
"""DuckDB's memory limit by default: this share of the machine's memory (or of the cgroup's
limit, when lower); the rest is for what reportgen holds in Python and Arrow."""


def memory_limit() -> str:
    """DuckDB's ``memory_limit`` for every session: ``REPORTGEN_DUCKDB_MEMORY_LIMIT`` as
    DuckDB reads it (``4GB``, ``800MB``), else MEMORY_FRACTION of the memory available."""
    given = os.environ.get(MEMORY_LIMIT_ENV, "").strip()
    if given:
        return given
    available = [os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")]
    try:
        with open("/sys/fs/cgroup/memory.max", encoding="ascii") as limit:
            text = limit.read().strip()
        if text.isdigit():
            available.append(int(text))
    except OSError:
        pass
    return f"{max(1, int(min(available) * MEMORY_FRACTION) >> 20)}MB"


def temp_directory() -> str:
    """Where DuckDB spills what passes its memory limit: ``REPORTGEN_DUCKDB_TEMP_DIRECTORY``,
    else a folder of this process in the system's temporary directory (DuckDB creates it on
    the first spill and removes it when the session closes)."""
    given = os.environ.get(TEMP_DIRECTORY_ENV, "").strip()
    if given:
        return given
    return os.path.join(tempfile.gettempdir(), f"reportgen-duckdb-{os.getpid()}")


def _resources(con: duckdb.DuckDBPyConnection) -> None:
    """Bound the session's memory and give it a folder to spill to (memory_limit(),
    temp_directory()); a value DuckDB refuses is a bad input, named by its variable."""
    for setting, value, env in (
        ("memory_limit", memory_limit(), MEMORY_LIMIT_ENV),
        ("temp_directory", temp_directory(), TEMP_DIRECTORY_ENV),
    ):
        try:
            con.execute(f"SET {setting} = ?", [value])
        except duckdb.Error as exc:
            con.close()
            text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise InputError(env, f"DuckDB refuses {setting} {value!r}: {text[:160]}") from None


def _open(target: str, read_only: bool, name: str) -> duckdb.DuckDBPyConnection:
    """A session on ``target`` in UTC, with the step hash macros defined and its memory
    bounded (:func:`memory_limit`, spilling to :func:`temp_directory`). DuckDB's own
    progress bar stays off: the CLI draws its own (rich), and --quiet means quiet."""
    try:
        con = duckdb.connect(target, read_only=read_only)
    except duckdb.Error as exc:
        raise damaged(name, exc) from None
    _resources(con)
    try:
        con.execute("SET TimeZone = 'UTC'")
        con.execute("SET enable_progress_bar = false")
        define_step_hashes(con)
    except duckdb.Error as exc:
        con.close()
        raise damaged(name, exc) from None
    return con


def define_step_hashes(con: duckdb.DuckDBPyConnection) -> None:
    """Define the step hash macros (step_hashes.sql) and the canonical JSON function they
    call on ``con``; harmless to repeat."""
    register_canonical(con)
    con.execute(load_sql("step_hashes"))


def step_hash_probe(con: duckdb.DuckDBPyConnection) -> str:
    """The step hashes of fixed values under this DuckDB (step_hashes_probe.sql)."""
    row = first_row(con, load_sql("step_hashes_probe"))
    return str(row[0]) if row else ""


def _step_hashes_current(con: duckdb.DuckDBPyConnection) -> bool:
    """False when a reportgen archive lacks the stored step hashes or they were computed by a
    different hash function; True otherwise (also for a file that is no archive at all)."""
    if first_row(con, "SELECT 1 FROM duckdb_tables() WHERE table_name = 'archive_info'") is None:
        return True
    stored = first_row(con, "SELECT value FROM archive_info WHERE key = 'step_hashes'")
    return stored is not None and stored[0] == step_hash_probe(con)


def _refresh_step_hashes(con: duckdb.DuckDBPyConnection) -> None:
    """Add and compute the stored step hashes where they are missing or stale."""
    if not _step_hashes_current(con):
        recompute_step_hashes(con)


def recompute_step_hashes(con: duckdb.DuckDBPyConnection) -> None:
    """Compute every step's stored hashes with this DuckDB and record which function made
    them (also after rows were copied in from elsewhere, e.g. a restored snapshot)."""
    for column in ("signature", "payload"):
        con.execute(f"ALTER TABLE steps ADD COLUMN IF NOT EXISTS {column} UBIGINT")
    con.execute(load_sql("step_hashes_update"))
    con.execute(
        "INSERT OR REPLACE INTO archive_info VALUES ('step_hashes', ?), ('schema_version', ?)",
        [step_hash_probe(con), SCHEMA_VERSION],
    )


def first_row(
    con: duckdb.DuckDBPyConnection, sql: str, params: object = None
) -> tuple[Any, ...] | None:
    """The first row of a query, reading the result to its end: DuckDB refuses some calls
    (registering a UDF) while a result is left half-read, as ``fetchone`` leaves it."""
    rows = (
        con.execute(sql, params).fetchall() if params is not None else con.execute(sql).fetchall()
    )
    return rows[0] if rows else None


def table_counts(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """Row count of every archive table, for summaries and for tests that the archive is intact."""
    counts: dict[str, int] = {}
    for table in TABLES:
        row = first_row(con, f"SELECT count(*) FROM {table}")
        counts[table] = int(row[0]) if row else 0
    return counts


def bound_memory(con: duckdb.DuckDBPyConnection, megabytes: int) -> None:
    """Lower the session's memory limit to ``megabytes`` for a load or a restore (unless set
    by REPORTGEN_DUCKDB_MEMORY_LIMIT, or lower already)."""
    if os.environ.get(MEMORY_LIMIT_ENV, "").strip():
        return
    share = memory_limit()
    if share.endswith("MB") and share[:-2].isdigit() and int(share[:-2]) <= megabytes:
        return
    con.execute(f"SET memory_limit = '{int(megabytes)}MB'")
