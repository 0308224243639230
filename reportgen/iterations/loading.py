"""Which runs a command reports on: ingest the given files, then read their runs' progress."""

from __future__ import annotations

from pathlib import Path

import duckdb

from reportgen.archive import connect
from reportgen.errors import InputError
from reportgen.formats.source import discover, measure
from reportgen.ingest import ingest
from reportgen.iterations.analysis import analyse
from reportgen.iterations.model import RunProgress

_MAX_RECORD_BYTES = 16 << 20


def load_progress(
    paths: list[Path], db: Path, run_ids: list[str], *, min_stalled: int
) -> list[RunProgress]:
    """Ingest ``paths`` into ``db`` (files already there are skipped), then analyse the runs
    those files hold (all runs in ``db`` when no paths), narrowed to ``run_ids`` if given."""
    if paths:
        ingest(paths, db)
    con = connect(db, read_only=True)  # "no archive here" when there is none
    try:
        selected = _runs_of(con, paths) if paths else None
        if run_ids:
            missing = sorted(set(run_ids) - set(_all_runs(con)))
            if missing:
                raise InputError(str(db), f"no iteration records for run {missing[0]!r}")
            selected = [r for r in run_ids if selected is None or r in selected]
        if selected is not None and not selected:
            where = ", ".join(str(p) for p in paths[:3])
            raise InputError(where, "no iteration records in these files")
        runs = analyse(con, selected, min_stalled=min_stalled)
    finally:
        con.close()
    if not runs:
        raise InputError(str(db), "no iteration records in this archive")
    return runs


def _runs_of(con: duckdb.DuckDBPyConnection, paths: list[Path]) -> list[str]:
    """Run ids of the iteration records in ``paths``, found by content hash (a file ingested
    earlier under another name counts too)."""
    hashes = [measure(p, d, _MAX_RECORD_BYTES).content_hash for p, d in discover(paths)]
    rows = con.execute(
        "SELECT DISTINCT run_id FROM iterations WHERE content_hash IN (SELECT unnest($h))"
        " ORDER BY run_id",
        {"h": hashes},
    ).fetchall()
    return [r[0] for r in rows]


def _all_runs(con: duckdb.DuckDBPyConnection) -> list[str]:
    return [r[0] for r in con.execute("SELECT DISTINCT run_id FROM iterations").fetchall()]
