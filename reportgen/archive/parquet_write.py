"""Writing a Parquet archive, all or nothing: new files beside the live ones, then one atomic
manifest swap (``os.replace``). A writer holds ``.lock`` (``flock``, released when its process
dies); it first removes what a killed writer left (files no manifest lists), so a crashed
ingest leaves the archive as it was and the next one cleans up.

An ingest runs the ordinary loader on an in-memory DuckDB holding the archive's runs,
iterations, outputs and small tables, and an empty ``steps`` table for the new steps (steps
are the bulk, read only where a run is replaced). Publishing rewrites the partitions whose rows
changed (found by a per-partition fingerprint taken before and after the load), appends the
new steps as new files, and rewrites the step files of partitions that lost a replaced run."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote, unquote

import duckdb
import orjson

from reportgen.archive.connection import SCHEMA_VERSION, in_use
from reportgen.archive.parquet import (
    MANIFEST,
    NO_PARTITION,
    PARTITIONED,
    SMALL,
    attach_tables,
    check_step_hashes,
    empty_manifest,
    prepared_session,
    quoted,
    read_manifest,
)
from reportgen.errors import InputError

LOCK = ".lock"
#: How long a file a new manifest no longer lists is kept (seconds): a reader that opened
#: the previous manifest (a ``build`` while ingests replace runs) still reads it meanwhile.
RETIRED_GRACE_S = 900.0
T = TypeVar("T")
Opener = Callable[[], duckdb.DuckDBPyConnection]
_LOADED = ("runs", "iterations", "outputs", *SMALL)  # held in memory by a writer
_ORDER = {
    "runs": "run_id",
    "steps": "run_id, idx",
    "iterations": "run_id, iter",
    "outputs": "run_id, suite, label, task_id, batch, trial, content_hash, output",
    "files": "content_hash",
    "loads": "load_id",
    "suite_notes": "suite, path, content_hash",
    "archive_info": "key",
}


def _key(table: str, runs: str) -> str:
    """The SELECT of ``table``'s rows (alias t) with their partition (suite, batch)."""
    if table in ("runs", "outputs"):
        return f"SELECT t.*, t.suite AS rg_suite, t.batch AS rg_batch FROM {table} t"
    return (
        f"SELECT t.*, coalesce(k.suite, '{NO_PARTITION}') AS rg_suite,"
        f" coalesce(k.batch, '{NO_PARTITION}') AS rg_batch"
        f" FROM {table} t LEFT JOIN {runs} k USING (run_id)"
    )


def _fingerprint(con: duckdb.DuckDBPyConnection, table: str, runs: str, into: str) -> None:
    """Per partition of ``table``: its row count and the sum of its rows' hashes."""
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE {into} AS SELECT rg_suite, rg_batch, count(*) AS n,"
        f" sum(rg_h::HUGEINT) AS h FROM ({_hashed(table, runs)}) GROUP BY ALL"
    )


def _hashed(table: str, runs: str) -> str:
    """Each row of ``table`` as its hash and partition."""
    if table in ("runs", "outputs"):
        return f"SELECT hash(t) AS rg_h, t.suite AS rg_suite, t.batch AS rg_batch FROM {table} t"
    return (
        f"SELECT hash(t) AS rg_h, coalesce(k.suite, '{NO_PARTITION}') AS rg_suite,"
        f" coalesce(k.batch, '{NO_PARTITION}') AS rg_batch"
        f" FROM {table} t LEFT JOIN {runs} k USING (run_id)"
    )


@contextlib.contextmanager
def locked(root: Path, name: str) -> Iterator[None]:
    """Hold the archive's write lock, or raise the same error as a DuckDB archive in use."""
    fd = os.open(root / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        pid = os.pread(fd, 32, 0).decode(errors="replace").strip()
        os.close(fd)
        raise in_use(name, pid if pid.isdigit() else None) from None
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)


def listed(manifest: dict[str, Any]) -> set[str]:
    """Every file the manifest lists, as paths relative to the archive folder."""
    return {e["path"] for entries in manifest["tables"].values() for e in entries}


def retired(manifest: dict[str, Any], now: float) -> dict[str, float]:
    """The files earlier manifests listed and this one retired less than
    :data:`RETIRED_GRACE_S` ago (path -> when), kept for readers of those manifests."""
    found = manifest.get("retired")
    if not isinstance(found, dict):
        return {}
    return {
        str(path): float(at)
        for path, at in found.items()
        if isinstance(at, (int, float)) and now - float(at) < RETIRED_GRACE_S
    }


