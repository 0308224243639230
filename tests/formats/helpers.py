"""Shared bits of the adapter tests: where the shared real-world data lives, and a loader."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest

from reportgen.ingest.loader import ingest

DATA = Path(__file__).parents[2].parent / "shared" / "data"
FIXTURES = Path(__file__).parent / "fixtures"
needs_data = pytest.mark.skipif(
    not DATA.is_dir(), reason=f"shared real-world traces not found at {DATA}"
)


def load(tmp_path: Path, *paths: Path | str, **options: Any) -> duckdb.DuckDBPyConnection:
    """Ingest ``paths`` into a fresh archive under tmp_path and open it."""
    db = tmp_path / "archive.duckdb"
    ingest([str(p) for p in paths], db, **options)
    return duckdb.connect(str(db))


def per_run(con: duckdb.DuckDBPyConnection, where: str = "true") -> list[tuple[Any, ...]]:
    """(task_id, trial, steps, tool errors, retries) per run, sorted."""
    return con.execute(
        f"""
        SELECT r.task_id, r.trial, r.n_steps,
               count(s.idx) FILTER (WHERE s.type = 'tool' AND s.status = 'error'),
               count(s.idx) FILTER (WHERE s.status = 'retry')
        FROM runs r LEFT JOIN steps s USING (run_id)
        WHERE {where}
        GROUP BY ALL ORDER BY ALL
        """
    ).fetchall()


def totals(con: duckdb.DuckDBPyConnection) -> tuple[int, int]:
    """(runs, steps) in the archive."""
    row = con.execute("SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM steps)").fetchone()
    assert row is not None
    return int(row[0]), int(row[1])