def remove_strays(root: Path, manifest: dict[str, Any]) -> int:
    """Delete what writers that died left (files no manifest lists nor recently retired,
    staging folders, unswapped manifests); return how many files went. Call with the lock
    held. Never through a symlink:
    a table folder that is one (``steps -> /bigdisk/steps``) may hold anyone's files, so
    nothing in it is deleted; symlinked folders inside are not entered."""
    keep = listed(manifest) | set(retired(manifest, time.time()))
    gone = 0
    for entry in os.listdir(root):
        path = root / entry
        if path.is_symlink():
            continue
        if entry.startswith(".stage-") and path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        elif entry.startswith(".manifest-"):
            path.unlink(missing_ok=True)
        elif entry in (*PARTITIONED, *SMALL) and path.is_dir():
            for folder, dirs, files in os.walk(path, topdown=False, followlinks=False):
                for file in files:
                    relative = os.path.relpath(os.path.join(folder, file), root)
                    if relative not in keep:
                        os.unlink(os.path.join(folder, file))
                        gone += 1
                for sub in dirs:
                    with contextlib.suppress(OSError):
                        os.rmdir(os.path.join(folder, sub))  # only when empty
    return gone


@contextlib.contextmanager
def writing(
    location: str, name: str, *, refuse_existing: str | None = None
) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Hold the write lock of the Parquet archive at ``location`` (created when missing: its
    parent must exist) with what dead writers left removed; yield its folder and manifest. A
    folder this created is removed again when no manifest was published in it.
    ``refuse_existing``: the error for an archive that already has a manifest."""
    if "://" in location:
        raise InputError(
            name, "remote archives are read-only here; ingest into a local folder and copy it"
        )
    root = Path(location)
    created = not root.exists()
    if created:
        if not root.parent.is_dir():
            raise InputError(name, f"folder {root.parent} does not exist")
        root.mkdir()
    elif not root.is_dir():
        raise InputError(name, "not a folder, so not a Parquet archive; it is left untouched")
    elif not (root / MANIFEST).exists():
        _refuse_foreign(root, name)
    try:
        with locked(root, name):
            manifest = read_manifest(location, name, missing_ok=True)
            if refuse_existing and (root / MANIFEST).exists():
                raise InputError(name, refuse_existing)
            remove_strays(root, manifest)
            yield root, manifest
    finally:
        if created and not (root / MANIFEST).exists():
            (root / LOCK).unlink(missing_ok=True)
            with contextlib.suppress(OSError):
                root.rmdir()


def _refuse_foreign(root: Path, name: str) -> None:
    """Refuse a folder without a manifest that holds other things than a dead writer's files
    (e.g. the traces folder given as --db by mistake): nothing is written into it."""
    ours = {LOCK, *PARTITIONED, *SMALL}
    other = sorted(
        e for e in os.listdir(root) if e not in ours and not e.startswith((".stage-", ".manifest-"))
    )
    if other:
        raise InputError(
            name,
            f"a folder that is not a reportgen archive (no {MANIFEST}; it holds {other[0]!r}); "
            "it is left untouched",
        )


def ingest_parquet(
    location: str,
    name: str,
    load: Callable[[Opener], T],
    loaded: Callable[[T], bool],
    *,
    refuse_existing: str | None = None,
) -> T:
    """Run ``load`` (the loader, given the opener of the writer's connection) on the Parquet
    archive at ``location`` and publish what it wrote when ``loaded(result)``."""
    with writing(location, name, refuse_existing=refuse_existing) as (root, manifest):
        con = _writer(location, manifest, name)
        try:
            result = load(lambda: con)
            if loaded(result):
                publish(con, root, manifest, changed_only=True)
        finally:
            con.close()
    return result


def _writer(location: str, manifest: dict[str, Any], name: str) -> duckdb.DuckDBPyConnection:
    """The writer's session: the archive's tables but steps in memory, their fingerprints
    and the runs as they were (temp tables rg_fp_*, rg_old_runs)."""
    with prepared_session(name) as con:
        if manifest["tables"]["archive_info"]:
            con.execute("DELETE FROM archive_info")
        attach_tables(con, location, manifest, name, tables=_LOADED, materialise=True)
        check_step_hashes(con, name)
        con.execute(
            "CREATE TEMP TABLE rg_old_runs AS SELECT run_id, content_hash, suite, batch FROM runs"
        )
        for table in ("runs", "iterations", "outputs"):
            _fingerprint(con, table, "rg_old_runs", f"rg_fp_{table}")
    return con


def _changed(con: duckdb.DuckDBPyConnection, table: str) -> None:
    """Temp table rg_changed: the partitions of ``table`` whose rows the load changed."""
    _fingerprint(con, table, "runs", "rg_fp_new")
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE rg_changed AS SELECT coalesce(a.rg_suite, b.rg_suite)"
        f" AS rg_suite, coalesce(a.rg_batch, b.rg_batch) AS rg_batch FROM rg_fp_{table} a"
        f" FULL JOIN rg_fp_new b USING (rg_suite, rg_batch)"
        f" WHERE a.n IS DISTINCT FROM b.n OR a.h IS DISTINCT FROM b.h"
    )


def publish(
    con: duckdb.DuckDBPyConnection,
    root: Path,
    manifest: dict[str, Any],
    *,
    changed_only: bool,
) -> dict[str, Any]:
    """Write the tables of ``con`` into the archive folder ``root`` and swap in the new
    manifest. ``changed_only`` (an ingest's writer): only the partitions whose rows changed,
    the steps in ``con`` being the new ones; else (a new archive) every row of ``con``."""
    generation = int(manifest.get("generation", 0)) + 1
    token = f"g{generation:06d}-{uuid.uuid4().hex[:10]}"
    stage = root / f".stage-{token}"
    stage.mkdir()
    old = manifest["tables"] if changed_only else empty_manifest()["tables"]
    tables: dict[str, list[dict[str, Any]]] = {}
    for table in ("runs", "iterations", "outputs"):
        where = ""
        if changed_only:
            _changed(con, table)
            where = " WHERE (rg_suite, rg_batch) IN (SELECT (rg_suite, rg_batch) FROM rg_changed)"
            gone = {tuple(r) for r in con.execute("SELECT * FROM rg_changed").fetchall()}
        else:
            gone = set()
        keep = [e for e in old[table] if (e["suite"], e["batch"]) not in gone]
        tables[table] = keep + _write_partitioned(con, table, stage, token, where)
    tables["steps"] = _steps(con, stage, token, old["steps"], changed_only)
    if changed_only:
        con.execute(
            "INSERT OR REPLACE INTO archive_info VALUES ('schema_version', ?)", [SCHEMA_VERSION]
        )
    for table in SMALL:
        target = stage / table / f"part-{token}.parquet"
        target.parent.mkdir()
        _copy(con, f"SELECT * FROM {table} ORDER BY {_ORDER[table]}", target)
        tables[table] = [_entry(stage, target)]
    for entries in tables.values():
        for entry in entries:
            moved = stage / entry["path"]
            if moved.exists():
                (root / entry["path"]).parent.mkdir(parents=True, exist_ok=True)
                os.replace(moved, root / entry["path"])
    new = {**empty_manifest(), "generation": generation, "tables": tables}
    now = time.time()
    still = listed(new)
    leaving = {path: now for path in listed(manifest) - still}
    leaving |= {p: at for p, at in retired(manifest, now).items() if p not in still}
    if leaving:  # kept a while for readers of the manifest being replaced
        new["retired"] = dict(sorted(leaving.items()))
    swap_manifest(root, new, token)
    shutil.rmtree(stage, ignore_errors=True)
    return new


def _steps(
    con: duckdb.DuckDBPyConnection,
    stage: Path,
    token: str,
    old: list[dict[str, Any]],
    changed_only: bool,
) -> list[dict[str, Any]]:
    """The step files of the new manifest: the old ones, less those of partitions that lost a
    replaced or deleted run (rewritten without its steps), plus the new steps."""
    added = _write_partitioned(con, "steps", stage, token, "")  # first: COPY wants a new folder
    keep = list(old)
    if changed_only:
        con.execute(
            "CREATE OR REPLACE TEMP TABLE rg_removed AS SELECT o.run_id, o.suite, o.batch"
            " FROM rg_old_runs o ANTI JOIN runs r USING (run_id, content_hash)"
        )
        hit = {
            tuple(r) for r in con.execute("SELECT DISTINCT suite, batch FROM rg_removed").fetchall()
        }
        keep = [e for e in old if (e["suite"], e["batch"]) not in hit]
        for n, (suite, batch) in enumerate(sorted(hit)):
            files = [
                str(stage.parent / e["path"])
                for e in old
                if (e["suite"], e["batch"]) == (suite, batch)
            ]
            if not files:
                continue
            target = stage / "steps" / _partition(suite, batch) / f"part-{token}-r{n}.parquet"
            target.parent.mkdir(parents=True, exist_ok=True)
            source = (
                "read_parquet([" + ", ".join(quoted(f) for f in files) + "], union_by_name = true)"
            )
            _copy(
                con,
                f"SELECT * FROM {source} WHERE run_id NOT IN (SELECT run_id FROM rg_removed)"
                f" ORDER BY {_ORDER['steps']}",
                target,
            )
            entry = _entry(stage, target, suite, batch)
            if entry["rows"]:
                keep.append(entry)
            else:
                target.unlink()
    return keep + added


def _partition(suite: str, batch: str) -> str:
    """A partition's folder, percent-encoded as DuckDB's hive writer encodes it."""
    return f"suite={_encoded(suite)}/batch={_encoded(batch)}"


def _encoded(value: str) -> str:
    """A partition value in a folder name: percent-encoded, and a leading ``_`` or ``.`` too
    (Spark and Hadoop skip such names as hidden), as DuckDB writes it."""
    text = quote(value, safe="")
    return f"%{ord(text[0]):02X}{text[1:]}" if text[:1] in ("_", ".") else text


def _write_partitioned(
    con: duckdb.DuckDBPyConnection, table: str, stage: Path, token: str, where: str
) -> list[dict[str, Any]]:
    """Write the rows of ``table`` (those ``where`` keeps) as one file per partition under
    ``stage/table``; return their manifest entries."""
    folder = stage / table
    keep_columns = table in ("runs", "outputs")
    select = (
        f"SELECT * EXCLUDE (rg_suite, rg_batch), rg_suite AS suite, rg_batch AS batch FROM"
        f" ({_key(table, 'runs')}){where} ORDER BY {_ORDER[table]}"
    )
    if keep_columns:  # the partition columns are the table's own
        select = f"SELECT * EXCLUDE (rg_suite, rg_batch) FROM ({_key(table, 'runs')}){where}" + (
            f" ORDER BY {_ORDER[table]}"
        )
    con.execute(
        f"COPY ({select}) TO {quoted(str(folder))} (FORMAT parquet, COMPRESSION zstd,"
        f" PARTITION_BY (suite, batch), WRITE_PARTITION_COLUMNS {str(keep_columns).lower()},"
        f" FILENAME_PATTERN 'part-{token}-{{i}}')"
    )
    entries = []
    if folder.is_dir():
        for path in sorted(folder.rglob("*.parquet")):
            suite_dir, batch_dir = path.relative_to(folder).parts[:2]
            entries.append(
                _entry(
                    stage,
                    path,
                    unquote(suite_dir[len("suite=") :]),
                    unquote(batch_dir[len("batch=") :]),
                )
            )
    return entries


def _copy(con: duckdb.DuckDBPyConnection, select: str, target: Path) -> None:
    con.execute(f"COPY ({select}) TO {quoted(str(target))} (FORMAT parquet, COMPRESSION zstd)")


def _entry(
    stage: Path, path: Path, suite: str | None = None, batch: str | None = None
) -> dict[str, Any]:
    """A file's manifest entry: its path in the archive, partition, rows and bytes."""
    import pyarrow.parquet as pq

    entry: dict[str, Any] = {
        "path": path.relative_to(stage).as_posix(),
        "rows": int(pq.read_metadata(path).num_rows),
        "bytes": path.stat().st_size,
    }
    if suite is not None:
        entry["suite"], entry["batch"] = suite, batch
    return entry


def swap_manifest(root: Path, manifest: dict[str, Any], token: str) -> None:
    """Publish ``manifest``: written beside, flushed, then renamed over the live one."""
    draft = root / f".manifest-{token}.json"
    with draft.open("wb") as handle:
        handle.write(orjson.dumps(manifest, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(draft, root / MANIFEST)
    fd = os.open(root, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
